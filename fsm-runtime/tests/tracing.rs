//! The `tracing` feature logs every transition and every rejection with the
//! machine, the states and the action. A minimal subscriber records the
//! events' fields.

#![deny(warnings)]

include!("generated/door.rs");
include!("generated/call_nested.rs");

use door::{Action, Door};
#[path = "support/recorder.rs"]
mod recorder;
use recorder::Recorder;

struct Key;

impl door::Guards for Key {
    fn has_key(&self) -> bool {
        true
    }
}

#[test]
fn transitions_and_rejections_are_logged() {
    let recorder = Recorder::default();
    tracing::subscriber::with_default(recorder.clone(), || {
        let mut door = Door::new();
        door.fire(Action::Lock, &Key).unwrap();
        door.fire(Action::Open, &Key).unwrap_err();
        // `can_fire` and `transition` only look; they log nothing.
        assert!(door.can_fire(Action::Unlock, &Key));
        Door::transition(door.state(), Action::Unlock, &Key).unwrap();
    });
    let events = recorder.events.lock().unwrap();
    assert_eq!(
        *events,
        [
            vec![
                "message=transition",
                "machine=Door",
                "from=closed",
                "action=lock",
                "to=locked",
                "outputs=1"
            ],
            vec![
                "message=rejected",
                "machine=Door",
                "state=locked",
                "action=open",
                "error=action `open` is not valid in state `locked`; valid actions: `unlock`"
            ],
        ]
    );
}

/// Machines with a clock log their fired actions and their timers too, a
/// timer with the state that declared it (here a composite state around the
/// current leaf).
#[test]
fn timers_and_the_fire_of_machines_with_a_clock_are_logged() {
    use std::time::{Duration, UNIX_EPOCH};
    let recorder = Recorder::default();
    let clock = fsm_runtime::ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_768_035_600));
    tracing::subscriber::with_default(recorder.clone(), || {
        let mut call = call::Call::with_clock(clock.clone());
        call.fire(call::Action::Dial).unwrap();
        call.fire(call::Action::Answered).unwrap();
        call.fire(call::Action::Complete).unwrap_err();
        clock.advance(Duration::from_secs(2 * 3600));
        assert_eq!(call.fire_due(|_| {}), 1);
    });
    let events = recorder.events.lock().unwrap();
    let messages: Vec<&str> = events.iter().map(|e| e[0].as_str()).collect();
    assert_eq!(
        messages,
        [
            "message=transition",
            "message=transition",
            "message=rejected",
            "message=timer"
        ]
    );
    assert_eq!(
        events[3],
        [
            "message=timer",
            "machine=Call",
            "from=talking",
            "declared_in=connected",
            "timer=0",
            "to=idle",
            "outputs=2"
        ]
    );
}
