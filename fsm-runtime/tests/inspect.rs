//! The `inspect` feature: what an observed machine sends, and that it is
//! never blocked, with no inspector or a stalled one.

use fsm_runtime::inspect::{Observed, Observer};
use fsm_runtime::ManualClock;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, UNIX_EPOCH};

fsm_runtime::fsm! {
    machine Kettle {
        context crate::Water;
        action fill(u32), boil;
        effect pour;
        output whistle;
        initial state empty { on fill -> full do pour; }
        state full {
            on boil -> boiling;
        }
        state boiling { after 3m -> full emit whistle; }
    }
}

#[derive(Debug, Default)]
pub struct Water {
    litres: u32,
    /// What the inspector must not see.
    #[allow(dead_code)]
    secret: &'static str,
}

impl kettle::Context for Water {
    fn pour(&mut self) {
        self.litres += 1;
    }
}

/// A listener that accepts one program, and its lines as JSON.
fn inspector() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    (listener, address)
}

/// The lines up to the first `gone`; a hello that another follows at once
/// (a probe announced, then given its definition) counts once, as the last.
fn until_gone(stream: TcpStream) -> Vec<Value> {
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut got: Vec<Value> = Vec::new();
    for line in BufReader::new(stream).lines() {
        let line = line.unwrap_or_else(|e| panic!("{e} after {got:#?}"));
        let line: Value = serde_json::from_str(&line).unwrap();
        let gone = line["kind"] == "gone";
        if line["kind"] == "hello" && got.last().is_some_and(|l| l["kind"] == "hello") {
            got.pop();
        }
        got.push(line);
        if gone {
            break;
        }
    }
    got
}

fn lines(stream: TcpStream, count: usize) -> Vec<Value> {
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    BufReader::new(stream)
        .lines()
        .take(count)
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect()
}

/// What a line says, without the time it carries.
fn without_time(mut line: Value) -> Value {
    let at = line.as_object_mut().unwrap().remove("at_us");
    if line["kind"] == "step" {
        assert!(
            at.and_then(|a| a.as_u64())
                .is_some_and(|a| a > 1_600_000_000_000_000),
            "{line}"
        );
    }
    line
}

#[test]
fn every_step_is_a_line_stamped_with_machine_instance_and_fingerprint() {
    let (listener, address) = inspector();
    let observer = Observer::connect(address).unwrap();
    let clock = ManualClock::new(UNIX_EPOCH);
    let water = Water {
        litres: 0,
        secret: "the kettle's secret",
    };
    let mut kettle = Observed::new(kettle::Kettle::with_clock(water, clock.clone()), &observer, "k-1")
        .with_definition("machine Kettle { ... }")
        .sanitize_event(|event| match event {
            kettle::Event::Fill(litres) => Some(json!(litres)),
            kettle::Event::Boil => None,
        })
        .sanitize_context(|machine| Some(json!({ "litres": machine.context().litres })));
    let (stream, _) = listener.accept().unwrap();
    kettle.fire(kettle::Event::Fill(2)).unwrap();
    kettle.fire(kettle::Event::Fill(1)).unwrap_err();
    kettle.fire(kettle::Event::Boil).unwrap();
    clock.advance(Duration::from_secs(180));
    kettle.fire_next_due().unwrap().unwrap();
    assert!(kettle.fire_next_due().is_none(), "no step when nothing is due");
    drop(kettle);
    assert!(observer.flush(Duration::from_secs(10)));
    let fingerprint = <kettle::Kettle<ManualClock> as fsm_runtime::Machine>::FINGERPRINT;
    let stamp = json!({"machine": "Kettle", "instance": "k-1", "fingerprint": fingerprint});
    let with_stamp = |mut line: Value| {
        line.as_object_mut()
            .unwrap()
            .extend(stamp.as_object().unwrap().clone());
        line
    };
    let got: Vec<Value> = until_gone(stream).into_iter().map(without_time).collect();
    assert_eq!(
        got,
        [
            with_stamp(
                json!({"kind": "hello", "protocol": 1, "state": ["empty"], "definition": "machine Kettle { ... }", "dropped": 0})
            ),
            with_stamp(
                json!({"kind": "step", "seq": 0, "step": "fired", "action": "fill", "from": ["empty"], "to": ["full"],
                "outputs": [], "internal": false, "payload": 2, "context": {"litres": 1}, "dropped": 0})
            ),
            with_stamp(
                json!({"kind": "step", "seq": 1, "step": "rejected", "action": "fill", "from": ["full"], "to": ["full"],
                "outputs": [], "internal": false, "payload": 1, "context": {"litres": 1}, "dropped": 0,
                "error": "action `fill` is not valid in state `full`; valid actions: `boil`"})
            ),
            with_stamp(
                json!({"kind": "step", "seq": 2, "step": "fired", "action": "boil", "from": ["full"], "to": ["boiling"],
                "outputs": [], "internal": false, "context": {"litres": 1}, "dropped": 0})
            ),
            with_stamp(
                json!({"kind": "step", "seq": 3, "step": "timer", "action": "after 3m", "from": ["boiling"], "to": ["full"],
                "outputs": ["whistle"], "internal": false, "declared_in": "boiling", "context": {"litres": 1}, "dropped": 0})
            ),
            with_stamp(json!({"kind": "gone", "dropped": 0})),
        ]
    );
    assert!(
        !got.iter().any(|l| l.to_string().contains("secret")),
        "the context goes out only as sanitized"
    );
    assert_eq!((observer.sent(), observer.dropped()), (4, 0));
}

#[test]
fn a_machine_is_never_blocked_when_no_inspector_listens() {
    // Port 0: nobody can listen there (a port freed by another test could
    // be taken again by the next one, running beside it).
    let address = SocketAddr::from(([127, 0, 0, 1], 0));
    let observer = Observer::with_capacity(address, 8).unwrap();
    let mut kettle = Observed::new(kettle::Kettle::new(Water::default()), &observer, "alone");
    for _ in 0..50_000 {
        for event in [
            kettle::Event::Fill(1),
            kettle::Event::Boil,
            kettle::Event::Fill(1),
            kettle::Event::Boil,
        ] {
            let _ = kettle.fire(event);
        }
    }
    // Every step was dropped, and counted, once the queue filled; none was sent.
    assert!(observer.flush(Duration::from_secs(10)));
    assert_eq!(observer.sent(), 0);
    assert_eq!(observer.dropped(), 200_000);
    assert_eq!(kettle.probe().dropped(), 200_000);
    assert!(!observer.is_connected());
}

#[test]
fn a_stalled_inspector_drops_steps_and_counts_them() {
    let (listener, address) = inspector();
    let observer = Observer::with_capacity(address, 64).unwrap();
    let mut kettle = Observed::new(kettle::Kettle::new(Water::default()), &observer, "stalled")
        .sanitize_event(|_| Some(json!("x".repeat(200))));
    // Accepted, never read: the socket's buffers fill, the writes block, the
    // queue fills; the machine goes on.
    let (stream, _) = listener.accept().unwrap();
    let steps = 400_000u64;
    for _ in 0..steps {
        let _ = kettle.fire(kettle::Event::Fill(1));
    }
    let dropped = kettle.probe().dropped();
    assert!(dropped > 0, "some steps were dropped");
    assert_eq!(observer.dropped(), dropped);
    // What did get through is whole lines, in order, each carrying the
    // count dropped before it.
    drop(kettle);
    let mut text = Vec::new();
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let _ = BufReader::new(stream).take(64 << 20).read_to_end(&mut text);
    let text = String::from_utf8(text).unwrap();
    let mut last_seq = None;
    let mut last_dropped = 0;
    let mut received = 0u64;
    for line in text.lines() {
        let Ok(line) = serde_json::from_str::<Value>(line) else {
            // The last line may be cut short by the write that timed out.
            continue;
        };
        if line["kind"] != "step" {
            continue;
        }
        received += 1;
        let seq = line["seq"].as_u64().unwrap();
        assert!(last_seq.is_none_or(|last| seq > last), "in order");
        last_seq = Some(seq);
        let dropped = line["dropped"].as_u64().unwrap();
        assert!(dropped >= last_dropped);
        last_dropped = dropped;
    }
    assert!(
        received > 0 && received < steps,
        "{received} of {steps} got through"
    );
}

#[test]
fn a_returning_inspector_hears_hello_again_with_the_state_now() {
    let (listener, address) = inspector();
    let observer = Observer::connect(address).unwrap();
    let mut kettle = Observed::new(kettle::Kettle::new(Water::default()), &observer, "back");
    let (stream, _) = listener.accept().unwrap();
    kettle.fire(kettle::Event::Fill(1)).unwrap();
    assert!(observer.flush(Duration::from_secs(10)));
    let first = lines(stream.try_clone().unwrap(), 2);
    assert_eq!(first[0]["kind"], "hello");
    assert_eq!(first[0]["state"], json!(["empty"]));
    assert_eq!(first[1]["to"], json!(["full"]));
    // The inspector closes the connection; the steps that find it closed
    // are dropped and counted. (The listener stays, so that no other test
    // can take its port meanwhile.)
    drop(stream);
    while observer.is_connected() {
        kettle.fire(kettle::Event::Fill(1)).unwrap_err();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(observer.flush(Duration::from_secs(10)));
    let dropped = kettle.probe().dropped();
    assert!(dropped > 0);
    // The observer comes back by itself.
    let (stream, _) = listener.accept().unwrap();
    let hello = lines(stream.try_clone().unwrap(), 1);
    assert_eq!(hello[0]["kind"], "hello");
    assert_eq!(hello[0]["state"], json!(["full"]), "the state now, not the first");
    assert_eq!(hello[0]["dropped"], dropped);
    kettle.fire(kettle::Event::Boil).unwrap();
    let step = lines(stream, 1);
    assert_eq!(step[0]["step"], "fired");
    assert_eq!(step[0]["to"], json!(["boiling"]));
    assert_eq!(step[0]["dropped"], dropped);
    assert_eq!(kettle.probe().dropped(), dropped);
}
