//! `fsmc inspect --listen`: this test program observes machines (a
//! generated one through `fsm_runtime::inspect::Observed`, a dynamic one
//! through `fsm_dynamic::ObservedEngine`) and sends their steps to a real
//! `fsmc inspect --listen`, then checks what the page's API answers: the
//! instances, their states and steps, their diagrams, a definition that does
//! not match the fingerprint, and malformed lines counted.
//! tests/inspect/live.js drives the page itself in Chromium.

use crate::harness::Scratch;
use fsm_dynamic::{Definition, Engine, ObservedEngine};
use fsm_runtime::inspect::{Observed, Observer};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const LAMP: &str = "\
machine Lamp {
    action toggle(u32), unplug;
    output glow;
    initial state off { on toggle -> on emit glow; }
    state on { on toggle -> off; }
    terminal state unplugged;
    any { on unplug -> unplugged; }
}
";

fsm_runtime::fsm! {
    machine Lamp {
        action toggle(u32), unplug;
        output glow;
        initial state off { on toggle -> on emit glow; }
        state on { on toggle -> off; }
        terminal state unplugged;
        any { on unplug -> unplugged; }
    }
}

const VALVE: &str = "machine Valve { action open, close; initial state shut { on open -> flowing; } state flowing { on close -> shut; } }";

/// A running `fsmc inspect --listen 127.0.0.1:0`, stopped when dropped.
struct Live {
    child: Child,
    /// Where programs connect.
    listen: SocketAddr,
    /// The page's address and `/TOKEN/`.
    address: SocketAddr,
    base: String,
    _dir: Scratch,
}

impl Live {
    fn start(dir: Scratch, file: Option<&str>) -> Live {
        let mut command = Command::new(env!("CARGO_BIN_EXE_fsmc"));
        command.args(["inspect", "--listen", "127.0.0.1:0"]);
        command.args(file);
        let mut child = command
            .current_dir(dir.path(""))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start fsmc inspect --listen");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // `fsmc inspect: watching programs that connect to ADDR at URL`
        let words: Vec<&str> = line.split_whitespace().collect();
        let listen = words
            .iter()
            .position(|w| *w == "to")
            .and_then(|i| words.get(i + 1))
            .unwrap_or_else(|| {
                let mut stderr = String::new();
                let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
                panic!("no address in {line:?}; stderr: {stderr}")
            })
            .parse()
            .unwrap();
        let url = words.iter().find(|w| w.starts_with("http://")).unwrap();
        let rest = url.strip_prefix("http://").unwrap();
        let (host, path) = rest.split_at(rest.find('/').unwrap());
        Live {
            child,
            listen,
            address: host.parse().unwrap(),
            base: path.to_owned(),
            _dir: dir,
        }
    }

    /// GET `path` under the token: the status and body.
    fn get(&self, path: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(self.address).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        write!(
            stream,
            "GET {}{path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.base, self.address
        )
        .unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        (status, body.to_owned())
    }

    fn api(&self, query: &str) -> Value {
        let (status, body) = self.get(&format!("api/live?{query}"));
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    /// The API's answer once `ready` holds of it (within 10 s).
    fn until(&self, query: &str, ready: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let answer = self.api(query);
            if ready(&answer) {
                return answer;
            }
            assert!(Instant::now() < deadline, "never ready: {answer:#}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn instance<'a>(answer: &'a Value, name: &str) -> &'a Value {
    answer["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["instance"] == name)
        .unwrap_or_else(|| panic!("no instance {name} in {answer:#}"))
}

#[test]
fn a_running_program_is_watched_live() {
    let live = Live::start(Scratch::new(), None);
    let empty = live.api("");
    assert_eq!(empty["instances"], json!([]));
    assert_eq!(empty["observers"], 0);

    let observer = Observer::connect(live.listen).unwrap();
    // A generated machine, with its `.fsm` text; payloads shown as the
    // sanitizer says.
    let mut lamp = Observed::new(lamp::Lamp::new(), &observer, "desk")
        .with_definition(LAMP)
        .sanitize_event(|event| match event {
            lamp::Event::Toggle(level) => Some(json!({ "level": level })),
            lamp::Event::Unplug => None,
        });
    lamp.fire(lamp::Event::Toggle(3)).unwrap();
    lamp.fire(lamp::Event::Toggle(0)).unwrap();
    lamp.fire(lamp::Event::Unplug).unwrap();
    lamp.fire(lamp::Event::Toggle(1)).unwrap_err();
    // A dynamic engine, which sends its JSON export.
    let valve = ObservedEngine::new(
        Engine::new(Definition::from_fsm(VALVE).unwrap()).unwrap(),
        &observer,
        "valve-7",
    );
    valve.fire("open", &Value::Null).unwrap();
    valve.fire("nope", &Value::Null).unwrap_err();
    assert!(observer.flush(Duration::from_secs(10)));

    let answer = live.until("", |a| {
        a["instances"].as_array().unwrap().len() == 2
            && a["instances"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["steps"].as_u64().unwrap())
                .sum::<u64>()
                == 6
    });
    assert_eq!(answer["observers"], 1);
    assert_eq!(answer["malformed"]["count"], 0);
    let desk = instance(&answer, "desk");
    assert_eq!(desk["machine"], "Lamp");
    assert_eq!(
        desk["fingerprint"],
        <lamp::Lamp as fsm_runtime::Machine>::FINGERPRINT
    );
    assert_eq!(desk["state"], json!(["unplugged"]));
    assert_eq!(desk["live"], true);
    assert_eq!(desk["dropped"], 0);
    assert_eq!(desk["diagram_error"], Value::Null);
    let valve_row = instance(&answer, "valve-7");
    assert_eq!(valve_row["machine"], "Valve");
    assert_eq!(
        valve_row["fingerprint"],
        valve.engine().definition().fingerprint()
    );
    assert_eq!(valve_row["state"], json!(["flowing"]));

    // The chosen instance: its steps, in order, and what the highlight needs.
    let id = desk["id"].as_u64().unwrap();
    let chosen = live.api(&format!("instance={id}"));
    let selected = &chosen["selected"];
    assert_eq!(selected["leaves"], json!(["unplugged"]));
    assert_eq!(selected["active"], json!(["unplugged"]));
    let steps: Vec<Value> = selected["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            json!([
                s["n"],
                s["seq"],
                s["step"],
                s["action"],
                s["from"],
                s["to"],
                s["outputs"],
                s.get("payload"),
                s.get("error").is_some()
            ])
        })
        .collect();
    assert_eq!(
        steps,
        [
            json!([1, 0, "fired", "toggle", ["off"], ["on"], ["glow"], {"level": 3}, false]),
            json!([2, 1, "fired", "toggle", ["on"], ["off"], [], {"level": 0}, false]),
            json!([3, 2, "fired", "unplug", ["off"], ["unplugged"], [], null, false]),
            json!([4, 3, "rejected", "toggle", ["unplugged"], ["unplugged"], [], {"level": 1}, true]),
        ]
    );
    // Only what came after a step the page has.
    let later = live.api(&format!("instance={id}&after=3"));
    assert_eq!(later["selected"]["steps"].as_array().unwrap().len(), 1);
    // A request that has seen the latest version waits for the next.
    let version = later["version"].as_u64().unwrap();
    let waiting = std::thread::scope(|scope| {
        let waiter = scope.spawn(|| live.api(&format!("since={version}&instance={id}&after=4")));
        std::thread::sleep(Duration::from_millis(200));
        assert!(!waiter.is_finished(), "the request waits for a change");
        lamp.fire(lamp::Event::Toggle(9)).unwrap_err();
        waiter.join().unwrap()
    });
    assert!(waiting["version"].as_u64().unwrap() > version);
    assert_eq!(waiting["selected"]["steps"][0]["n"], 5);

    // The same as events, the page's way: one now, one at the next change.
    let mut events = TcpStream::connect(live.address).unwrap();
    events.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        events,
        "GET {}api/live/events?instance={id}&after=4 HTTP/1.1\r\nHost: {}\r\n\r\n",
        live.base, live.address
    )
    .unwrap();
    let mut reader = BufReader::new(events);
    let mut head = String::new();
    while !head.ends_with("\r\n\r\n") {
        reader.read_line(&mut head).unwrap();
    }
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert!(head.contains("Content-Type: text/event-stream\r\n"), "{head}");
    assert!(
        head.contains("Content-Security-Policy: default-src 'self'"),
        "{head}"
    );
    let event = |reader: &mut BufReader<TcpStream>| -> Value {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let mut blank = String::new();
        reader.read_line(&mut blank).unwrap();
        assert_eq!(blank, "\n");
        serde_json::from_str(line.strip_prefix("data: ").unwrap()).unwrap()
    };
    let first = event(&mut reader);
    assert_eq!(first["selected"]["steps"][0]["n"], 5);
    lamp.fire(lamp::Event::Toggle(9)).unwrap_err();
    let next = event(&mut reader);
    assert_eq!(
        next["selected"]["steps"].as_array().unwrap().len(),
        1,
        "only the new step"
    );
    assert_eq!(next["selected"]["steps"][0]["n"], 6);

    // Both diagrams: the `.fsm` text of one and the JSON export of the other.
    let (status, svg) = live.get(&format!("api/live/diagram.svg?instance={id}"));
    assert_eq!(status, 200);
    assert!(svg.contains("data-state=\"unplugged\""), "{svg}");
    let valve_id = valve_row["id"].as_u64().unwrap();
    let (status, svg) = live.get(&format!("api/live/diagram.svg?instance={valve_id}"));
    assert_eq!(status, 200);
    assert!(svg.contains("data-state=\"flowing\""), "{svg}");
    assert_eq!(live.get("api/live/diagram.svg?instance=99").0, 409);
    assert_eq!(live.get("api/live/diagram.svg").0, 400);

    // Dropped probes say goodbye.
    drop(lamp);
    let answer = live.until("", |a| instance(a, "desk")["live"] == false);
    assert_eq!(instance(&answer, "desk")["ended"], "gone");
    assert_eq!(instance(&answer, "valve-7")["live"], true);
}

#[test]
fn malformed_lines_are_counted_and_shown() {
    let live = Live::start(Scratch::new(), None);
    let mut program = TcpStream::connect(live.listen).unwrap();
    let long = format!("{{\"kind\": \"{}\"}}\n", "x".repeat(5 << 20));
    let lines = [
        "not json\n",
        "[1, 2]\n",
        "{\"kind\": \"step\", \"machine\": \"M\", \"instance\": \"a\", \"fingerprint\": \"f\", \"step\": \"fired\"}\n",
        "{\"kind\": \"wave\", \"machine\": \"M\", \"instance\": \"a\", \"fingerprint\": \"f\"}\n",
        "{\"kind\": \"gone\", \"machine\": \"M\", \"instance\": \"never\", \"fingerprint\": \"f\"}\n",
        "\u{0}\u{1}\n",
        long.as_str(),
        // And then a good one: the connection is still read.
        "{\"kind\": \"hello\", \"machine\": \"M\", \"instance\": \"a\", \"fingerprint\": \"f\", \"state\": [\"s\"]}\n",
    ];
    for line in lines {
        program.write_all(line.as_bytes()).unwrap();
    }
    program.write_all(&[0xff, 0xfe, b'\n']).unwrap();
    program.flush().unwrap();
    let answer = live.until("", |a| {
        a["malformed"]["count"] == 8 && a["instances"].as_array().unwrap().len() == 1
    });
    let last: Vec<&str> = answer["malformed"]["last"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(last.len(), 5, "the last five are kept: {last:?}");
    assert!(last[0].starts_with("unknown kind `wave`: {"), "{last:?}");
    assert!(
        last[1].starts_with("`gone` of an instance never announced"),
        "{last:?}"
    );
    assert!(last[2].starts_with("not JSON"), "{last:?}");
    assert_eq!(last[3], "a line longer than 4194304 bytes was skipped");
    assert_eq!(last[4], "a line is not UTF-8 (byte 1 is not)");
    let m = instance(&answer, "a");
    assert_eq!(m["state"], json!(["s"]));
    // No definition from the program, and no file: the page says how to give one.
    assert!(
        m["diagram_error"]
            .as_str()
            .unwrap()
            .contains("sent no definition"),
        "{m}"
    );
}

#[test]
fn the_file_gives_the_diagram_and_its_fingerprint_is_checked() {
    let dir = Scratch::new();
    dir.write("lamp.fsm", LAMP);
    dir.write("valve.fsm", &VALVE.replace("close -> shut", "close -> flowing"));
    let live = Live::start(dir, Some("lamp.fsm"));
    let observer = Observer::connect(live.listen).unwrap();
    // No definition sent: the file has it.
    let mut lamp = Observed::new(lamp::Lamp::new(), &observer, "desk");
    lamp.fire(lamp::Event::Toggle(1)).unwrap();
    assert!(observer.flush(Duration::from_secs(10)));
    let answer = live.until("", |a| a["instances"].as_array().unwrap().len() == 1);
    assert_eq!(instance(&answer, "desk")["diagram_error"], Value::Null);
    drop(live);

    // Another version of the machine in the file: no diagram, and why.
    let dir = Scratch::new();
    dir.write(
        "lamp.fsm",
        &LAMP.replace("on toggle -> off", "on toggle -> unplugged"),
    );
    let live = Live::start(dir, Some("lamp.fsm"));
    let observer = Observer::connect(live.listen).unwrap();
    let _lamp = Observed::new(lamp::Lamp::new(), &observer, "desk").with_definition(LAMP);
    let answer = live.until("", |a| a["instances"].as_array().unwrap().len() == 1);
    let error = instance(&answer, "desk")["diagram_error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        error.starts_with("`lamp.fsm` defines `Lamp` with fingerprint "),
        "{error}"
    );
    assert!(
        error.contains(&format!(
            "the program runs fingerprint {}",
            <lamp::Lamp as fsm_runtime::Machine>::FINGERPRINT
        )),
        "{error}"
    );

    // A program that sends a definition other than the one it runs.
    let _valve =
        Observed::new(lamp::Lamp::new(), &observer, "liar").with_definition(LAMP.replace("emit glow", ""));
    let answer = live.until("", |a| a["instances"].as_array().unwrap().len() == 2);
    // The file's `Lamp` wins over what the program sends.
    assert!(instance(&answer, "liar")["diagram_error"]
        .as_str()
        .unwrap()
        .starts_with("`lamp.fsm` defines"));
}

#[test]
fn listen_takes_a_port_or_an_address_and_refuses_nonsense() {
    let output = Command::new(env!("CARGO_BIN_EXE_fsmc"))
        .args(["inspect", "--listen", "nowhere"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("`nowhere` is not a port (`7171`) or an address and port"),
        "{stderr}"
    );
    let output = Command::new(env!("CARGO_BIN_EXE_fsmc"))
        .args(["inspect", "--listen", "7171", "--machine", "M"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let output = Command::new(env!("CARGO_BIN_EXE_fsmc"))
        .args(["inspect"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
