//! The HTTP/1.1 that `serve` speaks, over `std::net`: a request's head is read into a
//! buffer of bounded size and parsed by `httparse`; GET and HEAD are answered, one
//! request per connection. A request that announces a body is refused before any of
//! it is read (the server needs none), so that no header can make it allocate or wait.

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

/// The most bytes a request's head (its request line and headers) may take.
pub const MAX_HEAD: usize = 16 * 1024;

/// The most headers a request may have.
const MAX_HEADERS: usize = 64;

/// How long a client may take to send a request's head, however it trickles it.
const HEAD_TIME: Duration = Duration::from_secs(30);

/// The statuses the server answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// 200.
    Ok,
    /// 301: a folder's address without its final `/`.
    MovedPermanently,
    /// 400: a head that is not HTTP.
    BadRequest,
    /// 403: a path that leaves the output folder.
    Forbidden,
    /// 404.
    NotFound,
    /// 405: anything but GET and HEAD.
    MethodNotAllowed,
    /// 413: a request with a body.
    ContentTooLarge,
    /// 431: a head larger than [`MAX_HEAD`] or with too many headers.
    HeadersTooLarge,
    /// 503: too many connections, or the site is being swapped.
    ServiceUnavailable,
    /// 505: an HTTP version other than 1.0 and 1.1.
    VersionNotSupported,
}

impl Status {
    /// The number and the reason phrase of the status line.
    fn line(self) -> (u16, &'static str) {
        match self {
            Status::Ok => (200, "OK"),
            Status::MovedPermanently => (301, "Moved Permanently"),
            Status::BadRequest => (400, "Bad Request"),
            Status::Forbidden => (403, "Forbidden"),
            Status::NotFound => (404, "Not Found"),
            Status::MethodNotAllowed => (405, "Method Not Allowed"),
            Status::ContentTooLarge => (413, "Content Too Large"),
            Status::HeadersTooLarge => (431, "Request Header Fields Too Large"),
            Status::ServiceUnavailable => (503, "Service Unavailable"),
            Status::VersionNotSupported => (505, "HTTP Version Not Supported"),
        }
    }
}

/// A request the server answers.
#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    /// HEAD: the head of the response only.
    pub head_only: bool,
    /// The request target as sent (a path, perhaps with a query).
    pub target: String,
}

/// What a response carries after its head.
pub enum Body {
    /// Bytes in memory.
    Bytes(Vec<u8>),
    /// An open file of the given length, copied to the client as it is read.
    File(std::fs::File, u64),
}

/// A response: a status, headers of our own making, a body.
pub struct Response {
    /// The status.
    pub status: Status,
    /// Headers besides `Content-Length` and `Connection`, which are always sent.
    pub headers: Vec<(&'static str, String)>,
    /// The body.
    pub body: Body,
}

impl Response {
    /// A plain-text response.
    pub fn text(status: Status, text: &str) -> Response {
        Response {
            status,
            headers: vec![("Content-Type", "text/plain; charset=utf-8".to_string())],
            body: Body::Bytes(text.as_bytes().to_vec()),
        }
    }

    /// Adds a header.
    pub fn with(mut self, name: &'static str, value: String) -> Response {
        self.headers.push((name, value));
        self
    }
}

/// Why a request gets no ordinary answer.
pub enum Refusal {
    /// The client closed, went quiet past the read timeout, or failed: nothing to say.
    Gone,
    /// An answer that refuses it.
    Answer(Response),
}

fn refuse(status: Status, text: &str) -> Refusal {
    Refusal::Answer(Response::text(status, text))
}

/// Reads one request's head from `stream`, never more than [`MAX_HEAD`] bytes nor for
/// longer than [`HEAD_TIME`], and refuses what the server does not serve.
pub fn read_request(stream: &mut impl Read) -> Result<Request, Refusal> {
    let started = Instant::now();
    let mut head = Vec::new();
    let mut chunk = [0; 2048];
    loop {
        if started.elapsed() > HEAD_TIME {
            return Err(Refusal::Gone);
        }
        let room = (MAX_HEAD - head.len()).min(chunk.len());
        let n = match stream.read(&mut chunk[..room]) {
            Ok(0) | Err(_) => return Err(Refusal::Gone),
            Ok(n) => n,
        };
        head.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut request = httparse::Request::new(&mut headers);
        match request.parse(&head) {
            Ok(httparse::Status::Complete(_)) => return accept(&request),
            Ok(httparse::Status::Partial) if head.len() < MAX_HEAD => {}
            Ok(httparse::Status::Partial) | Err(httparse::Error::TooManyHeaders) => {
                return Err(refuse(
                    Status::HeadersTooLarge,
                    "the request's head is too large\n",
                ));
            }
            Err(error) => {
                return Err(refuse(
                    Status::BadRequest,
                    &format!("this is not an HTTP request: {error}\n"),
                ));
            }
        }
    }
}

/// A parsed head: a GET or HEAD without a body, or a refusal.
fn accept(request: &httparse::Request) -> Result<Request, Refusal> {
    if request.version.is_some_and(|v| v > 1) {
        return Err(refuse(
            Status::VersionNotSupported,
            "this server speaks HTTP/1.0 and HTTP/1.1\n",
        ));
    }
    for header in request.headers.iter() {
        let has_body = if header.name.eq_ignore_ascii_case("content-length") {
            let digits = std::str::from_utf8(header.value).unwrap_or("").trim();
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(refuse(Status::BadRequest, "a malformed Content-Length\n"));
            }
            digits.bytes().any(|b| b != b'0')
        } else {
            header.name.eq_ignore_ascii_case("transfer-encoding")
        };
        if has_body {
            return Err(refuse(
                Status::ContentTooLarge,
                "this server takes no request body\n",
            ));
        }
    }
    let head_only = match request.method {
        Some("GET") => false,
        Some("HEAD") => true,
        Some(_) | None => {
            return Err(Refusal::Answer(
                Response::text(
                    Status::MethodNotAllowed,
                    "this server answers GET and HEAD only\n",
                )
                .with("Allow", "GET, HEAD".to_string()),
            ));
        }
    };
    Ok(Request {
        head_only,
        target: request.path.unwrap_or("/").to_string(),
    })
}

/// The head of a response, for a body of `length` bytes.
fn head(response: &Response, length: u64) -> String {
    let (code, reason) = response.status.line();
    let mut head = format!("HTTP/1.1 {code} {reason}\r\n");
    for (name, value) in &response.headers {
        head += &format!("{name}: {value}\r\n");
    }
    head + &format!("Content-Length: {length}\r\nConnection: close\r\n\r\n")
}

/// Writes a response; with `head_only`, its head alone (the answer to HEAD).
pub fn write(stream: &mut impl Write, response: Response, head_only: bool) -> io::Result<()> {
    let length = match &response.body {
        Body::Bytes(bytes) => bytes.len() as u64,
        Body::File(_, length) => *length,
    };
    stream.write_all(head(&response, length).as_bytes())?;
    if !head_only {
        match response.body {
            Body::Bytes(bytes) => stream.write_all(&bytes)?,
            Body::File(file, length) => {
                io::copy(&mut file.take(length), stream)?;
            }
        }
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Result<Request, String> {
        read_request(&mut &bytes[..]).map_err(|refusal| match refusal {
            Refusal::Gone => "gone".to_string(),
            Refusal::Answer(response) => format!("{:?}", response.status),
        })
    }

    #[test]
    fn reads_get_and_head_and_refuses_the_rest() {
        let get = read(b"GET /a/?x=1 HTTP/1.1\r\nHost: h\r\n\r\n").unwrap();
        assert_eq!(
            get,
            Request {
                head_only: false,
                target: "/a/?x=1".to_string()
            }
        );
        assert!(read(b"HEAD / HTTP/1.0\r\n\r\n").unwrap().head_only);
        let no_body = read(b"GET / HTTP/1.1\r\nContent-Length: 000\r\n\r\n");
        assert!(no_body.is_ok());
        for (request, refused) in [
            (&b"POST / HTTP/1.1\r\n\r\n"[..], "MethodNotAllowed"),
            (
                b"POST / HTTP/1.1\r\nContent-Length: 99999999999999\r\n\r\n",
                "ContentTooLarge",
            ),
            (
                b"GET / HTTP/1.1\r\ncontent-length: 184467440737095516150\r\n\r\n",
                "ContentTooLarge",
            ),
            (
                b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                "ContentTooLarge",
            ),
            (
                b"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
                "BadRequest",
            ),
            (b"GET / HTTP/1.1\r\nContent-Length: \r\n\r\n", "BadRequest"),
            (b"\x00\x01\x02\r\n\r\n", "BadRequest"),
            (b"GET / HTTP/1.1\r\n", "gone"),
            (b"", "gone"),
        ] {
            assert_eq!(read(request), Err(refused.to_string()), "{request:?}");
        }
    }

    #[test]
    fn a_head_is_read_up_to_its_bound_and_no_further() {
        let mut long = b"GET / HTTP/1.1\r\nX: ".to_vec();
        long.resize(MAX_HEAD * 4, b'a');
        assert_eq!(read(&long), Err("HeadersTooLarge".to_string()));
        let mut many = b"GET / HTTP/1.1\r\n".to_vec();
        for i in 0..=MAX_HEADERS {
            many.extend(format!("X-{i}: y\r\n").bytes());
        }
        many.extend(b"\r\n");
        assert_eq!(read(&many), Err("HeadersTooLarge".to_string()));
    }

    #[test]
    fn writes_a_head_then_the_body_unless_asked_for_the_head_only() {
        let response = || Response::text(Status::NotFound, "no\n");
        let mut out = Vec::new();
        write(&mut out, response(), false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: 3\r\nConnection: close\r\n\r\nno\n"
        );
        let mut out = Vec::new();
        write(&mut out, response(), true).unwrap();
        assert!(String::from_utf8(out).unwrap().ends_with("close\r\n\r\n"));
    }
}
