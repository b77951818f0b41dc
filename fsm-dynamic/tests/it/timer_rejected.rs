//! A timer group none of whose guards holds is disarmed without firing, and
//! both engines say so: generated code's `fire_due` reports
//! `Err(TimerRejected)` and the dynamic engine's `fire_due` returns
//! `Err(fsm_dynamic::TimerRejected)` in the same place, naming the same state,
//! timer and deadline, with the same message.

use fsm_dynamic::{Definition, Engine};
use fsm_runtime::{Machine, ManualClock, Timestamp};
use serde_json::Value;
use std::time::{Duration, UNIX_EPOCH};

fsm_runtime::fsm! {
    machine Wait {
        initial state up {
            after 30s [ready] -> done emit finished;
            after 30s [urgent] priority 1 -> done;
            on go -> b;
            initial state a { after 10s [ready] -> b; }
            state b { after 20s [urgent] -> a; }
        }
        terminal state done;
    }
}

/// The same machine, for the dynamic engine.
const WAIT: &str = "machine Wait {
    initial state up {
        after 30s [ready] -> done emit finished;
        after 30s [urgent] priority 1 -> done;
        on go -> b;
        initial state a { after 10s [ready] -> b; }
        state b { after 20s [urgent] -> a; }
    }
    terminal state done;
}";

/// The value of `ready`; `urgent` is always false.
struct Ready(bool);

impl wait::Guards for Ready {
    fn ready(&self) -> bool {
        self.0
    }
    fn urgent(&self) -> bool {
        false
    }
}

/// A dynamic engine of the machine whose `ready` is `ready` and `urgent`
/// false.
fn engine(clock: &ManualClock, ready: bool) -> Engine {
    let definition = Definition::from_fsm(WAIT).unwrap();
    assert_eq!(
        definition.fingerprint(),
        <wait::Wait as Machine>::FINGERPRINT,
        "the two texts of the machine are the same machine"
    );
    Engine::builder(definition)
        .guard("ready", move |_: &Value| ready)
        .guard("urgent", |_: &Value| false)
        .clock(clock.clone())
        .build()
        .unwrap()
}

/// What one `fire_due` did, as text the two engines share: `Ok(state,
/// declared_in, timer, due)` or `Err(state, declared_in, timer, due,
/// message)`.
type Outcome = Result<(String, String, usize, Timestamp), (String, String, usize, Timestamp, String)>;

fn generated_due(machine: &mut wait::Wait<ManualClock>, guards: &Ready) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    machine.fire_due(guards, |result| {
        outcomes.push(match result {
            Ok(f) => Ok((
                f.from.to_string(),
                f.declared_in.to_owned(),
                f.timer as usize,
                f.due,
            )),
            Err(r) => Err((
                r.state.to_string(),
                r.declared_in.to_owned(),
                r.timer as usize,
                r.due,
                r.to_string(),
            )),
        });
    });
    outcomes
}

fn dynamic_due(engine: &Engine) -> Vec<Outcome> {
    engine
        .fire_due()
        .into_iter()
        .map(|result| match result {
            Ok(f) => Ok((
                f.from_name().to_owned(),
                f.declared_in_name().to_owned(),
                f.timer,
                f.due,
            )),
            Err(r) => Err((
                r.state_name().to_owned(),
                r.declared_in_name().to_owned(),
                r.timer,
                r.due,
                r.to_string(),
            )),
        })
        .collect()
}

fn at(seconds: u64) -> Timestamp {
    Timestamp::from_unix_millis(seconds * 1000).unwrap()
}

#[test]
fn a_rejected_timer_group_is_reported_alike_by_both_engines() {
    let clock = ManualClock::new(UNIX_EPOCH);
    let mut generated = wait::Wait::with_clock(clock.clone());
    let engine = engine(&clock, false);

    // The leaf's own group, at 10s.
    clock.set(UNIX_EPOCH + Duration::from_secs(10));
    let expected: Vec<Outcome> = vec![Err((
        "a".into(),
        "a".into(),
        0,
        at(10),
        "timer 0 of `a` came due at 1970-01-01T00:00:10.000Z and no guard of its group held".into(),
    ))];
    assert_eq!(generated_due(&mut generated, &Ready(false)), expected);
    assert_eq!(dynamic_due(&engine), expected);

    // The composite's group of two, named by its first (by priority): timer 1.
    clock.set(UNIX_EPOCH + Duration::from_secs(30));
    let expected: Vec<Outcome> = vec![Err((
        "a".into(),
        "up".into(),
        1,
        at(30),
        "timer 1 of `up` (in `a`) came due at 1970-01-01T00:00:30.000Z and no guard of its group \
         held"
            .into(),
    ))];
    assert_eq!(generated_due(&mut generated, &Ready(false)), expected);
    assert_eq!(dynamic_due(&engine), expected);

    // Nothing moved, and every group is disarmed.
    assert_eq!(generated.state(), wait::State::A);
    assert_eq!(engine.state_name(), "a");
    assert_eq!(generated.next_deadline(), None);
    assert_eq!(engine.next_deadline(), None);
    assert_eq!(engine.fired_count(), 0, "a rejected group is not a transition");
    assert!(dynamic_due(&engine).is_empty());
}

#[test]
fn rejected_and_fired_groups_come_in_deadline_order_in_both_engines() {
    let clock = ManualClock::new(UNIX_EPOCH);
    let mut generated = wait::Wait::with_clock(clock.clone());
    let engine = engine(&clock, true);
    generated.fire(wait::Action::Go, &Ready(true)).unwrap();
    engine.fire("go", &Value::Null).unwrap();
    // In `b`: its own group (20s) is rejected, then the composite's (30s)
    // fires its second timer, `ready` holding where `urgent` does not.
    clock.set(UNIX_EPOCH + Duration::from_secs(60));
    let outcomes = generated_due(&mut generated, &Ready(true));
    assert_eq!(dynamic_due(&engine), outcomes);
    let kinds: Vec<_> = outcomes
        .iter()
        .map(|o| match o {
            Ok((state, declared_in, timer, due)) => (true, state.clone(), declared_in.clone(), *timer, *due),
            Err((state, declared_in, timer, due, _)) => {
                (false, state.clone(), declared_in.clone(), *timer, *due)
            }
        })
        .collect();
    assert_eq!(
        kinds,
        [
            (false, "b".into(), "b".into(), 0, at(20)),
            (true, "b".into(), "up".into(), 0, at(30)),
        ]
    );
    assert_eq!(
        (generated.state(), engine.state_name()),
        (wait::State::Done, "done")
    );
}
