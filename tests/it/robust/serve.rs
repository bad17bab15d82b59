//! `serve` survives its network: a request that announces a huge body, a path that
//! would redirect to another host, and heads that are not HTTP are answered, and the
//! server goes on serving.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::arg;
use crate::util::fixture;

/// The server process, killed however the test ends.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `retrylab serve` on a free port and waits for its address.
    fn start(root: &std::path::Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrylab"))
            .args(["serve", "--port", "0", "--root", arg(root)])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            // Read to the end, so that the server never writes into a closed pipe.
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut server = Server { child, port: 0 };
        let deadline = Instant::now() + Duration::from_secs(60);
        while server.port == 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = rx
                .recv_timeout(left)
                .expect("the server prints its address");
            if let Some(rest) = line.split("at http://127.0.0.1:").nth(1) {
                server.port = rest.split('/').next().unwrap().parse().unwrap();
            }
        }
        server
    }

    /// Sends `request` as it is and returns the whole response.
    fn send(&self, request: &[u8]) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("the server listens");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        // The server may answer and close before it has read everything.
        let _ = stream.write_all(request);
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        String::from_utf8_lossy(&response).into_owned()
    }

    /// A GET of `path`, as written.
    fn get(&self, path: &str) -> String {
        self.send(format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes())
    }

    /// Whether the server still answers a page.
    fn still_serves(&mut self) {
        assert!(
            self.child.try_wait().unwrap().is_none(),
            "the server has stopped"
        );
        let home = self.get("/");
        assert!(home.starts_with("HTTP/1.1 200 OK\r\n"), "{home}");
        assert!(home.contains("</html>"));
    }
}

#[test]
fn a_request_announcing_a_huge_body_is_refused_and_the_server_goes_on() {
    let site = fixture("good");
    let mut server = Server::start(site.path());
    for request in [
        &b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999\r\n\r\n"[..],
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999\r\n\r\n",
        b"PUT /storm/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffff\r\n",
    ] {
        let response = server.send(request);
        assert_eq!(
            response,
            "HTTP/1.1 413 Content Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: 34\r\nConnection: close\r\n\r\nthis server takes no request body\n"
        );
        server.still_serves();
    }
    let response = server.send(b"DELETE / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(
        response.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"),
        "{response}"
    );
    assert!(response.contains("\r\nAllow: GET, HEAD\r\n"));
    server.still_serves();
}

#[test]
fn heads_that_are_not_http_or_too_large_are_refused_and_the_server_goes_on() {
    let site = fixture("good");
    let mut server = Server::start(site.path());
    let response = server.send(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n");
    assert!(
        response.starts_with("HTTP/1.1 400 Bad Request\r\n"),
        "{response}"
    );
    let mut huge = b"GET / HTTP/1.1\r\nX-Long: ".to_vec();
    huge.resize(1 << 20, b'a');
    let response = server.send(&huge);
    assert!(
        response.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"),
        "{response}"
    );
    // A client that connects and says nothing, then goes, holds nothing.
    drop(TcpStream::connect(("127.0.0.1", server.port)).unwrap());
    server.still_serves();
    let head = server.send(b"HEAD /storm/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert!(head.ends_with("\r\n\r\n"), "HEAD has no body: {head}");
}

#[test]
fn a_path_with_two_leading_slashes_redirects_on_this_server() {
    let site = fixture("good");
    let mut server = Server::start(site.path());
    for (path, location) in [
        ("//storm", "/storm/"),
        ("///storm", "/storm/"),
        ("/storm", "/storm/"),
        ("//guide/notes", "/guide/notes/"),
    ] {
        let response = server.get(path);
        assert!(
            response.starts_with("HTTP/1.1 301 Moved Permanently\r\n"),
            "{path}: {response}"
        );
        assert!(
            response.contains(&format!("\r\nLocation: {location}\r\n")),
            "{path}: {response}"
        );
    }
    server.still_serves();
}

/// Reads from `stream` until `text` has come, the stream ends or its read timeout passes.
fn read_until(stream: &mut TcpStream, text: &str) -> String {
    let mut seen = Vec::new();
    let mut buffer = [0; 4096];
    while !String::from_utf8_lossy(&seen).contains(text) {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&buffer[..n]),
        }
    }
    String::from_utf8_lossy(&seen).into_owned()
}

#[test]
fn connections_that_trickle_their_heads_keep_no_page_from_being_served() {
    let site = fixture("good");
    let mut server = Server::start(site.path());
    // Slowloris: many connections, each sending its head a byte at a time, never done.
    let mut slow: Vec<TcpStream> = (0..400)
        .map(|_| {
            let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
            stream
                .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                .unwrap();
            stream
        })
        .collect();
    let trickling = Instant::now();
    let mut answered = 0;
    // Over a span longer than the server gives a head, a page is asked for now and then.
    while trickling.elapsed() < Duration::from_secs(5) {
        for stream in &mut slow {
            // A connection the server has closed is no failure: it was meant to be.
            let _ = stream.write_all(b"a");
        }
        // A page is answered however many heads trickle (the read timeout is generous).
        server.still_serves();
        answered += 1;
        std::thread::sleep(Duration::from_millis(500));
    }
    assert!(answered >= 2);
    drop(slow);
    server.still_serves();
}

#[test]
fn event_streams_opened_and_closed_leave_no_slot_taken() {
    let site = fixture("good");
    let mut server = Server::start(site.path());
    let port = server.port;
    let stream = || {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream
            .write_all(b"GET /__retrylab/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .unwrap();
        stream
    };
    // More than the streams the server keeps open at once: each must be let go when
    // its page goes, or a later one is refused as busy.
    for i in 0..300 {
        let mut page = stream();
        let seen = read_until(&mut page, "event: build\ndata: 1\n\n");
        assert!(
            seen.starts_with("HTTP/1.1 200 OK\r\n") && seen.contains("event: build"),
            "stream {i}: {seen}"
        );
    }
    server.still_serves();
    let mut last = stream();
    let seen = read_until(&mut last, "event: build\ndata: 1\n\n");
    assert!(seen.contains("event: build\ndata: 1\n\n"), "{seen}");
}

#[test]
fn a_request_for_another_host_is_refused() {
    let site = fixture("good");
    let mut server = Server::start(site.path());
    let port = server.port;
    // What a DNS-rebinding page sends: the site, asked for under the attacker's name.
    for host in [
        "rebind.attacker.example".to_string(),
        format!("rebind.attacker.example:{port}"),
        format!("localhost.attacker.example:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        "x".to_string(),
    ] {
        let response = server.send(
            format!("GET /storm/ HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(),
        );
        assert!(
            response.starts_with("HTTP/1.1 421 Misdirected Request\r\n"),
            "{host}: {response}"
        );
        assert!(response.contains("DNS rebinding"), "{host}: {response}");
        assert!(!response.contains("With a fixed delay"), "{host}");
    }
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("LocalHost:{port}"),
        "localhost".to_string(),
        format!("[::1]:{port}"),
    ] {
        let response = server.send(
            format!("GET /storm/ HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(),
        );
        assert!(
            response.starts_with("HTTP/1.1 200 OK\r\n"),
            "{host}: {response}"
        );
        assert!(response.contains("With a fixed delay"), "{host}");
    }
    server.still_serves();
}

#[test]
fn an_http2_preface_is_answered_505_and_http_1_0_is_served() {
    let site = fixture("good");
    let mut server = Server::start(site.path());
    let response = server.send(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    assert!(
        response.starts_with("HTTP/1.1 505 HTTP Version Not Supported\r\n"),
        "{response}"
    );
    assert!(response.ends_with("this server speaks HTTP/1.0 and HTTP/1.1\n"));
    // HTTP/1.0 may name no Host, and the connection closes after the answer.
    let response = server.send(b"GET /storm/ HTTP/1.0\r\n\r\n");
    assert!(response.starts_with("HTTP/1.0 200 OK\r\n"), "{response}");
    assert!(response.contains("With a fixed delay"));
    server.still_serves();
}
