//! End-to-end tests of `fsmc inspect`'s server: the token, the
//! Content-Security-Policy, loopback only, clear 4xx answers to bad
//! requests, and steps that are `fsmc run`'s lines. tests/inspect/check.sh
//! drives the page itself in Chromium.

use crate::harness::Scratch;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A call with a guarded action, timers, effects, outputs and a named
/// delay: every kind of line has something to do.
const CALL: &str = "\
machine Call {
    context crate::Call;
    action start, finished, cancel;
    guard urgent;
    effect arm;
    delay backoff;
    output started, log_slow;
    initial state idle { on start -> calling; }
    state calling {
        enter do arm emit started;
        on finished -> done;
        on cancel [urgent] -> failed;
        after 30s emit log_slow;
        after 10m -> waiting;
    }
    state waiting { after backoff -> calling; }
    terminal state done;
    terminal state failed;
}
";

/// The script both `fsmc run` and the server are given.
const SCRIPT: &[&str] = &[
    r#"{"fire": "start"}"#,
    r#"{"fire": "cancel"}"#,
    r#"{"guards": {"urgent": true}}"#,
    r#"{"advance": "45s"}"#,
    r#"{"fire": "nope"}"#,
    r#"{"advance": "10m"}"#,
    r#"{"delays": {"backoff": "5s"}}"#,
    r#"{"advance": "1m"}"#,
    r#"not json"#,
    r#"{"snapshot": true}"#,
    r#"{"fire": "cancel", "payload": [1, 2]}"#,
];

/// A running `fsmc inspect`, stopped when dropped.
pub(crate) struct Inspector {
    child: Child,
    /// `http://127.0.0.1:PORT/TOKEN/`.
    url: String,
    address: SocketAddr,
    /// `/TOKEN/`.
    base: String,
    /// What it printed on stderr before the URL (read at the end).
    _dir: Scratch,
}

impl Inspector {
    pub(crate) fn start(dir: Scratch, args: &[&str]) -> Inspector {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fsmc"))
            .arg("inspect")
            .args(args)
            .current_dir(dir.path(""))
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start fsmc inspect");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| {
                let mut stderr = String::new();
                let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
                panic!("no URL in {line:?}; stderr: {stderr}")
            })
            .to_owned();
        let rest = url.strip_prefix("http://").unwrap();
        let (host, path) = rest.split_at(rest.find('/').unwrap());
        Inspector {
            child,
            address: host.parse().unwrap(),
            base: path.to_owned(),
            url,
            _dir: dir,
        }
    }

    fn call(&self, method: &str, path: &str, body: &str) -> Answer {
        let path = format!("{}{path}", self.base);
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.address,
            body.len()
        );
        raw(self.address, request.as_bytes())
    }

    pub(crate) fn get(&self, path: &str) -> Answer {
        self.call("GET", path, "")
    }

    fn post(&self, path: &str, body: &str) -> Answer {
        self.call("POST", path, body)
    }
}

impl Drop for Inspector {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response: its status, headers (names lower-cased) and body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// Send `request` as is and read the whole response.
fn raw(address: SocketAddr, request: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // A server may answer (and close) before it has read all of a request
    // it refuses: the answer is what counts.
    let _ = stream.write_all(request);
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_owned(),
    }
}

fn call_inspector(extra: &[&str]) -> Inspector {
    let dir = Scratch::new();
    dir.write("call.fsm", CALL);
    let mut args = vec!["call.fsm", "--delay", "backoff=30s"];
    args.extend_from_slice(extra);
    Inspector::start(dir, &args)
}

const CSP: &str = "default-src 'self'";

#[test]
fn the_token_is_required() {
    let inspector = call_inspector(&[]);
    assert!(
        inspector.url.starts_with("http://127.0.0.1:"),
        "{}",
        inspector.url
    );
    let token = inspector.base.trim_matches('/');
    assert_eq!(token.len(), 64, "32 random bytes in hex: {token}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    let ok = inspector.get("");
    assert_eq!(ok.status, 200);
    assert!(ok.body.contains("<script src=\"app.js\""));
    let address = inspector.address;
    let get = |path: &str| {
        raw(
            address,
            format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").as_bytes(),
        )
    };
    let wrong = format!("{}{}", &token[..63], if token.ends_with('0') { '1' } else { '0' });
    for path in [
        "/".to_owned(),
        "/api/state".to_owned(),
        format!("/{wrong}/"),
        format!("/{wrong}/api/state"),
        format!("/x{token}/api/state"),
        format!("/api/state?token={token}"),
    ] {
        let answer = get(&path);
        assert_eq!(answer.status, 403, "{path}: {}", answer.body);
        assert!(answer.body.contains("token"), "{}", answer.body);
        assert!(answer.header("content-security-policy").unwrap().starts_with(CSP));
    }
    // Nothing was applied by the refused requests.
    let posted = raw(
        address,
        format!(
            "POST /{wrong}/api/line HTTP/1.1\r\nHost: {address}\r\nContent-Length: 17\r\nConnection: close\r\n\r\n{{\"fire\": \"start\"}}"
        )
        .as_bytes(),
    );
    assert_eq!(posted.status, 403);
    assert_eq!(inspector.get("api/state").json()["steps"], json!([]));
    // Without its slash, the page is sent to the URL with one.
    let bare = get(&format!("/{token}"));
    assert_eq!(bare.status, 308);
    assert_eq!(bare.header("location"), Some(inspector.base.as_str()));
}

#[test]
fn every_response_has_a_strict_content_security_policy() {
    let inspector = call_inspector(&[]);
    let answers = [
        inspector.get(""),
        inspector.get("app.js"),
        inspector.get("app.css"),
        inspector.get("api/state"),
        inspector.get("api/diagram.svg"),
        inspector.get("api/script"),
        inspector.get("api/snapshot"),
        inspector.post("api/line", r#"{"fire": "start"}"#),
        inspector.get("nothing-here"),
        inspector.post("api/state", ""),
    ];
    for answer in &answers {
        let csp = answer.header("content-security-policy").expect("a CSP");
        assert!(csp.starts_with(CSP), "{csp}");
        for directive in ["object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'"] {
            assert!(csp.contains(directive), "{csp}");
        }
        // Nothing but this origin: no host, scheme or wildcard is named.
        assert!(
            !csp.contains('*') && !csp.contains("http") && !csp.contains("data:"),
            "{csp}"
        );
        assert_eq!(answer.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(answer.header("referrer-policy"), Some("no-referrer"));
    }
    // The page loads nothing from elsewhere, and runs no inline script.
    let page = &answers[0].body;
    assert!(!page.contains("http://") && !page.contains("https://") && !page.contains("//cdn"));
    assert!(!page.contains("<script>") && !page.contains(" onclick="));
    assert!(!answers[1].body.contains("http"));
    assert_eq!(answers[4].header("content-type"), Some("image/svg+xml"));
    assert!(answers[4].body.contains("id=\"state-calling\""));
}

#[test]
fn it_listens_on_loopback_only() {
    let inspector = call_inspector(&[]);
    assert!(inspector.address.ip().is_loopback());
    // An address of this machine that is not loopback, if it has one, is
    // not listened on.
    let outward = UdpSocket::bind("0.0.0.0:0")
        .and_then(|s| s.connect("192.0.2.1:9").map(|()| s))
        .and_then(|s| s.local_addr())
        .ok()
        .filter(|a| !a.ip().is_loopback() && !a.ip().is_unspecified());
    if let Some(outward) = outward {
        let target = SocketAddr::new(outward.ip(), inspector.address.port());
        assert!(
            TcpStream::connect_timeout(&target, Duration::from_secs(2)).is_err(),
            "{target} answers"
        );
    }
    // A request naming another host (a page whose name was rebound to
    // 127.0.0.1) is refused.
    let address = inspector.address;
    let rebound = raw(
        address,
        format!(
            "GET {}api/state HTTP/1.1\r\nHost: evil.example:{}\r\nConnection: close\r\n\r\n",
            inspector.base,
            address.port()
        )
        .as_bytes(),
    );
    assert_eq!(rebound.status, 421, "{}", rebound.body);
}

#[test]
fn another_address_takes_bind_and_a_warning() {
    let dir = Scratch::new();
    dir.write("call.fsm", CALL);
    let mut inspector = Inspector::start(dir, &["call.fsm", "--delay", "backoff=30s", "--bind", "0.0.0.0"]);
    assert!(inspector.url.starts_with("http://0.0.0.0:"), "{}", inspector.url);
    let _ = inspector.child.kill();
    let mut stderr = String::new();
    inspector
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(
        stderr.contains("warning: listening on 0.0.0.0, which is not a loopback address"),
        "{stderr}"
    );
    // `--bind` takes an address, not a name.
    let dir = Scratch::new();
    dir.write("call.fsm", CALL);
    let run = dir.fsmc(&["inspect", "call.fsm", "--bind", "example.com"]);
    assert_eq!(run.code(), 2, "{}", run.stderr());
}

#[test]
fn bad_requests_are_answered_with_4xx() {
    let inspector = call_inspector(&[]);
    let cases = [
        (inspector.get("nothing-here"), 404),
        (inspector.get("api/line"), 405),
        (inspector.post("api/state", ""), 405),
        (inspector.post("api/line", ""), 409),
        (
            inspector.post("api/line", "{\"fire\": \"start\"}\n{\"fire\": \"finished\"}"),
            409,
        ),
        (inspector.post("api/back", "nonsense"), 400),
        (inspector.post("api/back", r#"{"to": 5}"#), 409),
    ];
    for (i, (answer, status)) in cases.iter().enumerate() {
        assert_eq!(answer.status, *status, "case {i}: {}", answer.body);
        assert!(answer.header("content-security-policy").is_some());
    }
    assert_eq!(inspector.get("api/line").header("allow"), Some("POST"));
    assert!(cases[4].0.json()["error"]
        .as_str()
        .unwrap()
        .contains("one line at a time"));
    // A body that is not UTF-8.
    let address = inspector.address;
    let mut request = format!(
        "POST {}api/line HTTP/1.1\r\nHost: {address}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n",
        inspector.base
    )
    .into_bytes();
    request.extend_from_slice(&[0xff, 0xfe]);
    assert_eq!(raw(address, &request).status, 400);
    // A claimed length over the limit is refused before any of it is read.
    let huge = raw(
        address,
        format!(
            "POST {}api/script HTTP/1.1\r\nHost: {address}\r\nContent-Length: 999999999999\r\nConnection: close\r\n\r\n",
            inspector.base
        )
        .as_bytes(),
    );
    assert_eq!(huge.status, 413, "{}", huge.body);
    // A body sent in chunks has no length to refuse it by: it is refused
    // unread.
    let chunk = "x".repeat((1 << 20) + 1);
    let chunked = raw(
        address,
        format!(
            "POST {}api/line HTTP/1.1\r\nHost: {address}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{:x}\r\n{chunk}\r\n0\r\n\r\n",
            inspector.base,
            chunk.len()
        )
        .as_bytes(),
    );
    assert_eq!(chunked.status, 411, "{}", chunked.body);
    // A body as long as it says, over the limit.
    let body = "x".repeat((1 << 20) + 1);
    assert_eq!(inspector.post("api/line", &body).status, 413);
    // Too many headers, and a head that never ends.
    let headers: String = (0..100).map(|i| format!("X-{i}: 1\r\n")).collect();
    let many = raw(address, format!("GET / HTTP/1.1\r\n{headers}\r\n").as_bytes());
    assert_eq!(many.status, 431);
    let long = raw(
        address,
        format!("GET /{} HTTP/1.1\r\n", "a".repeat(20_000)).as_bytes(),
    );
    assert_eq!(long.status, 431);
    // Not HTTP at all.
    let garbage = raw(address, b"HELLO THERE\r\n\r\n");
    assert!((400..500).contains(&garbage.status), "{}", garbage.status);
    // And the server still answers.
    assert_eq!(inspector.get("api/state").status, 200);
}

/// `fsmc run`'s output for `script` on CALL.
fn fsmc_run(script: &str) -> Vec<String> {
    let dir = Scratch::new();
    dir.write("call.fsm", CALL);
    let run = dir.fsmc_with_stdin(&["run", "call.fsm", "--delay", "backoff=30s"], script);
    run.stdout().lines().map(str::to_owned).collect()
}

#[test]
fn steps_are_the_lines_fsmc_run_prints() {
    let inspector = call_inspector(&[]);
    let script: String = SCRIPT.iter().map(|l| format!("{l}\n")).collect();
    let expected = fsmc_run(&script);
    assert_eq!(expected.len(), SCRIPT.len());
    let mut outputs = Vec::new();
    for line in SCRIPT {
        let answer = inspector.post("api/line", line);
        assert_eq!(answer.status, 200, "{line}: {}", answer.body);
        outputs.push(answer.json()["output"].as_str().unwrap().to_owned());
    }
    assert_eq!(outputs, expected);
    let state = inspector.get("api/state").json();
    let steps: Vec<&str> = state["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["output"].as_str().unwrap())
        .collect();
    assert_eq!(steps, expected);
    // Polling with the version seen answers only that nothing changed.
    let version = state["version"].as_u64().unwrap();
    assert_eq!(
        inspector.get(&format!("api/state?since={version}")).json(),
        json!({"version": version, "unchanged": true})
    );
    assert!(inspector.get(&format!("api/state?since={}", version - 1)).json()["steps"].is_array());
    // The script downloads as the lines sent.
    let download = inspector.get("api/script");
    assert_eq!(download.body, script);
    assert!(download
        .header("content-disposition")
        .unwrap()
        .contains("Call.jsonl"));
    // The first step took `idle -> calling`, by the diagram's names.
    assert_eq!(
        state["steps"][0]["taken"],
        json!([{"from": "idle", "to": "calling", "trigger": "start"}])
    );
    assert_eq!(state["place"], json!("failed"));
    assert_eq!(state["active"], json!(["failed"]));
    // The last step took `cancel`, guarded by `urgent`.
    assert_eq!(
        state["steps"][10]["taken"],
        json!([{"from": "calling", "to": "failed", "trigger": "cancel"}])
    );

    // Loading the script replays it, with the same lines.
    assert_eq!(inspector.post("api/reset", "").status, 200);
    assert_eq!(inspector.get("api/state").json()["steps"], json!([]));
    let replayed = inspector.post("api/script", &script).json();
    let outputs: Vec<&str> = replayed["state"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["output"].as_str().unwrap())
        .collect();
    assert_eq!(outputs, expected);
}

#[test]
fn going_back_restores_the_step_before() {
    let inspector = call_inspector(&[]);
    for line in SCRIPT {
        inspector.post("api/line", line);
    }
    // Back to before step 6 (`advance 10m`): five steps are left, and the
    // machine is where `fsmc run` leaves it after them, clock and guards
    // included.
    let back = inspector.post("api/back", r#"{"to": 5}"#);
    assert_eq!(back.status, 200, "{}", back.body);
    let state = back.json()["state"].clone();
    assert_eq!(state["steps"].as_array().unwrap().len(), 5);
    assert_eq!(state["now"], json!("1970-01-01T00:00:45.000Z"));
    assert_eq!(state["guards"], json!([{"name": "urgent", "value": true}]));
    let mut script: String = SCRIPT[..5].iter().map(|l| format!("{l}\n")).collect();
    let next = [r#"{"snapshot": true}"#, r#"{"advance": "10m"}"#];
    for line in next {
        script.push_str(line);
        script.push('\n');
    }
    let expected = fsmc_run(&script);
    for (i, line) in next.iter().enumerate() {
        let answer = inspector.post("api/line", line).json();
        assert_eq!(answer["output"].as_str().unwrap(), expected[5 + i], "{line}");
    }
    // The snapshot downloads as `restore` takes it.
    let snapshot = inspector.get("api/snapshot");
    assert!(snapshot
        .header("content-disposition")
        .unwrap()
        .contains("Call.snapshot.json"));
    let restore = json!({ "restore": serde_json::from_str::<Value>(&snapshot.body).unwrap() }).to_string();
    let place = inspector.get("api/state").json()["place"].clone();
    let answer = inspector.post("api/line", &restore).json();
    assert_eq!(
        answer["output"].as_str().unwrap(),
        json!({"restored": true, "state": place}).to_string()
    );
}

#[test]
fn a_file_with_errors_shows_its_diagnostics_and_edits_reload_it() {
    let dir = Scratch::new();
    dir.write("call.fsm", CALL);
    let path = dir.path("call.fsm");
    let inspector = Inspector::start(dir, &["call.fsm", "--delay", "backoff=30s"]);
    inspector.post("api/line", r#"{"fire": "start"}"#);
    // An error: the page gets the diagnostics, with line and column.
    std::fs::write(
        &path,
        CALL.replace("on finished -> done;", "on finished -> nowhere;"),
    )
    .unwrap();
    let state = wait_for(&inspector, |s| s["report"].is_string());
    let diagnostic = &state["diagnostics"][0];
    assert_eq!(diagnostic["severity"], json!("error"));
    assert_eq!(diagnostic["line"], json!(11), "{diagnostic}");
    assert!(diagnostic["column"].as_u64().unwrap() > 1);
    assert!(state["report"].as_str().unwrap().contains("nowhere"));
    assert_eq!(state["reload"]["ok"], json!(false));
    assert_eq!(inspector.get("api/diagram.svg").status, 409);
    assert_eq!(inspector.post("api/line", r#"{"fire": "finished"}"#).status, 409);
    // Fixed, with a new state: the snapshot still restores.
    std::fs::write(
        &path,
        CALL.replace(
            "terminal state failed;",
            "terminal state failed;\n    state extra;",
        ),
    )
    .unwrap();
    let state = wait_for(&inspector, |s| s["report"].is_null() && s["place"].is_string());
    assert_eq!(state["reload"]["ok"], json!(true), "{}", state["reload"]);
    assert_eq!(state["place"], json!("calling"));
    assert!(inspector
        .get("api/diagram.svg")
        .body
        .contains("id=\"state-extra\""));
    // The steps that carried the machine over are `fsmc run` lines too.
    let lines: Vec<&str> = state["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["line"].as_str().unwrap())
        .collect();
    assert!(lines[0].starts_with(r#"{"restore":"#), "{lines:?}");
    // Without the state it was in, the snapshot no longer restores.
    std::fs::write(&path, CALL.replace("calling", "ringing")).unwrap();
    let state = wait_for(&inspector, |s| s["place"] == json!("idle"));
    assert_eq!(state["reload"]["ok"], json!(false));
    assert!(state["reload"]["text"]
        .as_str()
        .unwrap()
        .contains("no longer restores"));
}

/// The state, once `ready` holds of it (the file's time may be the same
/// second as before: the length tells the edits apart too).
fn wait_for(inspector: &Inspector, ready: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..100 {
        let state = inspector.get("api/state").json();
        if ready(&state) {
            return state;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the page never saw the edit: {}", inspector.get("api/state").body);
}

/// A timer that re-arms itself every millisecond: one advance of an hour
/// stops after the page's 10,000 timers, at the last one's time, and says
/// so; the server goes on answering.
#[test]
fn one_advance_fires_a_bounded_number_of_timers() {
    let dir = Scratch::new();
    dir.write(
        "tick.fsm",
        "machine Tick {\n    initial state a {\n        after 1ms -> a emit tick;\n    }\n}\n",
    );
    let inspector = Inspector::start(dir, &["tick.fsm"]);
    let answer = inspector.post("api/line", r#"{"advance": "1h"}"#);
    let output = answer.json()["output"].as_str().unwrap_or_default().to_owned();
    assert!(
        output.contains("the advance stopped at 1970-01-01T00:00:10.000Z after firing 10000 timers"),
        "{}",
        answer.body
    );
    assert_eq!(inspector.get("api/state").status, 200);
}

/// A client that sends its request a byte at a time cannot keep its
/// connection past the time a request may take: it is answered 400 then.
#[test]
fn a_slow_client_is_cut_off_at_the_deadline() {
    let inspector = call_inspector(&[]);
    let mut stream = std::net::TcpStream::connect(inspector.address).expect("connect");
    let started = std::time::Instant::now();
    let mut answer = Vec::new();
    for byte in b"GET / HTTP/1.1\r\nX-Slow: "
        .iter()
        .chain(std::iter::repeat(&b'a'))
    {
        use std::io::Write as _;
        if stream.write_all(&[*byte]).is_err() || started.elapsed() > std::time::Duration::from_secs(30) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
        stream.set_nonblocking(true).expect("nonblocking");
        let mut buffer = [0u8; 1024];
        if let Ok(read) = std::io::Read::read(&mut stream, &mut buffer) {
            answer.extend_from_slice(&buffer[..read]);
            if read == 0 || !answer.is_empty() {
                break;
            }
        }
        stream.set_nonblocking(false).expect("blocking");
    }
    let elapsed = started.elapsed();
    assert!(
        String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 400"),
        "{:?}",
        String::from_utf8_lossy(&answer)
    );
    assert!(elapsed < std::time::Duration::from_secs(15), "{elapsed:?}");
}

/// A request another site's page makes is refused even with the token, and
/// so is a request whose length is not one plain number.
#[test]
fn other_sites_and_doubtful_lengths_are_refused() {
    let inspector = call_inspector(&[]);
    let address = inspector.address;
    let base = &inspector.base;
    let body = r#"{"fire": "start"}"#;
    let request = |extra: &str| {
        format!("POST {base}api/line HTTP/1.1\r\nHost: {address}\r\n{extra}Connection: close\r\n\r\n{body}")
    };
    let n = body.len();
    let cross = raw(
        address,
        request(&format!("Sec-Fetch-Site: cross-site\r\nContent-Length: {n}\r\n")).as_bytes(),
    );
    assert_eq!(cross.status, 403, "{}", cross.body);
    let two = raw(
        address,
        request(&format!("Content-Length: {n}\r\nContent-Length: 3\r\n")).as_bytes(),
    );
    assert_eq!(two.status, 400, "{}", two.body);
    let signed = raw(address, request(&format!("Content-Length: +{n}\r\n")).as_bytes());
    assert_eq!(signed.status, 400, "{}", signed.body);
    let same = raw(
        address,
        request(&format!("Sec-Fetch-Site: same-origin\r\nContent-Length: {n}\r\n")).as_bytes(),
    );
    assert_eq!(same.status, 200, "{}", same.body);
}

/// A long timeline: the state carries its last 500 steps, and the earlier
/// ones come a page at a time, each with the timers it armed.
#[test]
fn a_long_timeline_comes_in_pages() {
    let inspector = call_inspector(&[]);
    let mut script = String::from("{\"fire\": \"start\"}\n");
    for n in 0..599 {
        script.push_str(&format!("{{\"guards\": {{\"urgent\": {}}}}}\n", n % 2 == 0));
    }
    assert_eq!(inspector.post("api/script", &script).status, 200);
    let state = inspector.get("api/state").json();
    assert_eq!(
        (state["steps_from"].as_u64(), state["steps_total"].as_u64()),
        (Some(100), Some(600))
    );
    assert_eq!(state["steps"].as_array().unwrap().len(), 500);
    assert_eq!(state["steps"][499]["line"], r#"{"guards": {"urgent": true}}"#);
    let first = inspector.get("api/steps?from=0").json();
    let steps = first["steps"].as_array().unwrap();
    assert_eq!((first["from"].as_u64(), steps.len()), (Some(0), 500));
    assert_eq!(steps[0]["line"], r#"{"fire": "start"}"#);
    // `start` armed `calling`'s two timers; the guards armed none.
    assert_eq!(steps[0]["armed"].as_array().unwrap().len(), 2);
    assert_eq!(steps[1]["armed"], json!([]));
    assert_eq!(steps[100], state["steps"][0]);
    assert_eq!(inspector.get("api/steps?from=600").json()["steps"], json!([]));
    let past = inspector.get("api/steps?from=601");
    assert_eq!(past.status, 409);
    assert_eq!(
        past.json()["error"],
        "there is no step 601: the timeline has 600 steps"
    );
    assert_eq!(inspector.get("api/steps").status, 400);
    // Going back drops steps: the timeline's number changes.
    let timeline = state["timeline"].as_u64().unwrap();
    assert_eq!(inspector.post("api/back", r#"{"to": 300}"#).status, 200);
    let state = inspector.get("api/state").json();
    assert_eq!(state["steps_total"], 300);
    assert_eq!(state["timeline"].as_u64(), Some(timeline + 1));
}
