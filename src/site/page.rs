//! Content pages: Markdown files under `content/` with YAML front matter.

use std::path::Path;

use serde::Serialize;
use walkdir::WalkDir;

use super::address;
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
    let content = root.join("content");
    if !content.is_dir() {
        return Err(Failure::Other(format!(
            "there is no content/ folder in {}",
            root.display()
        )));
    }
    let mut pages = Vec::new();
    let mut problems = Vec::new();
    for entry in WalkDir::new(&content).sort_by_file_name() {
        let entry = entry.map_err(|e| Failure::Other(format!("cannot read content/: {e}")))?;
        let path = entry.path();
        if !entry.file_type().is_file() || path.extension().is_none_or(|e| e != "md") {
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
            Ok(page) if page.front.draft && !drafts => {}
            Ok(page) => pages.push(page),
            Err(mut p) => problems.append(&mut p),
        }
    }
    problems.extend(address::conflicts(&pages, &static_files(root)?));
    Ok((pages, problems))
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
/// write one, and it is no part of the text.
pub fn read_page(file: String, source: String, url: String) -> Result<Page, Vec<Diagnostic>> {
    let source = match source.strip_prefix('\u{feff}') {
        Some(text) => text.to_string(),
        None => source,
    };
    let Some(rest) = source
        .strip_prefix("---\n")
        .or_else(|| source.strip_prefix("---\r\n"))
    else {
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
    let open = source.len() - rest.len();
    let close = rest
        .match_indices("\n---")
        .map(|(i, _)| i)
        .find(|&i| matches!(rest[i + 4..].chars().next(), None | Some('\n' | '\r')));
    let Some(close) = close else {
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
    let yaml = &rest[..close + 1];
    let after = open + close + 4;
    let body_start = source[after..]
        .find('\n')
        .map_or(source.len(), |i| after + i + 1);

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
    };
    if !meta.problems.is_empty() {
        return Err(meta.problems);
    }
    let folder = address::decode(&url).map_or_else(|| url.clone(), |f| f.into_owned());
    Ok(Page {
        file,
        source,
        body_start,
        front,
        url,
        folder,
    })
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
