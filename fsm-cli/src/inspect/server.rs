//! The HTTP side of `fsmc inspect`: one thread answers the page's requests
//! in turn, behind the token, with a strict Content-Security-Policy on
//! every response.
//!
//! Routes, under `/TOKEN/`:
//!
//! | method | path | answer |
//! | --- | --- | --- |
//! | GET | `` (the page), `app.js`, `app.css` | the page, built into the binary |
//! | GET | `api/state` | everything the page shows, as JSON |
//! | GET | `api/diagram.svg` | the diagram |
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
use std::io::{self, Read};
use std::net::{IpAddr, SocketAddr};
use tiny_http::{Header, Method, Request, Response};

/// What every response carries: nothing but this origin may be loaded or
/// contacted, and no page may frame this one.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; \
frame-ancestors 'none'";

/// The largest body of one line (a `restore` carries a snapshot).
const MAX_LINE: u64 = 1 << 20;
/// The largest script.
const MAX_SCRIPT: u64 = 16 << 20;

/// 32 random bytes from the operating system, in hex.
pub fn token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A listening inspector.
pub struct Server {
    http: tiny_http::Server,
    address: SocketAddr,
    token: String,
}

impl Server {
    /// Listen on `address`, port `port` (0: a free one).
    pub fn bind(address: IpAddr, port: u16, token: String) -> io::Result<Server> {
        let http = tiny_http::Server::http(SocketAddr::new(address, port)).map_err(io::Error::other)?;
        let address = http
            .server_addr()
            .to_ip()
            .ok_or_else(|| io::Error::other("not an IP address"))?;
        Ok(Server {
            http,
            address,
            token,
        })
    }

    /// Print the URL and answer requests until the process is stopped.
    pub fn serve(self, mut simulation: Simulation) -> Exit {
        let machine = simulation.machine_name().map(|m| format!(" `{m}`")).unwrap_or_default();
        console::stdout(&format!(
            "fsmc inspect: simulating{machine} of `{}` at http://{}/{}/\n",
            simulation.file_name(),
            self.address,
            self.token
        ));
        loop {
            let request = match self.http.recv() {
                Ok(request) => request,
                Err(error) => {
                    console::error(format_args!("cannot accept a connection: {error}"));
                    continue;
                }
            };
            let answer = self.answer(&mut simulation, request);
            // A client that went away is no reason to stop.
            let _ = answer;
        }
    }

    fn answer(&self, simulation: &mut Simulation, mut request: Request) -> io::Result<()> {
        let reply = self.route(simulation, &mut request);
        let mut response = Response::from_data(reply.body).with_status_code(reply.status);
        let headers = [
            ("Content-Type", reply.content_type),
            ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "DENY"),
            ("Cache-Control", "no-store"),
            ("Cross-Origin-Resource-Policy", "same-origin"),
        ];
        for (name, value) in headers {
            response.add_header(header(name, value));
        }
        for (name, value) in &reply.extra {
            response.add_header(header(name, value));
        }
        request.respond(response)
    }

    /// The reply to `request`; never panics on what a client sends.
    fn route(&self, simulation: &mut Simulation, request: &mut Request) -> Reply {
        if !self.host_is_ours(request) {
            return Reply::text(
                421,
                "this inspector answers only requests addressed to it by the host in its URL\n",
            );
        }
        let url = request.url().to_owned();
        let path = url.split(['?', '#']).next().unwrap_or("");
        let Some(rest) = path.strip_prefix('/') else {
            return Reply::text(400, "the request's path must start with `/`\n");
        };
        let (token, rest) = match rest.split_once('/') {
            Some((token, rest)) => (token, Some(rest)),
            None => (rest, None),
        };
        if !same(token.as_bytes(), self.token.as_bytes()) {
            return Reply::text(
                403,
                "forbidden: the URL lacks this inspector's token; open the URL `fsmc inspect` printed\n",
            );
        }
        let Some(rest) = rest else {
            // `/TOKEN`: the page is at `/TOKEN/`, where relative URLs work.
            let mut reply = Reply::text(308, "the page is at the URL with a slash at the end\n");
            reply.extra.push(("Location", format!("/{}/", self.token)));
            return reply;
        };
        simulation.poll();
        let method = request.method().clone();
        match (&method, rest) {
            (Method::Get, "") => Reply::bytes(200, "text/html; charset=utf-8", page::INDEX_HTML),
            (Method::Get, "app.js") => Reply::bytes(200, "text/javascript; charset=utf-8", page::APP_JS),
            (Method::Get, "app.css") => Reply::bytes(200, "text/css; charset=utf-8", page::APP_CSS),
            (Method::Get, "api/state") => Reply::json(200, &simulation.state()),
            (Method::Get, "api/diagram.svg") => match simulation.svg() {
                Ok(svg) => Reply::bytes(200, "image/svg+xml", svg),
                Err(message) => Reply::text(409, &format!("{message}\n")),
            },
            (Method::Get, "api/script") => {
                let mut reply = Reply::bytes(200, "application/x-ndjson; charset=utf-8", &simulation.script());
                reply.extra.push(("Content-Disposition", attachment(simulation, "jsonl")));
                reply
            }
            (Method::Get, "api/snapshot") => match simulation.snapshot() {
                Ok(text) => {
                    let mut reply = Reply::bytes(200, "application/json", &text);
                    reply.extra.push(("Content-Disposition", attachment(simulation, "snapshot.json")));
                    reply
                }
                Err(message) => Reply::text(409, &format!("{message}\n")),
            },
            (Method::Post, "api/line") => match body(request, MAX_LINE) {
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
            (Method::Post, "api/back") => match body(request, 1024) {
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
            (Method::Post, "api/reset") => match body(request, 1024).map(|_| simulation.reset()) {
                Err(reply) => reply,
                Ok(Err(message)) => Reply::error(409, &message),
                Ok(Ok(())) => {
                    simulation.changed();
                    Reply::json(200, &json!({"state": simulation.state()}))
                }
            },
            (Method::Post, "api/script") => match body(request, MAX_SCRIPT) {
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
            (_, "" | "app.js" | "app.css" | "api/state" | "api/diagram.svg" | "api/snapshot") => {
                method_not_allowed("GET")
            }
            (_, "api/script") => method_not_allowed("GET, POST"),
            (_, "api/line" | "api/back" | "api/reset") => method_not_allowed("POST"),
            _ => Reply::text(404, &format!("not found: {path}\n")),
        }
    }

    /// Whether the request names this server as its host: a page of
    /// another site that rebinds its name to 127.0.0.1 does not. Any host
    /// is taken when listening on an address given with `--bind` that is
    /// not loopback (the token still guards it).
    fn host_is_ours(&self, request: &Request) -> bool {
        if !self.address.ip().is_loopback() {
            return true;
        }
        let port = self.address.port();
        let host = request
            .headers()
            .iter()
            .find(|h| h.field.equiv("Host"))
            .map(|h| h.value.as_str().to_ascii_lowercase());
        let Some(host) = host else {
            return false;
        };
        let ours = [
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
            self.address.to_string(),
        ];
        ours.contains(&host)
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
fn body(request: &mut Request, limit: u64) -> Result<String, Reply> {
    let too_large = || Reply::error(413, &format!("the body is larger than {limit} bytes"));
    if request.body_length().is_some_and(|n| n as u64 > limit) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    request
        .as_reader()
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Reply::error(400, &format!("cannot read the body: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| {
        Reply::error(
            400,
            &format!("the body is not UTF-8 (byte {} is not)", e.utf8_error().valid_up_to() + 1),
        )
    })
}

fn method_not_allowed(allow: &'static str) -> Reply {
    let mut reply = Reply::error(405, &format!("this path answers {allow} only"));
    reply.extra.push(("Allow", allow.to_owned()));
    reply
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).unwrap_or_else(|()| {
        Header::from_bytes(&b"X-Invalid-Header"[..], &b"1"[..]).expect("a valid header")
    })
}

/// A response to send.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    extra: Vec<(&'static str, String)>,
}

impl Reply {
    fn bytes(status: u16, content_type: &'static str, body: &str) -> Reply {
        Reply {
            status,
            content_type,
            body: body.as_bytes().to_vec(),
            extra: Vec::new(),
        }
    }

    fn text(status: u16, body: &str) -> Reply {
        Reply::bytes(status, "text/plain; charset=utf-8", body)
    }

    fn json(status: u16, value: &Value) -> Reply {
        Reply::bytes(status, "application/json", &value.to_string())
    }

    /// `{"error": message}`.
    fn error(status: u16, message: &str) -> Reply {
        Reply::json(status, &json!({ "error": message }))
    }
}
