//! Tera templates: the defaults carried in the binary, overridden by the site's own
//! `templates/` file of the same name.

use std::path::Path;

use tera::Tera;

use crate::diag::{Diagnostic, Failure};

/// The built-in templates, by name.
pub const DEFAULTS: &[(&str, &str)] = &[
    ("base.html", include_str!("defaults/base.html")),
    ("page.html", include_str!("defaults/page.html")),
    ("index.html", include_str!("defaults/index.html")),
    ("404.html", include_str!("defaults/404.html")),
    ("playground.html", include_str!("defaults/playground.html")),
];

/// The built-in favicon, written unless `static/` has a `favicon.svg`.
pub const FAVICON: &str = include_str!("defaults/favicon.svg");

/// The built-in stylesheet: the page styles, the chart styles and the code colours.
pub fn default_css() -> String {
    format!(
        "{}\n{}\n{}",
        include_str!("defaults/style.css"),
        crate::chart::CSS,
        super::highlight::css()
    )
}

/// Loads the defaults, then every `*.html` under `root/templates`, which replace a
/// default of the same name or add a new template.
pub fn load(root: &Path) -> Result<Tera, Failure> {
    let mut templates: Vec<(String, String)> = DEFAULTS
        .iter()
        .map(|(name, text)| (name.to_string(), text.to_string()))
        .collect();
    let dir = root.join("templates");
    if dir.is_dir() {
        for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let entry =
                entry.map_err(|e| Failure::Other(format!("cannot read templates/: {e}")))?;
            let path = entry.path();
            if !entry.file_type().is_file() || path.extension().is_none_or(|e| e != "html") {
                continue;
            }
            let name = path
                .strip_prefix(&dir)
                .unwrap_or(path)
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read(path)
                .map_err(|e| Failure::Other(format!("cannot read templates/{name}: {e}")))?;
            let text = crate::diag::utf8_or_located(&format!("templates/{name}"), text)?;
            templates.retain(|(n, _)| *n != name);
            templates.push((name, text));
        }
    }
    let mut tera = Tera::default();
    tera.autoescape_on(vec![".html"]);
    // Tera's default also escapes `/`, which makes every address unreadable.
    tera.set_escape_fn(crate::chart::table::escape);
    tera.add_raw_templates(templates)
        .map_err(|e| Failure::Input(vec![Diagnostic::in_file("templates/", describe(&e))]))?;
    Ok(tera)
}

/// A Tera error with its causes, in one line.
pub fn describe(error: &tera::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
