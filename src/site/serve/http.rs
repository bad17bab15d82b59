//! The HTTP that `serve` speaks: hyper's HTTP/1 server (hyper 1.12,
//! `src/server/conn/http1.rs`) on tokio, one task per connection and no cap on
//! connections. hyper reads and parses each request's head (with httparse), answers a
//! head that is not HTTP or of another version (400) or too large (431), and closes a
//! connection whose head has not come within [`HEAD_TIME`]: its timer starts whenever
//! a head is awaited (`src/proto/h1/conn.rs`, `poll_read_head`), so it is also how long
//! a kept-alive connection may stay idle before its next request. An HTTP/2 preface,
//! which hyper's HTTP/1 server closes without an answer (`src/proto/h1/role.rs`,
//! `Server::on_error`), gets 505 here first. What is left here is the response side: a
//! body that is bytes or an event stream, and the refusals of what the server does not
//! serve.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body as HttpBody, Bytes, Frame, Incoming, SizeHint};
use hyper::header::{ALLOW, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

/// How long a client may take to send a request's head, however it trickles it, and
/// how long a kept-alive connection may stay idle before its next request.
pub const HEAD_TIME: Duration = Duration::from_secs(3);

/// The most bytes a request's head may take (hyper's read buffer; it answers 431 past it).
const MAX_HEAD: usize = 16 * 1024;

/// The most headers a request may have (hyper answers 431 past it).
const MAX_HEADERS: usize = 64;

/// What a response carries after its head.
pub enum Body {
    /// Bytes in memory, taken when sent.
    Bytes(Option<Bytes>),
    /// An event stream: each message as its writer sends it, until the writer stops.
    Stream(mpsc::Receiver<Bytes>),
}

impl HttpBody for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            Body::Bytes(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Body::Stream(messages) => messages
                .poll_recv(cx)
                .map(|message| message.map(|m| Ok(Frame::data(m)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Body::Bytes(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Body::Bytes(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            Body::Stream(_) => SizeHint::default(),
        }
    }
}

/// A response of `status` with `headers` (in this order, then `Content-Length`), and
/// `body` unless the request is a HEAD.
pub fn response(
    status: StatusCode,
    headers: Vec<(HeaderName, String)>,
    body: Vec<u8>,
    head_only: bool,
) -> Response<Body> {
    let length = body.len();
    let mut response = Response::new(Body::Bytes(
        (!head_only && !body.is_empty()).then(|| Bytes::from(body)),
    ));
    *response.status_mut() = status;
    let fields = response.headers_mut();
    for (name, value) in headers {
        if let Ok(value) = HeaderValue::try_from(value) {
            fields.append(name, value);
        }
    }
    fields.insert(CONTENT_LENGTH, HeaderValue::from(length));
    response
}

/// A plain-text response.
pub fn text(status: StatusCode, text: &str, head_only: bool) -> Response<Body> {
    response(
        status,
        vec![(CONTENT_TYPE, "text/plain; charset=utf-8".to_string())],
        text.as_bytes().to_vec(),
        head_only,
    )
}

/// A plain-text refusal, after which the connection closes.
fn refusal(status: StatusCode, reason: &'static str, message: &str) -> Response<Body> {
    let mut response = text(status, message, false);
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    // RFC 9110 §15.5.14 names 413 "Content Too Large"; the `http` crate's phrase is older.
    response
        .extensions_mut()
        .insert(hyper::ext::ReasonPhrase::from_static(reason.as_bytes()));
    response
}

/// What the server serves of a request: whether it is a HEAD, or a refusal of a request
/// that announces a body (413), before any of the body is read, or of a method other
/// than GET and HEAD (405).
pub fn accept(request: &Request<Incoming>) -> Result<bool, Box<Response<Body>>> {
    if !request.body().is_end_stream() {
        return Err(Box::new(refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Content Too Large",
            "this server takes no request body\n",
        )));
    }
    let head_only = match *request.method() {
        Method::GET => false,
        Method::HEAD => true,
        _ => {
            let mut refused = refusal(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method Not Allowed",
                "this server answers GET and HEAD only\n",
            );
            refused
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            return Err(Box::new(refused));
        }
    };
    Ok(head_only)
}

/// A refusal of a request whose Host is not this server's.
pub fn misdirected(message: &str) -> Response<Body> {
    refusal(
        StatusCode::MISDIRECTED_REQUEST,
        "Misdirected Request",
        message,
    )
}

/// Serves one connection with `service` until it closes, then lingers (see [`linger`]).
pub async fn connection<S>(mut stream: TcpStream, service: S)
where
    S: hyper::service::Service<Request<Incoming>, Response = Response<Body>, Error = Infallible>,
    S::Future: Send + 'static,
{
    let _ = stream.set_nodelay(true);
    let Ok(http2) = tokio::time::timeout(HEAD_TIME, http2_preface(&stream)).await else {
        // Silent for as long as a whole head may take: closed, as hyper would.
        return;
    };
    if http2 {
        let message = "this server speaks HTTP/1.0 and HTTP/1.1\n";
        let answer = format!(
            "HTTP/1.1 505 HTTP Version Not Supported\r\n\
             Content-Type: text/plain; charset=utf-8\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{message}",
            message.len()
        );
        if stream.write_all(answer.as_bytes()).await.is_ok() {
            linger(stream).await;
        }
        return;
    }
    // A connection that fails is the client's business: nothing to report.
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEAD_TIME)
        .max_buf_size(MAX_HEAD)
        .max_headers(MAX_HEADERS)
        .title_case_headers(true)
        .auto_date_header(false)
        .serve_connection(hyper_util::rt::TokioIo::new(&mut stream), service)
        .await;
    linger(stream).await;
}

/// Whether a connection opens with HTTP/2's preface (RFC 9113 §3.4, `PRI * HTTP/2.0`),
/// read without taking it from the connection. hyper's HTTP/1 server closes such a
/// connection without a word; it is answered 505 instead. Only the method is looked at:
/// `PRI` is no method this server serves.
async fn http2_preface(stream: &TcpStream) -> bool {
    const PRI: &[u8] = b"PRI ";
    let mut first = [0; PRI.len()];
    loop {
        let n = match stream.peek(&mut first).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => n,
        };
        if first[..n] != PRI[..n] {
            return false;
        }
        if n == PRI.len() {
            return true;
        }
        // A part of `PRI `: wait for the rest (the caller's timeout bounds the wait).
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Closes a connection: first our side, then after reading what the client still
/// sends (a little, for a short while), so that a request refused before it was read
/// to its end does not make the kernel reset the connection and lose the answer.
async fn linger(mut stream: TcpStream) {
    if stream.shutdown().await.is_err() {
        return;
    }
    let mut sink = [0; 8192];
    let mut left: usize = 4 << 20;
    let drain = async {
        while left > 0 {
            match stream.read(&mut sink).await {
                Ok(0) | Err(_) => break,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), drain).await;
}
