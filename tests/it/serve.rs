//! `retrylab serve` as an author uses it: fetch pages over loopback, edit, break and fix
//! a page, and watch the reload signal. Every wait has a deadline; the server is always
//! stopped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use crate::util::fixture;

/// The server process, killed however the test ends.
struct Server {
    child: Child,
    port: u16,
    stderr: Arc<Mutex<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Collects what a stream prints, on a thread of its own.
fn collect(stream: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&text);
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            let mut sink = sink.lock().unwrap();
            sink.push_str(&line);
            sink.push('\n');
        }
    });
    text
}

fn start(root: &std::path::Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrylab"))
        .args(["serve", "--port", "0", "--root", root.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().unwrap();
    let stderr = collect(child.stderr.take().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        // Read to the end, so that the server never writes into a closed pipe.
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut server = Server {
        child,
        port: 0,
        stderr,
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.port == 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no address printed; stderr: {}", server.stderr()));
        if let Some(rest) = line.split("at http://127.0.0.1:").nth(1) {
            server.port = rest.split('/').next().unwrap().parse().unwrap();
        }
    }
    server
}

impl Server {
    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// A GET of `path` exactly as written (no normalising), returning status and body.
    fn get(&self, path: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))
            .unwrap_or_else(|e| panic!("port {}: {e}; stderr: {}", self.port, self.stderr()));
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        let response = String::from_utf8_lossy(&response).into_owned();
        let status = response
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let body = response
            .split_once("\r\n\r\n")
            .map_or(String::new(), |(_, b)| b.to_string());
        (status, body)
    }

    /// The event stream, read on a thread into a growing text.
    fn events(&self) -> Arc<Mutex<String>> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "GET /__retrylab/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        )
        .unwrap();
        let text = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&text);
        std::thread::spawn(move || {
            let mut buffer = [0; 4096];
            while let Ok(n) = stream.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buffer[..n]));
            }
        });
        text
    }
}

/// Waits up to 20 seconds for `done`, then fails with `what`.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn serve_rebuilds_reloads_shows_errors_and_stays_inside_the_site() {
    let site = fixture("good");
    let server = start(site.path());

    let (status, page) = server.get("/storm/");
    assert_eq!(status, 200);
    assert!(page.contains("With a fixed delay"));
    assert!(page.contains("new EventSource(\"/__retrylab/events\")"));
    // The script is added when serving, never written into the site.
    let on_disk = std::fs::read_to_string(site.path().join("public/storm/index.html")).unwrap();
    assert!(!on_disk.contains("__retrylab"));
    assert!(on_disk.contains("With a fixed delay"));
    assert_eq!(server.get("/storm").0, 301);
    let (status, missing) = server.get("/no/such/page/");
    assert_eq!(status, 404);
    assert!(missing.contains("Page not found"));

    let events = server.events();
    wait_for("the first build event", || {
        events.lock().unwrap().contains("event: build\ndata: 1\n\n")
    });

    // An edit is rebuilt, and open pages are told to reload.
    let page_file = site.path().join("content/storm.md");
    let good = std::fs::read_to_string(&page_file).unwrap();
    std::fs::write(&page_file, good.replace("fixed delay", "fixed wait")).unwrap();
    wait_for("the rebuilt page", || {
        server.get("/storm/").1.contains("With a fixed wait")
    });
    wait_for("the reload signal", || {
        events.lock().unwrap().contains("event: build\ndata: 2\n\n")
    });

    // A broken directive: the diagnostic in the terminal and over the last good page.
    std::fs::write(&page_file, good.replace("clients: 20", "clients: twenty")).unwrap();
    let message = "`clients` must be a whole number, found `twenty`";
    wait_for("the diagnostic on stderr", || {
        server.stderr().contains(message)
    });
    assert!(server.stderr().contains("--> content/storm.md:12:10"));
    let (status, page) = server.get("/storm/");
    assert_eq!(status, 200);
    assert!(page.contains("id=\"retrylab-overlay\""), "{page}");
    assert!(page.contains(message));
    assert!(
        page.contains("With a fixed wait"),
        "the last good page stays"
    );
    assert!(server.get("/__retrylab/problem").1.contains(message));
    wait_for("the problem event", || {
        events.lock().unwrap().contains("event: problem\n")
    });

    // The next good save clears it.
    std::fs::write(&page_file, &good).unwrap();
    wait_for("the overlay to go", || {
        let (_, page) = server.get("/storm/");
        page.contains("With a fixed delay") && !page.contains("id=\"retrylab-overlay\"")
    });
    assert_eq!(server.get("/__retrylab/problem").1, "");

    // Only files inside the output folder are served.
    for path in [
        "/../site.yaml",
        "/storm/../../site.yaml",
        "/%2e%2e/site.yaml",
        "/%2E%2E%2Fsite.yaml",
        "/..%5csite.yaml",
    ] {
        let (status, body) = server.get(path);
        assert_eq!(status, 403, "{path}: {body}");
        assert!(!body.contains("Fixture site"), "{path}");
    }
}

#[test]
fn serve_builds_a_page_written_in_two_parts_once_it_is_whole() {
    let site = fixture("good");
    let server = start(site.path());
    let events = server.events();
    wait_for("the first build event", || {
        events.lock().unwrap().contains("event: build\ndata: 1\n\n")
    });
    // A program writes a new page in two parts, with a pause between them longer than
    // one save's events take: the first part alone is no page (its front matter is
    // open), and that problem is never shown.
    let page = "---\ntitle: Halves\n---\n\nWritten in two parts.\n";
    let (first, second) = page.split_at(12);
    let path = site.path().join("content/halves.md");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(first.as_bytes()).unwrap();
    file.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    file.write_all(second.as_bytes()).unwrap();
    drop(file);
    wait_for("the new page", || {
        server.get("/halves/").1.contains("Written in two parts.")
    });
    // Quiet for a while: whatever was held is shown by now.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!server.stderr().contains("error"), "{}", server.stderr());
    assert!(!events.lock().unwrap().contains("event: problem"));
}

#[cfg(unix)]
#[test]
fn serve_stopped_by_ctrl_c_removes_the_site_it_kept_for_its_next_build() {
    let site = fixture("good");
    let mut server = start(site.path());
    let page_file = site.path().join("content/storm.md");
    let good = std::fs::read_to_string(&page_file).unwrap();
    std::fs::write(&page_file, good.replace("fixed delay", "fixed wait")).unwrap();
    wait_for("the rebuilt page", || {
        server.get("/storm/").1.contains("With a fixed wait")
    });
    let spare = site
        .path()
        .join(format!(".public.building-{}", server.child.id()));
    wait_for("the replaced site, kept", || spare.is_dir());

    let interrupted = Command::new("kill")
        .args(["-INT", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let mut code = None;
    wait_for("the server to stop", || {
        code = server.child.try_wait().unwrap().map(|s| s.code());
        code.is_some()
    });
    assert_eq!(code, Some(Some(130)));
    assert!(!spare.exists(), "the kept site is left behind");
    let on_disk = std::fs::read_to_string(site.path().join("public/storm/index.html")).unwrap();
    assert!(
        on_disk.contains("With a fixed wait"),
        "the site stays in place"
    );
}
