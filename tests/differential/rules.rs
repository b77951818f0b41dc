//! Two rules of a step about timers, pinned on small machines in every
//! engine (docs/dsl.md, "How a step runs" and "History and timers in
//! regions"): the generated code (`fsm!` over the fixtures, with a clock of
//! the test's own) and the dynamic engine must both do what the rule says,
//! the same way.
//!
//! - **Ties.** Groups due at the same instant fire by priority (highest
//!   first, across regions too), then each leaf's own before those of the
//!   states holding it, leaves in document order, a state holding several
//!   leaves once, after every leaf inside it
//!   (`tests/fixtures/ok/timers-in-regions.fsm`).
//! - **One reading.** The clock is read once per `fire`: every timer armed
//!   in any microstep of it counts from that reading, here on a clock that
//!   moves a millisecond on every read (`tests/fixtures/ok/timers-one-reading.fsm`
//!   and `RegionChain`).

use fsm_dynamic::{Definition, Engine};
use fsm_runtime::{ArmedTimer, Clock, ManualClock, Timestamp};
use fsm_tests::workspace_root;
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

mod ties {
    fsm_runtime::fsm!(file = "fixtures/ok/timers-in-regions.fsm");
}

mod one_reading {
    fsm_runtime::fsm!(file = "fixtures/ok/timers-one-reading.fsm");
}

/// 2026-01-10T09:00:00Z, in milliseconds.
const START: u64 = 1_768_035_600_000;

/// A clock that moves one millisecond on every read: an engine that reads
/// it twice in one `fire` arms timers from two different times.
#[derive(Clone, Debug, Default)]
struct Ticking {
    reads: Arc<AtomicU64>,
}

impl Clock for Ticking {
    fn now(&self) -> Timestamp {
        let n = self.reads.fetch_add(1, Ordering::SeqCst);
        Timestamp::from_unix_millis(START + n).expect("a time in range")
    }
}

fn text(file: &str) -> String {
    let path = workspace_root().join("tests/fixtures/ok").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The dynamic engine of machine `name` of fixture `file`, on `clock`.
fn dynamic(file: &str, name: &str, clock: impl Clock) -> Engine {
    let definition = Definition::from_fsm_named(&text(file), name).unwrap_or_else(|e| panic!("{name}: {e}"));
    Engine::builder(definition)
        .clock(clock)
        .build()
        .expect("nothing to bind")
}

/// Each due timer the dynamic engine fired: its state and outputs.
fn dynamic_due(engine: &Engine) -> Vec<(String, Vec<String>)> {
    engine
        .fire_due()
        .into_iter()
        .map(|outcome| {
            let fired = outcome.expect("no guard to reject");
            (
                fired.declared_in_name().to_owned(),
                fired.output_names().map(str::to_owned).collect(),
            )
        })
        .collect()
}

fn start() -> ManualClock {
    ManualClock::new(UNIX_EPOCH + Duration::from_millis(START))
}

/// `(state, timer, deadline)` of every armed timer, as a snapshot lists them.
fn listed(timers: impl IntoIterator<Item = ArmedTimer>) -> Vec<(String, u32, u64)> {
    timers
        .into_iter()
        .map(|t| (t.state().to_owned(), t.timer(), t.due().unix_millis()))
        .collect()
}

macro_rules! generated_ties {
    ($module:ident, $machine:ident) => {{
        use ties::$module::{$machine, Action};
        let clock = start();
        let mut machine = $machine::with_clock(clock.clone());
        machine.fire(Action::Go).expect("`go` fires");
        clock.advance(Duration::from_millis(200));
        let mut fired = Vec::new();
        machine.fire_due(|outcome| {
            let fired_timer = outcome.expect("no guard to reject");
            fired.push((
                fired_timer.declared_in.to_owned(),
                fired_timer
                    .outputs
                    .iter()
                    .map(|o| o.name().to_owned())
                    .collect::<Vec<_>>(),
            ));
        });
        fired
    }};
}

fn dynamic_ties(name: &str) -> Vec<(String, Vec<String>)> {
    let clock = start();
    let engine = dynamic("timers-in-regions.fsm", name, clock.clone());
    engine.fire("go", &Value::Null).expect("`go` fires");
    clock.advance(Duration::from_millis(200));
    dynamic_due(&engine)
}

fn expected(order: &[(&str, &str)]) -> Vec<(String, Vec<String>)> {
    order
        .iter()
        .map(|&(state, output)| (state.to_owned(), vec![output.to_owned()]))
        .collect()
}

#[test]
fn a_leaf_s_timer_fires_before_the_parallel_state_s_whatever_the_region_order() {
    let want = expected(&[("b", "b_tick"), ("p", "p_tick")]);
    assert_eq!(generated_ties!(tie, Tie), want, "generated code");
    assert_eq!(dynamic_ties("Tie"), want, "dynamic engine");
}

#[test]
fn without_the_first_region_the_leaf_s_timer_still_fires_first() {
    let want = expected(&[("b", "b_tick"), ("p", "p_tick")]);
    assert_eq!(
        generated_ties!(tie_one_region, TieOneRegion),
        want,
        "generated code"
    );
    assert_eq!(dynamic_ties("TieOneRegion"), want, "dynamic engine");
}

#[test]
fn priority_goes_first_across_regions_then_leaves_in_document_order_then_the_parallel_state() {
    let want = expected(&[("d", "d_tick"), ("a", "a_tick"), ("p", "p_tick")]);
    assert_eq!(generated_ties!(tie_priority, TiePriority), want, "generated code");
    assert_eq!(dynamic_ties("TiePriority"), want, "dynamic engine");
}

/// `b`'s timer (1 s, armed by the `always` step) and `p`'s (5 s, armed by
/// `go`'s step) count from the same reading: 4 s apart.
fn assert_one_reading(engine: &str, timers: &[(String, u32, u64)]) {
    let due = |state: &str| {
        timers
            .iter()
            .find(|(s, _, _)| s == state)
            .unwrap_or_else(|| panic!("{engine}: no timer of `{state}` armed: {timers:?}"))
            .2
    };
    assert_eq!(
        due("p") - due("b"),
        4_000,
        "{engine}: the timers armed in one `fire` count from different readings of the clock: {timers:?}"
    );
}

#[test]
fn every_timer_armed_in_one_fire_counts_from_one_reading_of_the_clock() {
    use one_reading::chain::{Action, Chain};
    let mut generated = Chain::with_clock(Ticking::default());
    generated.fire(Action::Go).expect("`go` fires");
    let generated = listed(generated.armed_timers());
    assert_one_reading("generated code", &generated);

    let engine = dynamic("timers-one-reading.fsm", "Chain", Ticking::default());
    engine.fire("go", &Value::Null).expect("`go` fires");
    let dynamic = listed(engine.snapshot().timers().iter().cloned());
    assert_one_reading("dynamic engine", &dynamic);
}

#[test]
fn every_timer_armed_in_one_fire_of_a_parallel_machine_counts_from_one_reading_of_the_clock() {
    use ties::region_chain::{Action, RegionChain};
    let mut generated = RegionChain::with_clock(Ticking::default());
    generated.fire(Action::Go).expect("`go` fires");
    let generated = listed(generated.armed_timers());
    assert_one_reading("generated code", &generated);

    let engine = dynamic("timers-in-regions.fsm", "RegionChain", Ticking::default());
    engine.fire("go", &Value::Null).expect("`go` fires");
    let dynamic = listed(engine.snapshot().timers().iter().cloned());
    assert_one_reading("dynamic engine", &dynamic);
    // `r`'s, armed with `p`'s by `go`'s own step, from the same reading.
    let due =
        |timers: &[(String, u32, u64)], state: &str| timers.iter().find(|(s, _, _)| s == state).map(|t| t.2);
    for timers in [&generated, &dynamic] {
        assert_eq!(
            due(timers, "p").zip(due(timers, "r")).map(|(p, r)| p - r),
            Some(2_000),
            "{timers:?}"
        );
    }
}
