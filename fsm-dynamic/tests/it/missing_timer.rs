//! A snapshot whose configuration has a timer group that is armed whenever
//! its state is active, and that arms none of its timers, lost it: restoring
//! refuses it, naming the state and the timer, unless
//! `MissingTimerPolicy::Rearm` arms it from the time of the restore. A group
//! that can be disarmed while its state stays active (every timer guarded,
//! or one that stays in its state) is accepted unarmed, as the machine
//! writes it after such a group came due.

use fsm_dynamic::{Definition, Engine};
use fsm_runtime::{
    ArmedTimer, FingerprintPolicy, ManualClock, MissingTimerPolicy, RestoreError, RestorePolicy, Snapshot,
    Timestamp,
};
use serde_json::Value;
use std::time::{Duration, UNIX_EPOCH};

const FLAT: &str = "machine Flat {
    initial state waiting { after 30s -> done; on go -> done; }
    terminal state done;
}";

const NESTED: &str = "machine Nested {
    initial state idle { on dial -> connected; }
    state connected {
        after 2h -> idle;
        on hang_up -> idle;
        initial state talking { on hold -> on_hold; }
        state on_hold { on resume -> talking; }
    }
}";

const PARALLEL: &str = "machine Par {
    initial parallel state both {
        state a {
            initial state a1 { after 5s -> a2; }
            state a2 { on back -> a1; }
        }
        state b { initial state b1 { on flip -> b2; } state b2 { on flip -> b1; } }
    }
}";

/// Timers that can be disarmed while their state stays active: a group of
/// guarded timers only, and an internal timer.
const UNARMED_OK: &str = "machine Lenient {
    initial state waiting {
        after 5s [ready] -> done;
        after 10s emit ping;
        on go -> done;
    }
    terminal state done;
}";

fn start() -> std::time::SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_768_035_600)
}

/// The time `after` the start.
fn at(after: Duration) -> Timestamp {
    let millis = (start() + after).duration_since(UNIX_EPOCH).unwrap().as_millis();
    Timestamp::from_unix_millis(millis as u64).unwrap()
}

fn engine(text: &str, clock: &ManualClock) -> Engine {
    let builder = Engine::builder(Definition::from_fsm(text).unwrap()).clock(clock.clone());
    match text.contains("[ready]") {
        true => builder.guard("ready", |_: &Value| false).build().unwrap(),
        false => builder.build().unwrap(),
    }
}

/// A snapshot of `text` in `leaves`, arming no timer.
fn bare(text: &str, leaves: &[&'static str]) -> Snapshot {
    let definition = Definition::from_fsm(text).unwrap();
    let (name, fingerprint) = (definition.name().to_owned(), definition.fingerprint().to_owned());
    match leaves {
        [leaf] => Snapshot::new(name, fingerprint, *leaf),
        _ => Snapshot::of_configuration(name, fingerprint, leaves.iter().copied()),
    }
}

#[test]
fn a_lost_timer_of_a_leaf_is_refused_naming_state_and_timer() {
    let clock = ManualClock::new(start());
    let engine = engine(FLAT, &clock);
    let error = engine.restore(&bare(FLAT, &["waiting"])).unwrap_err();
    assert_eq!(
        error,
        RestoreError::MissingTimer {
            machine: "Flat".into(),
            state: "waiting".into(),
            timer: "after 30s".into(),
        }
    );
    assert_eq!(
        error.to_string(),
        "the snapshot of machine `Flat` arms no timer `after 30s` of state `waiting`, which is armed \
         whenever `waiting` is active; restore it with `MissingTimerPolicy::Rearm` to arm it from the \
         time of the restore"
    );
    // A fingerprint policy alone keeps the refusal.
    assert_eq!(
        engine
            .restore_with(&bare(FLAT, &["waiting"]), FingerprintPolicy::Ignore)
            .unwrap_err(),
        error
    );
    // With the timer, it restores; in a state without timers, nothing is missing.
    let armed =
        bare(FLAT, &["waiting"]).with_timers([ArmedTimer::new("waiting", 0, at(Duration::from_secs(7)))]);
    engine.restore(&armed).unwrap();
    assert_eq!(engine.next_deadline(), Some(at(Duration::from_secs(7))));
    engine.restore(&bare(FLAT, &["done"])).unwrap();
}

#[test]
fn rearm_arms_a_lost_timer_at_the_restore_plus_its_delay_and_it_fires() {
    let clock = ManualClock::new(start());
    let engine = engine(FLAT, &clock);
    clock.advance(Duration::from_secs(100));
    let policy = RestorePolicy::from(MissingTimerPolicy::Rearm);
    engine.restore_with(&bare(FLAT, &["waiting"]), policy).unwrap();
    let due = at(Duration::from_secs(130));
    assert_eq!(engine.next_deadline(), Some(due));
    clock.advance(Duration::from_secs(29));
    assert!(engine.fire_due().is_empty());
    clock.advance(Duration::from_secs(1));
    let fired = engine.fire_due();
    assert_eq!(fired.len(), 1);
    assert!(fired[0].is_ok());
    drop(fired);
    assert_eq!(engine.state_name(), "done");
}

#[test]
fn a_lost_timer_of_a_composite_is_refused_or_rearmed() {
    let clock = ManualClock::new(start());
    let engine = engine(NESTED, &clock);
    let snapshot = bare(NESTED, &["on_hold"]);
    assert_eq!(
        engine.restore(&snapshot).unwrap_err().to_string(),
        "the snapshot of machine `Nested` arms no timer `after 2h` of state `connected`, which is armed \
         whenever `connected` is active; restore it with `MissingTimerPolicy::Rearm` to arm it from the \
         time of the restore"
    );
    clock.advance(Duration::from_secs(60));
    engine
        .restore_with(
            &snapshot,
            RestorePolicy::STRICT.with_missing_timers(MissingTimerPolicy::Rearm),
        )
        .unwrap();
    assert_eq!(engine.next_deadline(), Some(at(Duration::from_secs(60 + 7200))));
    clock.advance(Duration::from_secs(7200));
    assert!(engine.fire_due()[0].is_ok());
    assert_eq!(engine.state_name(), "idle");
    // Its snapshot now arms nothing, in a state without timers.
    engine.restore(&engine.snapshot()).unwrap();
}

#[test]
fn a_lost_timer_in_a_region_is_refused_or_rearmed() {
    let clock = ManualClock::new(start());
    let engine = engine(PARALLEL, &clock);
    let snapshot = bare(PARALLEL, &["a1", "b2"]);
    assert_eq!(
        engine.restore(&snapshot).unwrap_err(),
        RestoreError::MissingTimer {
            machine: "Par".into(),
            state: "a1".into(),
            timer: "after 5s".into(),
        }
    );
    // In `a2` nothing is missing.
    engine.restore(&bare(PARALLEL, &["a2", "b2"])).unwrap();
    clock.advance(Duration::from_secs(10));
    engine
        .restore_with(&snapshot, RestorePolicy::from(MissingTimerPolicy::Rearm))
        .unwrap();
    assert_eq!(engine.next_deadline(), Some(at(Duration::from_secs(15))));
    clock.advance(Duration::from_secs(5));
    assert!(engine.fire_due()[0].is_ok());
    assert_eq!(engine.configuration_names(), ["a2", "b2"]);
}

#[test]
fn a_group_that_can_be_disarmed_in_its_state_is_accepted_unarmed_and_not_rearmed() {
    let clock = ManualClock::new(start());
    let engine = engine(UNARMED_OK, &clock);
    // Both groups came due: the guarded one was rejected, the internal one
    // fired; the machine stays in `waiting` with nothing armed.
    clock.advance(Duration::from_secs(10));
    let outcomes: Vec<bool> = engine.fire_due().iter().map(Result::is_ok).collect();
    assert_eq!(outcomes, [false, true]);
    let snapshot = engine.snapshot();
    assert!(snapshot.timers().is_empty());
    assert_eq!(snapshot.current_state(), "waiting");
    engine.restore(&snapshot).unwrap();
    engine
        .restore_with(&snapshot, RestorePolicy::from(MissingTimerPolicy::Rearm))
        .unwrap();
    assert_eq!(engine.next_deadline(), None);
}
