//! `retrylab serve`: builds the site, serves its output folder over HTTP on loopback,
//! rebuilds when content, templates, static files, scenario files, `site.yaml` or
//! `sources.yaml` change,
//! and reloads the open pages through Server-Sent Events.
//!
//! Like `zola serve`, it builds into the site's output folder (`public/` unless told
//! otherwise) with `base_url` set to the server's own address, so run `retrylab build`
//! before publishing. The reload script is added to HTML responses as they are sent;
//! the files on disk never contain it. A build that fails keeps the last good output
//! in place, prints its diagnostics and shows them over the page until a good save; a
//! build that panics is shown the same way, and the server goes on.
//!
//! The HTTP is hyper's, on tokio ([`http`]), as `live`'s is: it answers GET and HEAD
//! of files and one event stream, only to a Host that names this server (a page of
//! another site cannot read it by DNS rebinding), and refuses a request that announces
//! a body before reading any of it.

mod http;

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::body::{Bytes, Incoming};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HOST, LOCATION, RETRY_AFTER};
use hyper::{Request, Response, StatusCode};
use notify::{EventKind, RecursiveMode, Watcher};
use tokio::sync::{mpsc as channel, watch};

use http::Body;

use super::memo::Memo;
use super::output::Place;
use super::{Options, config};
use crate::chart::table::escape;
use crate::diag::Failure;

/// The path under which the server answers its own requests (never a page's address:
/// a content file cannot make a folder whose name starts with `__retrylab`).
const OWN: &str = "/__retrylab/";

/// Event streams open at once (each open page holds one); one more is answered that
/// the server is busy. Pages are never refused: connections have no cap.
const MAX_STREAMS: usize = 256;

/// How long an event stream may stay silent before it sends a comment, and how long
/// a message may wait for a client that does not read before the stream ends.
const QUIET: Duration = Duration::from_secs(15);

/// What `serve` is asked to do.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The site, as for `build`; its `base_url` is replaced by the server's address.
    pub site: Options,
    /// The address to listen on (loopback unless told otherwise).
    pub interface: IpAddr,
    /// The port; 0 lets the system choose one.
    pub port: u16,
}

/// The outcome of the latest build, shared by the builder and the request handlers.
#[derive(Default)]
struct BuildStatus {
    /// Counts builds, good or bad: a page remembers the one it was served after.
    generation: u64,
    /// The latest build's diagnostics, when it failed.
    problem: Option<String>,
}

struct Shared {
    output: PathBuf,
    status: Mutex<BuildStatus>,
    /// Told the generation after every build.
    changed: watch::Sender<u64>,
    /// Event streams open now.
    streams: AtomicUsize,
    /// The names a request's Host may give.
    hosts: Hosts,
}

impl Shared {
    fn new(output: PathBuf, hosts: Hosts) -> Shared {
        Shared {
            output,
            status: Mutex::new(BuildStatus::default()),
            changed: watch::Sender::new(0),
            streams: AtomicUsize::new(0),
            hosts,
        }
    }

    fn status(&self) -> (u64, Option<String>) {
        let status = self.status.lock().unwrap_or_else(|e| e.into_inner());
        (status.generation, status.problem.clone())
    }
}

/// Builds, serves and rebuilds until the process is stopped. Returns only when the
/// server cannot start.
pub fn serve(options: &ServeOptions) -> Result<(), Failure> {
    let root =
        options.site.root.canonicalize().map_err(|e| {
            Failure::Other(format!("cannot open {}: {e}", options.site.root.display()))
        })?;
    let listen = SocketAddr::new(options.interface, options.port);
    let listener = TcpListener::bind(listen)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| {
            Failure::Other(format!(
                "cannot listen on {listen}: {e} (choose another with --port)"
            ))
        })?;
    let address = listener
        .local_addr()
        .map_err(|e| Failure::Other(format!("cannot listen on {listen}: {e}")))?;
    let shown = browsable(address);
    let mut site = options.site.clone();
    site.root = root.clone();
    site.base_url = Some(format!("http://{shown}/"));
    // Refused before serving, like `build` does; a refused output would otherwise leave
    // the server running with nothing to serve.
    let config = config::load(&root, None, site.output.as_deref())?;
    let output = Place::check(&root, &config)?.path;
    let shared = Arc::new(Shared::new(output, Hosts::new(address)));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Other(format!("cannot start the server's runtime: {e}")))?;

    let (events, changes) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(events)
        .map_err(|e| Failure::Other(format!("cannot watch {}: {e}", root.display())))?;
    let watched = watched_paths(&root);
    watcher
        .watch(&root, RecursiveMode::NonRecursive)
        .map_err(|e| Failure::Other(format!("cannot watch {}: {e}", root.display())))?;
    for dir in watched.iter().filter(|p| p.is_dir()) {
        watcher
            .watch(dir, RecursiveMode::Recursive)
            .map_err(|e| Failure::Other(format!("cannot watch {}: {e}", dir.display())))?;
    }

    // What each build leaves for the next: a prose edit redraws no figure.
    let mut memo = Memo::for_server();
    // Stopped by Ctrl+C, or by a terminal that closes, the server removes the site its
    // last build replaced, kept beside the output for the next build (where no handler
    // can be set, the next build removes it).
    let remove_spare = memo.spare_remover();
    let _ = ctrlc::set_handler(move || {
        remove_spare();
        std::process::exit(130);
    });
    rebuild(&site, &shared, &mut memo);
    if !options.interface.is_loopback() {
        let _ = writeln!(
            std::io::stderr(),
            "warning: listening on {address}, beyond loopback: any machine that can reach \
             this one can read the site while it is served (the default, 127.0.0.1, keeps \
             it to this machine)"
        );
    }
    say(&format!(
        "serving {} at http://{shown}/ (Ctrl+C stops)",
        shared.output.display()
    ));

    let handler = Arc::clone(&shared);
    std::thread::spawn(move || runtime.block_on(accept(listener, handler)));

    // A change of the site's inputs: not reading them (the build itself does), nor
    // the build's own writes.
    let is_change = |event: &notify::Result<notify::Event>| {
        event.as_ref().is_ok_and(|event| {
            !matches!(event.kind, EventKind::Access(_))
                && event
                    .paths
                    .iter()
                    .any(|p| relevant(p, &watched, &shared.output))
        })
    };
    // Whether a change comes within `wait`.
    let changed_within = |wait: Duration| {
        let until = std::time::Instant::now() + wait;
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            match changes.recv_timeout(left) {
                Ok(event) if is_change(&event) => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    };
    while let Ok(event) = changes.recv() {
        if !is_change(&event) {
            continue;
        }
        loop {
            // One save is often several events (write, rename, attributes), and a
            // program may write a file in parts: build once the inputs have been quiet
            // for SETTLE.
            while changed_within(SETTLE) {}
            let outcome = caught(|| super::build_with(&site, &mut memo));
            // A failure may be of a file still being written: it is shown once the
            // inputs have stayed quiet for HOLD more; a change meanwhile builds again.
            if outcome.is_err() && changed_within(HOLD) {
                continue;
            }
            publish(outcome, &shared);
            break;
        }
    }
    Ok(())
}

/// The address a browser can open for `address`: loopback for an unspecified one
/// (`0.0.0.0` and `[::]` listen on every interface, and are no address to open).
fn browsable(address: SocketAddr) -> SocketAddr {
    match address.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), address.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), address.port())
        }
        _ => address,
    }
}

/// The names a request's Host may give, each alone or with the server's port:
/// `localhost`, `127.0.0.1` and `[::1]` always; the interface's own address when it
/// listens on one beyond loopback, and any address (never a name, which is what DNS
/// rebinding needs) when it listens on all of them.
#[derive(Debug)]
struct Hosts {
    port: u16,
    interface: IpAddr,
}

impl Hosts {
    fn new(address: SocketAddr) -> Hosts {
        Hosts {
            port: address.port(),
            interface: address.ip(),
        }
    }

    fn allows(&self, host: &str) -> bool {
        let (name, port) = match host.rsplit_once(':') {
            Some((name, port)) if !port.contains(']') => (name, Some(port)),
            _ => (host, None),
        };
        if port.is_some_and(|p| p.parse() != Ok(self.port)) {
            return false;
        }
        let name = name.to_ascii_lowercase();
        let ip = name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .map_or_else(
                || name.parse::<Ipv4Addr>().map(IpAddr::V4).ok(),
                |n| n.parse::<Ipv6Addr>().map(IpAddr::V6).ok(),
            );
        match ip {
            None => name == "localhost",
            Some(ip) => {
                ip == IpAddr::V4(Ipv4Addr::LOCALHOST)
                    || ip == IpAddr::V6(Ipv6Addr::LOCALHOST)
                    || (!self.interface.is_loopback()
                        && (ip == self.interface || self.interface.is_unspecified()))
            }
        }
    }

    /// Why a request for `host` is refused.
    fn refusal(&self, host: &str) -> String {
        let names = match self.interface {
            ip if ip.is_loopback() => "localhost, 127.0.0.1 or [::1]".to_string(),
            ip if ip.is_unspecified() => "localhost or an address (not a name)".to_string(),
            ip => format!("localhost, 127.0.0.1, [::1] or {ip}"),
        };
        format!(
            "this server answers requests for {names} on port {} only, not for `{host}`: \
             a page of another site may be trying to read this one through its own name \
             (DNS rebinding)\n",
            self.port
        )
    }
}

/// The site's inputs: `content/`, `templates/`, `static/`, `scenarios/` (which blocks may
/// extend), `site.yaml` and `sources.yaml`.
fn watched_paths(root: &Path) -> Vec<PathBuf> {
    [
        "content",
        "templates",
        "static",
        "scenarios",
        "site.yaml",
        super::sources::FILE,
    ]
    .iter()
    .map(|p| root.join(p))
    .collect()
}

/// Whether a changed path is one of the site's inputs (not the output or the cache).
/// A build's own writes never count, even where an output sits among the inputs
/// (which a build refuses): reacting to them would rebuild in a loop.
fn relevant(path: &Path, watched: &[PathBuf], output: &Path) -> bool {
    let own = output
        .parent()
        .zip(output.file_name())
        .is_some_and(|(parent, name)| {
            let beside = format!(".{}.", name.to_string_lossy());
            path.starts_with(output)
                || path.strip_prefix(parent).is_ok_and(|rest| {
                    rest.components().next().is_some_and(|first| {
                        first.as_os_str().to_string_lossy().starts_with(&beside)
                    })
                })
        });
    !own && watched.iter().any(|w| path.starts_with(w))
}

/// A line on stdout, flushed at once for whoever reads it through a pipe. The server
/// keeps running when nobody reads any more.
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
}

/// How long the inputs must be quiet after a change before a rebuild starts: long
/// enough for the events of one save, and for a program that writes a file in a few
/// parts, short enough not to be felt.
const SETTLE: Duration = Duration::from_millis(100);

/// How long a failed rebuild waits for the inputs to change again before it shows its
/// problem: a file still being written fails to build, and is whole a moment later.
const HOLD: Duration = Duration::from_millis(1000);

/// Builds once, with what the last build left in `memo`, and publishes the outcome to
/// the open pages.
///
/// A failed build, even one stopped by a panic, leaves nothing wrong in `memo`: each
/// entry is found by the whole of what made it; at worst some are missing.
fn rebuild(site: &Options, shared: &Shared, memo: &mut Memo) {
    publish(caught(|| super::build_with(site, memo)), shared);
}

/// `work`'s outcome, with a panic turned into a failure that says so: no rebuild may
/// take the server down.
fn caught<T>(work: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    // The build shares nothing with the server that a panic could leave half-changed.
    catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_string());
        Err(Failure::Other(format!(
            "the build stopped on an internal error, a bug in retrylab: {why}"
        )))
    })
}

/// Prints a build's outcome and shows it to the open pages.
fn publish<T: std::fmt::Display>(outcome: Result<T, Failure>, shared: &Shared) {
    let problem = match outcome {
        Ok(summary) => {
            say(&summary.to_string());
            None
        }
        Err(failure) => {
            // Failures go to stderr, like `build`'s; a closed terminal is no reason to stop.
            let _ = writeln!(std::io::stderr(), "{failure}\n");
            Some(failure.to_string())
        }
    };
    let mut status = shared.status.lock().unwrap_or_else(|e| e.into_inner());
    status.generation += 1;
    status.problem = problem;
    shared.changed.send_replace(status.generation);
}

/// Takes connections until the process stops, each served by a task of its own.
async fn accept(listener: TcpListener, shared: Arc<Shared>) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(listener) => listener,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: cannot serve: {e}");
            std::process::exit(1);
        }
    };
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of file descriptors, most likely: let some connections close.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let shared = Arc::clone(&shared);
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let shared = Arc::clone(&shared);
            async move { Ok::<_, std::convert::Infallible>(respond(&request, &shared)) }
        });
        tokio::spawn(http::connection(stream, service));
    }
}

/// The answer to one request.
fn respond(request: &Request<Incoming>, shared: &Arc<Shared>) -> Response<Body> {
    let head_only = match http::accept(request) {
        Ok(head_only) => head_only,
        Err(refused) => return *refused,
    };
    // An absolute target names its host itself; HTTP/1.0 may name none, and is served.
    let host = request
        .uri()
        .authority()
        .map(|a| a.as_str().to_string())
        .or_else(|| {
            let host = request.headers().get(HOST)?;
            Some(String::from_utf8_lossy(host.as_bytes()).into_owned())
        });
    match host {
        Some(host) if !shared.hosts.allows(&host) => {
            return http::misdirected(&shared.hosts.refusal(&host));
        }
        None if request.version() != hyper::Version::HTTP_10 => {
            return http::text(
                StatusCode::BAD_REQUEST,
                "an HTTP/1.1 request names its Host\n",
                head_only,
            );
        }
        _ => {}
    }
    let path = request.uri().path();
    match path.strip_prefix(OWN) {
        Some("events") => events(shared, head_only),
        Some("problem") => {
            let (_, problem) = shared.status();
            http::text(StatusCode::OK, &problem.unwrap_or_default(), head_only)
        }
        Some(_) => http::text(StatusCode::NOT_FOUND, "not found\n", head_only),
        None => match resolve(&shared.output, path) {
            Target::File(file) => file_response(&file, StatusCode::OK, shared, head_only),
            Target::Redirect(to) => http::response(
                StatusCode::MOVED_PERMANENTLY,
                vec![(LOCATION, to)],
                Vec::new(),
                head_only,
            ),
            Target::Missing => {
                let page = shared.output.join("404.html");
                if page.is_file() {
                    file_response(&page, StatusCode::NOT_FOUND, shared, head_only)
                } else {
                    http::text(StatusCode::NOT_FOUND, "not found\n", head_only)
                }
            }
            Target::Refused => http::text(
                StatusCode::FORBIDDEN,
                "forbidden: outside the site\n",
                head_only,
            ),
        },
    }
}

/// What a request's path leads to.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    File(PathBuf),
    Redirect(String),
    Missing,
    /// The path tries to leave the output folder.
    Refused,
}

/// Maps a request path to a file inside `output`, and nowhere else.
fn resolve(output: &Path, path: &str) -> Target {
    let Some(decoded) = percent_decode(path) else {
        return Target::Refused;
    };
    let mut file = output.to_path_buf();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => return Target::Refused,
            s if s.contains(['\\', '\0', ':']) => return Target::Refused,
            s => file.push(s),
        }
    }
    if file.is_dir() {
        if !decoded.ends_with('/') {
            return Target::Redirect(location(path));
        }
        file.push("index.html");
    }
    if !file.is_file() {
        return Target::Missing;
    }
    // A symbolic link could still point elsewhere: the real path must stay inside.
    match (file.canonicalize(), output.canonicalize()) {
        (Ok(real), Ok(inside)) if real.starts_with(&inside) => Target::File(file),
        _ => Target::Refused,
    }
}

/// The address of the folder `path` names, for a redirect: always a path on this
/// server, starting with a single `/` (`//host` would send the browser to another
/// host), with any byte that has no place in a header percent-encoded.
fn location(path: &str) -> String {
    let mut to = String::from("/");
    for byte in path.trim_start_matches('/').bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/%".contains(&byte) {
            to.push(char::from(byte));
        } else {
            to += &format!("%{byte:02X}");
        }
    }
    to.push('/');
    to
}

/// `%2e%2E` → `..`; `None` for a malformed escape or a path that is not UTF-8.
fn percent_decode(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "svg" => "image/svg+xml",
        "xml" if path.ends_with("atom.xml") => "application/atom+xml",
        "xml" => "application/xml",
        "txt" => "text/plain; charset=utf-8",
        "json" => "application/json",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

fn file_response(
    file: &Path,
    status: StatusCode,
    shared: &Shared,
    head_only: bool,
) -> Response<Body> {
    let kind = content_type(file);
    // The output is being swapped by a rebuild when a file cannot be read; the reader's
    // reload will find it.
    let Ok(bytes) = std::fs::read(file) else {
        return http::text(
            StatusCode::SERVICE_UNAVAILABLE,
            "the site is being rebuilt; reload in a moment\n",
            head_only,
        );
    };
    let body = if kind.starts_with("text/html") {
        let (generation, problem) = shared.status();
        inject(
            &String::from_utf8_lossy(&bytes),
            generation,
            problem.as_deref(),
        )
        .into()
    } else {
        bytes
    };
    http::response(
        status,
        vec![
            (CONTENT_TYPE, kind.to_string()),
            (CACHE_CONTROL, "no-store".to_string()),
        ],
        body,
        head_only,
    )
}

/// The overlay that shows a failed build's diagnostics over the last good page.
fn overlay(problem: &str) -> String {
    format!(
        "<div id=\"retrylab-overlay\" role=\"alert\" style=\"position:fixed;inset:0;z-index:9999;\
         overflow:auto;background:rgba(20,0,0,.92);color:#fff;padding:2rem;\
         font:14px/1.5 ui-monospace,Menlo,Consolas,monospace\">\
         <p style=\"font-weight:bold;color:#ff8a80\">The site does not build: this is the last \
         good page. Fix the problem and save; the page reloads.</p>\
         <pre style=\"white-space:pre-wrap;background:none;color:inherit\">{}</pre></div>",
        escape(problem)
    )
}

/// A page as sent by `serve`: the reload script and, after a failed build, the overlay,
/// added before `</body>`.
fn inject(html: &str, generation: u64, problem: Option<&str>) -> String {
    let script = format!(
        "<script>(function(){{var seen=\"{generation}\";\
         var source=new EventSource(\"{OWN}events\");\
         source.addEventListener(\"build\",function(e){{if(e.data!==seen)location.reload();}});\
         source.addEventListener(\"problem\",function(e){{\
         var old=document.getElementById(\"retrylab-overlay\");if(old)old.remove();\
         var box=document.createElement(\"div\");document.body.appendChild(box);\
         box.outerHTML=e.data;}});}})();</script>"
    );
    let added = match problem {
        Some(p) => format!("{}{script}", overlay(p)),
        None => script,
    };
    match html.rfind("</body>") {
        Some(at) => format!("{}{added}\n{}", &html[..at], &html[at..]),
        None => format!("{html}{added}"),
    }
}

/// The Server-Sent Events stream: on connecting and after every build, a `build` event
/// with the build's number, or a `problem` event with the overlay's HTML. It ends as
/// soon as its page goes: hyper drops the body when the connection closes, and the
/// writer sees it.
fn events(shared: &Arc<Shared>, head_only: bool) -> Response<Body> {
    if shared.streams.fetch_add(1, Ordering::SeqCst) >= MAX_STREAMS {
        shared.streams.fetch_sub(1, Ordering::SeqCst);
        let mut busy = http::text(
            StatusCode::SERVICE_UNAVAILABLE,
            "too many open pages: close some and reload\n",
            head_only,
        );
        busy.headers_mut()
            .insert(RETRY_AFTER, hyper::header::HeaderValue::from_static("5"));
        return busy;
    }
    let slot = Slot(Arc::clone(shared));
    let (messages, body) = channel::channel(1);
    if !head_only {
        tokio::spawn(write_events(slot, messages));
    }
    let mut response = Response::new(Body::Stream(body));
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-store"),
    );
    response
}

/// An event stream counted as open until dropped.
struct Slot(Arc<Shared>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.streams.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Writes an event stream's messages until its reader goes.
async fn write_events(slot: Slot, messages: channel::Sender<Bytes>) {
    let shared = &slot.0;
    let mut changes = shared.changed.subscribe();
    let mut sent = None;
    loop {
        let (generation, problem) = shared.status();
        let message = if Some(generation) == sent {
            tokio::select! {
                () = messages.closed() => return,
                changed = tokio::time::timeout(QUIET, changes.changed()) => match changed {
                    Ok(Ok(())) => continue,
                    // The server is stopping.
                    Ok(Err(_)) => return,
                    // A comment keeps the connection open through proxies and idle timers.
                    Err(_) => Bytes::from_static(b": still here\n\n"),
                },
            }
        } else {
            sent = Some(generation);
            Bytes::from(match problem {
                Some(p) => {
                    let data: String = overlay(&p)
                        .lines()
                        .map(|l| format!("data: {l}\n"))
                        .collect();
                    format!("event: problem\n{data}\n")
                }
                None => format!("event: build\ndata: {generation}\n\n"),
            })
        };
        match tokio::time::timeout(QUIET, messages.send(message)).await {
            Ok(Ok(())) => {}
            // Gone, or not reading.
            Ok(Err(_)) | Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_stay_inside_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        std::fs::create_dir_all(out.join("a")).unwrap();
        std::fs::write(out.join("a/index.html"), "a").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "s").unwrap();
        assert_eq!(resolve(&out, "/a/"), Target::File(out.join("a/index.html")));
        assert_eq!(resolve(&out, "/a"), Target::Redirect("/a/".into()));
        assert_eq!(resolve(&out, "/b/"), Target::Missing);
        for bad in [
            "/../secret.txt",
            "/a/../../secret.txt",
            "/%2e%2e/secret.txt",
            "/%2E%2E%2fsecret.txt",
            "/a/..%5c..%5csecret.txt",
            "/%zz",
        ] {
            assert_eq!(resolve(&out, bad), Target::Refused, "{bad}");
        }
    }

    #[test]
    fn a_builds_own_writes_trigger_no_rebuild() {
        let root = Path::new("/site");
        let watched = watched_paths(root);
        let output = root.join("static/out");
        assert!(relevant(&root.join("static/style.css"), &watched, &output));
        assert!(relevant(&root.join("content/a.md"), &watched, &output));
        assert!(relevant(&root.join("site.yaml"), &watched, &output));
        assert!(relevant(&root.join("sources.yaml"), &watched, &output));
        for own in [
            "static/out",
            "static/out/index.html",
            "static/.out.building-12/index.html",
            "static/.out.old",
            "static/.out.lock",
        ] {
            assert!(!relevant(&root.join(own), &watched, &output), "{own}");
        }
        assert!(!relevant(
            &root.join("public/index.html"),
            &watched,
            &root.join("public")
        ));
        assert!(!relevant(
            &root.join(".retrylab-cache/x.json"),
            &watched,
            &output
        ));
    }

    #[test]
    fn a_redirect_is_always_to_a_path_on_this_server() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        std::fs::create_dir_all(out.join("name")).unwrap();
        std::fs::create_dir_all(out.join("é x")).unwrap();
        for (path, to) in [
            ("/name", "/name/"),
            ("//name", "/name/"),
            ("///name", "/name/"),
            ("/./name", "/./name/"),
            ("/%C3%A9%20x", "/%C3%A9%20x/"),
            ("/é x", "/%C3%A9%20x/"),
        ] {
            assert_eq!(resolve(&out, path), Target::Redirect(to.into()), "{path}");
        }
    }

    fn shared() -> Shared {
        Shared::new(PathBuf::new(), Hosts::new(([127, 0, 0, 1], 1111).into()))
    }

    #[test]
    fn a_build_that_panics_is_shown_as_a_problem_and_the_next_good_one_clears_it() {
        let shared = shared();
        let outcome = caught::<String>(|| panic!("no result for `{}`", "storm"));
        let Err(Failure::Other(message)) = &outcome else {
            panic!("the panic is a failure: {outcome:?}");
        };
        assert_eq!(
            message,
            "the build stopped on an internal error, a bug in retrylab: no result for `storm`"
        );
        publish(outcome, &shared);
        let (generation, problem) = shared.status();
        assert_eq!(generation, 1);
        assert_eq!(
            problem.as_deref(),
            Some(
                "error: the build stopped on an internal error, a bug in retrylab: \
                 no result for `storm`"
            )
        );
        let plain = caught::<String>(|| panic!("plain"));
        assert!(matches!(plain, Err(Failure::Other(m)) if m.ends_with(": plain")));
        publish(caught(|| Ok("built")), &shared);
        assert_eq!(shared.status(), (2, None));
    }

    #[test]
    fn only_this_servers_names_are_answered() {
        let loopback = Hosts::new(([127, 0, 0, 1], 1111).into());
        for host in [
            "localhost",
            "localhost:1111",
            "127.0.0.1:1111",
            "[::1]:1111",
            "[::1]",
        ] {
            assert!(loopback.allows(host), "{host}");
        }
        for host in [
            "attacker.example:1111",
            "localhost:1112",
            "127.0.0.1:",
            "127.0.0.2:1111",
            "192.168.1.2:1111",
            "[::2]:1111",
            "",
            "[::1",
        ] {
            assert!(!loopback.allows(host), "{host}");
        }
        let everywhere = Hosts::new(([0, 0, 0, 0], 1111).into());
        assert!(everywhere.allows("192.168.1.2:1111"));
        assert!(everywhere.allows("127.0.0.1:1111"));
        assert!(!everywhere.allows("attacker.example:1111"));
        let one = Hosts::new(([192, 168, 1, 2], 1111).into());
        assert!(one.allows("192.168.1.2:1111"));
        assert!(!one.allows("192.168.1.3:1111"));
        assert_eq!(
            browsable(([0, 0, 0, 0], 80).into()),
            ([127, 0, 0, 1], 80).into()
        );
        assert_eq!(
            browsable("[::]:80".parse().unwrap()),
            "[::1]:80".parse().unwrap()
        );
    }

    #[test]
    fn the_script_goes_before_the_end_of_the_body() {
        let html = inject("<body><p>x</p></body></html>", 3, None);
        assert!(html.starts_with("<body><p>x</p><script>"));
        assert!(html.contains("var seen=\"3\""));
        assert!(html.ends_with("</script>\n</body></html>"));
        let html = inject("<body></body>", 4, Some("error: <bad>"));
        assert!(html.contains("id=\"retrylab-overlay\""));
        assert!(html.contains("error: &lt;bad&gt;"));
    }
}
