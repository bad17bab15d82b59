//! Asking a host about one address, as a good client does: HEAD, then GET where HEAD is
//! refused; redirects followed by hand; 429 and 503 asked again after their
//! `Retry-After` or a jittered backoff; never past the check's deadline, never more at
//! once than the host's share.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use hyper::body::{Body, Incoming};
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderValue, LOCATION, RETRY_AFTER, USER_AGENT};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rand::SeedableRng;
use tokio::sync::Semaphore;
use tokio::time::Instant;

use super::Options;
use super::retry::{RetryAfter, backoff, retry_after, shown};
use crate::engine::rng::Pcg64;

/// The `User-Agent` of every request.
pub const AGENT: &str = concat!(
    "retrylab/",
    env!("CARGO_PKG_VERSION"),
    " (+https://github.com/retrylab/retrylab)"
);

/// The `Accept` of every request: a page, as a browser asks.
const HTML_FIRST: &str = "text/html,*/*;q=0.8";

/// What asking about an address found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// It answers. `anchors` are its page's when it was read for them (an HTML page
    /// read whole); `moved` is where a permanent redirect leads.
    Good {
        /// The page's anchors, when read.
        anchors: Option<BTreeSet<String>>,
        /// Whether the page was read only in part (longer than the limit).
        cut: bool,
        /// Where every redirect on the way was permanent, the address it ends at.
        moved: Option<String>,
    },
    /// It does not: why, as a sentence's end (`answers 404 Not Found`).
    Dead(String),
    /// Nothing could be told in time: why.
    Unchecked(String),
}

/// The client of one check, shared by its requests.
pub struct Asker {
    client: Client<HttpsConnector<HttpConnector>, String>,
    options: Options,
    hosts: Mutex<HashMap<String, Arc<Semaphore>>>,
    all: Arc<Semaphore>,
    rng: Mutex<Pcg64>,
    deadline: Instant,
    /// Requests sent.
    pub requests: AtomicUsize,
    /// Requests sent again after a 429, a 503 or a lost connection.
    pub retries: AtomicUsize,
}

impl Asker {
    /// A client for one check, whose deadline starts now. Must be made inside a tokio
    /// runtime.
    pub fn new(options: &Options) -> Asker {
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(options.timeout));
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(10))
            .pool_max_idle_per_host(options.per_host)
            // hyper's 100 headers is within a real page's reach.
            .http1_max_headers(400)
            .build(https);
        let seed = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Asker {
            client,
            options: options.clone(),
            hosts: Mutex::new(HashMap::new()),
            all: Arc::new(Semaphore::new(options.concurrency.max(1))),
            rng: Mutex::new(Pcg64::seed_from_u64(seed)),
            deadline: Instant::now() + options.deadline,
            requests: AtomicUsize::new(0),
            retries: AtomicUsize::new(0),
        }
    }

    /// The share of requests `host` may have at once.
    fn host(&self, host: &str) -> Arc<Semaphore> {
        let mut hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        let per_host = self.options.per_host.max(1);
        hosts
            .entry(host.to_ascii_lowercase())
            .or_insert_with(|| Arc::new(Semaphore::new(per_host)))
            .clone()
    }

    /// A draw in `[0, 1)` for the jitter.
    fn unit(&self) -> f64 {
        self.rng.lock().unwrap_or_else(|e| e.into_inner()).unit()
    }

    /// Asks about `uri`: with GET and its page read for its anchors when `read`, else
    /// HEAD first. Redirects are followed to `max_redirects` hops.
    pub async fn ask(&self, uri: Uri, read: bool) -> Answer {
        let mut current = uri;
        let mut chain: Vec<String> = vec![current.to_string()];
        let mut permanent = true;
        let mut method = if read { Method::GET } else { Method::HEAD };
        loop {
            let (response, held) = match self.attempts(&current, &method).await {
                Ok(answered) => answered,
                Err(answer) => return answer,
            };
            let status = response.status();
            if is_redirect(status) {
                let Some(next) = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|l| join(&current, l.as_bytes()))
                else {
                    return Answer::Dead(format!(
                        "answers {} with no address to go to{}",
                        status_text(status),
                        via(&chain)
                    ));
                };
                permanent &= matches!(
                    status,
                    StatusCode::MOVED_PERMANENTLY | StatusCode::PERMANENT_REDIRECT
                );
                let looped = chain.contains(&next.to_string());
                chain.push(next.to_string());
                if looped {
                    return Answer::Dead(format!("redirects in a loop: {}", chain.join(" → ")));
                }
                if chain.len() > self.options.max_redirects + 1 {
                    return Answer::Dead(format!(
                        "redirects more than {} times: {} → …",
                        self.options.max_redirects,
                        chain[..4.min(chain.len())].join(" → ")
                    ));
                }
                current = next;
                continue;
            }
            if status.is_success() {
                let moved = (permanent && chain.len() > 1).then(|| chain[chain.len() - 1].clone());
                if !read {
                    return Answer::Good {
                        anchors: None,
                        cut: false,
                        moved,
                    };
                }
                return self.read(response, held, moved).await;
            }
            if method == Method::HEAD && !matches!(status.as_u16(), 429 | 503) {
                // HEAD refused (405, 501, or any other answer but a page): ask for it.
                method = Method::GET;
                continue;
            }
            return match status.as_u16() {
                429 => Answer::Unchecked(format!(
                    "the host still answers 429 Too Many Requests after {} attempts",
                    self.options.attempts
                )),
                _ => Answer::Dead(format!("answers {}{}", status_text(status), via(&chain))),
            };
        }
    }

    /// The page's anchors, read from at most `max_body` bytes of an HTML body.
    async fn read(
        &self,
        response: Response<Incoming>,
        held: Held,
        moved: Option<String>,
    ) -> Answer {
        let html = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|t| t.to_str().ok())
            .is_none_or(|t| t.to_ascii_lowercase().contains("html"));
        if !html {
            // No anchor can be judged on a page that is no HTML: the fragment is the
            // reader's program's (a PDF's page), and the address answers.
            return Answer::Good {
                anchors: None,
                cut: false,
                moved,
            };
        }
        let mut body = response.into_body();
        let mut bytes: Vec<u8> = Vec::new();
        let mut cut = false;
        let left = self.deadline.saturating_duration_since(Instant::now());
        let reading = async {
            while let Some(frame) =
                std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await
            {
                let Ok(frame) = frame else {
                    return false;
                };
                if let Some(data) = frame.data_ref() {
                    let room = self.options.max_body.saturating_sub(bytes.len());
                    bytes.extend_from_slice(&data[..data.len().min(room)]);
                    if data.len() > room {
                        cut = true;
                        return true;
                    }
                }
            }
            true
        };
        match tokio::time::timeout(self.options.timeout.min(left), reading).await {
            Ok(true) => {}
            Ok(false) => return Answer::Dead("breaks off while sending its page".to_string()),
            Err(_) => {
                return Answer::Unchecked(format!(
                    "its page did not come whole within {}",
                    shown(self.options.timeout.min(left))
                ));
            }
        }
        // The host's turn and the share of all requests go once the page is read.
        drop(held);
        let text = String::from_utf8_lossy(&bytes);
        Answer::Good {
            anchors: Some(super::anchors::scan(&text)),
            cut,
            moved,
        }
    }

    /// One request, sent again after a 429 or 503 (honouring `Retry-After`), a lost
    /// connection or a timeout, up to `attempts` in all and never past the deadline.
    async fn attempts(
        &self,
        uri: &Uri,
        method: &Method,
    ) -> Result<(Response<Incoming>, Held), Answer> {
        let host = self.host(uri.host().unwrap_or_default());
        let Ok(turn) = host.acquire_owned().await else {
            return Err(Answer::Unchecked("the check was stopped".to_string()));
        };
        let attempts = self.options.attempts.max(1);
        let mut retry = 0;
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Answer::Unchecked(format!(
                    "the check's deadline of {} came first",
                    shown(self.options.deadline)
                )));
            }
            let limit = self.options.timeout.min(left);
            let request = Request::builder()
                .method(method.clone())
                .uri(uri.clone())
                .header(USER_AGENT, HeaderValue::from_static(AGENT))
                .header(ACCEPT, HeaderValue::from_static(HTML_FIRST))
                .body(String::new());
            let Ok(request) = request else {
                return Err(Answer::Dead(
                    "is not an address that can be asked for".to_string(),
                ));
            };
            self.requests.fetch_add(1, Ordering::Relaxed);
            // A share of all requests only while one is sent: a task that waits for its
            // host's turn, or to ask again, holds none, so that other hosts go on.
            let Ok(slot) = self.all.clone().acquire_owned().await else {
                return Err(Answer::Unchecked("the check was stopped".to_string()));
            };
            let sent = tokio::time::timeout(limit, self.client.request(request)).await;
            retry += 1;
            let last = retry >= attempts;
            // What to wait before the next attempt, or the answer when there is none.
            let wait = match sent {
                Ok(Ok(response)) if matches!(response.status().as_u16(), 429 | 503) => {
                    if last {
                        return Ok((
                            response,
                            Held {
                                _turn: turn,
                                _slot: slot,
                            },
                        ));
                    }
                    let asked = response
                        .headers()
                        .get(RETRY_AFTER)
                        .map(|v| retry_after(v.as_bytes(), SystemTime::now()));
                    match asked {
                        Some(RetryAfter::Wait(wait)) => {
                            if wait > left {
                                return Err(Answer::Unchecked(format!(
                                    "rate-limited: the host answers {} and asks to wait {} \
                                     (Retry-After), past the check's deadline",
                                    status_text(response.status()),
                                    shown(wait)
                                )));
                            }
                            wait
                        }
                        Some(RetryAfter::Unreadable) | None => self.backoff(retry),
                    }
                }
                // The answer holds the host's turn and a share of all requests until
                // it is read: a page's body counts against both limits too.
                Ok(Ok(response)) => {
                    return Ok((
                        response,
                        Held {
                            _turn: turn,
                            _slot: slot,
                        },
                    ));
                }
                Ok(Err(e)) if e.is_connect() => {
                    return Err(Answer::Dead(format!("cannot be reached: {}", cause(&e))));
                }
                // The client's own limit on an answer's head, not the address's fault.
                Ok(Err(e)) if cause(&e).contains("too large") => {
                    return Err(Answer::Unchecked(format!(
                        "its answer's head is larger than the check reads ({})",
                        cause(&e)
                    )));
                }
                Ok(Err(e)) if !is_transient(&e) || last => {
                    return Err(Answer::Dead(format!("fails: {}", cause(&e))));
                }
                Ok(Err(_)) => self.backoff(retry),
                Err(_) if limit < self.options.timeout => {
                    return Err(Answer::Unchecked(format!(
                        "no answer before the check's deadline of {}",
                        shown(self.options.deadline)
                    )));
                }
                // Slow is not gone: a host that never answers in time is not checked.
                Err(_) if last => {
                    return Err(Answer::Unchecked(format!(
                        "gives no answer within {}, {attempts} times",
                        shown(self.options.timeout)
                    )));
                }
                Err(_) => self.backoff(retry),
            };
            drop(slot);
            let left = self.deadline.saturating_duration_since(Instant::now());
            if wait >= left {
                return Err(Answer::Unchecked(format!(
                    "the check's deadline of {} came before the host could be asked again",
                    shown(self.options.deadline)
                )));
            }
            self.retries.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(wait).await;
        }
    }

    /// The wait before retry `retry`, jittered.
    fn backoff(&self, retry: u32) -> Duration {
        backoff(
            self.options.backoff,
            self.options.backoff_cap,
            retry,
            self.unit(),
        )
    }
}

/// Whether a failed request may succeed when sent again: the connection was reset or
/// closed before the answer, rather than the host answering what is no HTTP.
fn is_transient(error: &hyper_util::client::legacy::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            return matches!(
                io.kind(),
                ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof
            );
        }
        if let Some(h) = e.downcast_ref::<hyper::Error>()
            && (h.is_incomplete_message() || h.is_canceled())
        {
            return true;
        }
        source = e.source();
    }
    false
}

/// An error with its causes, as one line: `client error (Connect): tcp connect error:
/// Connection refused (os error 111)`, the wrapper's words left out.
fn cause(error: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source = error.source();
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = e.source();
    }
    if parts.is_empty() {
        parts.push(error.to_string());
    }
    parts.join(": ")
}

/// `404 Not Found`.
fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

/// ` (via a → b)` for an answer at the end of redirects, else nothing.
fn via(chain: &[String]) -> String {
    match chain.len() {
        0 | 1 => String::new(),
        _ => format!(" (redirected: {})", chain.join(" → ")),
    }
}

/// Whether `status` sends the client elsewhere.
fn is_redirect(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

/// What an answer holds until it is read: its host's turn and a share of all
/// requests.
struct Held {
    _turn: tokio::sync::OwnedSemaphorePermit,
    _slot: tokio::sync::OwnedSemaphorePermit,
}

/// `location` read against `base`, as a browser reads a `Location` header: absolute,
/// from the host's root, or relative to the current address's folder. `None` when it
/// makes no address.
pub fn join(base: &Uri, location: &[u8]) -> Option<Uri> {
    let location = super::encoded(&String::from_utf8_lossy(location));
    let location = location.trim();
    // Another scheme (`ftp:`, `mailto:`) is no page to ask for.
    let scheme_of = location.split_once(':').map(|(s, _)| s);
    if scheme_of.is_some_and(|s| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !s.eq_ignore_ascii_case("http")
            && !s.eq_ignore_ascii_case("https")
    }) {
        return None;
    }
    // A fragment alone is the same address (RFC 3986, 5.2.2).
    if location.starts_with('#') || location.is_empty() {
        return Some(base.clone());
    }
    let scheme = base.scheme_str().unwrap_or("https");
    let authority = base.authority()?.as_str();
    let lower = location.to_ascii_lowercase();
    let absolute = if lower.starts_with("http://") || lower.starts_with("https://") {
        location.to_string()
    } else if let Some(rest) = location.strip_prefix("//") {
        format!("{scheme}://{rest}")
    } else if location.starts_with('/') {
        format!("{scheme}://{authority}{}", dots(location))
    } else {
        let path = base.path();
        let (path, location) = match location.strip_prefix('?') {
            Some(_) => (path, location.to_string()),
            None => (
                &path[..path.rfind('/').map_or(0, |i| i + 1)],
                location.to_string(),
            ),
        };
        let joined = match location.starts_with('?') {
            true => format!("{path}{location}"),
            false => dots(&format!("{path}{location}")),
        };
        format!("{scheme}://{authority}{joined}")
    };
    // The fragment of a redirect is the reader's; the request goes without it.
    let absolute = absolute.split('#').next().unwrap_or_default();
    absolute.parse::<Uri>().ok().filter(|u| u.host().is_some())
}

/// A path with its `.` and `..` parts resolved, its query kept.
fn dots(path_and_query: &str) -> String {
    let (path, query) = match path_and_query.find('?') {
        Some(at) => path_and_query.split_at(at),
        None => (path_and_query, ""),
    };
    let mut parts: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, part) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *part {
            "." => {
                if last {
                    parts.push("");
                }
            }
            ".." => {
                parts.pop();
                if last {
                    parts.push("");
                }
            }
            p => parts.push(p),
        }
    }
    format!("/{}{query}", parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_join_as_a_browser_joins_them() {
        let base: Uri = "https://a.org/x/y/z?q=1".parse().unwrap();
        let j = |l: &str| join(&base, l.as_bytes()).map(|u| u.to_string());
        assert_eq!(j("https://b.org/p").as_deref(), Some("https://b.org/p"));
        assert_eq!(j("//c.org/p").as_deref(), Some("https://c.org/p"));
        assert_eq!(j("/p?r").as_deref(), Some("https://a.org/p?r"));
        assert_eq!(j("w").as_deref(), Some("https://a.org/x/y/w"));
        assert_eq!(j("../w").as_deref(), Some("https://a.org/x/w"));
        assert_eq!(j("../../../../w").as_deref(), Some("https://a.org/w"));
        assert_eq!(j("?s").as_deref(), Some("https://a.org/x/y/z?s"));
        assert_eq!(
            j("/caf\u{e9} x#f").as_deref(),
            Some("https://a.org/caf%C3%A9%20x")
        );
        assert_eq!(j("http://"), None);
    }
}
