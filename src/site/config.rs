//! `site.yaml`: the site's title, address, output folder and how its Markdown reads.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::meta::Meta;
use crate::diag::{Diagnostic, Failure};

/// The keys of `site.yaml`, with their meaning (also used by the authors' reference).
pub const KEYS: &[(&str, &str)] = &[
    ("title", "the site's name (required)"),
    ("description", "one sentence on what the site is"),
    (
        "base_url",
        "where the site is published, e.g. https://user.github.io/repo/ (default /)",
    ),
    ("language", "the language of the pages (default en)"),
    ("author", "who writes it"),
    (
        "output",
        "the output folder, relative to the site (default public); never the site itself, \
         a folder inside content/, templates/ or static/, or a folder of other files",
    ),
    (
        "footer",
        "the footer's words after the title and author; \"\" for none (default, on a site \
         that runs scenarios: that its charts and tables are simulated when the site is \
         built)",
    ),
    (
        "smart_punctuation",
        "true or false (default true): straight quotes become curly, -- and --- dashes, \
         ... an ellipsis; code and references are never changed",
    ),
    (
        "search",
        "true or false (default true): a search box in the header, and the index it \
         reads written into pagefind/",
    ),
    (
        "external_skip",
        "addresses `check --external` never asks, each the beginning of those it skips \
         (`https://example.org/private/` skips every address below it): a host that \
         refuses programs, a page behind a login",
    ),
];

/// The site's configuration, as templates see it.
#[derive(Clone, Debug, Serialize)]
pub struct Config {
    /// The site's name.
    pub title: String,
    /// One sentence on it.
    pub description: String,
    /// The full address the site is published at, ending in `/`.
    pub base_url: String,
    /// The path part of `base_url`, ending in `/`: what every internal link starts with.
    pub base_path: String,
    /// The pages' language.
    pub language: String,
    /// Whether the site has a search box and writes its index (`search`).
    pub search: bool,
    /// The author.
    pub author: String,
    /// The output folder: `-o` as given (relative to the working folder), or the
    /// `output` of `site.yaml` joined to the site's folder.
    #[serde(skip)]
    pub output: PathBuf,
    /// Where the output folder was chosen, so that an error about it can say where to
    /// change it.
    #[serde(skip)]
    pub output_from: OutputFrom,
    /// Whether quotes, dashes and ellipses become typographic in the pages' text.
    pub smart_punctuation: bool,
    /// The footer's words after the title and author, if `site.yaml` gives them (`""`
    /// for none); else the templates say what holds of the site.
    pub footer: Option<String>,
    /// The beginnings of the addresses `check --external` never asks.
    #[serde(skip)]
    pub external_skip: Vec<String>,
}

impl Config {
    /// Whether `base_url` is an absolute address (`https://example.org/docs/`), as the
    /// sitemap named in `robots.txt`, the feed's links and each page's canonical link
    /// need to be; the default `/` is only a path.
    fn has_absolute_base(&self) -> bool {
        let url = self.base_url.to_ascii_lowercase();
        ["http://", "https://"]
            .iter()
            .any(|scheme| url.len() > scheme.len() && url.starts_with(scheme))
    }
}

/// The note a build prints when the site has no absolute address.
pub fn relative_base_note(config: &Config) -> Option<String> {
    (!config.has_absolute_base()).then(|| {
        format!(
            "note: base_url is `{}`, not an absolute address: the sitemap named in \
             robots.txt, the feed's links and the pages' canonical links are not absolute \
             either, which search engines and feed readers reject; to publish, set base_url \
             in site.yaml or pass `--base-url https://HOST/PATH/` to `retrylab build`",
            config.base_url
        )
    })
}

/// A note when `site.yaml` still holds the description `retrylab init` wrote, which
/// would be published as the site's own words: in the home page's description, its
/// social card and the feed.
pub fn placeholder_note(config: &Config) -> Option<String> {
    (config.description.trim() == super::scaffold::PLACEHOLDER_DESCRIPTION).then(|| {
        format!(
            "note: site.yaml: description is still `{}`, the placeholder `retrylab init` \
             wrote; it is published as the home page's description, on its social card and \
             in the feed: write one sentence on what your site explains",
            super::scaffold::PLACEHOLDER_DESCRIPTION
        )
    })
}

/// Where the output folder was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFrom {
    /// `-o` on the command line, relative to the working folder.
    Flag,
    /// The `output` key of `site.yaml`, relative to the site.
    SiteYaml,
    /// Neither: `public` in the site.
    Default,
}

/// Reads `site.yaml` in `root`. `base_url` and `output` override the file.
pub fn load(root: &Path, base_url: Option<&str>, output: Option<&Path>) -> Result<Config, Failure> {
    let path = root.join("site.yaml");
    let name = "site.yaml";
    let source = std::fs::read(&path).map_err(|e| {
        Failure::Other(format!(
            "cannot read {}: {e} (is {} a retrylab site?)",
            path.display(),
            root.display()
        ))
    })?;
    let source = crate::diag::utf8_or_located(name, source)?;
    let known: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
    let mut meta = Meta::parse(name, &source, &source, 1, &known, "site.yaml");
    let title = meta.text("title");
    if title.is_none() && meta.problems.is_empty() {
        meta.missing("title", "the site's name");
    }
    let base_url = base_url
        .map(str::to_string)
        .or_else(|| meta.text("base_url"))
        .unwrap_or_else(|| "/".to_string());
    let output_key = meta.text("output");
    let config = Config {
        title: title.unwrap_or_default(),
        description: meta.text("description").unwrap_or_default(),
        base_path: base_path(&base_url),
        base_url: with_slash(&base_url),
        language: meta.text("language").unwrap_or_else(|| "en".to_string()),
        search: meta.boolean("search").unwrap_or(true),
        author: meta.text("author").unwrap_or_default(),
        output: match output {
            Some(o) => o.to_path_buf(),
            None => root.join(output_key.as_deref().unwrap_or("public")),
        },
        output_from: match (output, &output_key) {
            (Some(_), _) => OutputFrom::Flag,
            (None, Some(_)) => OutputFrom::SiteYaml,
            (None, None) => OutputFrom::Default,
        },
        smart_punctuation: meta.boolean("smart_punctuation").unwrap_or(true),
        footer: meta.text("footer"),
        external_skip: meta.texts("external_skip"),
    };
    if !meta.problems.is_empty() {
        return Err(Failure::Input(meta.problems));
    }
    if config.base_path.contains(['"', '<', '>', ' ']) {
        return Err(Failure::Input(vec![Diagnostic::in_file(
            name,
            format!("`base_url` is not an address: {}", config.base_url),
        )]));
    }
    Ok(config)
}

fn with_slash(url: &str) -> String {
    if url.ends_with('/') {
        url.to_string()
    } else {
        format!("{url}/")
    }
}

/// The path of an address: `https://x.github.io/repo` → `/repo/`; `/` → `/`.
fn base_path(url: &str) -> String {
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
        None => url,
    };
    let path = with_slash(path);
    if path.starts_with('/') {
        path
    } else {
        format!("/{path}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_paths() {
        assert_eq!(base_path("/"), "/");
        assert_eq!(base_path("https://user.github.io/retrylab/"), "/retrylab/");
        assert_eq!(base_path("https://user.github.io/retrylab"), "/retrylab/");
        assert_eq!(base_path("https://example.com"), "/");
        assert_eq!(base_path("/repo"), "/repo/");
        assert_eq!(base_path("repo/"), "/repo/");
    }

    #[test]
    fn only_an_address_with_a_host_is_absolute() {
        let with = |base_url: &str| Config {
            title: String::new(),
            description: String::new(),
            base_url: with_slash(base_url),
            base_path: base_path(base_url),
            language: String::new(),
            search: true,
            author: String::new(),
            output: PathBuf::new(),
            output_from: OutputFrom::Default,
            smart_punctuation: true,
            footer: None,
            external_skip: Vec::new(),
        };
        for absolute in ["https://user.github.io/retrylab/", "HTTP://example.com"] {
            assert!(with(absolute).has_absolute_base(), "{absolute}");
            assert_eq!(relative_base_note(&with(absolute)), None);
        }
        for relative in ["/", "/repo/", "repo", "https://", "//example.com/"] {
            assert!(!with(relative).has_absolute_base(), "{relative}");
            assert!(relative_base_note(&with(relative)).is_some(), "{relative}");
        }
    }
}
