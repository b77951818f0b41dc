//! The HTTP side of `fsmc inspect`: one thread answers the page's requests
//! in turn, behind the token, with a strict Content-Security-Policy on
//! every response.
//!
//! Routes, under `/TOKEN/`:
//!
//! | method | path | answer |
//! | --- | --- | --- |
//! | GET | `` (the page), `app.js`, `app.css`, `icon.svg` | the page, built into the binary |
//! | GET | `api/state` | everything the page shows, as JSON (`?since=V`: unless it is still version V) |
//! | GET | `api/diagram.svg` | the diagram |
//! | GET | `api/steps?from=N` | up to 500 steps from step N (the state carries the last 500) |
//! | GET | `api/script` | the steps as a `fsmc run` script (a download) |
//! | GET | `api/snapshot` | the snapshot now (a download) |
//! | POST | `api/line` | apply one `fsmc run` input line: `{"output", "applied", "state"}` |
//! | POST | `api/back` | `{"to": N}`: go back to before step N |
//! | POST | `api/reset` | start over |
//! | POST | `api/script` | start over and apply a script |

use super::page;
use super::simulation::Simulation;
use crate::console;
use crate::exit::Exit;
use serde_json::{json, Value};
use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What every response carries: nothing but this origin may be loaded or
/// contacted, and no page may frame this one.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; \
frame-ancestors 'none'";

/// The largest body of one line (a `restore` carries a snapshot).
const MAX_LINE: usize = 1 << 20;
/// The largest script.
const MAX_SCRIPT: usize = 16 << 20;
/// The largest request line and headers.
const MAX_HEAD: usize = 16 << 10;
/// The most headers a request may have.
const MAX_HEADERS: usize = 48;
/// The most connections read at once; more wait to be accepted.
const MAX_CONNECTIONS: usize = 32;
/// How long a client may take to send its request, or to take the answer.
const TIMEOUT: Duration = Duration::from_secs(10);

/// 32 random bytes from the operating system, in hex.
pub fn token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A request read in full, its token and host checked: what the thread
/// that holds the [`App`] answers.
pub struct Request {
    pub method: String,
    /// The path under `/TOKEN/`, without the query.
    pub rest: String,
    /// The whole path, for messages.
    pub(super) path: String,
    /// What follows `?`, if anything.
    pub query: String,
    body: Vec<u8>,
}

/// A listening inspector.
pub struct Server {
    listener: TcpListener,
    address: SocketAddr,
    token: Arc<str>,
}

impl Server {
    /// Listen on `address`, port `port` (0: a free one).
    pub fn bind(address: IpAddr, port: u16, token: String) -> io::Result<Server> {
        let listener = TcpListener::bind(SocketAddr::new(address, port))?;
        let address = listener.local_addr()?;
        Ok(Server {
            listener,
            address,
            token: token.into(),
        })
    }

    /// Print the URL and answer requests until the process is stopped:
    /// a thread per connection reads its request (within the limits, the
    /// token checked before any body is read), and this thread, which
    /// holds `app`, answers them one at a time.
    pub fn serve(self, mut app: impl App) -> Exit {
        let banner = app.banner();
        let (requests, incoming) = mpsc::channel::<(Request, Sender<Reply>)>();
        let requests = Mutex::new(requests);
        let handler: Handler = Arc::new(move |request| {
            let (answer, reply) = mpsc::channel();
            let sent = lock(&requests).send((request, answer));
            sent.ok()?;
            reply.recv().ok()
        });
        self.serve_with(&banner, handler);
        for (request, answer) in incoming {
            let reply = app.answer(&request);
            let _ = answer.send(reply);
        }
        Exit::Trouble
    }

    /// Print `fsmc inspect: BANNER at URL` and answer requests on threads
    /// of their own, each by `handler` (`None`: close unanswered), once the
    /// token and host are checked.
    pub(super) fn serve_with(self, banner: &str, handler: Handler) {
        console::stdout(&format!(
            "fsmc inspect: {banner} at http://{}/{}/\n",
            self.address, self.token
        ));
        let gate = Gate {
            address: self.address,
            token: Arc::clone(&self.token),
        };
        let listener = self.listener;
        std::thread::spawn(move || accept(&listener, &gate, &handler));
    }
}

/// What answers a request whose token and host were checked, on the
/// connection's own thread.
pub(super) type Handler = Arc<dyn Fn(Request) -> Option<Reply> + Send + Sync>;

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What a server serves: the simulation of a file, or a fleet. It answers
/// each request whose token was checked, one at a time, and never panics on
/// what a client sends.
pub trait App {
    /// What is served, for the line that prints the URL.
    fn banner(&self) -> String;
    /// The answer to `request`.
    fn answer(&mut self, request: &Request) -> Reply;
}

impl App for Simulation {
    fn banner(&self) -> String {
        let machine = self.machine_name().map(|m| format!(" `{m}`")).unwrap_or_default();
        format!("simulating{machine} of `{}`", self.file_name())
    }

    fn answer(&mut self, request: &Request) -> Reply {
        route(self, request)
    }
}

/// What a connection's thread checks before it reads a body.
struct Gate {
    address: SocketAddr,
    token: Arc<str>,
}

/// Accept connections, each on a thread of its own, at most
/// [`MAX_CONNECTIONS`] at once.
fn accept(listener: &TcpListener, gate: &Gate, handler: &Handler) {
    let open = Arc::new(AtomicUsize::new(0));
    let gate = Arc::new(Gate {
        address: gate.address,
        token: Arc::clone(&gate.token),
    });
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            // Out of file descriptors, say: wait instead of spinning.
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        while open.load(Ordering::Acquire) >= MAX_CONNECTIONS {
            std::thread::sleep(Duration::from_millis(5));
        }
        let slot = Slot::take(&open);
        let (gate, handler) = (Arc::clone(&gate), Arc::clone(handler));
        // Out of threads, the connection is dropped unanswered, and its
        // slot with it.
        let _ = std::thread::Builder::new().spawn(move || {
            let _slot = slot;
            connection(stream, &gate, &*handler);
        });
    }
}

/// One of the [`MAX_CONNECTIONS`], given back when dropped: when its thread
/// ends, panics, or cannot be started.
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(open: &Arc<AtomicUsize>) -> Slot {
        open.fetch_add(1, Ordering::AcqRel);
        Slot(Arc::clone(open))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Read into `buffer`, by `deadline` at the latest: each read waits only
/// for what is left of the time, so a client that sends a byte now and
/// then cannot hold a connection past it.
fn read_by(stream: &mut TcpStream, buffer: &mut [u8], deadline: Instant) -> io::Result<usize> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::Error::new(io::ErrorKind::TimedOut, "took too long"));
    }
    stream.set_read_timeout(Some(left))?;
    stream.read(buffer)
}

/// Read one request, have it answered, write the answer, close.
fn connection(
    mut stream: TcpStream,
    gate: &Gate,
    handler: &(dyn Fn(Request) -> Option<Reply> + Send + Sync),
) {
    let _ = stream.set_read_timeout(Some(TIMEOUT));
    let _ = stream.set_write_timeout(Some(TIMEOUT));
    let reply = match read_request(&mut stream, gate) {
        Ok(request) => match handler(request) {
            Some(reply) => reply,
            None => return,
        },
        Err(reply) => reply,
    };
    let _ = stream.write_all(&reply.to_bytes());
    let _ = stream.flush();
    if let Some(events) = reply.events {
        // A stream of events (`text/event-stream`), until the client goes.
        events(&mut stream);
        return;
    }
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // Let the client read the answer before the socket closes: a little of
    // what it may still send is read and dropped, so the close does not
    // reset the connection.
    // At most a second and 4 MiB: enough for a refused body sent along
    // with its request (413), bounded for a client that never stops.
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut drained = [0u8; 4096];
    let mut left = 4usize << 20;
    while left > 0 {
        match read_by(&mut stream, &mut drained, deadline) {
            Ok(0) | Err(_) => break,
            Ok(read) => left = left.saturating_sub(read),
        }
    }
}

/// The request on `stream`, or the reply that refuses it: bad HTTP (400),
/// head too large (431), another host (421), no token (403), no length
/// (411), body too large (413).
fn read_request(stream: &mut TcpStream, gate: &Gate) -> Result<Request, Reply> {
    let mut buffer = Vec::with_capacity(2048);
    let mut chunk = [0u8; 4096];
    // The whole head within TIMEOUT, and then the whole body.
    let deadline = Instant::now() + TIMEOUT;
    let (head_length, method, path, host, length, chunked) = loop {
        let read = read_by(stream, &mut chunk, deadline)
            .map_err(|e| Reply::text(400, &format!("cannot read the request: {e}\n")))?;
        if read == 0 {
            return Err(Reply::text(400, "the request ended before its headers did\n"));
        }
        buffer.extend_from_slice(&chunk[..read]);
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut parsed = httparse::Request::new(&mut headers);
        match parsed.parse(&buffer) {
            Ok(httparse::Status::Complete(head_length)) => {
                let header = |name: &str| {
                    parsed
                        .headers
                        .iter()
                        .find(|h| h.name.eq_ignore_ascii_case(name))
                        .map(|h| String::from_utf8_lossy(h.value).into_owned())
                };
                let lengths: Vec<&[u8]> = parsed
                    .headers
                    .iter()
                    .filter(|h| h.name.eq_ignore_ascii_case("Content-Length"))
                    .map(|h| h.value)
                    .collect();
                if lengths.windows(2).any(|pair| pair[0] != pair[1]) {
                    return Err(Reply::text(
                        400,
                        "the request has two different Content-Lengths\n",
                    ));
                }
                let length = header("Content-Length");
                let chunked = header("Transfer-Encoding").is_some();
                let host = header("Host");
                // A page of another site never drives the inspector, even
                // one that has learnt its URL: browsers say where a request
                // comes from.
                if header("Sec-Fetch-Site").is_some_and(|site| site == "cross-site" || site == "same-site") {
                    return Err(Reply::text(
                        403,
                        "forbidden: the request comes from another site\n",
                    ));
                }
                break (
                    head_length,
                    parsed.method.unwrap_or("").to_owned(),
                    parsed.path.unwrap_or("").to_owned(),
                    host,
                    length,
                    chunked,
                );
            }
            Ok(httparse::Status::Partial) if buffer.len() < MAX_HEAD => continue,
            Ok(httparse::Status::Partial) => {
                return Err(Reply::text(431, "the request's line and headers are too long\n"))
            }
            Err(httparse::Error::TooManyHeaders) => {
                return Err(Reply::text(431, "the request has too many headers\n"))
            }
            Err(error) => return Err(Reply::text(400, &format!("not an HTTP request: {error}\n"))),
        }
    };
    if !gate.host_is_ours(host.as_deref()) {
        return Err(Reply::text(
            421,
            "this inspector answers only requests addressed to it by the host in its URL\n",
        ));
    }
    let path_only = path.split(['?', '#']).next().unwrap_or("").to_owned();
    let rest = gate.under_token(&path_only)?;
    if chunked {
        return Err(Reply::error(
            411,
            "send the body with a Content-Length, not in chunks",
        ));
    }
    let limit = if rest == "api/script" {
        MAX_SCRIPT
    } else {
        MAX_LINE
    };
    let length: usize = match length {
        None => 0,
        Some(text) => Some(text.trim())
            .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| Reply::error(400, &format!("Content-Length `{text}` is not a number")))?,
    };
    if length > limit {
        return Err(Reply::error(
            413,
            &format!("the body is larger than {limit} bytes"),
        ));
    }
    let mut body = buffer.split_off(head_length);
    body.truncate(length);
    let deadline = Instant::now() + TIMEOUT;
    while body.len() < length {
        let want = (length - body.len()).min(chunk.len());
        let read = read_by(stream, &mut chunk[..want], deadline)
            .map_err(|e| Reply::error(400, &format!("cannot read the body: {e}")))?;
        if read == 0 {
            return Err(Reply::error(400, "the body is shorter than its Content-Length"));
        }
        body.extend_from_slice(&chunk[..read]);
    }
    let query = path
        .split_once('?')
        .map(|(_, q)| q.to_owned())
        .unwrap_or_default();
    Ok(Request {
        method,
        rest,
        path: path_only,
        query,
        body,
    })
}

impl Gate {
    /// Whether the request names this server as its host: a page of
    /// another site that rebinds its name to 127.0.0.1 does not. Any host
    /// is taken when listening on an address given with `--bind` that is
    /// not loopback (the token still guards it).
    fn host_is_ours(&self, host: Option<&str>) -> bool {
        if !self.address.ip().is_loopback() {
            return true;
        }
        let Some(host) = host else {
            return false;
        };
        let host = host.to_ascii_lowercase();
        let port = self.address.port();
        let ours = [
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
            self.address.to_string(),
        ];
        // A browser leaves out port 80.
        let bare = port == 80 && ["127.0.0.1", "localhost", "[::1]"].contains(&host.as_str());
        ours.contains(&host) || bare
    }

    /// The path after `/TOKEN/`, or the refusal: 403 without the token,
    /// a redirect for `/TOKEN` itself.
    fn under_token(&self, path: &str) -> Result<String, Reply> {
        let Some(rest) = path.strip_prefix('/') else {
            return Err(Reply::text(400, "the request's path must start with `/`\n"));
        };
        let (token, rest) = match rest.split_once('/') {
            Some((token, rest)) => (token, Some(rest)),
            None => (rest, None),
        };
        if !same(token.as_bytes(), self.token.as_bytes()) {
            return Err(Reply::text(
                403,
                "forbidden: the URL lacks this inspector's token; open the URL `fsmc inspect` printed\n",
            ));
        }
        match rest {
            Some(rest) => Ok(rest.to_owned()),
            None => {
                // `/TOKEN`: the page is at `/TOKEN/`, where relative URLs work.
                let mut reply = Reply::text(308, "the page is at the URL with a slash at the end\n");
                reply.extra.push(("Location", format!("/{}/", self.token)));
                Err(reply)
            }
        }
    }
}

/// The answer to a request whose token was checked; never panics on what a
/// client sends.
fn route(simulation: &mut Simulation, request: &Request) -> Reply {
    simulation.poll();
    let rest = request.rest.as_str();
    let path = request.path.as_str();
    match (request.method.as_str(), rest) {
        ("GET", "") => Reply::bytes(200, "text/html; charset=utf-8", page::INDEX_HTML),
        ("GET", "app.js") => Reply::bytes(200, "text/javascript; charset=utf-8", page::APP_JS),
        ("GET", "app.css") => Reply::bytes(200, "text/css; charset=utf-8", page::APP_CSS),
        ("GET", "icon.svg") => Reply::bytes(200, "image/svg+xml", page::ICON_SVG),
        // `?since=V`: only whether anything changed since version V, so
        // that polling costs little however long the timeline is.
        ("GET", "api/state") => match request
            .query
            .strip_prefix("since=")
            .and_then(|v| v.parse::<u64>().ok())
        {
            Some(since) if since == simulation.version() => {
                Reply::json(200, &json!({"version": since, "unchanged": true}))
            }
            _ => Reply::json(200, &simulation.state()),
        },
        ("GET", "api/diagram.svg") => match simulation.svg() {
            Ok(svg) => Reply::bytes(200, "image/svg+xml", svg),
            Err(message) => Reply::text(409, &format!("{message}\n")),
        },
        ("GET", "api/steps") => match request
            .query
            .split('&')
            .find_map(|p| p.strip_prefix("from="))
            .and_then(|v| v.parse::<usize>().ok())
        {
            None => Reply::error(400, "`api/steps` takes `from=N`, the first step wanted"),
            Some(from) => match simulation.steps(from) {
                Ok(value) => Reply::json(200, &value),
                Err(message) => Reply::error(409, &message),
            },
        },
        ("GET", "api/script") => {
            let mut reply = Reply::bytes(200, "application/x-ndjson; charset=utf-8", &simulation.script());
            reply
                .extra
                .push(("Content-Disposition", attachment(simulation, "jsonl")));
            reply
        }
        ("GET", "api/snapshot") => match simulation.snapshot() {
            Ok(text) => {
                let mut reply = Reply::bytes(200, "application/json", &text);
                reply
                    .extra
                    .push(("Content-Disposition", attachment(simulation, "snapshot.json")));
                reply
            }
            Err(message) => Reply::text(409, &format!("{message}\n")),
        },
        ("POST", "api/line") => match body(request, MAX_LINE) {
            Err(reply) => reply,
            Ok(line) => match simulation.apply(&line) {
                Ok(outcome) => {
                    simulation.changed();
                    Reply::json(
                        200,
                        &json!({"output": outcome.output, "applied": outcome.applied, "state": simulation.state()}),
                    )
                }
                Err(message) => Reply::error(409, &message),
            },
        },
        ("POST", "api/back") => match body(request, 1024) {
            Err(reply) => reply,
            Ok(text) => match serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v.get("to").and_then(Value::as_u64))
            {
                None => Reply::error(400, "`back` takes {\"to\": N}, the step to go back to before"),
                Some(to) => match simulation.back(usize::try_from(to).unwrap_or(usize::MAX)) {
                    Ok(()) => {
                        simulation.changed();
                        Reply::json(200, &json!({"state": simulation.state()}))
                    }
                    Err(message) => Reply::error(409, &message),
                },
            },
        },
        ("POST", "api/reset") => match body(request, 1024).map(|_| simulation.reset()) {
            Err(reply) => reply,
            Ok(Err(message)) => Reply::error(409, &message),
            Ok(Ok(())) => {
                simulation.changed();
                Reply::json(200, &json!({"state": simulation.state()}))
            }
        },
        ("POST", "api/script") => match body(request, MAX_SCRIPT) {
            Err(reply) => reply,
            Ok(script) => {
                let outcome = simulation.replay(&script);
                simulation.changed();
                match outcome {
                    Ok(()) => Reply::json(200, &json!({"state": simulation.state()})),
                    Err(message) => Reply::error(409, &message),
                }
            }
        },
        (
            _,
            "" | "app.js" | "app.css" | "icon.svg" | "api/state" | "api/diagram.svg" | "api/snapshot"
            | "api/steps",
        ) => method_not_allowed("GET"),
        (_, "api/script") => method_not_allowed("GET, POST"),
        (_, "api/line" | "api/back" | "api/reset") => method_not_allowed("POST"),
        _ => Reply::text(404, &format!("not found: {path}\n")),
    }
}

/// `attachment; filename="Machine.jsonl"`.
fn attachment(simulation: &Simulation, extension: &str) -> String {
    let name: String = simulation
        .machine_name()
        .unwrap_or("machine")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    format!("attachment; filename=\"{name}.{extension}\"")
}

/// Equal, in time that depends only on the lengths.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The request's body as UTF-8, at most `limit` bytes.
fn body(request: &Request, limit: usize) -> Result<String, Reply> {
    if request.body.len() > limit {
        return Err(Reply::error(
            413,
            &format!("the body is larger than {limit} bytes"),
        ));
    }
    String::from_utf8(request.body.clone()).map_err(|e| {
        Reply::error(
            400,
            &format!(
                "the body is not UTF-8 (byte {} is not)",
                e.utf8_error().valid_up_to() + 1
            ),
        )
    })
}

pub fn method_not_allowed(allow: &'static str) -> Reply {
    let mut reply = Reply::error(405, &format!("this path answers {allow} only"));
    reply.extra.push(("Allow", allow.to_owned()));
    reply
}

/// A response to send.
pub struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    extra: Vec<(&'static str, String)>,
    /// For a stream of events: what writes them after the head, until
    /// the client goes (the head then has no length).
    events: Option<Events>,
}

/// What writes a stream of server-sent events.
pub(super) type Events = Box<dyn FnOnce(&mut TcpStream) + Send>;

impl Reply {
    pub fn bytes(status: u16, content_type: &'static str, body: &str) -> Reply {
        Reply {
            status,
            content_type,
            body: body.as_bytes().to_vec(),
            extra: Vec::new(),
            events: None,
        }
    }

    pub fn text(status: u16, body: &str) -> Reply {
        Reply::bytes(status, "text/plain; charset=utf-8", body)
    }

    pub fn json(status: u16, value: &Value) -> Reply {
        Reply::bytes(status, "application/json", &value.to_string())
    }

    /// A stream of server-sent events, written by `events`.
    pub(super) fn events(events: Events) -> Reply {
        let mut reply = Reply::bytes(200, "text/event-stream", "");
        reply.events = Some(events);
        reply
    }

    /// `{"error": message}`.
    pub fn error(status: u16, message: &str) -> Reply {
        Reply::json(status, &json!({ "error": message }))
    }

    /// The response as sent: status line, headers (the security ones on
    /// every response), body; the connection closes after it.
    fn to_bytes(&self) -> Vec<u8> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        let headers = [
            ("Content-Type", self.content_type),
            ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "DENY"),
            ("Cache-Control", "no-store"),
            ("Cross-Origin-Resource-Policy", "same-origin"),
            ("Connection", "close"),
        ];
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        for (name, value) in &self.extra {
            // Values are fsmc's own; a line break would end the head.
            let value: String = value.chars().filter(|c| !c.is_control()).collect();
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if self.events.is_some() {
            head.push_str("\r\n");
        } else {
            head.push_str(&format!("Content-Length: {}\r\n\r\n", self.body.len()));
        }
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(&self.body);
        bytes
    }
}

/// The reason phrase of the statuses the inspector answers with.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        421 => "Misdirected Request",
        431 => "Request Header Fields Too Large",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_hex() {
        let (a, b) = (token().unwrap(), token().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"ab"));
        assert!(!same(b"", b"a"));
    }

    #[test]
    fn replies_carry_the_policy_and_no_line_break_of_a_value() {
        let mut reply = Reply::text(403, "no\n");
        reply.extra.push(("Location", "/a\r\nSet-Cookie: x".to_owned()));
        let text = String::from_utf8(reply.to_bytes()).unwrap();
        assert!(text.starts_with("HTTP/1.1 403 Forbidden\r\n"));
        assert!(text.contains(&format!("Content-Security-Policy: {CONTENT_SECURITY_POLICY}\r\n")));
        assert!(text.contains("Location: /aSet-Cookie: x\r\n"));
        assert!(text.ends_with("Content-Length: 3\r\n\r\nno\n"));
    }
}
