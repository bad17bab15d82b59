//! Code blocks highlighted at build time: syntect marks tokens with `hl-` classes, and
//! the stylesheet colours them with one theme for light pages and one for dark ones.
//! Classes rather than inline colours, so that the theme can follow the reader's choice.

use std::sync::OnceLock;

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
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// The HTML of a code block's lines in `language` (a fence's info word such as `rust`,
/// `yaml` or `sh`), or `None` when no syntax knows the language.
pub fn highlight(code: &str, language: &str) -> Option<String> {
    let set = syntaxes();
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

/// The stylesheet of the token classes: the light theme unless the page is dark (by the
/// system's setting or the reader's choice), the dark theme when it is. The two are kept
/// apart so that a token one theme leaves plain never takes the other theme's colour.
pub fn css() -> String {
    let themes = ThemeSet::load_defaults();
    let light = scoped(
        &themes.themes[LIGHT],
        ":root:not([data-theme=\"dark\"])",
        "light",
    );
    let dark = scoped(
        &themes.themes[DARK],
        ":root:not([data-theme=\"light\"])",
        "dark",
    );
    format!(
        "/* Code highlighting: {LIGHT} (light), {DARK} (dark). */\n\
         @media not (prefers-color-scheme: dark) {{\n{}}}\n{}\
         @media (prefers-color-scheme: dark) {{\n{}}}\n{}",
        light.0, light.1, dark.0, dark.1
    )
}

/// A theme's rules twice: under the system setting unless the reader chose otherwise,
/// and under the reader's explicit choice of `name`.
fn scoped(theme: &syntect::highlighting::Theme, system: &str, name: &str) -> (String, String) {
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
                by_system.push_str(line.trim());
                by_choice.push_str(line.trim());
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
    fn both_themes_are_scoped() {
        let css = css();
        assert!(css.contains(":root[data-theme=\"dark\"] .hl-"));
        assert!(css.contains(":root[data-theme=\"light\"] .hl-"));
        assert!(!css.contains("background-color"));
        assert_eq!(css.matches('{').count(), css.matches('}').count());
    }
}
