//! Many threads fire at one engine. No transition is lost or torn: sorted by
//! their sequence numbers, the transitions form one chain from the initial
//! state, each starting where the previous one ended.

use fsm_dynamic::{Definition, Engine, FireError, StateId};
use serde_json::json;
use std::sync::Arc;

const THREADS: usize = 8;
const FIRES_PER_THREAD: usize = 4_000;
const RING: usize = 7;

/// A ring of states where `advance` moves one step, `skip` two, `stay` is
/// internal, and `jump` moves three steps when its guard allows.
fn ring() -> Definition {
    let mut builder = Definition::builder("Ring");
    for i in 0..RING {
        let state = format!("s{i}");
        builder = if i == 0 {
            builder.initial(&state)
        } else {
            builder.state(&state)
        };
    }
    for i in 0..RING {
        let from = format!("s{i}");
        builder = builder
            .transition(&from, "advance", &format!("s{}", (i + 1) % RING))
            .transition(&from, "skip", &format!("s{}", (i + 2) % RING))
            .add_transition(fsm_dynamic::TransitionDef::on(&from, "stay").emit("stayed"))
            .guarded_transition(&from, "jump", &format!("s{}", (i + 3) % RING), "coin", 0);
    }
    builder.build().unwrap()
}

/// The step each action takes around the ring.
fn step(action: &str) -> usize {
    match action {
        "advance" => 1,
        "skip" => 2,
        "stay" => 0,
        "jump" => 3,
        other => panic!("no action {other}"),
    }
}

#[test]
fn no_transition_is_lost_or_torn() {
    let engine = Engine::builder(ring())
        .guard("coin", |input| {
            // Let other threads run while the lock is held, to make
            // interleavings likelier.
            std::thread::yield_now();
            input["heads"] == true
        })
        .build()
        .unwrap();
    let engine = Arc::new(engine);
    let actions = ["advance", "skip", "stay", "jump"];

    let threads: Vec<_> = (0..THREADS)
        .map(|thread| {
            let engine = Arc::clone(&engine);
            std::thread::spawn(move || {
                let mut seed = 0x9e37_79b9_7f4a_7c15_u64 ^ thread as u64;
                let mut fired = Vec::new();
                let mut rejected = 0;
                for _ in 0..FIRES_PER_THREAD {
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let action = actions[(seed >> 33) as usize % actions.len()];
                    let input = json!({"heads": seed >> 63 == 1});
                    match engine.fire(action, &input) {
                        Ok(f) => fired.push((f.seq, f.from, f.to, action)),
                        Err(FireError::GuardRejected(_)) => rejected += 1,
                        Err(error) => panic!("{error}"),
                    }
                }
                (fired, rejected)
            })
        })
        .collect();

    let mut all: Vec<(u64, StateId, StateId, &str)> = Vec::new();
    let mut rejected = 0;
    for thread in threads {
        let (fired, r) = thread.join().unwrap();
        all.extend(fired);
        rejected += r;
    }
    assert_eq!(all.len() + rejected, THREADS * FIRES_PER_THREAD);
    assert!(
        rejected > 0 && all.len() > THREADS * FIRES_PER_THREAD / 2,
        "{rejected}"
    );

    all.sort_by_key(|&(seq, ..)| seq);
    let definition = engine.definition();
    let index = |state: StateId| definition.state_name(state)[1..].parse::<usize>().unwrap();
    let mut expected_from = definition.initial();
    for (position, &(seq, from, to, action)) in all.iter().enumerate() {
        assert_eq!(seq, position as u64, "no sequence number is missing or repeated");
        assert_eq!(
            from,
            expected_from,
            "transition {seq} starts where {} ended",
            seq.wrapping_sub(1)
        );
        assert_eq!(
            index(to),
            (index(from) + step(action)) % RING,
            "transition {seq} ({action}) is whole"
        );
        expected_from = to;
    }
    assert_eq!(engine.state(), expected_from);
    assert_eq!(engine.fired_count(), all.len() as u64);
}
