//! `TimerFired::internal` tells an internal timer (no target: nothing exits
//! or enters) from one back to its own state (exits and re-enters, which
//! re-arms its timers), as `Fired::internal` does for transitions.

use fsm_runtime::{ManualClock, Timestamp};
use std::time::{Duration, UNIX_EPOCH};

fsm_runtime::fsm! {
    machine Beat {
        initial state running {
            enter emit started;
            after 1s emit tick;
            after 5s -> running emit restart;
            on stop -> stopped;
        }
        terminal state stopped;
    }
}

#[test]
fn an_internal_timer_and_a_self_timer_differ() {
    let clock = ManualClock::new(UNIX_EPOCH);
    let mut beat = beat::Beat::with_clock(clock.clone());
    let at = |s: u64| UNIX_EPOCH + Duration::from_secs(s);

    clock.set(at(1));
    let mut fired = Vec::new();
    beat.fire_due(|r| fired.push(r.unwrap()));
    assert_eq!(fired.len(), 1);
    assert!(fired[0].internal, "`after 1s emit tick;` has no target");
    assert_eq!(fired[0].outputs, [beat::Output::Tick]);
    assert_eq!(fired[0].from, fired[0].to);

    clock.set(at(5));
    let mut fired = Vec::new();
    beat.fire_due(|r| fired.push(r.unwrap()));
    let restart = fired.last().expect("the 5s timer fired");
    assert!(!restart.internal, "`-> running` exits and re-enters");
    assert_eq!(restart.outputs, [beat::Output::Restart, beat::Output::Started]);
    assert_eq!(restart.from, restart.to);
    // Re-entering re-armed both timers from 5s.
    assert_eq!(beat.next_deadline(), Some(Timestamp::from_system_time(at(6))));
}
