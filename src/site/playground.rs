//! The playground: a page whose template is `playground.html` runs the engine in the
//! reader's browser. When a site has one, every scenario figure links to it with its
//! scenario, and its scripts and the engine module, `retrylab.wasm`, are written beside
//! the pages. The binary carries the module (`scripts/build-wasm.sh` builds it into
//! `defaults/`, with a manifest of its sources that `cargo test` checks), so every site
//! gets the engine of the very binary that computed its articles.

use std::path::Path;

use crate::chart::table::escape;
use crate::diag::{Diagnostic, Failure};
use crate::engine::units::{Micros, format_duration};

use super::config::Config;
use super::output::Staging;
use super::page::Page;

/// The template that makes a page the playground.
pub const TEMPLATE: &str = "playground.html";

/// The scripts the playground page loads, by their name in the output: the loader of
/// the WebAssembly module, the reader that fills the form before it has loaded, the
/// page, and its workers', which run a scenario's runs on every core.
pub const SCRIPTS: &[(&str, &str)] = &[
    ("playground.js", include_str!("defaults/playground.js")),
    (
        "playground-yaml.js",
        include_str!("defaults/playground-yaml.js"),
    ),
    (
        "playground-page.js",
        include_str!("defaults/playground-page.js"),
    ),
    (
        "playground-worker.js",
        include_str!("defaults/playground-worker.js"),
    ),
];

/// The script that gives the page the engine's defaults, for the keys a scenario leaves
/// out, before the engine has loaded.
pub const DEFAULTS_SCRIPT: &str = "playground-defaults.js";

/// `export const DEFAULTS = …;`: the settings of a scenario that says nothing but its
/// required `clients`, as the engine fills them in (the same JSON as the module's
/// `settings`), so the page never keeps its own copy of a default.
fn defaults_script() -> String {
    let settings = crate::wasm_api::settings("clients: 1\n");
    format!(
        "// The engine's defaults, written by the site's build.\nexport const DEFAULTS = {settings};\n"
    )
}

/// The script that gives the page every scenario figure of the site, by id: a link on
/// the playground page to a figure (`article.md#sim-ID`) becomes a preset button that
/// loads its scenario, as the figure's try-it link would.
pub const SCENARIOS_SCRIPT: &str = "playground-scenarios.js";

/// A scenario figure of the site, as its try-it link gives it to the playground.
#[derive(Clone, Debug)]
pub struct Figure<'a> {
    /// The scenario's id: the figure's anchor is `sim-{id}`.
    pub id: &'a str,
    /// The scenario's YAML as the author wrote it.
    pub source: &'a str,
    /// The window the figure shows, in µs.
    pub window: Micros,
}

/// `export const SCENARIOS = {"ID": {"yaml": …, "window": "6s"}, …};`: each figure's
/// scenario as its author wrote it and the window its figure shows, so that a preset
/// runs exactly what the article's figure shows. A site's ids are unique, so each id
/// names one figure.
fn scenarios_script(figures: &[Figure]) -> String {
    let all: serde_json::Map<String, serde_json::Value> = figures
        .iter()
        .map(|f| {
            let figure = serde_json::json!({"yaml": f.source, "window": format_duration(f.window)});
            (f.id.to_string(), figure)
        })
        .collect();
    format!(
        "// Every scenario figure of the site, by id, written by the site's build.\nexport const SCENARIOS = {};\n",
        serde_json::Value::Object(all)
    )
}

/// The name of the engine compiled to WebAssembly in the site's output.
pub const MODULE: &str = "retrylab.wasm";

/// The engine compiled to WebAssembly, built from this binary's engine sources.
pub const MODULE_BYTES: &[u8] = include_bytes!("defaults/retrylab.wasm");

/// What [`MODULE_BYTES`] was built from: its hash and size, the compiler, each workspace
/// source with the SHA-256 of its text, each registry crate with its version.
pub const MANIFEST: &str = include_str!("defaults/retrylab.wasm.manifest");

/// The address of the site's playground page, if it has one.
pub fn address(pages: &[Page], config: &Config) -> Option<String> {
    pages
        .iter()
        .find(|p| p.front.template.as_deref() == Some(TEMPLATE))
        .map(|p| format!("{}{}", config.base_path, p.url))
}

/// The "try it" link under a scenario's figure: the playground with the scenario's
/// YAML, as the author wrote it, in the address (`?s=`, base64url of its UTF-8), and
/// the window the figure shows (`&w=`), so the playground's chart shows the same ticks
/// when the scenario names no window of its own.
pub fn try_it(address: &str, source: &str, window: Micros) -> String {
    format!(
        "<p class=\"sim-try\"><a href=\"{}?s={}&amp;w={}\">Try this scenario in the playground</a>: change it and run it in your browser.</p>\n",
        escape(address),
        base64url(source.as_bytes()),
        format_duration(window)
    )
}

/// Writes the playground's scripts, unless `static/` brought its own, the scenarios of
/// the site's `figures` for its presets, and the engine module. A different module in `static/` is refused: the playground promises the
/// articles' numbers, which only the engine that computed them can keep (and a copy
/// left there by an earlier, separate build step would silently go stale).
pub fn write_files(staging: &Staging, root: &Path, figures: &[Figure]) -> Result<(), Failure> {
    for (name, text) in SCRIPTS {
        if !staging.has(name) {
            staging.write(name, text.as_bytes())?;
        }
    }
    staging.write(DEFAULTS_SCRIPT, defaults_script().as_bytes())?;
    staging.write(SCENARIOS_SCRIPT, scenarios_script(figures).as_bytes())?;
    write_module(staging, root)
}

/// Writes the engine module, unless it is written already (by the playground's files
/// or an explorable page's). A different module in `static/` is refused, as in
/// [`write_files`].
pub fn write_module(staging: &Staging, root: &Path) -> Result<(), Failure> {
    let own = root.join("static").join(MODULE);
    if own.is_file() {
        let bytes = std::fs::read(&own)
            .map_err(|e| Failure::Other(format!("cannot read {}: {e}", own.display())))?;
        if bytes != MODULE_BYTES {
            return Err(Failure::Input(vec![Diagnostic::in_file(
                &format!("static/{MODULE}"),
                "this file would replace the playground's engine, which retrylab carries and writes into every site".to_string(),
            )
            .with_help(Some(
                format!("delete static/{MODULE}: the playground must run the engine that computed the articles (earlier versions of scripts/build-wasm.sh put a copy there)"),
            ))]));
        }
    }
    staging.write(MODULE, MODULE_BYTES)
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648, section 5).
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_follows_the_rfc() {
        // RFC 4648, section 10, without padding.
        let cases = [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ];
        for (text, encoded) in cases {
            assert_eq!(base64url(text.as_bytes()), encoded);
        }
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
    }

    #[test]
    fn the_defaults_are_the_engines() {
        let script = defaults_script();
        let json = script
            .strip_prefix(
                "// The engine's defaults, written by the site's build.\nexport const DEFAULTS = ",
            )
            .and_then(|s| s.strip_suffix(";\n"))
            .expect("one exported constant");
        let defaults: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(defaults["server"]["tick"], "100ms");
        assert_eq!(defaults["id"], crate::wasm_api::DEFAULT_ID);
        assert!(defaults.get("errors").is_none(), "{script}");
    }

    #[test]
    fn the_presets_are_the_figures_scenarios_as_written() {
        let figures = [
            Figure {
                id: "crowd",
                source: "id: crowd\nclients: 100 # a \"crowd\"\n",
                window: 6_000_000,
            },
            Figure {
                id: "b",
                source: "id: b\nclients: 1\n",
                window: 250_000,
            },
        ];
        assert_eq!(
            scenarios_script(&figures),
            "// Every scenario figure of the site, by id, written by the site's build.\nexport const SCENARIOS = {\"b\":{\"window\":\"250ms\",\"yaml\":\"id: b\\nclients: 1\\n\"},\"crowd\":{\"window\":\"6s\",\"yaml\":\"id: crowd\\nclients: 100 # a \\\"crowd\\\"\\n\"}};\n"
        );
    }

    #[test]
    fn the_link_carries_the_scenario() {
        assert_eq!(
            try_it("/retrylab/playground/", "id: a\n", 1_500_000),
            "<p class=\"sim-try\"><a href=\"/retrylab/playground/?s=aWQ6IGEK&amp;w=1.5s\">Try this scenario in the playground</a>: change it and run it in your browser.</p>\n"
        );
    }
}
