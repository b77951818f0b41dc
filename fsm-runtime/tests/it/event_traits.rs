//! The traits of a generated `Event`: `Clone`, `Copy`, `PartialEq`, `Eq`,
//! `Hash`, `Serialize` and `Deserialize` when every payload type has them
//! (as `#[derive]` on a generic enum), and a `Debug` that shows the payloads
//! whose types are `Debug`. A payload type without them still compiles.

#![deny(warnings)]

use std::collections::HashSet;

fsm_runtime::fsm! {
    machine Chat {
        context Log;
        action user_input(String);
        action tool_result(ToolResult);
        action cancel;
        initial state waiting {
            on user_input -> thinking;
        }
        state thinking {
            on tool_result;
            on cancel -> waiting;
        }
    }
}

/// A payload with every trait an event can derive.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
struct ToolResult {
    tool: String,
    ok: bool,
}

#[derive(Default)]
struct Log;

impl chat::Context for Log {}

// Only `Copy` payloads: the event is `Copy`.
fsm_runtime::fsm! {
    machine Counter {
        action add(u32);
        action reset;
        initial state counting {
            on add;
            on reset -> idle;
        }
        state idle {
            on add -> counting;
        }
    }
}

// A payload with no trait at all: the machine compiles, its event has
// none of the conditional traits, and `Debug` shows the payload as `..`.
fsm_runtime::fsm! {
    machine Pipe {
        action send(Handle);
        action close;
        initial state open {
            on send;
            on close -> closed;
        }
        terminal state closed;
    }
}

struct Handle(#[allow(dead_code)] std::fs::File);

fn input(text: &str) -> chat::Event {
    chat::Event::UserInput(text.to_owned())
}

#[test]
fn an_event_whose_payloads_are_clone_and_partial_eq_is_too() {
    let event = chat::Event::ToolResult(ToolResult {
        tool: "search".into(),
        ok: true,
    });
    let copy = event.clone();
    assert_eq!(copy, event);
    assert_ne!(input("a"), input("b"));
    assert_ne!(input("a"), chat::Event::Cancel);
    assert_eq!(chat::Event::Cancel, chat::Event::Cancel);
    let set: HashSet<chat::Event> = [input("a"), input("a"), chat::Event::Cancel]
        .into_iter()
        .collect();
    assert_eq!(set.len(), 2);
}

#[test]
fn debug_shows_payloads() {
    assert_eq!(format!("{:?}", input("hi")), "UserInput(\"hi\")");
    assert_eq!(
        format!(
            "{:?}",
            chat::Event::ToolResult(ToolResult {
                tool: "ls".into(),
                ok: false
            })
        ),
        "ToolResult(ToolResult { tool: \"ls\", ok: false })"
    );
    assert_eq!(format!("{:?}", chat::Event::Cancel), "Cancel");
    assert_eq!(format!("{:?}", counter::Event::Add(3)), "Add(3)");
}

#[test]
fn an_event_round_trips_through_json() {
    let events = [
        input("hello"),
        chat::Event::ToolResult(ToolResult {
            tool: "search".into(),
            ok: true,
        }),
        chat::Event::Cancel,
    ];
    let json = serde_json::to_string(&events).unwrap();
    assert_eq!(
        json,
        r#"[{"user_input":"hello"},{"tool_result":{"tool":"search","ok":true}},"cancel"]"#
    );
    let back: Vec<chat::Event> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, events);
}

#[test]
fn an_event_that_does_not_read_back_says_why() {
    let unknown = serde_json::from_str::<chat::Event>(r#"{"shout":"x"}"#).unwrap_err();
    assert!(unknown.to_string().contains("shout"), "{unknown}");
    assert!(unknown.to_string().contains("user_input"), "{unknown}");
    let missing_payload = serde_json::from_str::<chat::Event>(r#""user_input""#).unwrap_err();
    assert!(
        missing_payload.to_string().contains("newtype variant"),
        "{missing_payload}"
    );
    let payload_of_a_unit = serde_json::from_str::<chat::Event>(r#"{"cancel":1}"#).unwrap_err();
    assert!(
        payload_of_a_unit.to_string().contains("expected unit"),
        "{payload_of_a_unit}"
    );
}

/// A rejected event comes back whole, and a saved one fires the same.
#[test]
fn a_saved_event_fires_like_the_original() {
    let mut machine = chat::Chat::new(Log);
    let saved: chat::Event = serde_json::from_str(&serde_json::to_string(&input("go")).unwrap()).unwrap();
    let fired = machine.fire(saved.clone()).unwrap();
    assert_eq!(fired.to, chat::State::Thinking);
    let rejected = machine.fire(saved.clone()).unwrap_err();
    assert_eq!(rejected.into_event(), saved);
}

#[test]
fn an_event_of_copy_payloads_is_copy() {
    fn copy<T: Copy>(value: T) -> (T, T) {
        (value, value)
    }
    let (a, b) = copy(counter::Event::Add(1));
    assert_eq!(a, b);
    let mut machine = counter::Counter::new();
    let event = counter::Event::Add(2);
    machine.fire(event).unwrap();
    machine.fire(event).unwrap();
}

#[test]
fn a_payload_without_traits_compiles_and_debug_elides_it() {
    let file = std::fs::File::open(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let event = pipe::Event::Send(Handle(file));
    assert_eq!(format!("{event:?}"), "Send(..)");
    let mut machine = pipe::Pipe::new();
    let fired = machine.fire(event).unwrap();
    assert!(fired.internal);
    let fired = machine.fire(pipe::Event::Close).unwrap();
    assert!(!fired.internal);
}
