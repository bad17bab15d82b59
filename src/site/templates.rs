//! Tera templates: the defaults carried in the binary, overridden by the site's own
//! `templates/` file of the same name.
//!
//! The built-in look is this repository's `templates/` and `static/`: the binary
//! carries those files, and `retrylab init --templates` copies them into a site. The
//! repository being a site itself, they are also its own overrides, the same bytes.

use std::collections::BTreeMap;
use std::path::Path;

use tera::Tera;

use crate::diag::{Diagnostic, Failure};

/// The built-in templates, by name.
pub const DEFAULTS: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/base.html")),
    ("page.html", include_str!("../../templates/page.html")),
    ("index.html", include_str!("../../templates/index.html")),
    ("404.html", include_str!("../../templates/404.html")),
    (
        "playground.html",
        include_str!("../../templates/playground.html"),
    ),
];

/// The built-in stylesheets, by name, in the order the base template links them: the
/// site's styles, the figures' (charts and tables) and the code's colours. Each is
/// written unless `static/` has its own, so a site replaces one and keeps the others.
pub const SHEETS: &[(&str, &str)] = &[
    ("style.css", include_str!("../../static/style.css")),
    ("chart.css", crate::chart::CSS),
    (HIGHLIGHT_CSS, include_str!("../../static/highlight.css")),
];

/// The stylesheet of the code's colours, made from the themes by
/// [`super::highlight::css`]; a test holds the committed file to it.
pub const HIGHLIGHT_CSS: &str = "highlight.css";

/// The built-in favicon, written unless `static/` has a `favicon.svg`.
pub const FAVICON: &str = include_str!("../../static/favicon.svg");

/// The built-in stylesheet of the site's own styles, `style.css`; the figures' and the
/// code's are sheets of their own (see [`SHEETS`]).
pub fn default_css() -> &'static str {
    SHEETS[0].1
}

/// The built-in stylesheets besides `style.css` (which the defaults' writer writes
/// with the favicon), each unless `static/` brought its own.
pub(super) fn write_sheets(staging: &super::output::Staging) -> Result<(), Failure> {
    for (name, text) in &SHEETS[1..] {
        if !staging.has(name) {
            staging.write(name, text.as_bytes())?;
        }
    }
    Ok(())
}

/// The site's templates, and what each one's own text says of the page around a body.
pub struct Templates {
    /// The templates, ready to render.
    pub tera: Tera,
    /// For each template, what its own text says.
    written: BTreeMap<String, Written>,
}

/// What a template's own text says of the page around a body.
struct Written {
    /// The ids it writes as they are (`id="main"`).
    ids: Vec<String>,
    /// The template it extends.
    parent: Option<String>,
    /// Whether it writes a `<main>` element.
    main: bool,
    /// The templates it includes.
    included: Vec<String>,
}

impl Templates {
    /// The ids that a page rendered with `name` gets from its templates, the ones it
    /// extends included: no heading or footnote of the page may take them.
    pub fn ids_of(&self, name: &str) -> Vec<String> {
        let mut ids = Vec::new();
        let mut seen = Vec::new();
        let mut next = Some(name);
        // `seen` stops a template that extends itself, which Tera refuses anyway.
        while let Some(name) = next.filter(|n| !seen.contains(n)) {
            seen.push(name);
            let Some(written) = self.written.get(name) else {
                break;
            };
            ids.extend(written.ids.iter().cloned());
            next = written.parent.as_deref();
        }
        ids
    }

    /// Whether a page rendered with `name` has a `<main>` element written in its
    /// templates' text: its own, the ones it extends and the ones they include (true
    /// for a template that is not there, which is a problem of its own).
    pub fn has_main(&self, name: &str) -> bool {
        if !self.written.contains_key(name) {
            return true;
        }
        let mut todo = vec![name];
        let mut seen = Vec::new();
        while let Some(name) = todo.pop() {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name);
            let Some(written) = self.written.get(name) else {
                continue;
            };
            if written.main {
                return true;
            }
            todo.extend(written.included.iter().map(String::as_str));
            todo.extend(written.parent.as_deref());
        }
        false
    }
}

/// Whether a template's text writes a `<main>` element, and the templates its
/// `{% include %}` tags name.
fn mains(text: &str) -> (bool, Vec<String>) {
    let lower = text.to_ascii_lowercase();
    let main = lower.match_indices("<main").any(|(at, tag)| {
        lower[at + tag.len()..].starts_with(|c: char| c == '>' || c.is_ascii_whitespace())
    });
    (main, named(text, "include"))
}

/// The template a page is rendered with: its front matter's, else the home page's or
/// the ordinary page's.
pub fn of_page(page: &super::page::Page) -> &str {
    match &page.front.template {
        Some(t) => t.as_str(),
        None if page.is_home() => "index.html",
        None => "page.html",
    }
}

/// The ids written literally in a template's text (`id="main"`, not one built from
/// `{{ … }}`), and the template named by its `{% extends %}`.
fn written(text: &str) -> (Vec<String>, Option<String>) {
    let mut ids = Vec::new();
    for quote in ['"', '\''] {
        for rest in text.split(&format!(" id={quote}")).skip(1) {
            if let Some((id, _)) = rest.split_once(quote)
                && !id.is_empty()
                && !id.contains(['{', '}', '<', '>'])
            {
                ids.push(id.to_string());
            }
        }
    }
    let parent = named(text, "extends").into_iter().next();
    (ids, parent)
}

/// The templates that `{% keyword … %}` tags of `text` name (`{%- extends "base.html"
/// %}`, `{% include ["a.html", "b.html"] %}`), in order; names built from variables
/// are not known.
fn named(text: &str, keyword: &str) -> Vec<String> {
    let mut names = Vec::new();
    for tag in text.split("{%").skip(1) {
        let tag = tag.split("%}").next().unwrap_or_default();
        let Some(rest) = tag
            .trim_start_matches('-')
            .trim_start()
            .strip_prefix(keyword)
        else {
            continue;
        };
        if !rest.starts_with([' ', '\t', '\n', '\r', '"', '\'', '`', '[']) {
            continue;
        }
        let rest = rest.trim_start();
        let list = rest.strip_prefix('[');
        let mut rest = list.unwrap_or(rest).trim_start();
        while let Some(quote) = rest
            .chars()
            .next()
            .filter(|c| matches!(c, '"' | '\'' | '`'))
        {
            let Some((name, after)) = rest[1..].split_once(quote) else {
                break;
            };
            names.push(name.to_string());
            if list.is_none() {
                break;
            }
            rest = after.trim_start().trim_start_matches(',').trim_start();
        }
    }
    names
}

/// Loads the defaults, then every `*.html` under `root/templates`, which replace a
/// default of the same name or add a new template.
pub fn load(root: &Path) -> Result<Templates, Failure> {
    compile(sources(root)?)
}

/// The templates' texts by name: the defaults, replaced or joined by every `*.html`
/// under `root/templates`.
pub fn sources(root: &Path) -> Result<Vec<(String, String)>, Failure> {
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
    Ok(templates)
}

/// The templates of [`sources`], ready to render.
pub fn compile(templates: Vec<(String, String)>) -> Result<Templates, Failure> {
    let written = templates
        .iter()
        .map(|(name, text)| {
            let ((ids, parent), (main, included)) = (written(text), mains(text));
            let what = Written {
                ids,
                parent,
                main,
                included,
            };
            (name.clone(), what)
        })
        .collect();
    let mut tera = Tera::default();
    tera.autoescape_on(vec![".html"]);
    // Tera's default also escapes `/`, which makes every address unreadable.
    tera.set_escape_fn(crate::chart::table::escape);
    tera.add_raw_templates(templates)
        .map_err(|e| Failure::Input(vec![Diagnostic::in_file("templates/", describe(&e))]))?;
    Ok(Templates { tera, written })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ids_a_template_writes_and_the_one_it_extends() {
        let (ids, parent) = written(
            "{% extends \"base.html\" %}<main id=\"main\"><p id='x'>\
             <h2 id=\"{{ id }}\"></h2><b id=\"\">",
        );
        assert_eq!(ids, ["main", "x"]);
        assert_eq!(parent.as_deref(), Some("base.html"));
        assert_eq!(written("<p>no ids</p>"), (vec![], None));
    }

    #[test]
    fn the_code_colours_are_the_themes() {
        // static/highlight.css is what the themes give; after a change of theme or of
        // how the colours are made readable, write it anew with
        // `RETRYLAB_WRITE_HIGHLIGHT=1 cargo test --lib the_code_colours_are_the_themes`.
        let made = super::super::highlight::css();
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("static")
            .join(HIGHLIGHT_CSS);
        if std::env::var_os("RETRYLAB_WRITE_HIGHLIGHT").is_some() {
            std::fs::write(&path, &made).unwrap();
        }
        let committed = std::fs::read_to_string(&path)
            .unwrap()
            .replace("\r\n", "\n");
        assert!(
            committed == made,
            "static/{HIGHLIGHT_CSS} is not what the themes give; write it with \
             RETRYLAB_WRITE_HIGHLIGHT=1 cargo test --lib the_code_colours_are_the_themes"
        );
        assert_eq!(SHEETS[0].0, "style.css");
        assert!(SHEETS.iter().any(|(name, _)| *name == HIGHLIGHT_CSS));
    }

    #[test]
    fn a_page_gets_the_ids_of_its_template_and_of_the_ones_it_extends() {
        let site = tempfile::tempdir().unwrap();
        let templates = load(site.path()).unwrap();
        assert_eq!(
            templates.ids_of("page.html"),
            ["site-search-input", "nav-articles", "nav-reference", "main"]
        );
        let home = templates.ids_of("index.html");
        assert!(home.contains(&"articles-heading".to_string()));
        assert!(home.contains(&"main".to_string()));
        assert!(templates.ids_of("missing.html").is_empty());
    }

    #[test]
    fn a_template_has_a_main_of_its_own_of_its_parents_or_of_what_it_includes() {
        let templates = compile(vec![
            (
                "base.html".into(),
                "<MAIN\n class=x>{% block b %}{% endblock b %}</MAIN>".into(),
            ),
            (
                "child.html".into(),
                "{% extends \"base.html\" %}{% block b %}x{% endblock b %}".into(),
            ),
            (
                "bare.html".into(),
                "<mainly>{{ page.content }}</mainly><!-- main -->".into(),
            ),
            ("part.html".into(), "<main>{{ page.content }}</main>".into()),
            (
                "whole.html".into(),
                "<body>{%- include 'part.html' -%}</body>".into(),
            ),
            ("loop.html".into(), "{% include \"loop2.html\" %}".into()),
            ("tight.html".into(), "{%-extends \"base.html\"-%}".into()),
            (
                "listed.html".into(),
                "{% include [\"gone.html\", 'part.html'] ignore missing %}".into(),
            ),
            (
                "included.html".into(),
                "{% raw %}{% includes 'part.html' %}{% endraw %}".into(),
            ),
            ("loop2.html".into(), "{% include \"loop.html\" %}".into()),
        ])
        .unwrap();
        for (name, main) in [
            ("base.html", true),
            ("child.html", true),
            ("bare.html", false),
            ("whole.html", true),
            ("loop.html", false),
            ("tight.html", true),
            ("listed.html", true),
            ("included.html", false),
            ("missing.html", true),
        ] {
            assert_eq!(templates.has_main(name), main, "{name}");
        }
        assert!(
            load(tempfile::tempdir().unwrap().path())
                .unwrap()
                .has_main("page.html")
        );
    }
}
