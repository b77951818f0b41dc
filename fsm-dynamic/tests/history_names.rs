//! An engine's history shares its definition's names instead of copying
//! them into every entry: with names of a megabyte, recording a fire (or a
//! timer) allocates a few dozen bytes, not three megabytes, and a snapshot
//! of the history copies no name either. `examples/huge_names.rs` measures
//! the peak memory with a 50 MB name.

// The allocation counter of fsm-runtime's tests, one file for both crates.
#[path = "../../fsm-runtime/tests/support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocated_bytes;

use fsm_dynamic::{Definition, Engine};
use fsm_runtime::{History, ManualClock};
use serde_json::Value;
use std::time::{Duration, UNIX_EPOCH};

const MEGABYTE: usize = 1 << 20;

/// A name of a megabyte, starting with `prefix`.
fn huge(prefix: &str) -> String {
    format!("{prefix}{}", "x".repeat(MEGABYTE))
}

#[test]
fn recording_copies_no_name() {
    let (idle, busy, go, wait) = (huge("idle"), huge("busy"), huge("go"), huge("wait"));
    let source = format!(
        "machine M {{
            context Ctx;
            delay {wait};
            initial state {idle} {{ on {go} -> {busy}; }}
            state {busy} {{ on {go} -> {idle}; after {wait} -> {idle}; }}
        }}"
    );
    let clock = ManualClock::new(UNIX_EPOCH);
    // Errors hold the megabyte names: `unwrap_or_else` keeps them out of a
    // failure's message.
    let definition = Definition::from_fsm(&source).unwrap_or_else(|_| panic!("the definition checks"));
    let engine = Engine::with_context(definition, ())
        .delay(&wait, |_| Duration::from_secs(1))
        .clock(clock.clone())
        .history(History::new().with_clock(clock.clone()))
        .build()
        .unwrap_or_else(|_| panic!("the engine builds"));
    let bytes = allocated_bytes(|| {
        for _ in 0..11 {
            assert!(engine.fire(&go, &Value::Null).is_ok());
        }
        clock.advance(Duration::from_secs(1));
        assert_eq!(engine.fire_due().len(), 1);
    });
    // Before names were shared: three copies of a megabyte per entry.
    assert!(bytes < 64 * 1024, "{bytes} bytes allocated to record 12 entries");

    engine
        .with_history(|history| {
            assert_eq!(history.len(), 12);
            let first = history.first().unwrap();
            // `assert!`, not `assert_eq!`: a failure would print the names.
            assert!((first.from(), first.action(), first.to()) == (&*idle, &*go, &*busy));
            let timer = history.last().unwrap();
            assert!(timer.from() == busy && timer.to() == idle);
            assert!(timer.action() == format!("after {wait}"));
        })
        .unwrap();

    // A snapshot shares the entries' names too: what it copies is the
    // current state's name, once.
    let bytes = allocated_bytes(|| drop(engine.snapshot()));
    assert!(bytes < 2 * MEGABYTE, "{bytes} bytes allocated for a snapshot");
}
