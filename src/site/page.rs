//! Content pages: Markdown files under `content/` with YAML front matter.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use walkdir::WalkDir;

use super::address;
use super::front_matter;
use super::meta::Meta;
use crate::diag::{Diagnostic, Failure};

/// The keys of front matter, with their meaning (also used by the authors' reference).
pub const FRONT_MATTER: &[(&str, &str)] = &[
    ("title", "the page's title (required)"),
    (
        "description",
        "one sentence for the index, the feed and search engines",
    ),
    ("date", "when it was published, YYYY-MM-DD"),
    (
        "weight",
        "order in the index: lower comes first (then date, then title)",
    ),
    ("draft", "true leaves the page out of the build"),
    ("tags", "a list of words"),
    (
        "template",
        "the template to render it with (default page.html)",
    ),
    (
        "card",
        "the id of a scenario whose small chart illustrates the page in the index",
    ),
    (
        "slug",
        "the last part of the page's address, instead of its file's name",
    ),
    (
        "aliases",
        "old addresses of the page, each written as a page that sends readers on to it",
    ),
    (
        "extra",
        "a map of the author's own keys, free of checks, which templates read as `page.extra`",
    ),
];

/// What a page's front matter says.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FrontMatter {
    /// The title.
    pub title: String,
    /// One sentence on it.
    pub description: String,
    /// `YYYY-MM-DD`, or empty.
    pub date: String,
    /// Its place in the index.
    pub weight: i64,
    /// Left out of the build when true.
    pub draft: bool,
    /// Tags.
    pub tags: Vec<String>,
    /// The template to render it with.
    pub template: Option<String>,
    /// The scenario drawn on the page's card in the index.
    pub card: Option<String>,
    /// The last part of the address, instead of the file's name.
    pub slug: Option<String>,
    /// Old addresses that send readers on to the page, as written.
    pub aliases: Vec<String>,
    /// The author's own keys, for templates.
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// One Markdown file.
#[derive(Clone, Debug)]
pub struct Page {
    /// The file as shown in messages: `content/crowd.md`.
    pub file: String,
    /// The whole text of the file.
    pub source: String,
    /// Byte offset of the Markdown after the front matter.
    pub body_start: usize,
    /// What the front matter says.
    pub front: FrontMatter,
    /// The page's address below the site root, percent-encoded as links carry it:
    /// `crowd/`, `my%20notes/`, or `` for the home page.
    pub url: String,
    /// The folder below the output that holds its `index.html`: the address decoded,
    /// with the file's real name (`my notes/`).
    pub folder: String,
    /// The files below the output that send readers on from the page's old addresses
    /// (`old/index.html`), one per alias.
    pub aliases: Vec<String>,
}

impl Page {
    /// The Markdown after the front matter.
    pub fn body(&self) -> &str {
        &self.source[self.body_start..]
    }

    /// Whether this is the site's home page (`content/index.md`).
    pub fn is_home(&self) -> bool {
        self.url.is_empty()
    }
}

/// Reads every `.md` file under `root/content`, in a stable order. Drafts are left out
/// unless `drafts` is set. Pages with problems are left out and their problems returned;
/// so is every address that two pages, or a page and another file of the output
/// (`static/`, the built-in files), would share, but such pages stay, so that `check`
/// still resolves the links to them.
pub fn load_all(root: &Path, drafts: bool) -> Result<(Vec<Page>, Vec<Diagnostic>), Failure> {
    let (content, problems) = load_content(root, drafts)?;
    Ok((content.pages, problems))
}

/// What `content/` and `static/` hold for the output.
#[derive(Clone, Debug, Default)]
pub struct Content {
    /// The pages.
    pub pages: Vec<Page>,
    /// The other files of `content/`, copied beside their pages.
    pub files: Vec<Copied>,
    /// The files of `static/`, by their path below it.
    pub statics: Vec<String>,
    /// The drafts left out of the build: a source only a draft cites is still cited.
    pub drafts: Vec<Page>,
}

/// A file of `content/` that is no page: a picture, a download, data beside a page.
/// It keeps its path below `content/` in the output, so that a relative link from the
/// page's file leads to it (see [`super::links`]).
#[derive(Clone, Debug)]
pub struct Copied {
    /// Its path below `content/`, which is also its path below the output: `sub/pic.png`.
    pub path: String,
    /// The file to read: itself, or what its symbolic link leads to inside `content/`.
    pub from: PathBuf,
}

impl Content {
    /// Every file below `content/` that the site publishes → its address,
    /// percent-encoded: a page's (`crowd/`), or a copied file's path (`sub/pic.png`).
    pub fn addresses(&self) -> BTreeMap<String, String> {
        let pages = self.pages.iter().map(|p| {
            let path = p.file.strip_prefix("content/").unwrap_or(&p.file);
            (path.to_string(), p.url.clone())
        });
        let files = self
            .files
            .iter()
            .map(|f| (f.path.clone(), address::encode(&f.path)));
        files.chain(pages).collect()
    }
}

/// Reads `content/` (as [`load_all`]) and lists the files the build copies: those of
/// `static/`, and every file of `content/` that is not Markdown, but for hidden ones
/// (a name starting with `.`, as `.DS_Store` or the build's own `.retrylab-…`) and
/// those in the folder of a draft left out. A symbolic link is followed when it leads
/// to a file inside `content/`, and refused otherwise.
pub fn load_content(root: &Path, drafts: bool) -> Result<(Content, Vec<Diagnostic>), Failure> {
    let content = root.join("content");
    if !content.is_dir() {
        return Err(Failure::Other(format!(
            "there is no content/ folder in {}",
            root.display()
        )));
    }
    let mut pages = Vec::new();
    let mut problems = Vec::new();
    let mut others = Vec::new();
    // The folders of drafts left out (`a/` for `a/index.md`): their files stay out too.
    let mut left_out: Vec<String> = Vec::new();
    let mut drafts_left_out = Vec::new();
    for entry in WalkDir::new(&content).sort_by_file_name() {
        let entry = entry.map_err(|e| Failure::Other(format!("cannot read content/: {e}")))?;
        let path = entry.path();
        if entry.file_type().is_dir() {
            continue;
        }
        if path.extension().is_none_or(|e| e != "md") {
            others.push(entry);
            continue;
        }
        if !entry.file_type().is_file() {
            continue;
        }
        let relative = path.strip_prefix(root).unwrap_or(path);
        let file = relative.to_string_lossy().replace('\\', "/");
        let folder = match address::folder_of(&file, path.strip_prefix(&content).unwrap_or(path)) {
            Ok(folder) => folder,
            Err(mut problem) => {
                problems.append(&mut problem);
                continue;
            }
        };
        let source =
            std::fs::read(path).map_err(|e| Failure::Other(format!("cannot read {file}: {e}")))?;
        let url = address::encode(&folder);
        match crate::diag::utf8_or_located(&file, source).and_then(|s| read_page(file, s, url)) {
            Ok(page) if page.front.draft && !drafts => {
                if path.file_name().is_some_and(|n| n == "index.md") && !folder.is_empty() {
                    left_out.push(folder);
                }
                drafts_left_out.push(page);
            }
            Ok(page) => pages.push(page),
            Err(mut p) => problems.append(&mut p),
        }
    }
    let mut files = Vec::new();
    for entry in others {
        match copied(&content, &entry) {
            Ok(Some(file)) if !left_out.iter().any(|f| file.path.starts_with(f.as_str())) => {
                files.push(file);
            }
            Ok(_) => {}
            Err(mut problem) => problems.append(&mut problem),
        }
    }
    let statics = static_files(root)?;
    let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    problems.extend(address::conflicts(&pages, &paths, &statics));
    Ok((
        Content {
            pages,
            files,
            statics,
            drafts: drafts_left_out,
        },
        problems,
    ))
}

/// A file of `content/` that is no page, as the build copies it: `None` for a hidden
/// one, a problem for a name that cannot be an address or a link that leads out.
fn copied(content: &Path, entry: &walkdir::DirEntry) -> Result<Option<Copied>, Vec<Diagnostic>> {
    let path = entry.path();
    let relative = path.strip_prefix(content).unwrap_or(path);
    let shown = format!("content/{}", relative.to_string_lossy().replace('\\', "/"));
    let mut parts = Vec::new();
    for component in relative.components() {
        let std::path::Component::Normal(name) = component else {
            return Ok(None);
        };
        let Some(name) = name.to_str() else {
            return Err(vec![
                Diagnostic::in_file(
                    &shown,
                    "the file's path is not UTF-8 text, so it cannot be an address".to_string(),
                )
                .with_help(Some("rename the file or its folder".to_string())),
            ]);
        };
        if name.starts_with('.') {
            return Ok(None);
        }
        parts.push(name);
    }
    let from = if entry.path_is_symlink() {
        let leads_out = || {
            vec![Diagnostic::in_file(
                &shown,
                "the symbolic link leads to no file inside content/".to_string(),
            )
            .with_help(Some(
                "a link in content/ must lead to a file in content/; copy the file here, or put it in static/".to_string(),
            ))]
        };
        let target = std::fs::canonicalize(path).map_err(|_| leads_out())?;
        let inside = std::fs::canonicalize(content).is_ok_and(|c| target.starts_with(c));
        if !inside || !target.is_file() {
            return Err(leads_out());
        }
        target
    } else if entry.file_type().is_file() {
        path.to_path_buf()
    } else {
        // A socket or a device: nothing a site publishes.
        return Ok(None);
    };
    Ok(Some(Copied {
        path: parts.join("/"),
        from,
    }))
}

/// The files of `root/static`, by their path below it, as the build copies them.
fn static_files(root: &Path) -> Result<Vec<String>, Failure> {
    let from = root.join("static");
    if !from.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for entry in WalkDir::new(&from).sort_by_file_name() {
        let entry = entry.map_err(|e| Failure::Other(format!("cannot read static/: {e}")))?;
        if entry.file_type().is_file() {
            let relative = entry.path().strip_prefix(&from).unwrap_or(entry.path());
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
    Ok(out)
}

/// Splits off and reads the front matter of one file, whose address (percent-encoded)
/// is `url`. A byte-order mark before the front matter is dropped: editors on Windows
/// write one, and it is no part of the text. A `---` line may end in spaces and tabs,
/// which no reader sees.
pub fn read_page(file: String, source: String, url: String) -> Result<Page, Vec<Diagnostic>> {
    let source = match source.strip_prefix('\u{feff}') {
        Some(text) => text.to_string(),
        None => source,
    };
    let Some(open) = fence_end(&source, 0) else {
        return Err(vec![
            Diagnostic::new(
                &file,
                &source,
                crate::yaml::Pos::START,
                1,
                "a page must start with front matter".to_string(),
            )
            .with_help(Some(
                "begin the file with `---`, a line `title: …`, and `---`".to_string(),
            )),
        ]);
    };
    let rest = &source[open..];
    let close = std::iter::once(0)
        .chain(rest.match_indices('\n').map(|(i, _)| i + 1))
        .find_map(|start| fence_end(&source, open + start).map(|end| (start, end)));
    let Some((close, body_start)) = close else {
        return Err(vec![
            Diagnostic::new(
                &file,
                &source,
                crate::yaml::Pos::START,
                3,
                "the front matter is never closed".to_string(),
            )
            .with_help(Some("end it with a line `---`".to_string())),
        ]);
    };
    let yaml = &rest[..close];

    let known: Vec<&str> = FRONT_MATTER.iter().map(|(k, _)| *k).collect();
    let mut meta = Meta::parse(&file, &source, yaml, 2, &known, "front matter");
    let title = meta.text("title");
    if title.is_none() && meta.problems.is_empty() {
        meta.missing("title", "the page's title");
    }
    let front = FrontMatter {
        title: title.unwrap_or_default(),
        description: meta.text("description").unwrap_or_default(),
        date: meta.date("date").unwrap_or_default(),
        weight: meta.integer("weight").unwrap_or(0),
        draft: meta.boolean("draft").unwrap_or(false),
        tags: meta.texts("tags"),
        template: meta.text("template"),
        card: meta.text("card"),
        slug: front_matter::slug(&mut meta, &url),
        aliases: Vec::new(),
        extra: front_matter::extra(&mut meta),
    };
    let (written, aliases) = front_matter::aliases(&mut meta);
    let front = FrontMatter {
        aliases: written,
        ..front
    };
    if !meta.problems.is_empty() {
        return Err(meta.problems);
    }
    let mut folder = address::decode(&url).map_or_else(|| url.clone(), |f| f.into_owned());
    let mut url = url;
    if let Some(slug) = &front.slug {
        // The slug takes the place of the address's last part; the folders above stay.
        let parent = folder
            .trim_end_matches('/')
            .rsplit_once('/')
            .map_or(String::new(), |(up, _)| format!("{up}/"));
        folder = format!("{parent}{slug}/");
        url = address::encode(&folder);
    }
    Ok(Page {
        file,
        source,
        body_start,
        front,
        url,
        folder,
        aliases,
    })
}

/// Where the line after a front matter fence starting at `at` begins: the fence is
/// `---`, then only spaces and tabs, then the end of the line (or of the file).
fn fence_end(source: &str, at: usize) -> Option<usize> {
    let line = source.get(at..)?.strip_prefix("---")?;
    let end = line.find('\n').map_or(line.len(), |i| i + 1);
    let rest = line[..end].trim_end_matches(['\n', '\r']);
    rest.chars()
        .all(|c| c == ' ' || c == '\t')
        .then_some(at + 3 + end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(source: &str) -> Result<Page, Vec<Diagnostic>> {
        read_page("content/a.md".into(), source.into(), "a/".into())
    }

    #[test]
    fn reads_front_matter_and_body() {
        let p = page("---\ntitle: Hello\nweight: 2\ntags: [a, b]\ndraft: false\n---\n# Body\n")
            .unwrap();
        assert_eq!(p.front.title, "Hello");
        assert_eq!(p.front.weight, 2);
        assert_eq!(p.front.tags, ["a", "b"]);
        assert_eq!(p.body(), "# Body\n");
    }

    #[test]
    fn front_matter_mistakes_are_placed_in_the_file() {
        let errors = page("---\ntitle: Hello\nwieght: 2\n---\n").unwrap_err();
        assert_eq!(
            errors[0].to_string(),
            "error: unknown key `wieght` in front matter\n \
             --> content/a.md:3:1\n  |\n3 | wieght: 2\n  | ^^^^^^\n  = help: did you mean `weight`?"
        );
        let errors = page("# no front matter\n").unwrap_err();
        assert_eq!(errors[0].message, "a page must start with front matter");
        let errors = page("---\ntitle: x\n").unwrap_err();
        assert_eq!(errors[0].message, "the front matter is never closed");
        let errors = page("---\ndate: 29/11/2026\n---\n").unwrap_err();
        assert_eq!(errors[0].message, "missing key `title`");
    }

    #[test]
    fn addresses() {
        let folder = |path: &str| address::folder_of("content/x.md", Path::new(path));
        assert_eq!(folder("index.md").unwrap(), "");
        assert_eq!(folder("crowd.md").unwrap(), "crowd/");
        assert_eq!(folder("a/index.md").unwrap(), "a/");
        assert_eq!(folder("a/b.md").unwrap(), "a/b/");
        assert_eq!(folder("a b/c#d.md").unwrap(), "a b/c#d/");
        assert_eq!(
            address::encode("a b/c#d/100%/é?/"),
            "a%20b/c%23d/100%25/%C3%A9%3F/"
        );
        for name in ["...md", "..md", "sub/...md", "sub/..md"] {
            assert!(folder(name).is_err(), "{name}");
        }
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_places_stay_right() {
        let p = page("\u{feff}---\ntitle: Hello\n---\n# Body\n").unwrap();
        assert_eq!(p.front.title, "Hello");
        assert_eq!(p.body(), "# Body\n");
        let errors = page("\u{feff}---\ntitle: Hello\nwieght: 2\n---\n").unwrap_err();
        assert_eq!(
            errors[0].to_string(),
            "error: unknown key `wieght` in front matter\n \
             --> content/a.md:3:1\n  |\n3 | wieght: 2\n  | ^^^^^^\n  = help: did you mean `weight`?"
        );
        let errors = page("\u{feff}---\ntitle: x\nweight: many\n---\n").unwrap_err();
        assert_eq!(errors[0].pos, Some(crate::yaml::Pos { line: 3, column: 9 }));
        // Only one mark is the file's; a second is text, and no front matter starts there.
        let errors = page("\u{feff}\u{feff}---\ntitle: x\n---\n").unwrap_err();
        assert_eq!(errors[0].message, "a page must start with front matter");
    }
}
