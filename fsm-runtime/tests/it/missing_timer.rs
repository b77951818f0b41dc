//! Generated restore applies the missing-timer rule, as the dynamic engine
//! does: a snapshot whose configuration has a timer group armed whenever
//! its state is active, and that arms none of its timers, lost it, and is
//! refused, naming the state and the timer, unless
//! `MissingTimerPolicy::Rearm` arms it from the time of the restore (the
//! clock the machine restores with) plus its delay.
//!
//! The machines are those of fsm-dynamic's `tests/it/missing_timer.rs`, and
//! each refusal is checked word for word against the text that test checks
//! the dynamic engine's against: the same definition gives the same error
//! from both engines.

use fsm_runtime::{
    ArmedTimer, FingerprintPolicy, Machine, ManualClock, MissingTimerPolicy, Restore, RestoreError,
    RestorePolicy, Snapshot, Timestamp,
};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fsm_runtime::fsm! {
    machine Flat {
        initial state waiting { after 30s -> done; on go -> done; }
        terminal state done;
    }
}

fsm_runtime::fsm! {
    machine Nested {
        initial state idle { on dial -> connected; }
        state connected {
            after 2h -> idle;
            on hang_up -> idle;
            initial state talking { on hold -> on_hold; }
            state on_hold { on resume -> talking; }
        }
    }
}

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

/// Timers that can be disarmed while their state stays active: a group of
/// guarded timers only, and an internal timer.
mod lenient {
    fsm_runtime::fsm! {
        machine Lenient {
            guard ready;
            initial state waiting {
                after 5s [ready] -> done;
                after 10s emit ping;
                on go -> done;
            }
            terminal state done;
        }
    }
}

/// A region's timer with a named delay, read from the context.
mod patient {
    #[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct Patience {
        pub secs: u64,
    }

    fsm_runtime::fsm! {
        machine Patient {
            context Patience;
            delay patience;
            initial parallel state both {
                state a {
                    initial state a1 { after patience -> a2; }
                    state a2 { on back -> a1; }
                }
                state b { initial state b1 { on flip -> b2; } state b2 { on flip -> b1; } }
            }
        }
    }

    impl patient::Context for Patience {
        fn patience(&self) -> std::time::Duration {
            std::time::Duration::from_secs(self.secs)
        }
    }
}

use flat::Flat;
use nested::Nested;
use par::Par;

fn start() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_768_035_600)
}

/// The time `after` the start.
fn at(after: Duration) -> Timestamp {
    Timestamp::from(start() + after)
}

/// A snapshot of `M` in `leaves`, arming no timer.
fn bare<M: Machine>(leaves: &[&'static str]) -> Snapshot {
    match leaves {
        [leaf] => Snapshot::new(M::NAME, M::FINGERPRINT, *leaf),
        _ => Snapshot::of_configuration(M::NAME, M::FINGERPRINT, leaves.iter().copied()),
    }
}

/// The dynamic engine's words for a lost timer (fsm-dynamic's
/// `tests/it/missing_timer.rs` checks them, for these machines).
fn lost(machine: &str, state: &str, timer: &str) -> String {
    format!(
        "the snapshot of machine `{machine}` arms no timer `{timer}` of state `{state}`, which is armed \
         whenever `{state}` is active; restore it with `MissingTimerPolicy::Rearm` to arm it from the \
         time of the restore"
    )
}

#[test]
fn a_lost_timer_of_a_leaf_is_refused_naming_state_and_timer() {
    let clock = ManualClock::new(start());
    let error = Flat::restore_with(
        &bare::<Flat>(&["waiting"]),
        FingerprintPolicy::Strict,
        clock.clone(),
    )
    .unwrap_err();
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
    // A fingerprint policy alone keeps the refusal, and so do the trait and
    // `restore` on the system clock.
    let ignore = Flat::restore_with(
        &bare::<Flat>(&["waiting"]),
        FingerprintPolicy::Ignore,
        clock.clone(),
    );
    assert_eq!(ignore.unwrap_err(), error);
    assert_eq!(
        <Flat as Restore>::restore(&bare::<Flat>(&["waiting"])).unwrap_err(),
        error
    );
    assert_eq!(Flat::restore(&bare::<Flat>(&["waiting"])).unwrap_err(), error);
    // With the timer, it restores; in a state without timers, nothing is missing.
    let armed =
        bare::<Flat>(&["waiting"]).with_timers([ArmedTimer::new("waiting", 0, at(Duration::from_secs(7)))]);
    let flat = Flat::restore_with(&armed, RestorePolicy::STRICT, clock.clone()).unwrap();
    assert_eq!(flat.next_deadline(), Some(at(Duration::from_secs(7))));
    Flat::restore_with(&bare::<Flat>(&["done"]), FingerprintPolicy::Strict, clock).unwrap();
}

#[test]
fn rearm_arms_a_lost_timer_at_the_restore_plus_its_delay_and_it_fires() {
    let clock = ManualClock::new(start());
    clock.advance(Duration::from_secs(100));
    let policy = RestorePolicy::from(MissingTimerPolicy::Rearm);
    let mut flat = Flat::restore_with(&bare::<Flat>(&["waiting"]), policy, clock.clone()).unwrap();
    let due = at(Duration::from_secs(130));
    assert_eq!(flat.next_deadline(), Some(due));
    assert_eq!(
        flat.armed_timers().collect::<Vec<_>>(),
        [ArmedTimer::new("waiting", 0, due)]
    );
    clock.advance(Duration::from_secs(29));
    assert!(flat.fire_next_due().is_none());
    clock.advance(Duration::from_secs(1));
    let fired = flat.fire_next_due().expect("due").expect("fired");
    assert_eq!((fired.declared_in, fired.due), ("waiting", due));
    assert_eq!(flat.state(), flat::State::Done);
    // A timer the snapshot lists keeps its deadline under `Rearm`.
    let armed =
        bare::<Flat>(&["waiting"]).with_timers([ArmedTimer::new("waiting", 0, at(Duration::from_secs(7)))]);
    let flat = Flat::restore_with(&armed, policy, clock).unwrap();
    assert_eq!(flat.next_deadline(), Some(at(Duration::from_secs(7))));
}

#[test]
fn a_lost_timer_of_a_composite_is_refused_or_rearmed() {
    let clock = ManualClock::new(start());
    let snapshot = bare::<Nested>(&["on_hold"]);
    let error = Nested::restore_with(&snapshot, FingerprintPolicy::Strict, clock.clone()).unwrap_err();
    assert_eq!(error.to_string(), lost("Nested", "connected", "after 2h"));
    clock.advance(Duration::from_secs(60));
    let policy = RestorePolicy::STRICT.with_missing_timers(MissingTimerPolicy::Rearm);
    let mut nested = Nested::restore_with(&snapshot, policy, clock.clone()).unwrap();
    assert_eq!(nested.next_deadline(), Some(at(Duration::from_secs(60 + 7200))));
    clock.advance(Duration::from_secs(7200));
    assert!(nested.fire_next_due().expect("due").is_ok());
    assert_eq!(nested.state(), nested::State::Idle);
    // Its snapshot now arms nothing, in a state without timers.
    Nested::restore_with(&nested.snapshot(), FingerprintPolicy::Strict, clock).unwrap();
}

#[test]
fn a_lost_timer_in_a_region_is_refused_or_rearmed() {
    let clock = ManualClock::new(start());
    let snapshot = bare::<Par>(&["a1", "b2"]);
    let error = Par::restore_with(&snapshot, FingerprintPolicy::Strict, clock.clone()).unwrap_err();
    assert_eq!(
        error,
        RestoreError::MissingTimer {
            machine: "Par".into(),
            state: "a1".into(),
            timer: "after 5s".into(),
        }
    );
    assert_eq!(error.to_string(), lost("Par", "a1", "after 5s"));
    assert_eq!(<Par as Restore>::restore(&snapshot).unwrap_err(), error);
    // In `a2` nothing is missing.
    Par::restore_with(
        &bare::<Par>(&["a2", "b2"]),
        FingerprintPolicy::Strict,
        clock.clone(),
    )
    .unwrap();
    clock.advance(Duration::from_secs(10));
    let mut par = Par::restore_with(
        &snapshot,
        RestorePolicy::from(MissingTimerPolicy::Rearm),
        clock.clone(),
    )
    .unwrap();
    assert_eq!(par.next_deadline(), Some(at(Duration::from_secs(15))));
    clock.advance(Duration::from_secs(5));
    assert!(par.fire_next_due().expect("due").is_ok());
    assert_eq!(
        par.leaves().map(|leaf| leaf.name()).collect::<Vec<_>>(),
        ["a2", "b2"]
    );
}

#[test]
fn a_group_that_can_be_disarmed_in_its_state_is_accepted_unarmed_and_not_rearmed() {
    use lenient::lenient::{Guards, Lenient};
    struct NotReady;
    impl Guards for NotReady {
        fn ready(&self) -> bool {
            false
        }
    }
    let clock = ManualClock::new(start());
    let mut machine = Lenient::with_clock(clock.clone());
    // Both groups came due: the guarded one was rejected, the internal one
    // fired; the machine stays in `waiting` with nothing armed.
    clock.advance(Duration::from_secs(10));
    let mut outcomes = Vec::new();
    machine.fire_due(&NotReady, |result| outcomes.push(result.is_ok()));
    assert_eq!(outcomes, [false, true]);
    let snapshot = machine.snapshot();
    assert!(snapshot.timers().is_empty());
    assert_eq!(snapshot.current_state(), "waiting");
    Lenient::restore_with(&snapshot, FingerprintPolicy::Strict, clock.clone()).unwrap();
    let rearmed =
        Lenient::restore_with(&snapshot, RestorePolicy::from(MissingTimerPolicy::Rearm), clock).unwrap();
    assert_eq!(rearmed.next_deadline(), None);
}

#[test]
fn a_lost_timer_with_a_named_delay_is_rearmed_from_the_restored_context() {
    use patient::patient::Patient;
    use patient::Patience;
    let clock = ManualClock::new(start());
    let snapshot = bare::<Patient>(&["a1", "b1"]);
    let error = Patient::restore_with_context(
        &snapshot,
        FingerprintPolicy::Strict,
        Patience { secs: 40 },
        clock.clone(),
    )
    .unwrap_err();
    assert_eq!(error.to_string(), lost("Patient", "a1", "after patience"));
    clock.advance(Duration::from_secs(3));
    let policy = RestorePolicy::from(MissingTimerPolicy::Rearm);
    let restored =
        Patient::restore_with_context(&snapshot, policy, Patience { secs: 40 }, clock.clone()).unwrap();
    assert_eq!(restored.next_deadline(), Some(at(Duration::from_secs(43))));
    // Through `restore_with`, the context is the snapshot's.
    let with_context = snapshot.with_context_of(&Patience { secs: 7 }).unwrap();
    assert_eq!(
        Patient::restore_with(&with_context, FingerprintPolicy::Strict, clock.clone()).unwrap_err(),
        error
    );
    let restored = Patient::restore_with(&with_context, policy, clock).unwrap();
    assert_eq!(restored.next_deadline(), Some(at(Duration::from_secs(10))));
}
