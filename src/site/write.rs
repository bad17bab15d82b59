//! Every page's body rendered, then written through its template, and the site's
//! other files.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;

use rayon::prelude::*;
use serde::Serialize;

use super::config::Config;
use super::output::Staging;
use super::page::{self, Page};
use super::parts::{Block, PageParts};
use super::render::{self, Rendered};
use super::{Figures, ResultsById, at, feeds, highlight, templates};
use crate::chart::table::escape;
use crate::diag::{Diagnostic, Failure, LineIndex};
use crate::directive::reference;

/// What every page of the site is rendered with, besides its own parts.
pub(super) struct Shared<'a> {
    /// The site's config.
    pub config: &'a Config,
    /// The site's sources, which citations name.
    pub sources: Option<&'a super::sources::Sources>,
    /// Code highlighted by earlier builds, and this one's.
    pub highlights: &'a highlight::Kept,
}

/// Renders every page's Markdown. Without results (for `check`) figures and values are
/// left empty. Links to missing pages are returned as problems.
pub(super) fn render_pages(
    content: &page::Content,
    parts: &[PageParts],
    shared: &Shared,
    templates: Option<&templates::Templates>,
    results: Option<(&[Figures], &ResultsById)>,
    mut remembered: Option<&mut HashMap<String, render::Remembered>>,
) -> (Vec<Rendered>, Vec<Diagnostic>) {
    let (pages, config) = (&content.pages, shared.config);
    // What this build rendered, for the next build: only what it used is kept.
    let mut kept = HashMap::new();
    let content_paths = content.addresses();
    let mut problems = Vec::new();
    let mut out = Vec::new();
    let no_figures = BTreeMap::new();
    for (i, (page, part)) in pages.iter().zip(parts).enumerate() {
        let index = LineIndex::new(&page.source);
        let (figures, mut values) = match results {
            Some((figures, by_id)) => (
                &figures[i],
                built_values(page, part, by_id, &index, &mut problems),
            ),
            None => (&no_figures, written_values(page, part)),
        };
        if let Some((_, by_id)) = results {
            check_conditions(page, part, by_id, &index, &mut problems);
        }
        // A condition's markers become the element that holds its sentence.
        for c in &part.conditions {
            values.push((c.open.clone(), String::new()));
            values.push((c.close.clone(), String::new()));
        }
        let marks = marks(part);
        // The template's own ids (`main`, …) are the page's too.
        let written = templates.map(|t| t.ids_of(templates::of_page(page)));
        let reserved: Vec<String> = (written.iter().flatten().cloned())
            .chain(part.blocks.iter().flat_map(|placed| placed.block.ids()))
            .collect();
        let named: Vec<render::Named> = (part.blocks.iter())
            .flat_map(|placed| {
                let at = placed.at;
                let names = placed.block.named().into_iter();
                names.map(move |(name, anchor)| (at, name, anchor))
            })
            .collect();
        let content_path = page.file.strip_prefix("content/").unwrap_or(&page.file);
        let cx = render::Context {
            url: &page.url,
            content_path,
            pages: &content_paths,
            base_path: &config.base_path,
            figures,
            reserved: &reserved,
            values: &values,
            marks: &marks,
            smart_punctuation: config.smart_punctuation,
            highlights: shared.highlights,
            sources: shared.sources,
            named: &named,
        };
        let rendered = match remembered.as_mut() {
            None => render::render(page.body(), &cx),
            Some(memo) => recalled(page, &cx, memo, &mut kept),
        };
        tell_unbalanced(page, part, &rendered, &index, &mut problems);
        tell_taken(page, &rendered, written.as_deref(), &index, &mut problems);
        let bad = (rendered
            .formulas
            .iter()
            .map(|b| (&b.range, &b.message, &b.help)))
        .chain(
            rendered
                .citations
                .iter()
                .map(|b| (&b.range, &b.message, &b.help)),
        );
        for (range, message, help) in bad {
            problems.push(at(page, &index, range, message.clone(), Some(help.clone())));
        }
        out.push(rendered);
    }
    if let Some(memo) = remembered {
        *memo = kept;
    }
    (out, problems)
}

/// Each reference of the page with its value as built; a value that cannot be
/// written is a problem.
fn built_values(
    page: &Page,
    part: &PageParts,
    by_id: &ResultsById,
    index: &LineIndex,
    problems: &mut Vec<Diagnostic>,
) -> Vec<(Range<usize>, String)> {
    part.references
        .iter()
        .filter_map(|r| {
            let (scenario, result) = by_id[r.id.as_str()];
            match reference::render(r, scenario, result) {
                Ok(value) => Some((r.range.clone(), value)),
                Err(e) => {
                    problems.push(at(page, index, &e.range, e.message, e.help));
                    None
                }
            }
        })
        .collect()
}

/// Without values, each reference stands for itself: the page is read as `build`
/// reads it, so its headings get the same ids.
fn written_values(page: &Page, part: &PageParts) -> Vec<(Range<usize>, String)> {
    part.references
        .iter()
        .filter_map(|r| {
            let text = page.body().get(r.range.clone())?;
            Some((r.range.clone(), text.to_string()))
        })
        .collect()
}

/// Each condition holds for the built numbers.
fn check_conditions(
    page: &Page,
    part: &PageParts,
    by_id: &ResultsById,
    index: &LineIndex,
    problems: &mut Vec<Diagnostic>,
) {
    for c in &part.conditions {
        let (scenario, result) = by_id[c.id.as_str()];
        match c.holds(scenario, result) {
            Ok(true) => {}
            Ok(false) => problems.push(at(
                page,
                index,
                &c.open,
                format!(
                    "this condition does not hold for the numbers of `{}` as built: {}",
                    c.id,
                    c.marked()
                ),
                Some(
                    "a marked sentence must be true on the page as built; correct the \
                     sentence or its condition"
                        .to_string(),
                ),
            )),
            Err(e) => problems.push(at(page, index, &e.range, e.message, e.help)),
        }
    }
}

/// What the browser is told in the text: references to a scenario explorable on this
/// page, and where each condition opens and ends.
fn marks(part: &PageParts) -> BTreeMap<usize, render::Mark> {
    let explorable: HashSet<&str> = part
        .blocks
        .iter()
        .filter_map(|placed| match &placed.block {
            Block::Sim(sim, _) if !sim.explore.is_empty() => Some(sim.scenario.id.as_str()),
            Block::Sim(..)
            | Block::Sweep(_)
            | Block::Schedule(_)
            | Block::Table(_)
            | Block::Live(_) => None,
        })
        .collect();
    let mut marks: BTreeMap<usize, render::Mark> = part
        .references
        .iter()
        .filter(|r| explorable.contains(r.id.as_str()))
        .map(|r| (r.range.start, render::Mark::Ref(reference::marked(r))))
        .collect();
    for c in &part.conditions {
        marks.insert(c.open.start, render::Mark::If(c.marked()));
        marks.insert(c.close.start, render::Mark::End);
    }
    marks
}

/// The last build's rendering of the page, when it was of the very same inputs, else
/// the page rendered anew; either is kept in `kept` for the next build.
fn recalled(
    page: &Page,
    cx: &render::Context,
    memo: &mut HashMap<String, render::Remembered>,
    kept: &mut HashMap<String, render::Remembered>,
) -> Rendered {
    let last = memo
        .remove(&page.file)
        .filter(|last| last.is_for(page.body(), cx))
        .unwrap_or_else(|| {
            let rendered = render::render(page.body(), cx);
            render::Remembered::new(page.body(), cx, rendered)
        });
    let rendered = last.rendered.clone();
    kept.insert(page.file.clone(), last);
    rendered
}

/// A condition whose sentence the rendering found not to be one piece of text.
fn tell_unbalanced(
    page: &Page,
    part: &PageParts,
    rendered: &Rendered,
    index: &LineIndex,
    problems: &mut Vec<Diagnostic>,
) {
    for &open in &rendered.unbalanced {
        let c = part.conditions.iter().find(|c| c.open.start == open);
        let range = c.map_or(open..open + 1, |c| c.open.clone());
        problems.push(at(
            page,
            index,
            &range,
            "the sentence this condition marks is not one piece of text".to_string(),
            Some(
                "keep it in one paragraph, list item or cell, outside links and titles, \
                 and close any emphasis begun in it before `{{ end }}`"
                    .to_string(),
            ),
        ));
    }
}

/// An id the page's author gave that is already used on the page: by a heading, by
/// the page's template (whose ids are `written`), or by a figure.
fn tell_taken(
    page: &Page,
    rendered: &Rendered,
    written: Option<&[String]>,
    index: &LineIndex,
    problems: &mut Vec<Diagnostic>,
) {
    for taken in &rendered.taken {
        let help = match taken.first {
            Some(first) => {
                let line = index.pos(&page.source, page.body_start + first).line;
                format!("the heading on line {line} has it, and ids are unique on a page")
            }
            None if written.unwrap_or_default().contains(&taken.id) => format!(
                "the page's template, `{}`, writes it",
                templates::of_page(page)
            ),
            None => "a figure on this page has it: its directive's id gives it".to_string(),
        };
        problems.push(at(
            page,
            index,
            &taken.range,
            format!("the id `{}` is already used on this page", taken.id),
            Some(format!("{help}; choose another id")),
        ));
    }
}

/// A page as listed in indexes and navigation: no content, so that listing every page
/// on every page stays cheap.
#[derive(Serialize)]
struct ListedPage<'a> {
    /// A small chart of the page's `card` scenario, as SVG.
    card: Option<&'a str>,
    title: &'a str,
    description: &'a str,
    date: &'a str,
    tags: &'a [String],
    weight: i64,
    url: &'a str,
    /// The front matter's `extra:` map, so that an index can show the author's keys.
    extra: &'a serde_json::Map<String, serde_json::Value>,
}

/// A page as templates see it.
#[derive(Serialize)]
struct PageView<'a> {
    title: &'a str,
    description: &'a str,
    date: &'a str,
    tags: &'a [String],
    weight: i64,
    url: &'a str,
    permalink: String,
    content: &'a str,
    toc: &'a [render::TocEntry],
    /// The front matter's `extra:` map, the author's own keys.
    extra: &'a serde_json::Map<String, serde_json::Value>,
    /// The article before this one in the index, if any.
    prev: Option<Neighbour<'a>>,
    /// The article after this one in the index, if any.
    next: Option<Neighbour<'a>>,
}

/// A link to the previous or next article.
#[derive(Clone, Copy, Serialize)]
struct Neighbour<'a> {
    title: &'a str,
    url: &'a str,
}

fn view<'a>(
    page: &'a Page,
    rendered: &'a Rendered,
    config: &Config,
    (prev, next): (Option<Neighbour<'a>>, Option<Neighbour<'a>>),
) -> PageView<'a> {
    PageView {
        title: &page.front.title,
        description: &page.front.description,
        date: &page.front.date,
        tags: &page.front.tags,
        weight: page.front.weight,
        url: &page.url,
        permalink: format!("{}{}", config.base_url, page.url),
        content: &rendered.html,
        toc: &rendered.toc,
        extra: &page.front.extra,
        prev,
        next,
    }
}

/// Renders every page with its template and writes it; `(has_module, simulations)`: whether
/// the playground's engine is published, and whether the site runs any simulation.
/// Returns each page's HTML, in the order of `pages`.
pub(super) fn write_pages(
    staging: &Staging,
    tera: &tera::Tera,
    config: &Config,
    pages: &[Page],
    rendered: &[Rendered],
    cards: &[Option<String>],
    (has_module, simulations): (bool, bool),
) -> Result<Vec<String>, Failure> {
    let mut order: Vec<usize> = (0..pages.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&pages[a].front, &pages[b].front);
        (a.weight, &a.date, &a.title).cmp(&(b.weight, &b.date, &b.title))
    });
    let listed: Vec<ListedPage> = order
        .iter()
        .map(|&i| {
            let front = &pages[i].front;
            ListedPage {
                card: cards[i].as_deref(),
                title: &front.title,
                description: &front.description,
                date: &front.date,
                tags: &front.tags,
                weight: front.weight,
                url: &pages[i].url,
                extra: &front.extra,
            }
        })
        .collect();
    // Converted once; each page's context starts from a copy of it.
    let mut shared = serde_json::Map::new();
    shared.insert(
        "site".into(),
        serde_json::to_value(config).unwrap_or_default(),
    );
    shared.insert(
        "pages".into(),
        serde_json::to_value(&listed).unwrap_or_default(),
    );
    // Whether the playground's engine is published, so a page never preloads a file
    // that is not there.
    shared.insert("playground_module".into(), has_module.into());
    // Whether the site runs any simulation (a scenario, or a playground): the built-in
    // templates speak of simulations only on a site that has them.
    shared.insert("simulations".into(), simulations.into());
    let context_with = |page: Option<serde_json::Value>| {
        let mut map = shared.clone();
        if let Some(page) = page {
            map.insert("page".into(), page);
        }
        tera::Context::from_value(serde_json::Value::Object(map)).unwrap_or_default()
    };
    // Articles (every page but the home page) in index order, for prev/next links.
    let articles: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| !pages[i].is_home())
        .collect();
    let neighbour = |i: usize| Neighbour {
        title: &pages[i].front.title,
        url: &pages[i].url,
    };
    let neighbours = |page: usize| match articles.iter().position(|&i| i == page) {
        Some(at) => (
            at.checked_sub(1).map(|p| neighbour(articles[p])),
            articles.get(at + 1).map(|&n| neighbour(n)),
        ),
        None => (None, None),
    };
    let mut problems = Vec::new();
    let has_home = pages.iter().any(Page::is_home);
    // Pages are rendered and written on all cores; results come back in page order.
    // Each thread copies the shared context once and changes only its `page` from page
    // to page: a copy per page would copy the listing of every page, n times.
    let shared_context = context_with(None);
    let outcomes: Vec<Result<Result<String, Box<Diagnostic>>, Failure>> = pages
        .par_iter()
        .zip(rendered)
        .enumerate()
        .map_init(
            || shared_context.clone(),
            |context, (i, (page, r))| {
                let template = templates::of_page(page);
                context.insert("page", &view(page, r, config, neighbours(i)));
                match tera.render(template, context) {
                    Ok(html) => staging
                        .write(&format!("{}index.html", page.folder), html.as_bytes())
                        .map(|()| Ok(html)),
                    Err(e) => Ok(Err(Box::new(Diagnostic::in_file(
                        &page.file,
                        format!("template `{template}` failed: {}", templates::describe(&e)),
                    )))),
                }
            },
        )
        .collect();
    let mut written = Vec::with_capacity(pages.len());
    for outcome in outcomes {
        match outcome? {
            Ok(html) => written.push(html),
            Err(problem) => problems.push(*problem),
        }
    }
    // The home page when content/ has none, and the page a host shows for a missing
    // address (its links are absolute paths, so they work at any depth).
    let extra: &[(&str, &str)] = if has_home {
        &[("404.html", "404.html")]
    } else {
        &[("index.html", "index.html"), ("404.html", "404.html")]
    };
    for (template, file) in extra {
        match tera.render(template, &context_with(None)) {
            Ok(html) => staging.write(file, html.as_bytes())?,
            Err(e) => problems.push(Diagnostic::in_file(
                &format!("templates/{template}"),
                templates::describe(&e),
            )),
        }
    }
    if problems.is_empty() {
        Ok(written)
    } else {
        Err(Failure::Input(problems))
    }
}

/// The files a host and a feed reader look for: the sitemap, the Atom feed,
/// `robots.txt`, and `.nojekyll` (GitHub Pages would otherwise run Jekyll, which hides
/// files whose names start with `_`).
pub(super) fn write_site_files(
    staging: &Staging,
    config: &Config,
    pages: &[Page],
) -> Result<(), Failure> {
    staging.write(feeds::SITEMAP, feeds::sitemap(config, pages).as_bytes())?;
    staging.write(feeds::FEED, feeds::atom(config, pages).as_bytes())?;
    staging.write("robots.txt", feeds::robots(config).as_bytes())?;
    staging.write(".nojekyll", b"")
}

/// The files of `content/` that are no page, each at its own path (see [`page::Copied`]).
pub(super) fn write_copied(staging: &Staging, files: &[page::Copied]) -> Result<(), Failure> {
    for file in files {
        let bytes = std::fs::read(&file.from)
            .map_err(|e| Failure::Other(format!("cannot read content/{}: {e}", file.path)))?;
        staging.write(&file.path, &bytes)?;
    }
    Ok(())
}

/// For each page's alias, a page that sends readers on to the page, as Zola and Hugo
/// write one: at once by `refresh`, for search engines by its canonical link, and by
/// a link for a reader whose browser does neither. It is listed nowhere.
pub(super) fn write_aliases(
    staging: &Staging,
    config: &Config,
    pages: &[Page],
) -> Result<(), Failure> {
    for page in pages {
        let permalink = escape(&format!("{}{}", config.base_url, page.url));
        let title = escape(&page.front.title);
        let language = escape(&config.language);
        let html = format!(
            "<!DOCTYPE html>\n<html lang=\"{language}\">\n<head>\n<meta charset=\"utf-8\">\n\
             <title>{title}</title>\n<meta name=\"robots\" content=\"noindex\">\n\
             <link rel=\"canonical\" href=\"{permalink}\">\n\
             <meta http-equiv=\"refresh\" content=\"0; url={permalink}\">\n</head>\n<body>\n\
             <p>This page has moved to <a href=\"{permalink}\">{title}</a>.</p>\n</body>\n</html>\n"
        );
        for alias in &page.aliases {
            staging.write(alias, html.as_bytes())?;
        }
    }
    Ok(())
}

/// The built-in stylesheet and favicon, unless `static/` brought its own.
pub(super) fn write_defaults(staging: &Staging) -> Result<(), Failure> {
    if !staging.has("style.css") {
        staging.write("style.css", templates::default_css().as_bytes())?;
    }
    if !staging.has("favicon.svg") {
        staging.write("favicon.svg", templates::FAVICON.as_bytes())?;
    }
    Ok(())
}
