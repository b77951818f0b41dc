//! Generated code of machines with parallel states.
//!
//! Over a context: `fire` takes an `Event`, guards read the context as it
//! was before each step (and `in(...)` the configuration), effects run in
//! the step's order (exit hooks, each transition's `do` with the event's
//! payload, entry hooks) and the `done` step's after them, a refused event
//! is handed back and runs nothing, a named delay is read from the context
//! when its state is entered, and a snapshot carries the context.
//!
//! The bugs XState's tracker shows for parallel states are pinned for
//! generated code and the dynamic engine alike in one place,
//! `tests/differential/cases.rs`.

use fsm_runtime::{FingerprintPolicy, ManualClock, RestoreError, Snapshot};
use serde::{Deserialize, Serialize};
use std::time::{Duration, UNIX_EPOCH};

fsm_runtime::fsm! {
    machine Pipeline {
        context Notes;
        action start, written(String), failed, cancel;
        guard long_enough(String), budget_left;
        effect note(String), spawn, close;
        delay patience;

        initial state idle { on start -> collect do spawn; }

        /// Both researchers write at once; synthesis starts when both are done.
        parallel state collect {
            exit do close;
            on cancel -> cancelled;
            after patience -> cancelled emit timed_out;
            done [in(a_done) && budget_left] -> synthesis emit synthesize;
            done -> partial emit synthesize;

            state a {
                initial state a_running {
                    on written [long_enough] -> a_done do note;
                    on failed -> a_gave_up;
                }
                final state a_done;
                final state a_gave_up;
            }
            state b {
                initial state b_running {
                    enter do spawn;
                    on written [long_enough] -> b_done do note;
                }
                final state b_done;
            }
        }
        terminal state synthesis;
        terminal state partial;
        terminal state cancelled;
    }
}

use pipeline::{Action, Context, Event, FireError, Output, Pipeline, State};

/// What the effects did, in order, and what the guards read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Notes {
    log: Vec<String>,
    budget: u32,
    patience_secs: u64,
}

impl Context for Notes {
    fn long_enough(&self, text: &String) -> bool {
        text.len() >= 5
    }

    fn budget_left(&self) -> bool {
        self.budget > 0
    }

    fn note(&mut self, text: &String) {
        self.log.push(format!("note {text}"));
    }

    fn spawn(&mut self) {
        self.budget = self.budget.saturating_sub(1);
        self.log.push("spawn".to_owned());
    }

    fn close(&mut self) {
        self.log.push("close".to_owned());
    }

    fn patience(&self) -> Duration {
        Duration::from_secs(self.patience_secs)
    }
}

fn clock() -> ManualClock {
    ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_800_000_000))
}

fn notes(budget: u32) -> Notes {
    Notes {
        budget,
        patience_secs: 600,
        ..Notes::default()
    }
}

#[test]
fn effects_run_in_the_steps_order_and_guards_read_the_context_before_each_step() {
    let mut machine = Pipeline::with_clock(notes(3), clock());
    let fired = machine.fire(Event::Start).unwrap();
    // `idle`'s transition spawns, then entering `b_running` spawns again.
    assert_eq!(machine.context().log, ["spawn", "spawn"]);
    assert_eq!(machine.context().budget, 1);
    assert_eq!(fired.action, Action::Start);
    assert_eq!(
        machine.leaves().collect::<Vec<_>>(),
        [State::ARunning, State::BRunning]
    );

    // Both regions take `written` with the one payload: each `do note`
    // gets it, in document order.
    let fired = machine.fire(Event::Written("draft".to_owned())).unwrap();
    assert_eq!(
        machine.leaves().collect::<Vec<_>>(),
        [State::Synthesis],
        "both regions are done: `collect`'s `done` left it"
    );
    assert_eq!(fired.outputs[..], [Output::Synthesize]);
    // The `done` step ran after the event's: `close` (leaving `collect`)
    // comes after both notes, and the guard `budget_left` read the budget
    // the steps before it left (1).
    assert_eq!(
        machine.context().log,
        ["spawn", "spawn", "note draft", "note draft", "close"]
    );
}

#[test]
fn a_refused_event_is_handed_back_and_runs_nothing() {
    let mut machine = Pipeline::with_clock(notes(3), clock());
    machine.fire(Event::Start).unwrap();
    let before = machine.context().clone();

    // Too short for either region's guard.
    let error = machine.fire(Event::Written("ok".to_owned())).unwrap_err();
    assert!(matches!(error, FireError::GuardRejected(_)), "{error:?}");
    assert_eq!(error.action(), Action::Written);
    assert_eq!(
        error.to_string(),
        "action `written` rejected in configuration [`a_running`, `b_running`]: guard `long_enough` \
         was false (-> a_done), guard `long_enough` was false (-> b_done)"
    );
    assert_eq!(error.clone().into_event(), Event::Written("ok".to_owned()));
    assert_eq!(machine.context(), &before);

    // No leaf takes `start`: the event comes back, with what is valid.
    let error = machine.fire(Event::Start).unwrap_err();
    let FireError::InvalidTransition(invalid) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(invalid.valid(), [Action::Written, Action::Failed, Action::Cancel]);
    assert_eq!(machine.context(), &before);

    // `can_fire` asks the guards and changes nothing.
    assert!(!machine.can_fire(&Event::Written("ok".to_owned())));
    assert!(machine.can_fire(&Event::Written("longer".to_owned())));
    assert_eq!(machine.context(), &before);
}

#[test]
fn a_done_guard_reads_in_and_the_context_the_steps_left() {
    // The budget is spent by the two spawns: `budget_left` fails, and the
    // second `done` takes the machine to `partial`.
    let mut machine = Pipeline::with_clock(notes(2), clock());
    machine.fire(Event::Start).unwrap();
    machine.fire(Event::Failed).unwrap();
    let fired = machine.fire(Event::Written("final text".to_owned())).unwrap();
    assert_eq!(machine.leaves().collect::<Vec<_>>(), [State::Partial]);
    assert_eq!(fired.outputs[..], [Output::Synthesize]);
    assert_eq!(
        machine.context().log,
        ["spawn", "spawn", "note final text", "close"]
    );
}

#[test]
fn a_named_delay_is_read_from_the_context_when_its_state_is_entered() {
    let clock = clock();
    let mut machine = Pipeline::with_clock(notes(3), clock.clone());
    machine.context_mut().patience_secs = 30;
    machine.fire(Event::Start).unwrap();
    // Changing the context later does not move the armed deadline.
    machine.context_mut().patience_secs = 5;
    clock.advance(Duration::from_secs(29));
    assert_eq!(machine.fire_due(|_| {}), 0);
    clock.advance(Duration::from_secs(1));
    let mut fired = Vec::new();
    assert_eq!(machine.fire_due(|r| fired.push(r.unwrap())), 1);
    assert_eq!(fired[0].label, "after patience");
    assert_eq!(fired[0].outputs[..], [Output::TimedOut]);
    assert_eq!(machine.leaves().collect::<Vec<_>>(), [State::Cancelled]);
    assert_eq!(machine.context().log.last().map(String::as_str), Some("close"));
}

#[test]
fn a_snapshot_carries_the_context_and_restores_it() {
    let clock = clock();
    let mut machine = Pipeline::with_clock(notes(3), clock.clone());
    machine.fire(Event::Start).unwrap();
    machine.fire(Event::Failed).unwrap();
    let snapshot = machine.snapshot().unwrap();
    let json = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(
        json["configuration"],
        serde_json::json!(["a_gave_up", "b_running"])
    );
    assert_eq!(json["context"]["log"], serde_json::json!(["spawn", "spawn"]));

    // Through JSON and back, on the same clock.
    let read: Snapshot = serde_json::from_value(json.clone()).unwrap();
    let mut restored = Pipeline::restore_with(&read, FingerprintPolicy::Strict, clock.clone()).unwrap();
    assert_eq!(restored.context(), machine.context());
    assert_eq!(restored.next_deadline(), machine.next_deadline());
    restored.fire(Event::Written("a long one".to_owned())).unwrap();
    assert_eq!(restored.leaves().collect::<Vec<_>>(), [State::Partial]);

    // With a context the caller gives, whatever the snapshot carries.
    let given =
        Pipeline::restore_with_context(&read, FingerprintPolicy::Strict, notes(9), clock.clone()).unwrap();
    assert_eq!(given.context(), &notes(9));

    // A snapshot whose context does not read names the field.
    let mut broken = json;
    broken["context"]["budget"] = serde_json::json!("many");
    let broken: Snapshot = serde_json::from_value(broken).unwrap();
    let error = Pipeline::restore_with(&broken, FingerprintPolicy::Strict, clock).unwrap_err();
    assert!(matches!(error, RestoreError::InvalidContext { .. }), "{error:?}");
    assert!(error.to_string().contains("budget"), "{error}");
}
