//! The restore rules that generated code and the dynamic engine share, run
//! through both on the same snapshots: each refusal is the same error, with
//! the same words. The phone call (fsm-runtime/tests/generated/call_nested.fsm) has a timer on
//! a composite and a history target; `Par`, a timer in a region.

#![deny(warnings, rust_2018_idioms)]

mod call_nested {
    include!("../../../fsm-runtime/tests/generated/call_nested.rs");
}

use call_nested::call::Call;
use fsm_dynamic::{Definition, Engine};
use fsm_runtime::{ArmedTimer, FingerprintPolicy, Machine, ManualClock, RestoreError, Snapshot, Timestamp};
use std::time::{Duration, UNIX_EPOCH};

const CALL: &str = include_str!("../../../fsm-runtime/tests/generated/call_nested.fsm");

fn at(seconds: u64) -> Timestamp {
    Timestamp::from_unix_millis(1_768_035_600_000 + seconds * 1000).unwrap()
}

fn snapshot(state: &'static str) -> Snapshot {
    Snapshot::new("Call", <Call as Machine>::FINGERPRINT, state)
}

/// `snapshot` restored by generated code and by the dynamic engine: both
/// errors (both must refuse it).
fn refused_by_both(snapshot: &Snapshot) -> (RestoreError, RestoreError) {
    let clock = ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_768_035_600));
    let generated = Call::restore_with(snapshot, FingerprintPolicy::Strict, clock)
        .expect_err("generated code refuses it");
    let engine = Engine::new(Definition::from_fsm(CALL).unwrap()).unwrap();
    let dynamic = engine
        .restore(snapshot)
        .expect_err("the dynamic engine refuses it");
    (generated, dynamic)
}

#[test]
fn a_composite_named_twice_in_last_active_is_refused_by_both() {
    let twice = snapshot("paused").with_last_active([("connected", "talking"), ("connected", "on_hold")]);
    let (generated, dynamic) = refused_by_both(&twice);
    assert_eq!(generated, dynamic);
    assert_eq!(
        generated.to_string(),
        "the snapshot of machine `Call` remembers `on_hold` as last active in `connected`, but \
         `connected` is named twice"
    );
}

#[test]
fn an_unknown_timer_says_how_many_timers_its_state_has_in_both() {
    let cases = [
        // Past the timers of the composite holding the leaf.
        (
            "talking",
            ArmedTimer::new("connected", 1, at(5)),
            "the snapshot of machine `Call` arms timer 1 of state `connected`, which has 1 timer",
        ),
        // The leaf itself, which has none.
        (
            "talking",
            ArmedTimer::new("talking", 0, at(5)),
            "the snapshot of machine `Call` arms timer 0 of state `talking`, which has no timers",
        ),
        // A state that does not hold the leaf.
        (
            "idle",
            ArmedTimer::new("connected", 0, at(5)),
            "the snapshot of machine `Call` arms a timer of state `connected`, but only the timers of \
             its current state `idle` (and of the states holding it) can be armed",
        ),
        // A state the machine does not have.
        (
            "idle",
            ArmedTimer::new("nowhere", 0, at(5)),
            "the snapshot of machine `Call` arms a timer of state `nowhere`, but only the timers of \
             its current state `idle` (and of the states holding it) can be armed",
        ),
    ];
    for (state, armed, message) in cases {
        let (generated, dynamic) = refused_by_both(&snapshot(state).with_timers([armed]));
        assert_eq!(generated, dynamic, "{state}");
        assert_eq!(generated.to_string(), message);
    }
}

#[test]
fn a_lost_timer_is_refused_by_both_with_the_same_words() {
    // `connected`'s `after 2h` is armed whenever `connected` is active: a
    // snapshot in `bridged`, inside it, that arms none lost it.
    let (generated, dynamic) = refused_by_both(&snapshot("bridged"));
    assert_eq!(generated, dynamic);
    assert_eq!(
        generated.to_string(),
        "the snapshot of machine `Call` arms no timer `after 2h` of state `connected`, which is armed \
         whenever `connected` is active; restore it with `MissingTimerPolicy::Rearm` to arm it from the \
         time of the restore"
    );
}

mod regions {
    fsm_runtime::fsm! {
        machine Par {
            initial parallel state both {
                state a {
                    initial state a1 { after 5s -> a2; }
                    state a2 { on back -> a1; }
                }
                state b { initial state b1 { on flip -> b2; } state b2 { on flip -> b1; } }
            }
        }
    }
}

#[test]
fn a_lost_timer_in_a_region_is_refused_by_both_and_rearmed_alike() {
    use fsm_runtime::{MissingTimerPolicy, RestorePolicy};
    let text = "machine Par {
        initial parallel state both {
            state a {
                initial state a1 { after 5s -> a2; }
                state a2 { on back -> a1; }
            }
            state b { initial state b1 { on flip -> b2; } state b2 { on flip -> b1; } }
        }
    }";
    let bare = Snapshot::of_configuration("Par", <regions::par::Par as Machine>::FINGERPRINT, ["a1", "b2"]);
    let clock = ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_768_035_600));
    let engine = Engine::builder(Definition::from_fsm(text).unwrap())
        .clock(clock.clone())
        .build()
        .unwrap();
    assert_eq!(
        engine.definition().fingerprint(),
        <regions::par::Par as Machine>::FINGERPRINT
    );
    let generated =
        regions::par::Par::restore_with(&bare, FingerprintPolicy::Strict, clock.clone()).unwrap_err();
    assert_eq!(generated, engine.restore(&bare).unwrap_err());
    assert_eq!(
        generated.to_string(),
        "the snapshot of machine `Par` arms no timer `after 5s` of state `a1`, which is armed \
         whenever `a1` is active; restore it with `MissingTimerPolicy::Rearm` to arm it from the \
         time of the restore"
    );
    clock.advance(Duration::from_secs(10));
    let rearm = RestorePolicy::from(MissingTimerPolicy::Rearm);
    let machine = regions::par::Par::restore_with(&bare, rearm, clock.clone()).unwrap();
    engine.restore_with(&bare, rearm).unwrap();
    assert_eq!(machine.next_deadline(), Some(at(15)));
    assert_eq!(engine.next_deadline(), machine.next_deadline());
}
