//! `check --external`: the links that leave the site, asked of servers on loopback that
//! count what they are asked, and answer 404, 429 with `Retry-After`, 503, redirects,
//! slowly, with garbage or with no end.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use retrylab::diag::Failure;
use retrylab::site::external::{Options, Tally};
use retrylab::site::{self, check_external};

use crate::util::run;

/// What a test server answers.
enum Reply {
    /// These bytes, then the connection closes.
    Bytes(Vec<u8>),
    /// This head, then a page with no end, for as long as the client reads.
    Endless(String),
    /// Nothing for this long, then these bytes.
    Late(Duration, Vec<u8>),
    /// This head at once, then nothing for this long, then this body.
    SlowBody(String, Duration, String),
}

/// An answer with `status` (its line's text, `404 Not Found`), `headers` and `body`.
fn answer(status: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut head = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    Reply::Bytes([head.as_bytes(), body.as_bytes()].concat())
}

/// A request as the server saw it: method, path, when.
type Seen = (String, String, Instant);

/// A server on loopback, with every request it was sent.
struct Server {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    /// Requests being answered now, and the most there ever were at once.
    busy: Arc<Mutex<(usize, usize)>>,
}

impl Server {
    /// Serves `reply` to each request: it is given the method, the path and how many
    /// requests came before on that path.
    fn start(reply: impl Fn(&str, &str, usize) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let busy: Arc<Mutex<(usize, usize)>> = Arc::default();
        let reply = Arc::new(reply);
        let (log, load) = (Arc::clone(&seen), Arc::clone(&busy));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (reply, log, load) = (Arc::clone(&reply), Arc::clone(&log), Arc::clone(&load));
                std::thread::spawn(move || {
                    {
                        let mut load = load.lock().unwrap();
                        load.0 += 1;
                        load.1 = load.1.max(load.0);
                    }
                    // Done before the answer goes, so that a client that sends its next
                    // request on the answer never finds this one still counted.
                    let done = || load.lock().unwrap().0 -= 1;
                    serve(stream, &*reply, &log, &done);
                });
            }
        });
        Server { base, seen, busy }
    }

    /// The address of `path` on this server.
    fn at(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Every request, as `METHOD /path`.
    fn requests(&self) -> Vec<String> {
        let seen = self.seen.lock().unwrap();
        seen.iter().map(|(m, p, _)| format!("{m} {p}")).collect()
    }

    /// When each request came.
    fn times(&self) -> Vec<Instant> {
        self.seen.lock().unwrap().iter().map(|s| s.2).collect()
    }
}

/// Reads one request's head from `stream`, and writes what `reply` gives.
fn serve(
    mut stream: TcpStream,
    reply: &dyn Fn(&str, &str, usize) -> Reply,
    log: &Mutex<Vec<Seen>>,
    done: &dyn Fn(),
) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return done(),
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut words = head.split_whitespace();
    let (method, path) = (
        words.next().unwrap_or("").to_string(),
        words.next().unwrap_or("").to_string(),
    );
    let before = {
        let mut log = log.lock().unwrap();
        let before = log.iter().filter(|s| s.1 == path).count();
        log.push((method.clone(), path.clone(), Instant::now()));
        before
    };
    match reply(&method, &path, before) {
        Reply::Bytes(bytes) => {
            done();
            let _ = stream.write_all(&bytes);
        }
        Reply::Late(wait, bytes) => {
            std::thread::sleep(wait);
            done();
            let _ = stream.write_all(&bytes);
        }
        Reply::SlowBody(head, wait, body) => {
            let _ = stream.write_all(head.as_bytes());
            std::thread::sleep(wait);
            // Counted while the body is awaited, and no longer once its last bytes go.
            done();
            let _ = stream.write_all(body.as_bytes());
        }
        Reply::Endless(head) => {
            done();
            let _ = stream.write_all(head.as_bytes());
            let chunk = "<p>more</p>".repeat(6_000);
            // A gigabyte at most, however the client reads.
            for _ in 0..16_000 {
                if stream.write_all(chunk.as_bytes()).is_err() {
                    return;
                }
            }
        }
    }
}

/// Options for tests: short waits, a deadline of `deadline`.
fn quick(deadline: Duration) -> Options {
    Options {
        deadline,
        timeout: Duration::from_secs(5),
        backoff: Duration::from_millis(10),
        backoff_cap: Duration::from_millis(50),
        max_body: 1 << 20,
        ..Options::default()
    }
}

/// A site of `pages` (file below content/, text), with `sources` when given.
fn site(pages: &[(&str, &str)], sources: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("site.yaml"), "title: T\nsearch: false\n").unwrap();
    std::fs::create_dir(root.join("content")).unwrap();
    for (file, text) in pages {
        std::fs::write(root.join("content").join(file), text).unwrap();
    }
    if let Some(sources) = sources {
        std::fs::write(root.join("sources.yaml"), sources).unwrap();
    }
    dir
}

/// A page titled `title` of `body`.
fn page(title: &str, body: &str) -> String {
    format!("---\ntitle: {title}\n---\n{body}\n")
}

/// `check --external` of the site at `root`: its problems as printed (empty when
/// none), and what it did.
fn check(root: &Path, options: &Options) -> (String, Tally) {
    let site_options = site::Options {
        root: root.to_path_buf(),
        output: None,
        base_url: None,
        drafts: false,
        progress: false,
    };
    let (result, tally) = check_external(&site_options, options);
    let problems = match result {
        Ok(_) => String::new(),
        Err(failure @ Failure::Input(_)) => failure.to_string(),
        Err(other) => panic!("{other}"),
    };
    (problems, tally.expect("the external check ran"))
}

#[test]
fn a_dead_address_is_told_at_every_place_it_is_written_and_asked_once() {
    let server = Server::start(|_, path, _| match path {
        "/page" => answer(
            "200 OK",
            &[("Content-Type", "text/html")],
            "<h1 id=\"top\">",
        ),
        _ => answer("404 Not Found", &[], ""),
    });
    let gone = server.at("/gone");
    let sources = format!("paper:\n  kind: web\n  title: A paper\n  url: {gone}\n");
    let dir = site(
        &[
            (
                "a.md",
                &page(
                    "A",
                    &format!("See [this]({gone}) and [that]({}).", server.at("/page")),
                ),
            ),
            (
                "b.md",
                &page("B", &format!("Again, bare: {gone} [@paper].")),
            ),
        ],
        Some(&sources),
    );
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(20)));
    let link = format!("[this]({gone})");
    let carets = |n: usize| "^".repeat(n);
    assert_eq!(
        problems,
        format!(
            "error: `{gone}` answers 404 Not Found\n \
             --> content/a.md:4:5\n  \
             |\n\
             4 | See {link} and [that]({page}).\n  \
             |     {}\n\n\
             error: `{gone}` answers 404 Not Found\n \
             --> content/b.md:4:14\n  \
             |\n\
             4 | Again, bare: {gone} [@paper].\n  \
             |              {}\n\n\
             error: the source `paper` links to `{gone}`, which answers 404 Not Found\n \
             --> sources.yaml:4:8\n  \
             |\n\
             4 |   url: {gone}\n  \
             |        {}\n\n\
             error: 3 problems found",
            carets(link.len()),
            carets(gone.len()),
            carets(gone.len()),
            page = server.at("/page"),
        )
    );
    // HEAD refused, then GET: once for the address however many places write it.
    let mut asked = server.requests();
    asked.sort();
    assert_eq!(asked, ["GET /gone", "HEAD /gone", "HEAD /page"]);
    assert_eq!(
        (tally.addresses, tally.hosts, tally.dead, tally.requests),
        (2, 1, 1, 3)
    );
    assert!(tally.to_string().starts_with("external links: 2 addresses on 1 host, 0 from the cache, 3 requests, 0 retried, 1 dead, 0 not checked"), "{tally}");
}

#[test]
fn a_429_is_asked_again_after_its_retry_after_and_a_503_after_its_date() {
    let server = Server::start(|_, path, before| match (path, before) {
        ("/busy", 0) => answer("429 Too Many Requests", &[("Retry-After", "1")], ""),
        ("/down", 0) => {
            let when = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(2));
            answer("503 Service Unavailable", &[("Retry-After", &when)], "")
        }
        ("/past", 0 | 1) => answer(
            "503 Service Unavailable",
            &[("Retry-After", "Thu, 01 Jan 1970 00:00:00 GMT")],
            "",
        ),
        ("/later", _) => answer(
            "429 Too Many Requests",
            &[("Retry-After", "1000000000000")],
            "",
        ),
        _ => answer("200 OK", &[], ""),
    });
    let body = format!(
        "[a]({}) [b]({}) [c]({}) [d]({})",
        server.at("/busy"),
        server.at("/down"),
        server.at("/past"),
        server.at("/later")
    );
    let dir = site(&[("a.md", &page("A", &body))], None);
    let started = Instant::now();
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(30)));
    assert_eq!(problems, "");
    let mut asked = server.requests();
    asked.sort();
    assert_eq!(
        asked,
        [
            "HEAD /busy",
            "HEAD /busy",
            "HEAD /down",
            "HEAD /down",
            "HEAD /later",
            "HEAD /past",
            "HEAD /past",
            "HEAD /past",
        ]
    );
    assert_eq!((tally.retries, tally.dead, tally.unchecked), (4, 0, 1));
    // The waits asked were honoured: a second apart at least.
    let times = |path: &str| -> Vec<Instant> {
        let seen = server.seen.lock().unwrap();
        seen.iter().filter(|s| s.1 == path).map(|s| s.2).collect()
    };
    for path in ["/busy", "/down"] {
        let t = times(path);
        assert!(
            t[1] - t[0] >= Duration::from_millis(900),
            "{path}: {:?}",
            t[1] - t[0]
        );
    }
    // A wait of 31,709 years is not waited: the address is not checked, said so.
    let said = tally.notes.join("\n");
    assert!(said.contains("was not checked: rate-limited: the host answers 429 Too Many Requests and asks to wait 31,709 years (Retry-After), past the check's deadline"), "{said}");
    assert!(started.elapsed() < Duration::from_secs(25));
}

#[test]
fn head_refused_is_asked_with_get_and_redirects_are_followed() {
    let server = Server::start(|method, path, _| {
        let to = |status: &str, location: &str| answer(status, &[("Location", location)], "");
        match (method, path) {
            ("HEAD", "/no-head") => answer("405 Method Not Allowed", &[], ""),
            ("GET", "/no-head") => answer("200 OK", &[], "fine"),
            (_, "/one") => to("301 Moved Permanently", "/two"),
            (_, "/two") => to("302 Found", "three"),
            (_, "/three") => answer("200 OK", &[], ""),
            (_, "/old") => to("308 Permanent Redirect", "/three"),
            (_, "/loop-a") => to("307 Temporary Redirect", "/loop-b"),
            (_, "/loop-b") => to("303 See Other", "/loop-a"),
            (_, p) if p.starts_with("/far/") => {
                let n: u32 = p[5..].parse().unwrap_or(0);
                to("302 Found", &format!("/far/{}", n + 1))
            }
            _ => answer("404 Not Found", &[], ""),
        }
    });
    let body = format!(
        "[a]({}) [b]({}) [c]({}) [d]({}) [e]({})",
        server.at("/no-head"),
        server.at("/one"),
        server.at("/old"),
        server.at("/loop-a"),
        server.at("/far/0"),
    );
    let dir = site(&[("a.md", &page("A", &body))], None);
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(20)));
    let base = &server.base;
    let problems = problems.replace(base.as_str(), "B");
    let said: Vec<&str> = problems
        .lines()
        .filter(|l| l.starts_with("error"))
        .collect();
    assert_eq!(
        said,
        [
            "error: `B/loop-a` redirects in a loop: B/loop-a → B/loop-b → B/loop-a",
            "error: `B/far/0` redirects more than 10 times: B/far/0 → B/far/1 → B/far/2 → B/far/3 → …",
            "error: 2 problems found",
        ]
    );
    let asked = server.requests();
    assert_eq!(asked.iter().filter(|r| r.ends_with("/no-head")).count(), 2);
    assert_eq!(asked.iter().filter(|r| r.contains("/far/")).count(), 11);
    assert_eq!(tally.dead, 2);
    // A permanent move is a note, not a problem.
    let notes = tally.notes.join("\n").replace(base.as_str(), "B");
    assert!(
        notes.starts_with(
            "note: `B/old` has moved for good to `B/three` (a permanent redirect)\n \
             --> content/a.md:4:"
        ),
        "{notes}"
    );
    assert!(
        notes.ends_with("= help: link to the new address"),
        "{notes}"
    );
    assert_eq!(tally.notes.len(), 1);
}

#[test]
fn an_anchor_the_page_lacks_is_told_and_one_it_has_is_not() {
    let html = "<html><h2 id=\"present\">A</h2><a name=\"old-name\"></a></html>";
    let server = Server::start(move |_, path, _| match path {
        "/doc" => answer(
            "200 OK",
            &[("Content-Type", "text/html; charset=utf-8")],
            html,
        ),
        "/data" => answer("200 OK", &[("Content-Type", "application/pdf")], "%PDF"),
        _ => answer("404 Not Found", &[], ""),
    });
    let body = format!(
        "[a]({0}#present) [b]({0}#old-name) [c]({0}#presnt) [d]({0}#:~:text=A) [e]({1}#page=2)",
        server.at("/doc"),
        server.at("/data")
    );
    let dir = site(&[("a.md", &page("A", &body))], None);
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(20)));
    let problems = problems.replace(server.base.as_str(), "B");
    assert!(
        problems.starts_with("error: the page `B/doc` has no anchor `#presnt`\n"),
        "{problems}"
    );
    assert!(
        problems.contains("= help: did you mean `#present`?"),
        "{problems}"
    );
    assert!(problems.ends_with("error: 1 problem found"), "{problems}");
    // One GET for the page, however many of its anchors are linked.
    let mut asked = server.requests();
    asked.sort();
    assert_eq!(asked, ["GET /data", "GET /doc"]);
    assert_eq!(tally.dead, 1);
}

#[test]
fn the_cache_spares_a_good_address_and_asks_again_for_a_failed_one() {
    let server = Server::start(|_, path, _| match path {
        "/ok" => answer("200 OK", &[], ""),
        "/doc" => answer("200 OK", &[("Content-Type", "text/html")], "<p id=\"x\">"),
        "/pdf" => answer("200 OK", &[("Content-Type", "application/pdf")], "%PDF"),
        _ => answer("404 Not Found", &[], ""),
    });
    let body = format!(
        "[a]({}) [b]({}) [c]({}#x) [d]({}#page=2)",
        server.at("/ok"),
        server.at("/gone"),
        server.at("/doc"),
        server.at("/pdf")
    );
    let dir = site(&[("a.md", &page("A", &body))], None);
    let options = quick(Duration::from_secs(20));
    let (first, tally) = check(dir.path(), &options);
    assert!(first.contains("answers 404 Not Found"), "{first}");
    assert_eq!((tally.cached, tally.requests), (0, 5));
    let (second, tally) = check(dir.path(), &options);
    assert_eq!(first, second);
    assert_eq!((tally.cached, tally.requests), (3, 2));
    let mut asked = server.requests();
    asked.sort();
    assert_eq!(
        asked,
        [
            "GET /doc",
            "GET /gone",
            "GET /gone",
            "GET /pdf",
            "HEAD /gone",
            "HEAD /gone",
            "HEAD /ok"
        ]
    );
    // A cache file that is no cache is ignored and replaced, never an error.
    let file = dir.path().join(".retrylab-cache/external.json");
    assert!(file.is_file());
    std::fs::write(&file, "{ not json").unwrap();
    let (third, tally) = check(dir.path(), &options);
    assert_eq!(first, third);
    assert_eq!(tally.cached, 0);
    // Nothing else is written.
    let written: Vec<_> = std::fs::read_dir(dir.path().join(".retrylab-cache"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(written, ["external.json"]);
    assert!(!dir.path().join("public").exists());
}

#[test]
fn a_slow_host_is_not_checked_within_the_deadline() {
    let server = Server::start(|_, _, _| {
        Reply::Late(Duration::from_secs(30), b"HTTP/1.1 200 OK\r\n\r\n".to_vec())
    });
    let dir = site(
        &[(
            "a.md",
            &page("A", &format!("[slow]({})", server.at("/slow"))),
        )],
        None,
    );
    let started = Instant::now();
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(1)));
    assert_eq!(problems, "");
    assert_eq!((tally.unchecked, tally.dead), (1, 0));
    assert!(
        tally.notes[0].contains("was not checked: no answer before the check's deadline of 1 s"),
        "{:?}",
        tally.notes
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    // One request, never a second: a deadline passed is not a reason to ask again.
    assert!(server.times().len() <= 1);
}

#[test]
fn hostile_answers_and_addresses_are_told_without_a_panic() {
    let server = Server::start(|_, path, _| match path {
        "/garbage" => Reply::Bytes(b"\x00\xffnot http at all\r\n\r\n".to_vec()),
        "/endless" => Reply::Endless(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n".to_string(),
        ),
        "/caf%C3%A9%20x" => answer("200 OK", &[], ""),
        _ => answer("404 Not Found", &[], ""),
    });
    let body = format!(
        "[a]({0}/garbage) [b]({0}/endless#deep) [c](<{0}/café x>) [d](https://) [e](http://a%20b/)",
        server.base
    );
    let dir = site(&[("a.md", &page("A", &body))], None);
    let started = Instant::now();
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(20)));
    let problems = problems.replace(server.base.as_str(), "B");
    let said: Vec<&str> = problems
        .lines()
        .filter(|l| l.starts_with("error"))
        .collect();
    assert_eq!(said.len(), 4, "{problems}");
    assert!(
        said[0].starts_with("error: `B/garbage` fails: "),
        "{problems}"
    );
    assert_eq!(said[1], "error: `https://` names no host");
    assert!(
        said[2].starts_with("error: `http://a%20b/` is not an address"),
        "{problems}"
    );
    // A page with no end is read to the limit: its anchor is not judged.
    assert!(
        tally.notes.iter().any(|n| n.contains(
            "was not checked for the anchor `#deep`: it is not in the first 1 MB of the page"
        )),
        "{:?}",
        tally.notes
    );
    assert!(
        server
            .requests()
            .contains(&"HEAD /caf%C3%A9%20x".to_string())
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_site_with_no_external_link_makes_no_request() {
    let server = Server::start(|_, _, _| answer("200 OK", &[], ""));
    let body = format!(
        "In code, `{}` is no link; [mail](mailto:a@b.org), [home](/), [tel](tel:123).",
        server.at("/x")
    );
    let dir = site(&[("index.md", &page("Home", &body))], None);
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(5)));
    assert_eq!(problems, "");
    assert_eq!((tally.addresses, tally.requests), (0, 0));
    assert!(server.requests().is_empty());
    assert!(!dir.path().join(".retrylab-cache/external.json").exists());
    // As the command line says it; `check` alone asks nothing and says nothing of it.
    let root = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&["check", "--external", "--root", root]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "checked 1 page: no problems\n");
    assert_eq!(
        stderr,
        "external links: 0 addresses on 0 hosts, 0 from the cache, 0 requests, 0 retried, 0 dead, 0 not checked\n"
    );
    let (code, _, stderr) = run(&["check", "--root", root]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(server.requests().is_empty());
}

#[test]
fn a_host_is_asked_at_most_twice_at_once() {
    let server = Server::start(|_, _, _| {
        Reply::Late(
            Duration::from_millis(150),
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
        )
    });
    let body: Vec<String> = (0..8)
        .map(|n| format!("[{n}]({})", server.at(&format!("/{n}"))))
        .collect();
    let dir = site(&[("a.md", &page("A", &body.join(" ")))], None);
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(20)));
    assert_eq!(problems, "");
    assert_eq!((tally.addresses, tally.requests, tally.dead), (8, 8, 0));
    let most = server.busy.lock().unwrap().1;
    assert!((1..=2).contains(&most), "{most} requests at once");
}

#[test]
fn a_page_read_for_its_anchors_holds_its_host_s_turn_until_it_is_read() {
    let html = "<h1 id=\"a\">A</h1>";
    let server = Server::start(move |_, _, _| {
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n",
            html.len()
        );
        Reply::SlowBody(head, Duration::from_millis(200), html.to_string())
    });
    let body: Vec<String> = (0..6)
        .map(|n| format!("[{n}]({})", server.at(&format!("/{n}#a"))))
        .collect();
    let dir = site(&[("a.md", &page("A", &body.join(" ")))], None);
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(30)));
    assert_eq!(problems, "");
    assert_eq!((tally.addresses, tally.requests, tally.dead), (6, 6, 0));
    let most = server.busy.lock().unwrap().1;
    assert!((1..=2).contains(&most), "{most} requests at once");
}

#[test]
fn only_check_external_asks_and_a_dead_link_fails_it() {
    let server = Server::start(|_, _, _| answer("404 Not Found", &[], ""));
    let gone = server.at("/gone");
    let dir = site(
        &[("index.md", &page("Home", &format!("[gone]({gone})")))],
        None,
    );
    let root = dir.path().to_str().unwrap();
    let out = dir.path().join("public");
    let (code, _, stderr) = run(&["check", "--root", root]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run(&["build", "--root", root, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(server.requests().is_empty());
    let (code, stdout, stderr) = run(&[
        "check",
        "--external",
        "--external-deadline",
        "20",
        "--root",
        root,
    ]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert!(
        stderr.starts_with(&format!(
            "external links: 1 address on 1 host, 0 from the cache, 2 requests, 0 retried, 1 dead, 0 not checked\n\
             error: `{gone}` answers 404 Not Found\n"
        )),
        "{stderr}"
    );
    assert!(stderr.ends_with("error: 1 problem found\n"), "{stderr}");
    assert_eq!(server.requests(), ["HEAD /gone", "GET /gone"]);
    // The deadline is asked with --external only.
    let (code, _, stderr) = run(&["check", "--external-deadline", "5", "--root", root]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn attempts_are_capped_and_a_lasting_503_is_dead_but_a_lasting_429_unchecked() {
    let server = Server::start(|_, path, _| match path {
        "/down" => answer("503 Service Unavailable", &[], ""),
        "/busy" => answer("429 Too Many Requests", &[("Retry-After", "soon")], ""),
        _ => answer("200 OK", &[], ""),
    });
    let body = format!("[a]({}) [b]({})", server.at("/down"), server.at("/busy"));
    let dir = site(&[("a.md", &page("A", &body))], None);
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(20)));
    let problems = problems.replace(server.base.as_str(), "B");
    assert!(
        problems.starts_with("error: `B/down` answers 503 Service Unavailable\n"),
        "{problems}"
    );
    assert!(problems.ends_with("error: 1 problem found"), "{problems}");
    let mut asked = server.requests();
    asked.sort();
    assert_eq!(asked, [["HEAD /busy"; 4], ["HEAD /down"; 4]].concat());
    assert_eq!((tally.requests, tally.retries), (8, 6));
    assert_eq!((tally.dead, tally.unchecked), (1, 1));
    assert!(
        tally.notes[0].contains(
            "was not checked: the host still answers 429 Too Many Requests after 4 attempts"
        ),
        "{:?}",
        tally.notes
    );
}

#[test]
fn a_sources_sections_are_asked_and_their_anchors_found() {
    let server = Server::start(|_, path, _| match path {
        "/doc" => answer(
            "200 OK",
            &[("Content-Type", "text/html")],
            "<h2 id=\"retry-on\">x</h2>",
        ),
        _ => answer("404 Not Found", &[], ""),
    });
    let sources = format!(
        "envoy:\n  kind: web\n  title: Router\n  url: {0}/doc\n  sections:\n    \
         retry-on: {{title: Retry on, url: {0}/doc#retry-on}}\n    \
         budgets: {{title: Budgets, url: {0}/doc#budgets}}\n",
        server.base
    );
    let body = "Envoy retries [@envoy, section retry-on] within budgets [@envoy, section budgets].";
    let dir = site(&[("a.md", &page("A", body))], Some(&sources));
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(20)));
    let problems = problems.replace(server.base.as_str(), "B");
    // Told where the entry writes the section's address.
    let carets = "^".repeat(format!("{}/doc#budgets", server.base).len());
    assert_eq!(
        problems,
        format!(
            "error: the source `envoy` links to `B/doc#budgets`, whose page has no anchor `#budgets`\n \
             --> sources.yaml:7:36\n  \
             |\n\
             7 |     budgets: {{title: Budgets, url: B/doc#budgets}}\n  \
             |                                    {carets}\n\n\
             error: 1 problem found"
        )
    );
    // The page is read once for its entry's address and both its sections.
    assert_eq!(server.requests(), ["GET /doc"]);
    assert_eq!((tally.addresses, tally.dead), (1, 1));
}

#[test]
fn an_address_site_yaml_skips_is_never_asked() {
    let server = Server::start(|_, _, _| answer("403 Forbidden", &[], ""));
    let body = format!(
        "[a]({0}/private/a) [b]({0}/private/b#x) [c]({0}/open)",
        server.base
    );
    let dir = site(&[("a.md", &page("A", &body))], None);
    let yaml = format!(
        "title: T\nsearch: false\nexternal_skip: [{}/private/]\n",
        server.base
    );
    std::fs::write(dir.path().join("site.yaml"), yaml).unwrap();
    let (problems, tally) = check(dir.path(), &quick(Duration::from_secs(20)));
    assert!(
        problems.contains("/open` answers 403 Forbidden"),
        "{problems}"
    );
    assert!(problems.ends_with("error: 1 problem found"), "{problems}");
    assert_eq!(server.requests(), ["HEAD /open", "GET /open"]);
    assert_eq!((tally.addresses, tally.skipped), (1, 2));
    assert!(
        tally
            .to_string()
            .ends_with(", 1 dead, 0 not checked, 2 skipped"),
        "{tally}"
    );
}
