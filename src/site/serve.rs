//! `retrylab serve`: builds the site, serves its output folder over HTTP on loopback,
//! rebuilds when content, templates, static files or `site.yaml` change, and reloads
//! the open pages through Server-Sent Events.
//!
//! Like `zola serve`, it builds into the site's output folder (`public/` unless told
//! otherwise) with `base_url` set to the server's own address, so run `retrylab build`
//! before publishing. The reload script is added to HTML responses as they are sent;
//! the files on disk never contain it. A build that fails keeps the last good output
//! in place, prints its diagnostics and shows them over the page until a good save.

use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher};
use tiny_http::{Header, Request, Response, Server};

use super::output::Place;
use super::{Options, config};
use crate::chart::table::escape;
use crate::diag::Failure;

/// The path under which the server answers its own requests (never a page's address:
/// a content file cannot make a folder whose name starts with `__retrylab`).
const OWN: &str = "/__retrylab/";

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
struct Status {
    /// Counts builds, good or bad: a page remembers the one it was served after.
    generation: u64,
    /// The latest build's diagnostics, when it failed.
    problem: Option<String>,
}

struct Shared {
    output: PathBuf,
    status: Mutex<Status>,
    changed: Condvar,
}

impl Shared {
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
    let server = Server::http(listen).map_err(|e| {
        Failure::Other(format!(
            "cannot listen on {listen}: {e} (choose another with --port)"
        ))
    })?;
    let address = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| Failure::Other("the server has no IP address".to_string()))?;
    let mut site = options.site.clone();
    site.root = root.clone();
    site.base_url = Some(format!("http://{address}/"));
    // Refused before serving, like `build` does; a refused output would otherwise leave
    // the server running with nothing to serve.
    let config = config::load(&root, None, site.output.as_deref())?;
    let output = Place::check(&root, &config)?.path;
    let shared = Arc::new(Shared {
        output,
        status: Mutex::new(Status::default()),
        changed: Condvar::new(),
    });

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

    rebuild(&site, &shared);
    say(&format!(
        "serving {} at http://{address}/ (Ctrl+C stops)",
        shared.output.display()
    ));

    let handler = Arc::clone(&shared);
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
            let shared = Arc::clone(&handler);
            std::thread::spawn(move || respond(request, &shared));
        }
    });

    while let Ok(event) = changes.recv() {
        let Ok(event) = event else { continue };
        // Reading files (the build itself does) is no change.
        if matches!(event.kind, EventKind::Access(_))
            || !event
                .paths
                .iter()
                .any(|p| relevant(p, &watched, &shared.output))
        {
            continue;
        }
        // One save is often several events (write, rename, attributes): wait until the
        // files are quiet, then build once.
        while changes.recv_timeout(Duration::from_millis(100)).is_ok() {}
        rebuild(&site, &shared);
    }
    Ok(())
}

/// The site's inputs: `content/`, `templates/`, `static/` and `site.yaml`.
fn watched_paths(root: &Path) -> Vec<PathBuf> {
    ["content", "templates", "static", "site.yaml"]
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

/// Builds once and publishes the outcome to the open pages.
fn rebuild(site: &Options, shared: &Shared) {
    let outcome = super::build(site);
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
    shared.changed.notify_all();
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid header")
}

fn text(status: u16, body: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_string(body)
        .with_status_code(status)
        .with_header(header("Content-Type", "text/plain; charset=utf-8"))
}

fn respond(request: Request, shared: &Shared) {
    let url = request.url().to_string();
    let path = url.split(['?', '#']).next().unwrap_or("/");
    let result = match path.strip_prefix(OWN) {
        Some("events") => return events(request, shared),
        Some("problem") => {
            let (_, problem) = shared.status();
            request.respond(text(200, &problem.unwrap_or_default()))
        }
        Some(_) => request.respond(text(404, "not found\n")),
        None => match resolve(&shared.output, path) {
            Target::File(file) => {
                let response = file_response(&file, 200, shared);
                request.respond(response)
            }
            Target::Redirect(to) => request.respond(
                Response::empty(301)
                    .with_header(header("Location", &to))
                    .boxed(),
            ),
            Target::Missing => {
                let page = shared.output.join("404.html");
                if page.is_file() {
                    request.respond(file_response(&page, 404, shared))
                } else {
                    request.respond(text(404, "not found\n").boxed())
                }
            }
            Target::Refused => request.respond(text(403, "forbidden: outside the site\n").boxed()),
        },
    };
    // A reader who closed the tab is not an error worth reporting.
    let _ = result;
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
            return Target::Redirect(format!("{path}/"));
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

fn file_response(file: &Path, status: u16, shared: &Shared) -> tiny_http::ResponseBox {
    let Ok(mut bytes) = std::fs::read(file) else {
        // The output is being swapped by a rebuild; the reader's reload will find it.
        return text(503, "the site is being rebuilt; reload in a moment\n").boxed();
    };
    let kind = content_type(file);
    if kind.starts_with("text/html") {
        let (generation, problem) = shared.status();
        bytes = inject(
            &String::from_utf8_lossy(&bytes),
            generation,
            problem.as_deref(),
        )
        .into();
    }
    Response::from_data(bytes)
        .with_status_code(status)
        .with_header(header("Content-Type", kind))
        .with_header(header("Cache-Control", "no-store"))
        .boxed()
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
/// with the build's number, or a `problem` event with the overlay's HTML.
fn events(request: Request, shared: &Shared) {
    let mut writer = request.into_writer();
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                Cache-Control: no-store\r\nConnection: close\r\n\r\n";
    if writer.write_all(head.as_bytes()).is_err() {
        return;
    }
    let mut sent = None;
    loop {
        let (generation, problem) = {
            let status = shared.status.lock().unwrap_or_else(|e| e.into_inner());
            let (status, _) = shared
                .changed
                .wait_timeout_while(status, Duration::from_secs(15), |s| {
                    Some(s.generation) == sent
                })
                .unwrap_or_else(|e| e.into_inner());
            (status.generation, status.problem.clone())
        };
        let message = if Some(generation) == sent {
            // A comment keeps the connection open and finds readers who left.
            ": still here\n\n".to_string()
        } else {
            sent = Some(generation);
            match problem {
                Some(p) => {
                    let data: String = overlay(&p)
                        .lines()
                        .map(|l| format!("data: {l}\n"))
                        .collect();
                    format!("event: problem\n{data}\n")
                }
                None => format!("event: build\ndata: {generation}\n\n"),
            }
        };
        if writer.write_all(message.as_bytes()).is_err() || writer.flush().is_err() {
            return;
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
