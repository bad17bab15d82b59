//! The links that leave the site, checked: `retrylab check --external`.
//!
//! Every `http:` and `https:` address the pages write (links, images, bare addresses
//! linked, HTML `href` and `src`) and every one `sources.yaml` makes for what the
//! pages cite (an entry's address, its lines, sections, chapters) is asked of its host
//! once per check, without its fragment, however many places write it. A dead address
//! is an error at each place written: a page's link at its line and column, a source's
//! where its entry in `sources.yaml` writes it, or at the entry's key.
//!
//! How a host is asked ([`ask`]): HEAD, then GET where HEAD is refused; GET when the
//! address has a fragment, whose anchor the page must have ([`anchors`]); redirects
//! followed by hand; 429 and 503 asked again after their `Retry-After` or a jittered
//! backoff ([`retry`]), within one deadline for the whole check. What answered well is
//! remembered for a day ([`store`]), so that a second check does not ask again. An
//! address that begins with one of `site.yaml`'s `external_skip` is never asked.

mod anchors;
mod ask;
mod retry;
mod store;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use hyper::Uri;
use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};

use super::page::Content;
use super::render::Rendered;
use super::sources::Sources;
use crate::diag::{Diagnostic, LineIndex};
use crate::format::thousands;
pub use ask::AGENT;
use ask::{Answer, Asker};

/// How the check asks. The defaults are a polite client's; tests make them short.
#[derive(Clone, Debug)]
pub struct Options {
    /// The whole check's deadline: what is not answered by then is not checked.
    pub deadline: Duration,
    /// How long one request may take, its page read included.
    pub timeout: Duration,
    /// The first retry's ceiling of backoff, doubled at each retry.
    pub backoff: Duration,
    /// The largest ceiling of backoff.
    pub backoff_cap: Duration,
    /// Attempts of one request, the first included.
    pub attempts: u32,
    /// Requests at once, in all.
    pub concurrency: usize,
    /// Requests at once to one host.
    pub per_host: usize,
    /// Redirects followed before an address is called dead.
    pub max_redirects: usize,
    /// The most of a page read for its anchors, in bytes.
    pub max_body: usize,
    /// How long a good answer is remembered.
    pub max_age: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            deadline: Duration::from_secs(120),
            timeout: Duration::from_secs(20),
            backoff: Duration::from_secs(1),
            backoff_cap: Duration::from_secs(30),
            attempts: 4,
            concurrency: 16,
            per_host: 2,
            max_redirects: 10,
            max_body: 4 << 20,
            max_age: Duration::from_secs(24 * 3600),
        }
    }
}

/// One place that writes an address.
#[derive(Clone, Debug)]
pub struct Written {
    /// The address as written, its fragment included.
    pub url: String,
    /// The key of the source that makes it, when `sources.yaml` does.
    pub source: Option<String>,
    /// The place, as a diagnostic with no message yet.
    pub at: Diagnostic,
}

/// What the check did, for its summary line.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Distinct addresses, without their fragments.
    pub addresses: usize,
    /// Distinct hosts.
    pub hosts: usize,
    /// Addresses answered from the cache.
    pub cached: usize,
    /// Requests sent.
    pub requests: usize,
    /// Requests sent again after a 429, a 503, a lost connection or a timeout.
    pub retries: usize,
    /// Addresses dead, or whose page lacks an anchor written.
    pub dead: usize,
    /// Addresses that could not be checked in time.
    pub unchecked: usize,
    /// Addresses never asked, since `external_skip` in `site.yaml` names them.
    pub skipped: usize,
    /// What the check says besides its errors: each address not checked, at each place
    /// (`warning:`), and each that moved for good (`note:`), in the order of places.
    pub notes: Vec<String>,
}

impl fmt::Display for Tally {
    /// `external links: 12 addresses on 5 hosts, 3 from the cache, 14 requests, 2
    /// retried, 1 dead, 0 not checked`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: usize, one: &str, many: &str| {
            format!(
                "{} {}",
                thousands(n as u64),
                if n == 1 { one } else { many }
            )
        };
        write!(
            f,
            "external links: {} on {}, {} from the cache, {}, {} retried, {} dead, {} not checked",
            plural(self.addresses, "address", "addresses"),
            plural(self.hosts, "host", "hosts"),
            thousands(self.cached as u64),
            plural(self.requests, "request", "requests"),
            thousands(self.retries as u64),
            thousands(self.dead as u64),
            thousands(self.unchecked as u64),
        )?;
        match self.skipped {
            0 => Ok(()),
            n => write!(f, ", {} skipped", thousands(n as u64)),
        }
    }
}

/// Every place the pages and their sources write an address that leaves the site over
/// HTTP: the pages' in their order, then the sources', each once per key and address.
pub fn written(
    content: &Content,
    rendered: &[Rendered],
    sources: Option<&Sources>,
) -> Vec<Written> {
    let mut all = Vec::new();
    for (page, r) in content.pages.iter().zip(rendered) {
        if r.external.is_empty() {
            continue;
        }
        let index = LineIndex::new(&page.source);
        for link in &r.external {
            all.push(Written {
                url: link.url.clone(),
                source: None,
                at: super::at(page, &index, &link.range, String::new(), None),
            });
        }
    }
    // A source's lines are one file to ask: its place is the entry's, told once; an
    // address the entry writes as it is (its `url`, a chapter's) is told there.
    let sourced: BTreeSet<(&String, String)> = (rendered.iter())
        .flat_map(|r| &r.sourced)
        .map(|(key, url)| match read(url) {
            Read::Asked(uri, None) => (key, uri.to_string()),
            _ => (key, url.clone()),
        })
        .collect();
    if let Some(sources) = sources {
        for (key, url) in sourced {
            if let Some(at) = sources.place_of(key, &url) {
                all.push(Written {
                    url,
                    source: Some(key.clone()),
                    at,
                });
            }
        }
    }
    all
}

/// The characters an address cannot hold as they are, which a browser escapes before
/// asking: besides controls and every byte past ASCII, the space and `" < > \ ^ ` { | }`.
const ESCAPED: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'<')
    .add(b'>')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// `url` as a browser sends it: what an address cannot hold escaped, `%` kept.
pub fn encoded(url: &str) -> String {
    utf8_percent_encode(url, ESCAPED).to_string()
}

/// An address, read for asking: what is asked, and what is checked on the page.
#[derive(Debug)]
enum Read {
    /// Asked as `uri`; the fragment, percent-decoded, when one is to be found on the
    /// page.
    Asked(Uri, Option<String>),
    /// Not asked, with the answer it has.
    Answered(Answer),
}

/// Reads `url` as it is asked: its fragment apart, the rest escaped as a browser does.
fn read(url: &str) -> Read {
    let (rest, fragment) = match url.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (url, None),
    };
    let after_scheme = rest.split_once("://").map_or("", |(_, r)| r);
    let authority = after_scheme.split(['/', '?']).next().unwrap_or_default();
    if !authority.is_ascii() {
        return Read::Answered(Answer::Unchecked(
            "a host name written in other letters than ASCII is not asked (write it as \
             its `xn--` name to have it checked)"
                .to_string(),
        ));
    }
    if authority.is_empty() {
        return Read::Answered(Answer::Dead("names no host".to_string()));
    }
    if authority.contains(|c: char| c.is_ascii_control() || " \"<>\\^`{|}%".contains(c)) {
        return Read::Answered(Answer::Dead(format!(
            "is not an address: no host name holds the characters of `{authority}`"
        )));
    }
    let uri = match encoded(rest).parse::<Uri>() {
        Ok(uri) if uri.host().is_some_and(|h| !h.is_empty()) => uri,
        Ok(_) => return Read::Answered(Answer::Dead("names no host".to_string())),
        Err(e) => {
            return Read::Answered(Answer::Dead(format!("is not an address: {e}")));
        }
    };
    let fragment = fragment
        .map(|f| percent_decode_str(f).decode_utf8_lossy().into_owned())
        .filter(|f| !anchors::unjudged(uri.host().unwrap_or_default(), uri.path(), f));
    Read::Asked(uri, fragment)
}

/// Asks about every address `written` holds but those that begin with one of `skip`,
/// from the cache where it is young (kept in the site's at `root`), and tells each dead
/// one at every place it is written.
pub fn check(
    root: &Path,
    written: &[Written],
    options: &Options,
    skip: &[String],
) -> (Vec<Diagnostic>, Tally) {
    let now = SystemTime::now();
    let mut tally = Tally::default();
    let (skipped, kept): (Vec<&Written>, Vec<&Written>) = (written.iter()).partition(|w| {
        skip.iter()
            .any(|s| !s.is_empty() && w.url.starts_with(s.as_str()))
    });
    tally.skipped = (skipped.iter())
        .map(|w| w.url.split('#').next().unwrap_or_default())
        .collect::<BTreeSet<_>>()
        .len();
    let written: Vec<Written> = kept.into_iter().cloned().collect();
    let written = written.as_slice();
    // Each place's address, read; each address to ask, with whether its page is read.
    let reads: Vec<Read> = written.iter().map(|w| read(&w.url)).collect();
    let mut asked: BTreeMap<String, (Uri, bool)> = BTreeMap::new();
    for r in &reads {
        if let Read::Asked(uri, fragment) = r {
            let entry = asked.entry(uri.to_string()).or_insert((uri.clone(), false));
            entry.1 |= fragment.is_some();
        }
    }
    tally.addresses = asked.len();
    tally.hosts = (asked.values())
        .filter_map(|(uri, _)| uri.host().map(str::to_ascii_lowercase))
        .collect::<BTreeSet<_>>()
        .len();
    let mut cache = store::Store::open(root, options.max_age, now);
    let mut answers: BTreeMap<String, Answer> = BTreeMap::new();
    let mut to_ask = Vec::new();
    for (key, (uri, page)) in &asked {
        match cache.get(key, *page) {
            Some(known) => {
                tally.cached += 1;
                let answer = Answer::Good {
                    anchors: known.anchors.clone(),
                    cut: false,
                    moved: known.moved.clone(),
                };
                answers.insert(key.clone(), answer);
            }
            None => to_ask.push((key.clone(), uri.clone(), *page)),
        }
    }
    if !to_ask.is_empty() {
        let (asked_now, requests, retries) = ask_all(to_ask, options);
        tally.requests = requests;
        tally.retries = retries;
        for (key, answer) in asked_now {
            if let Answer::Good {
                anchors,
                cut,
                moved,
            } = &answer
            {
                let read = asked.get(&key).is_some_and(|(_, page)| *page);
                let known = store::Known {
                    checked: store::seconds(now),
                    anchors: anchors.clone().filter(|_| !cut),
                    plain: read && anchors.is_none(),
                    moved: moved.clone(),
                };
                cache.insert(key.clone(), known);
            }
            answers.insert(key, answer);
        }
    }
    if let Err(e) = cache.save() {
        tally.notes.push(format!("warning: {e}"));
    }
    let (problems, notes) = told(written, &reads, &answers, options, &mut tally);
    tally.notes.extend(notes);
    (problems, tally)
}

/// Asks about each address, at most `concurrency` at once and `per_host` to a host,
/// until the deadline: each one's answer, the requests sent and the retries among them.
fn ask_all(
    to_ask: Vec<(String, Uri, bool)>,
    options: &Options,
) -> (Vec<(String, Answer)>, usize, usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            let why = format!("the check could not start: {e}");
            let all = to_ask
                .into_iter()
                .map(|(k, ..)| (k, Answer::Unchecked(why.clone())));
            return (all.collect(), 0, 0);
        }
    };
    let asked = runtime.block_on(async {
        let asker = Arc::new(Asker::new(options));
        let deadline = tokio::time::Instant::now() + options.deadline;
        let mut tasks = tokio::task::JoinSet::new();
        for (key, uri, page) in to_ask {
            let asker = Arc::clone(&asker);
            let shown = retry::shown(options.deadline);
            tasks.spawn(async move {
                let answer = tokio::time::timeout_at(deadline, asker.ask(uri, page))
                    .await
                    .unwrap_or_else(|_| {
                        Answer::Unchecked(format!(
                            "no answer before the check's deadline of {shown}"
                        ))
                    });
                (key, answer)
            });
        }
        let mut answers = Vec::new();
        while let Some(done) = tasks.join_next().await {
            if let Ok(answer) = done {
                answers.push(answer);
            }
        }
        let requests = asker.requests.load(Ordering::Relaxed);
        let retries = asker.retries.load(Ordering::Relaxed);
        (answers, requests, retries)
    });
    // A name still being looked up past the deadline is left to finish alone.
    runtime.shutdown_background();
    asked
}

/// The errors and notes of every place, by the answer its address had.
fn told(
    written: &[Written],
    reads: &[Read],
    answers: &BTreeMap<String, Answer>,
    options: &Options,
    tally: &mut Tally,
) -> (Vec<Diagnostic>, Vec<String>) {
    let mut problems = Vec::new();
    // What is said beside the errors, at its place: `warning` or `note`.
    let mut said: Vec<(Diagnostic, &str)> = Vec::new();
    let mut dead: BTreeSet<String> = BTreeSet::new();
    let mut unchecked: BTreeSet<String> = BTreeSet::new();
    for (w, r) in written.iter().zip(reads) {
        let what = |text: String| match &w.source {
            Some(key) => format!("the source `{key}` links to `{}`, which {text}", w.url),
            None => format!("`{}` {text}", w.url),
        };
        let (key, answer, fragment) = match r {
            Read::Asked(uri, fragment) => {
                let key = uri.to_string();
                let Some(answer) = answers.get(&key) else {
                    continue;
                };
                (key, answer, fragment.as_deref())
            }
            Read::Answered(answer) => (w.url.clone(), answer, None),
        };
        let mut at = w.at.clone();
        match answer {
            Answer::Dead(why) => {
                dead.insert(key);
                at.message = what(why.clone());
                problems.push(at);
            }
            Answer::Unchecked(why) => {
                unchecked.insert(key);
                at.message = what(format!("was not checked: {why}"));
                said.push((at, "warning"));
            }
            Answer::Good {
                anchors,
                cut,
                moved: to,
            } => {
                if let Some(to) = to {
                    let mut note = at.clone();
                    note.message = what(format!(
                        "has moved for good to `{to}` (a permanent redirect)"
                    ));
                    note.help = Some("link to the new address".to_string());
                    said.push((note, "note"));
                }
                let (Some(fragment), Some(anchors)) = (fragment, anchors) else {
                    continue;
                };
                let host = key.split("://").nth(1).unwrap_or_default();
                let host = host.split(['/', '?', ':']).next().unwrap_or_default();
                let also = anchors::also_as(host, fragment);
                if anchors.contains(fragment) || also.is_some_and(|a| anchors.contains(&a)) {
                    continue;
                }
                if *cut {
                    unchecked.insert(key);
                    at.message = what(format!(
                        "was not checked for the anchor `#{fragment}`: it is not in the first {} \
                         of the page",
                        size(options.max_body)
                    ));
                    said.push((at, "warning"));
                    continue;
                }
                dead.insert(key);
                at.message = match &w.source {
                    Some(key) => format!(
                        "the source `{key}` links to `{}`, whose page has no anchor `#{fragment}`",
                        w.url
                    ),
                    None => format!(
                        "the page `{}` has no anchor `#{fragment}`",
                        w.url.split('#').next().unwrap_or_default()
                    ),
                };
                let sorted: Vec<&str> = anchors.iter().map(String::as_str).collect();
                at.help = crate::suggest::closest(fragment, sorted)
                    .map(|near| format!("did you mean `#{near}`?"));
                problems.push(at);
            }
        }
    }
    tally.dead = dead.len();
    tally.unchecked = unchecked.len();
    // In the order of files and places, as the errors are.
    said.sort_by(|(a, _), (b, _)| {
        let place = |d: &Diagnostic| d.pos.map(|p| (p.line, p.column));
        a.file.cmp(&b.file).then(place(a).cmp(&place(b)))
    });
    let said = said.iter().map(|(d, kind)| {
        let text = d.to_string();
        format!("{kind}: {}", text.strip_prefix("error: ").unwrap_or(&text))
    });
    (problems, said.collect())
}

/// `4 MB`.
fn size(bytes: usize) -> String {
    match bytes >= 1 << 20 {
        true => format!("{} MB", bytes >> 20),
        false => format!("{} KB", bytes.div_ceil(1024)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_read_as_a_browser_asks_them() {
        let asked = |url: &str| match read(url) {
            Read::Asked(uri, fragment) => (uri.to_string(), fragment),
            Read::Answered(answer) => panic!("{url}: {answer:?}"),
        };
        assert_eq!(
            asked("https://a.org/caf\u{e9} x?q=\"1\"#B%C3%A9"),
            (
                "https://a.org/caf%C3%A9%20x?q=%221%22".to_string(),
                Some("Bé".to_string())
            )
        );
        assert_eq!(
            asked("https://github.com/o/r/blob/v1/x.py#L10-L20"),
            ("https://github.com/o/r/blob/v1/x.py".to_string(), None)
        );
        assert!(matches!(read("https://"), Read::Answered(Answer::Dead(_))));
        assert!(matches!(
            read("https://a b/"),
            Read::Answered(Answer::Dead(_))
        ));
        assert!(matches!(
            read("https://b\u{fc}cher.de/"),
            Read::Answered(Answer::Unchecked(_))
        ));
    }
}
