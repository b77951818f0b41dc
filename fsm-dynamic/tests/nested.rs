//! The dynamic engine running nested states: the phone call step by step,
//! the order of hooks and effects across levels, shallow and deep history,
//! local and self transitions, timers of composite states on a manual
//! clock, snapshots with history memory and their hostile restores, loading
//! from JSON, agreement with the model's own helpers on random walks, and
//! `fire` without allocations.

use fsm_dynamic::{Definition, Engine, FiredTimer};
use fsm_runtime::{ArmedTimer, ManualClock, RestoreError, Snapshot, Timestamp};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What `fire_due` fired, each due group having fired (none rejected).
fn due_timers<C>(engine: &Engine<C>) -> Vec<FiredTimer<'_>> {
    engine
        .fire_due()
        .into_iter()
        .map(|outcome| outcome.unwrap_or_else(|rejected| panic!("{rejected}")))
        .collect()
}

const CALL: &str = include_str!("../../tests/fixtures/ok/phone-call.fsm");

/// 2026-01-10T09:00:00Z.
fn start() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_768_035_600)
}

fn at(offset: Duration) -> Timestamp {
    Timestamp::from_system_time(start() + offset)
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// Fire `action` (no payload) and return the new leaf and the outputs.
fn step<C>(engine: &Engine<C>, action: &str) -> (String, Vec<String>) {
    let fired = engine
        .fire(action, &Value::Null)
        .unwrap_or_else(|e| panic!("{action}: {e}"));
    (
        fired.to_name().to_owned(),
        fired.output_names().map(str::to_owned).collect(),
    )
}

fn names<C>(engine: &Engine<C>, ids: &[fsm_dynamic::StateId]) -> Vec<String> {
    let definition = engine.definition();
    ids.iter().map(|&s| definition.state_name(s).to_owned()).collect()
}

fn valid<C>(engine: &Engine<C>) -> Vec<&str> {
    let definition = engine.definition();
    engine
        .valid_actions()
        .iter()
        .map(|&a| definition.action_name(a))
        .collect()
}

/// Run the phone call through every kind of move, checking each step's
/// leaf and exact outputs.
fn phone_call(definition: Definition) {
    let engine = Engine::new(definition).unwrap();
    assert_eq!(engine.state_name(), "idle");
    assert!(engine.ancestors().is_empty());
    assert!(!engine.is_in("connected"));
    assert_eq!(step(&engine, "dial"), ("connecting".into(), vec![]));
    // Into a composite: it is entered, then its initial child.
    assert_eq!(
        step(&engine, "answered"),
        ("talking".into(), vec!["start_billing".into()])
    );
    assert!(engine.is_in("connected") && engine.is_in("talking"));
    assert!(!engine.is_in("on_hold") && !engine.is_in("no_such_state"));
    assert_eq!(names(&engine, engine.ancestors()), ["connected"]);
    // Inherited actions are valid, in action order.
    assert_eq!(valid(&engine), ["hang_up", "pause", "hold", "transfer"]);
    let error = engine.fire("dial", &Value::Null).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `dial` is not valid in state `talking`; valid actions: `hang_up`, `pause`, `hold`, `transfer`"
    );
    // Between siblings the parent stays: no billing hook.
    assert_eq!(step(&engine, "hold"), ("on_hold".into(), vec![]));
    // The child's own hang_up overrides its parent's: both levels exit.
    assert_eq!(
        step(&engine, "hang_up"),
        ("idle".into(), vec!["stop_billing".into(), "log_abandoned".into()])
    );
    assert!(!engine.is_in("connected"));
    step(&engine, "dial");
    step(&engine, "answered");
    // Inherited as is.
    assert_eq!(
        step(&engine, "hang_up"),
        ("idle".into(), vec!["stop_billing".into()])
    );
    step(&engine, "dial");
    step(&engine, "answered");
    assert_eq!(step(&engine, "transfer"), ("dialing_third".into(), vec![]));
    assert_eq!(names(&engine, engine.ancestors()), ["transferring", "connected"]);
    // `answered` here is dialing_third's own, not connecting's.
    assert_eq!(step(&engine, "answered"), ("bridged".into(), vec![]));
    // Inherited from two levels up.
    assert_eq!(
        step(&engine, "pause"),
        ("paused".into(), vec!["stop_billing".into()])
    );
    // Shallow history: back into `transferring`, at its initial child.
    assert_eq!(
        step(&engine, "resume"),
        ("dialing_third".into(), vec!["start_billing".into()])
    );
    step(&engine, "answered");
    assert_eq!(
        step(&engine, "complete"),
        ("idle".into(), vec!["stop_billing".into()])
    );
    assert_eq!(engine.fired_count(), 15);
}

#[test]
fn the_phone_call_step_by_step() {
    phone_call(Definition::from_fsm(CALL).unwrap());
}

#[test]
fn the_phone_call_from_json() {
    let text_definition = Definition::from_fsm(CALL).unwrap();
    let json = text_definition.to_json();
    let definition = Definition::from_json(&json).unwrap();
    assert_eq!(definition.fingerprint(), text_definition.fingerprint());
    assert_eq!(definition.to_json(), json);
    phone_call(definition);
}

#[test]
fn the_phone_call_times_out_from_any_leaf_inside() {
    let clock = ManualClock::new(start());
    let engine = Engine::builder(Definition::from_fsm(CALL).unwrap())
        .clock(clock.clone())
        .build()
        .unwrap();
    step(&engine, "dial");
    step(&engine, "answered");
    assert_eq!(engine.next_deadline(), Some(at(secs(7200))));
    clock.advance(secs(3600));
    // Moving inside `connected` keeps its timer's deadline.
    step(&engine, "transfer");
    step(&engine, "answered");
    assert_eq!(engine.next_deadline(), Some(at(secs(7200))));
    clock.advance(secs(3600));
    let fired = due_timers(&engine);
    assert_eq!(fired.len(), 1);
    let timer = &fired[0];
    assert_eq!(
        (
            timer.from_name(),
            timer.declared_in_name(),
            timer.timer,
            timer.to_name()
        ),
        ("bridged", "connected", 0, "idle")
    );
    assert_eq!(timer.due, at(secs(7200)));
    assert_eq!(
        timer.output_names().collect::<Vec<_>>(),
        ["stop_billing", "cut_off"]
    );
    assert_eq!(
        timer.to_string(),
        "`bridged` --after 2h of `connected`--> `idle` (emit `stop_billing`, `cut_off`)"
    );
    assert_eq!(engine.next_deadline(), None);
}

/// Hooks with effects and outputs on three levels.
const LEVELS: &str = r#"
machine Levels {
    context Log;
    effect enter_outer, exit_outer, enter_mid, exit_mid, enter_inner, exit_inner;
    effect enter_other, exit_other, enter_away, exit_away, go, come_back, hop;

    initial state outer {
        enter do enter_outer emit in_outer;
        exit do exit_outer emit out_outer;
        on leave -> away do go emit going;
        initial state mid {
            enter do enter_mid emit in_mid;
            exit do exit_mid emit out_mid;
            initial state inner {
                enter do enter_inner emit in_inner;
                exit do exit_inner emit out_inner;
                on hop -> other do hop emit hopping;
            }
            state other {
                enter do enter_other emit in_other;
                exit do exit_other emit out_other;
            }
        }
    }
    state away {
        enter do enter_away emit in_away;
        exit do exit_away emit out_away;
        on back -> other do come_back emit coming_back;
    }
}
"#;

fn logging_engine(text: &str) -> Engine<Vec<String>> {
    let definition = Arc::new(Definition::from_fsm(text).unwrap());
    let mut builder = Engine::with_context(Arc::clone(&definition), Vec::new());
    for name in definition.effect_names() {
        let logged = name.to_owned();
        builder = builder.effect(name, move |log: &mut Vec<String>, payload| {
            log.push(if payload.is_null() {
                logged.clone()
            } else {
                format!("{logged} {payload}")
            });
        });
    }
    builder.build().unwrap()
}

#[test]
fn hooks_and_effects_run_exits_innermost_first_then_entries_outermost_first() {
    let engine = logging_engine(LEVELS);
    // Starting runs no hook, as in flat machines.
    assert_eq!(engine.state_name(), "inner");
    assert!(engine.context().is_empty());

    let fired = engine.fire("leave", &json!(7)).unwrap();
    assert_eq!(fired.to_name(), "away");
    assert_eq!(
        fired.output_names().collect::<Vec<_>>(),
        ["out_inner", "out_mid", "out_outer", "going", "in_away"]
    );
    // The transition's own effect gets the payload; hooks get nothing.
    assert_eq!(
        engine.context(),
        ["exit_inner", "exit_mid", "exit_outer", "go 7", "enter_away"]
    );

    let engine = logging_engine(LEVELS);
    engine.fire("leave", &Value::Null).unwrap();
    let fired = engine.fire("back", &Value::Null).unwrap();
    assert_eq!(fired.to_name(), "other");
    // Into a nested target: its ancestors are entered, outermost first.
    assert_eq!(
        fired.output_names().collect::<Vec<_>>(),
        ["out_away", "coming_back", "in_outer", "in_mid", "in_other"]
    );
    assert_eq!(
        engine.context()[5..],
        [
            "exit_away",
            "come_back",
            "enter_outer",
            "enter_mid",
            "enter_other"
        ]
    );

    // Between siblings only the siblings' hooks run.
    let engine = logging_engine(LEVELS);
    let fired = engine.fire("hop", &Value::Null).unwrap();
    assert_eq!(
        fired.output_names().collect::<Vec<_>>(),
        ["out_inner", "hopping", "in_other"]
    );
    assert_eq!(engine.context(), ["exit_inner", "hop", "enter_other"]);
}

#[test]
fn a_panicking_effect_leaves_the_leaf_and_the_memory_unchanged() {
    let text = "machine P { context C; effect boom; initial state w { on out -> p; initial state a { on x -> b; } state b { exit do boom; } } state p { on back -> w.deep_history; } }";
    let engine = Engine::with_context(Definition::from_fsm(text).unwrap(), 0u32)
        .effect("boom", |n: &mut u32, _| {
            *n += 1;
            if *n == 1 {
                panic!("boom");
            }
        })
        .build()
        .unwrap();
    engine.fire("x", &Value::Null).unwrap();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = engine.fire("out", &Value::Null);
    }));
    assert!(panicked.is_err());
    assert_eq!(engine.state_name(), "b");
    assert_eq!(engine.snapshot().last_active().len(), 0, "nothing remembered");
    engine.fire("out", &Value::Null).unwrap();
    assert_eq!(engine.snapshot().last_active().collect::<Vec<_>>(), [("w", "b")]);
    assert_eq!(step(&engine, "back").0, "b");
}

/// A composite with a nested composite, entered through shallow and deep
/// history, from outside and from inside.
const HISTORY: &str = r#"
machine Work {
    initial state work {
        on pause -> paused;
        on stop -> stopped;
        initial state a { on next -> b; }
        state b {
            enter emit in_b;
            exit emit out_b;
            initial state b1 { on next -> b2; }
            state b2 {
                on next -> a;
                on redo -> work.deep_history;
                on again -> work.history;
            }
        }
    }
    state paused { on resume -> work.history; }
    state stopped { on resume -> work.deep_history; }
}
"#;

#[test]
fn shallow_and_deep_history() {
    let engine = Engine::new(Definition::from_fsm(HISTORY).unwrap()).unwrap();
    // Nothing remembered yet: history is the initial descent.
    step(&engine, "pause");
    assert_eq!(
        engine.snapshot().last_active().collect::<Vec<_>>(),
        [("work", "a")]
    );
    assert_eq!(step(&engine, "resume").0, "a");
    let fresh = Engine::new(Definition::from_fsm(HISTORY).unwrap()).unwrap();
    step(&fresh, "stop");
    assert_eq!(step(&fresh, "resume").0, "a");

    step(&engine, "next");
    assert_eq!(step(&engine, "next"), ("b2".into(), vec![]));
    // Shallow: the child last active (b), at its initial child.
    assert_eq!(step(&engine, "pause"), ("paused".into(), vec!["out_b".into()]));
    assert_eq!(step(&engine, "resume"), ("b1".into(), vec!["in_b".into()]));
    step(&engine, "next");
    // Deep: the very leaf.
    step(&engine, "stop");
    assert_eq!(
        engine.snapshot().last_active().collect::<Vec<_>>(),
        [("work", "b2")]
    );
    assert_eq!(step(&engine, "resume"), ("b2".into(), vec!["in_b".into()]));
    // From inside, `work` is kept and what lies below it re-entered:
    // deep history comes back to the leaf left...
    assert_eq!(
        step(&engine, "redo"),
        ("b2".into(), vec!["out_b".into(), "in_b".into()])
    );
    // ...and shallow history to its child's initial leaf.
    assert_eq!(
        step(&engine, "again"),
        ("b1".into(), vec!["out_b".into(), "in_b".into()])
    );
    // The memory follows every exit of `work`.
    step(&engine, "next");
    step(&engine, "next");
    assert_eq!(engine.state_name(), "a");
    step(&engine, "stop");
    assert_eq!(step(&engine, "resume").0, "a");
}

#[test]
fn local_and_self_transitions() {
    let text = r#"machine M {
        initial state p {
            enter emit in_p; exit emit out_p;
            on in -> b; on again -> p;
            initial state a {
                enter emit in_a; exit emit out_a;
                on self -> a; on top -> p; on stay;
            }
            state b { enter emit in_b; exit emit out_b; on back -> a; }
        }
    }"#;
    let engine = Engine::new(Definition::from_fsm(text).unwrap()).unwrap();
    // Declared on `p`, into `p`: `p` is not left.
    assert_eq!(
        step(&engine, "in"),
        ("b".into(), vec!["out_a".into(), "in_b".into()])
    );
    // Declared on `p`, to `p`: left and entered again, then its initial child.
    assert_eq!(
        step(&engine, "again"),
        (
            "a".into(),
            vec!["out_b".into(), "out_p".into(), "in_p".into(), "in_a".into()]
        )
    );
    // A leaf to itself: only it.
    assert_eq!(
        step(&engine, "self"),
        ("a".into(), vec!["out_a".into(), "in_a".into()])
    );
    // A leaf to its parent: the parent too.
    assert_eq!(
        step(&engine, "top"),
        (
            "a".into(),
            vec!["out_a".into(), "out_p".into(), "in_p".into(), "in_a".into()]
        )
    );
    // Internal: nothing.
    assert_eq!(step(&engine, "stay"), ("a".into(), vec![]));
}

/// A composite's timer beside its children's.
const TIMED: &str = r#"
machine Timed {
    initial state idle { on go -> busy; }
    state busy {
        after 10s -> idle emit timeout;
        on restart -> busy;
        on jump -> step2;
        initial state step1 { after 3s -> step2 emit s1; }
        state step2 { after 3s -> step1 emit s2; }
    }
}
"#;

fn timed(text: &str, clock: &ManualClock) -> Engine {
    Engine::builder(Definition::from_fsm(text).unwrap())
        .clock(clock.clone())
        .build()
        .unwrap()
}

/// The armed timers a snapshot lists, as `(state, timer, due)`.
fn armed(snapshot: &Snapshot) -> Vec<(String, u32, Timestamp)> {
    snapshot
        .timers()
        .iter()
        .map(|t| (t.state().to_owned(), t.timer(), t.due()))
        .collect()
}

#[test]
fn composite_timers_keep_their_deadlines_while_moving_inside() {
    let clock = ManualClock::new(start());
    let engine = timed(TIMED, &clock);
    assert_eq!(engine.next_deadline(), None);
    step(&engine, "go");
    // Listed innermost level first.
    assert_eq!(
        armed(&engine.snapshot()),
        [("step1".into(), 0, at(secs(3))), ("busy".into(), 0, at(secs(10)))]
    );
    clock.advance(secs(3));
    let fired = due_timers(&engine);
    assert_eq!(fired.len(), 1);
    assert_eq!(
        (
            fired[0].from_name(),
            fired[0].declared_in_name(),
            fired[0].to_name()
        ),
        ("step1", "step1", "step2")
    );
    assert_eq!(fired[0].to_string(), "`step1` --after 3s--> `step2` (emit `s1`)");
    assert_eq!(
        armed(&engine.snapshot()),
        [("step2".into(), 0, at(secs(6))), ("busy".into(), 0, at(secs(10)))]
    );
    clock.advance(secs(3));
    assert_eq!(due_timers(&engine)[0].to_name(), "step1");
    clock.advance(secs(1));
    // A local transition of `busy` keeps `busy`'s timer.
    assert_eq!(step(&engine, "jump").0, "step2");
    assert_eq!(
        armed(&engine.snapshot()),
        [
            ("step2".into(), 0, at(secs(10))),
            ("busy".into(), 0, at(secs(10)))
        ]
    );
    // Both due at 10 s: the innermost first, then the composite's, from
    // the leaf the first one entered.
    clock.advance(secs(3));
    let fired = due_timers(&engine);
    let seen: Vec<_> = fired
        .iter()
        .map(|f| (f.from_name(), f.declared_in_name(), f.timer, f.to_name()))
        .collect();
    assert_eq!(
        seen,
        [("step2", "step2", 0, "step1"), ("step1", "busy", 0, "idle")]
    );
    assert_eq!(fired[1].output_names().collect::<Vec<_>>(), ["timeout"]);
    assert_eq!(engine.next_deadline(), None);
    assert!(engine.snapshot().timers().is_empty());

    // A self transition of the composite re-arms its timer (at 10 s + 2 s).
    step(&engine, "go");
    clock.advance(secs(2));
    step(&engine, "restart");
    assert_eq!(
        armed(&engine.snapshot()),
        [
            ("step1".into(), 0, at(secs(15))),
            ("busy".into(), 0, at(secs(22)))
        ]
    );
}

#[test]
fn a_parent_timer_with_priority_interrupts_its_child() {
    let text = |priority: &str| {
        format!(
            "machine I {{ initial state idle {{ on go -> busy; }} state busy {{ after 3s {priority} -> idle emit outer; initial state s {{ after 3s -> t emit inner; }} state t; }} }}"
        )
    };
    let clock = ManualClock::new(start());
    let engine = timed(&text("priority 1"), &clock);
    step(&engine, "go");
    clock.advance(secs(3));
    let fired = due_timers(&engine);
    assert_eq!(fired.len(), 1, "the child's timer is gone with its state");
    assert_eq!(
        (fired[0].declared_in_name(), fired[0].to_name()),
        ("busy", "idle")
    );

    let clock = ManualClock::new(start());
    let engine = timed(&text(""), &clock);
    step(&engine, "go");
    clock.advance(secs(3));
    let fired: Vec<_> = due_timers(&engine)
        .iter()
        .map(|f| (f.declared_in_name(), f.to_name()))
        .collect();
    assert_eq!(fired, [("s", "t"), ("busy", "idle")]);
}

#[test]
fn the_initial_path_arms_every_level() {
    let clock = ManualClock::new(start());
    let engine = timed(
        "machine S { initial state up { after 5s -> down; initial state a { after 2s -> b; } state b; } state down; }",
        &clock,
    );
    assert_eq!(engine.state_name(), "a");
    assert_eq!(
        armed(&engine.snapshot()),
        [("a".into(), 0, at(secs(2))), ("up".into(), 0, at(secs(5)))]
    );
}

#[test]
fn snapshots_carry_the_leaf_timers_and_history_and_restore_them() {
    let clock = ManualClock::new(start());
    let engine = timed(TIMED, &clock);
    step(&engine, "go");
    clock.advance(secs(3));
    due_timers(&engine);
    let snapshot = engine.snapshot();
    let text = serde_json::to_string(&snapshot).unwrap();
    assert!(text.contains(r#""current_state":"step2""#), "{text}");
    assert!(!text.contains("last_active"), "no history composite: {text}");
    let restored = timed(TIMED, &clock);
    restored.restore(&serde_json::from_str(&text).unwrap()).unwrap();
    assert_eq!(restored.snapshot(), snapshot);
    clock.advance(secs(7));
    let a: Vec<_> = due_timers(&engine).iter().map(|f| f.to_string()).collect();
    let b: Vec<_> = due_timers(&restored).iter().map(|f| f.to_string()).collect();
    assert_eq!(a, b);
    assert_eq!(
        a,
        [
            "`step2` --after 3s--> `step1` (emit `s2`)",
            "`step1` --after 10s of `busy`--> `idle` (emit `timeout`)"
        ]
    );

    // History memory.
    let engine = Engine::new(Definition::from_fsm(HISTORY).unwrap()).unwrap();
    step(&engine, "next");
    step(&engine, "next");
    step(&engine, "stop");
    let snapshot = engine.snapshot();
    let value = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(value["current_state"], "stopped");
    assert_eq!(value["last_active"], json!({"work": "b2"}));
    let text = serde_json::to_string(&snapshot).unwrap();
    // Into an engine built from JSON.
    let json_definition = Definition::from_json(&Definition::from_fsm(HISTORY).unwrap().to_json()).unwrap();
    let restored = Engine::new(json_definition).unwrap();
    restored.restore(&serde_json::from_str(&text).unwrap()).unwrap();
    assert_eq!(restored.snapshot(), snapshot);
    assert_eq!(step(&restored, "resume").0, "b2");

    // A snapshot without memory clears the engine's.
    let fresh = Engine::new(Definition::from_fsm(HISTORY).unwrap()).unwrap();
    restored.restore(&fresh.snapshot()).unwrap();
    step(&restored, "stop");
    assert_eq!(step(&restored, "resume").0, "a");
}

/// The snapshot of `engine` with its JSON edited by `edit`.
fn edited(engine: &Engine, edit: impl FnOnce(&mut Value)) -> Snapshot {
    let mut value = serde_json::to_value(engine.snapshot()).unwrap();
    edit(&mut value);
    serde_json::from_value(value).unwrap()
}

#[test]
fn hostile_history_memory_is_refused_by_name() {
    let engine = Engine::new(Definition::from_fsm(HISTORY).unwrap()).unwrap();
    step(&engine, "pause");
    let before = engine.snapshot();
    let reason = |pairs: Value| {
        let snapshot = edited(&engine, |v| v["last_active"] = pairs);
        match engine.restore(&snapshot).unwrap_err() {
            RestoreError::InvalidLastActive {
                machine,
                state,
                leaf,
                reason,
            } => {
                assert_eq!(machine, "Work");
                (state, leaf, reason)
            }
            other => panic!("{other}"),
        }
    };
    let not_history = "is not a composite state that a transition enters through its history";
    assert_eq!(
        reason(json!({"nope": "a"})),
        ("nope".into(), "a".into(), format!("`nope` {not_history}"))
    );
    // `b` is a composite, but no transition enters it through its history.
    assert_eq!(reason(json!({"b": "b1"})).2, format!("`b` {not_history}"));
    assert_eq!(
        reason(json!({"work": "b"})).2,
        "`b` is not a leaf state of the machine"
    );
    assert_eq!(
        reason(json!({"work": "ghost"})).2,
        "`ghost` is not a leaf state of the machine"
    );
    assert_eq!(
        reason(json!({"work": "paused"})).2,
        "`paused` is not inside `work`"
    );
    let twice = engine
        .snapshot()
        .with_last_active([("work", "a"), ("work", "b1")]);
    let error = engine.restore(&twice).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the snapshot of machine `Work` remembers `b1` as last active in `work`, but `work` is named twice"
    );
    // Nothing changed.
    assert_eq!(engine.snapshot(), before);
}

#[test]
fn hostile_timers_and_states_are_refused() {
    let clock = ManualClock::new(start());
    let engine = timed(TIMED, &clock);
    step(&engine, "go");
    let before = engine.snapshot();
    let with_timer = |state: &str, timer: u32| {
        engine
            .snapshot()
            .with_timers([ArmedTimer::new(state.to_owned(), timer, at(secs(1)))])
    };
    // A timer of a state the leaf is not in.
    let error = engine.restore(&with_timer("step2", 0)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the snapshot of machine `Timed` arms a timer of state `step2`, but only the timers of its \
         current state `step1` (and of the states holding it) can be armed"
    );
    // A timer past those of an ancestor.
    match engine.restore(&with_timer("busy", 1)).unwrap_err() {
        RestoreError::UnknownTimer {
            current_state,
            state,
            timer,
            timers,
            ..
        } => assert_eq!(
            (current_state.as_str(), state.as_str(), timer, timers),
            ("step1", "busy", 1, Some(1))
        ),
        other => panic!("{other}"),
    }
    assert_eq!(
        engine.restore(&with_timer("busy", 1)).unwrap_err().to_string(),
        "the snapshot of machine `Timed` arms timer 1 of state `busy`, which has 1 timer"
    );
    // A state that is not the leaf or above it, or none at all, has no
    // timers to count here.
    assert!(matches!(
        engine.restore(&with_timer("ghost", 0)),
        Err(RestoreError::UnknownTimer { timers: None, .. })
    ));
    assert!(matches!(
        engine.restore(&with_timer("step2", 3)),
        Err(RestoreError::UnknownTimer { timers: None, .. })
    ));
    // An ancestor's timer is fine, beside the leaf's own, which is armed
    // whenever the leaf is active: a snapshot without it lost it.
    assert!(matches!(
        engine.restore(&with_timer("busy", 0)),
        Err(RestoreError::MissingTimer { .. })
    ));
    let both = engine.snapshot().with_timers([
        ArmedTimer::new("step1".to_owned(), 0, at(secs(2))),
        ArmedTimer::new("busy".to_owned(), 0, at(secs(1))),
    ]);
    engine.restore(&both).unwrap();
    assert_eq!(
        armed(&engine.snapshot()),
        [("step1".into(), 0, at(secs(2))), ("busy".into(), 0, at(secs(1)))]
    );
    engine.restore(&before).unwrap();

    // A composite is never the current state.
    let snapshot = edited(&engine, |v| {
        v["current_state"] = json!("busy");
        v["timers"] = json!([]);
    });
    match engine.restore(&snapshot).unwrap_err() {
        RestoreError::UnknownState { state, known, .. } => {
            assert_eq!(state, "busy");
            assert_eq!(known, ["idle", "step1", "step2"]);
        }
        other => panic!("{other}"),
    }
    assert_eq!(engine.snapshot(), before);
}

// The allocation counter of fsm-runtime's tests, one file for both crates.
#[path = "../../fsm-runtime/tests/support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations;

#[test]
fn nested_fire_does_not_allocate() {
    let clock = ManualClock::new(start());
    // History from outside and inside, inherited transitions, composite
    // timers re-armed and kept.
    let text = r#"machine N {
        initial state idle { on go -> busy; on back -> busy.deep_history; }
        state busy {
            after 10s -> idle;
            on stop -> idle;
            on again -> busy.history;
            initial state s1 { after 1s -> s2; on next -> s2; }
            state s2 { on next -> s1; }
        }
    }"#;
    let engine = timed(text, &clock);
    let id = |name: &str| engine.definition().action_id(name).unwrap();
    let (go, back, stop, again, next) = (id("go"), id("back"), id("stop"), id("again"), id("next"));
    let payload = Value::Null;
    let count = allocations(|| {
        for _ in 0..100 {
            engine.fire_id(go, &payload).unwrap();
            engine.fire_id(next, &payload).unwrap();
            engine.fire_id(again, &payload).unwrap();
            engine.fire("stop", &payload).unwrap();
            engine.fire_id(back, &payload).unwrap();
            engine.fire_id(stop, &payload).unwrap();
            assert!(engine.fire_id(next, &payload).is_err());
        }
    });
    assert_eq!(count, 0);
    assert_eq!(engine.state_name(), "idle");
}
