//! Code blocks highlighted at build time: syntect marks tokens with `hl-` classes, and
//! the stylesheet colours them with one theme for light pages and one for dark ones.
//! Classes rather than inline colours, so that the theme can follow the reader's choice.
//! The syntaxes are bat's (the `two-face` crate), which know TOML, shell sessions,
//! TypeScript, Dockerfiles and more that syntect's own set leaves plain; the themes stay
//! syntect's, so the stylesheet (whose rules come from the themes alone) does not grow
//! with the syntaxes. syntect reads them with Oniguruma, the regular expressions they
//! were written for: with the pure-Rust engine, two-face has to leave out the syntaxes
//! that engine cannot read, PowerShell among them.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use syntect::highlighting::ThemeSet;
use syntect::html::{ClassStyle, ClassedHTMLGenerator, css_for_theme_with_class_style};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

const CLASSES: ClassStyle = ClassStyle::SpacedPrefixed { prefix: "hl-" };
const LIGHT: &str = "InspiredGitHub";
const DARK: &str = "base16-ocean.dark";

/// Loaded on first use: a site without code blocks never pays for it.
fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(two_face::syntax::extra_newlines)
}

/// The language a fence's info string names: its first word, before any space, `,` or
/// `{` (`rust,ignore`, `rust,linenos`, `python {.class}` are Rust, Rust and Python).
pub fn language_of(info: &str) -> &str {
    info.split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .find(|word| !word.is_empty())
        .unwrap_or("")
}

/// Names authors write for a language that the syntaxes know by another: GitHub's
/// `console` and `shell` for a terminal session, PowerShell's own short names.
const ALIASES: &[(&str, &str)] = &[
    ("console", "bash"),
    ("shell", "bash"),
    ("shell-session", "bash"),
    ("shellsession", "bash"),
    ("terminal", "bash"),
    ("pwsh", "powershell"),
    ("ps1", "powershell"),
    ("docker", "dockerfile"),
    ("terraform", "hcl"),
];

/// The HTML of a code block's lines in `language` (a fence's info word such as `rust`,
/// `yaml` or `sh`), or `None` when no syntax knows the language.
pub fn highlight(code: &str, language: &str) -> Option<String> {
    let set = syntaxes();
    let language = ALIASES
        .iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(language))
        .map_or(language, |(_, name)| name);
    let syntax = set
        .find_syntax_by_token(language)
        .or_else(|| set.find_syntax_by_extension(language))?;
    let mut generator = ClassedHTMLGenerator::new_with_class_style(syntax, set, CLASSES);
    for line in LinesWithEndings::from(code) {
        generator
            .parse_html_for_line_which_includes_newline(line)
            .ok()?;
    }
    Some(generator.finalize())
}

/// Highlighted code kept from one build for the next (`serve`'s): [`highlight`] is a
/// function of the code and its language alone, so the HTML is found by both and is
/// the same bytes. After each build only what that build highlighted is kept.
#[derive(Default)]
pub struct Kept {
    /// What the last build highlighted, by language and code.
    last: HashMap<(String, String), Option<String>>,
    /// What this build has highlighted so far.
    used: Mutex<HashMap<(String, String), Option<String>>>,
}

impl Kept {
    /// [`highlight`], or what the last build found for the same code and language.
    pub fn highlight(&self, code: &str, language: &str) -> Option<String> {
        let key = (language.to_string(), code.to_string());
        let html = match self.last.get(&key) {
            Some(html) => html.clone(),
            None => highlight(code, language),
        };
        self.used
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, html.clone());
        html
    }

    /// Ends a build: what it highlighted is what the next one may reuse.
    pub fn rotate(&mut self) {
        let used = self
            .used
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.last = std::mem::take(used);
    }
}

/// The stylesheet of the token classes: the light theme unless the page is dark (by the
/// system's setting or the reader's choice), the dark theme when it is. The two are kept
/// apart so that a token one theme leaves plain never takes the other theme's colour.
pub fn css() -> String {
    let themes = ThemeSet::load_defaults();
    let light = scoped(
        &themes.themes[LIGHT],
        ":root:not([data-theme=\"dark\"])",
        "light",
        LIGHT_CODE_BG,
    );
    let dark = scoped(
        &themes.themes[DARK],
        ":root:not([data-theme=\"light\"])",
        "dark",
        DARK_CODE_BG,
    );
    format!(
        "/* Code highlighting: {LIGHT} (light), {DARK} (dark). */\n\
         @media not (prefers-color-scheme: dark) {{\n{}}}\n{}\
         @media (prefers-color-scheme: dark) {{\n{}}}\n{}",
        light.0, light.1, dark.0, dark.1
    )
}

/// The code blocks' background in each theme (`--code-bg` of the built-in stylesheet).
const LIGHT_CODE_BG: [u8; 3] = [0xf3, 0xf5, 0xf7];
const DARK_CODE_BG: [u8; 3] = [0x1b, 0x20, 0x26];

/// WCAG's relative luminance of an sRGB colour.
fn luminance(rgb: [u8; 3]) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(rgb[0]) + 0.7152 * channel(rgb[1]) + 0.0722 * channel(rgb[2])
}

/// WCAG's contrast ratio of two colours.
fn contrast(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The colour, moved towards black (on a light background) or white (on a dark one)
/// in small steps until it reads at 4.5:1 against `background`. The themes were made
/// for their own backgrounds; on the page's they must still pass WCAG AA.
fn readable(rgb: [u8; 3], background: [u8; 3]) -> [u8; 3] {
    let target = if luminance(background) > 0.5 {
        0.0
    } else {
        255.0
    };
    let mut colour = rgb;
    for step in 1..=20 {
        if contrast(colour, background) >= 4.5 {
            break;
        }
        let t = f64::from(step) / 20.0;
        colour = rgb.map(|c| (f64::from(c) + (target - f64::from(c)) * t).round() as u8);
    }
    colour
}

/// A `color: #rrggbb;` declaration made readable against `background`; other lines as
/// they are.
fn readable_line(line: &str, background: [u8; 3]) -> String {
    let Some(hex) = line
        .trim()
        .strip_prefix("color: #")
        .and_then(|rest| rest.strip_suffix(';'))
        .filter(|hex| hex.len() == 6)
    else {
        return line.trim().to_string();
    };
    let Ok(value) = u32::from_str_radix(hex, 16) else {
        return line.trim().to_string();
    };
    let rgb = [(value >> 16) as u8, (value >> 8) as u8, value as u8];
    let [r, g, b] = readable(rgb, background);
    format!("color: #{r:02x}{g:02x}{b:02x};")
}

/// A theme's rules twice: under the system setting unless the reader chose otherwise,
/// and under the reader's explicit choice of `name`; every colour readable on
/// `background`.
fn scoped(
    theme: &syntect::highlighting::Theme,
    system: &str,
    name: &str,
    background: [u8; 3],
) -> (String, String) {
    let css = css_for_theme_with_class_style(theme, CLASSES).unwrap_or_default();
    let chosen = format!(":root[data-theme=\"{name}\"]");
    let (mut by_system, mut by_choice) = (String::new(), String::new());
    for line in css.lines() {
        // The block's own background stays the stylesheet's, so code blocks match the
        // page in both themes.
        if line.trim_start().starts_with("background-color") || line.starts_with("/*") {
            continue;
        }
        if line.starts_with(" *") || line.starts_with(" */") || line.is_empty() {
            continue;
        }
        match line.strip_suffix(" {") {
            Some(selectors) => {
                let prefix = |scope: &str| {
                    selectors
                        .split(", ")
                        .map(|s| format!("{scope} {s}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                by_system.push_str(&format!("{} {{", prefix(system)));
                by_choice.push_str(&format!("{} {{", prefix(&chosen)));
            }
            None => {
                let line = readable_line(line, background);
                by_system.push_str(&line);
                by_choice.push_str(&line);
                if line == "}" {
                    by_system.push('\n');
                    by_choice.push('\n');
                }
            }
        }
    }
    (by_system, by_choice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_languages_get_classes_and_unknown_ones_none() {
        let html = highlight("fn main() {}\n", "rust").unwrap();
        assert!(
            html.contains("<span class=\"hl-source hl-rust\">"),
            "{html}"
        );
        assert!(html.contains("<span class=\"hl-storage hl-type hl-function hl-rust\">fn</span>"));
        assert_eq!(highlight("x\n", "no-such-language"), None);
    }

    #[test]
    fn the_languages_authors_write_most_are_highlighted() {
        let samples = [
            ("toml", "[package]\nname = \"x\"\n"),
            ("sh", "echo \"$HOME\"\n"),
            ("bash", "if [ -f x ]; then echo y; fi\n"),
            ("shell", "export A=1\n"),
            ("console", "$ cargo run\n"),
            ("typescript", "const x: number = 1;\n"),
            ("ts", "let y: string = 'a';\n"),
            ("tsx", "const a = <div>hi</div>;\n"),
            ("dockerfile", "FROM rust:1.89\nRUN cargo build\n"),
            ("ini", "[section]\nkey = value\n"),
            ("kotlin", "fun main() { println(1) }\n"),
            ("swift", "let x: Int = 1\n"),
            ("scss", "$c: red;\n.a { color: $c; }\n"),
            ("hcl", "resource \"a\" \"b\" {\n  count = 1\n}\n"),
            ("powershell", "Get-ChildItem -Path .\n"),
            ("pwsh", "$x = 1\n"),
            ("nix", "{ pkgs }: pkgs.hello\n"),
            ("zig", "const std = @import(\"std\");\n"),
        ];
        for (language, code) in samples {
            let html = highlight(code, language).unwrap_or_else(|| panic!("{language}"));
            // More than the one span a syntax puts around the whole block.
            assert!(
                html.matches("<span class=").count() > 2,
                "{language}: {html}"
            );
        }
    }

    #[test]
    fn an_info_string_is_read_by_its_first_word() {
        assert_eq!(language_of("rust,ignore"), "rust");
        assert_eq!(language_of("rust,linenos"), "rust");
        assert_eq!(language_of("python {.class}"), "python");
        assert_eq!(language_of("python{.class}"), "python");
        assert_eq!(language_of("toml title=\"Cargo.toml\""), "toml");
        assert_eq!(language_of(""), "");
    }

    #[test]
    fn every_token_colour_reads_at_four_and_a_half_to_one_on_its_background() {
        let themes = ThemeSet::load_defaults();
        for (theme, background) in [(LIGHT, LIGHT_CODE_BG), (DARK, DARK_CODE_BG)] {
            let (css, _) = scoped(&themes.themes[theme], ":root", "x", background);
            let mut seen = 0;
            for part in css.split("color: #").skip(1) {
                let value = u32::from_str_radix(&part[..6], 16).unwrap();
                let rgb = [(value >> 16) as u8, (value >> 8) as u8, value as u8];
                let ratio = contrast(rgb, background);
                assert!(
                    ratio >= 4.5,
                    "{theme}: #{} reads at {ratio:.2}:1",
                    &part[..6]
                );
                seen += 1;
            }
            assert!(seen > 10, "{theme}");
        }
        assert!((contrast([0, 0, 0], [255, 255, 255]) - 21.0).abs() < 1e-9);
    }

    #[test]
    fn both_themes_are_scoped() {
        let css = css();
        assert!(css.contains(":root[data-theme=\"dark\"] .hl-"));
        assert!(css.contains(":root[data-theme=\"light\"] .hl-"));
        assert!(!css.contains("background-color"));
        assert_eq!(css.matches('{').count(), css.matches('}').count());
    }
}
