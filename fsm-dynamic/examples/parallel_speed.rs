//! What a `fire` costs the dynamic engine on a machine with two regions,
//! next to the same events on a machine whose state is one leaf.
//!
//! ```text
//! cargo run --release -p fsm-dynamic --example parallel_speed
//! ```
//!
//! Four machines, each fired `EVENTS` times with actions cycling through
//! their states, timed side by side in rounds (the median of the rounds is
//! printed):
//!
//! - `flat`: three states in a ring (`on next`), one leaf at a time: the
//!   dynamic engine's precomputed step;
//! - `through always`: the same ring, where one `next` of three goes
//!   through a transient state (`always`) in the same `fire`: precomputed
//!   steps too, one after the other;
//! - `one region`: the same ring in one region of a parallel state whose
//!   other region has its own ring (`on other`): each event moves one
//!   region;
//! - `both regions`: both rings on the same action: each event moves both.

use fsm_dynamic::{Definition, Engine};
use serde_json::Value;
use std::time::Instant;

const EVENTS: u32 = 200_000;
// (`PARALLEL_SPEED_ONLY=1` runs the one-region machine alone, for a profiler.)
const ROUNDS: usize = 7;

const FLAT: &str = "machine Flat { initial state a1 { on next -> a2; } state a2 { on next -> a3; } \
                    state a3 { on next -> a1; } }";
const THROUGH_ALWAYS: &str =
    "machine Transient { initial state a1 { on next -> t; } state t { always -> a2; } \
                              state a2 { on next -> a3; } state a3 { on next -> a1; } }";
const ONE_REGION: &str = "machine Regions { initial state idle { on go -> p; } parallel state p { \
     state a { initial state a1 { on next -> a2; } state a2 { on next -> a3; } state a3 { on next -> a1; } } \
     state b { initial state b1 { on other -> b2; } state b2 { on other -> b1; } } } }";
const BOTH_REGIONS: &str = "machine Both { initial state idle { on go -> p; } parallel state p { \
     state a { initial state a1 { on next -> a2; } state a2 { on next -> a3; } state a3 { on next -> a1; } } \
     state b { initial state b1 { on next -> b2; } state b2 { on next -> b1; } } } }";

/// Nanoseconds per `fire` of `next` on a fresh engine of `text`.
fn ns_per_event(text: &str) -> f64 {
    let definition = Definition::from_fsm(text).expect("the machine checks");
    let go = definition.action_id("go");
    let next = definition.action_id("next").expect("`next`");
    let engine = Engine::new(definition).expect("nothing to bind");
    if let Some(go) = go {
        engine.fire_id(go, &Value::Null).expect("go");
    }
    let start = Instant::now();
    for _ in 0..EVENTS {
        let fired = engine.fire_id(next, &Value::Null).expect("next");
        std::hint::black_box(&fired);
    }
    start.elapsed().as_nanos() as f64 / f64::from(EVENTS)
}

fn main() {
    let machines = [
        ("flat", FLAT),
        ("through always", THROUGH_ALWAYS),
        ("one region", ONE_REGION),
        ("both regions", BOTH_REGIONS),
    ];
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); machines.len()];
    for _ in 0..ROUNDS {
        for (i, (_, text)) in machines.iter().enumerate() {
            samples[i].push(ns_per_event(text));
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let flat = median(&mut samples[0].clone());
    for (i, (name, _)) in machines.iter().enumerate() {
        let ns = median(&mut samples[i]);
        println!("{name:>14}: {ns:8.1} ns/event ({:.1}x flat)", ns / flat);
    }
}
