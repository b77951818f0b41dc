//! The dynamic engine: binding guards, firing by name and by id, the errors,
//! the selection order, and guards that misbehave.

use fsm_dynamic::{BindProblem, Definition, Engine, FireError, TransitionDef};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn gated() -> Definition {
    Definition::from_fsm(
        "machine Gate {
            initial state closed {
                on open [authorized && !alarm] -> opened;
                on open [override] -> opened emit log_override;
            }
            state opened {
                on close -> closed;
            }
        }",
    )
    .unwrap()
}

#[test]
fn every_guard_must_be_bound_exactly_once() {
    let error = Engine::new(gated()).unwrap_err();
    assert_eq!(error.machine(), "Gate");
    assert_eq!(error.unbound(), ["authorized", "alarm", "override"]);
    assert_eq!(
        error.to_string(),
        "cannot build the engine of machine `Gate`: guards `authorized`, `alarm`, `override` are not bound; \
         bind each with `.guard(name, |input| ...)`"
    );

    let error = Engine::builder(gated())
        .guard("authorized", |_| true)
        .guard("alarm", |_| false)
        .guard("autorized", |_| true)
        .guard("alarm", |_| true)
        .guard("door", |_| true)
        .build()
        .unwrap_err();
    assert_eq!(
        error.problems(),
        [
            BindProblem::Unknown {
                guard: "autorized".into(),
                suggestion: Some("authorized".into()),
                known: vec!["authorized".into(), "alarm".into(), "override".into()],
            },
            BindProblem::BoundTwice {
                guard: "alarm".into()
            },
            BindProblem::Unknown {
                guard: "door".into(),
                suggestion: None,
                known: vec!["authorized".into(), "alarm".into(), "override".into()],
            },
            BindProblem::Unbound {
                guards: vec!["override".into()]
            },
        ]
    );
    assert_eq!(
        error.to_string(),
        "cannot build the engine of machine `Gate`: `autorized` is not a guard of the machine (did you mean \
         `authorized`?); guard `alarm` is bound twice; `door` is not a guard of the machine; its guards are \
         `authorized`, `alarm`, `override`; guard `override` is not bound; bind each with `.guard(name, |input| ...)`"
    );

    let no_guards = Definition::from_fsm("machine M { initial state a { on go -> a; } }").unwrap();
    let error = Engine::builder(no_guards)
        .guard("g", |_| true)
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot build the engine of machine `M`: `g` is not a guard of the machine, which has no guards"
    );
}

#[test]
fn an_unknown_action_is_refused_with_a_suggestion() {
    let engine = Engine::builder(gated())
        .guard("authorized", |_| true)
        .guard("alarm", |_| false)
        .guard("override", |_| false)
        .build()
        .unwrap();
    let error = engine.fire("opne", &Value::Null).unwrap_err();
    let FireError::UnknownAction(unknown) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(unknown.action(), "opne");
    assert_eq!(unknown.suggestion(), Some("open"));
    assert_eq!(unknown.known().collect::<Vec<_>>(), ["open", "close"]);
    assert_eq!(error.state(), None);
    assert_eq!(
        error.to_string(),
        "unknown action `opne` in machine `Gate`; expected one of `open`, `close` (did you mean `open`?)"
    );
    assert_eq!(
        engine.fire("launch", &Value::Null).unwrap_err().to_string(),
        "unknown action `launch` in machine `Gate`; expected one of `open`, `close`"
    );
    assert!(!engine.can_fire("opne", &Value::Null));
    assert_eq!(engine.state_name(), "closed");
    assert_eq!(engine.fired_count(), 0);
}

#[test]
fn errors_travel_through_question_marks() {
    fn assert_error<E: std::error::Error + Send + Sync + 'static>(_: &E) {}
    fn fire_twice(engine: &Engine) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        engine.fire("go", &Value::Null)?;
        engine.fire("go", &Value::Null)?;
        Ok(())
    }
    let definition = Definition::builder("M")
        .initial("a")
        .terminal("b")
        .transition("a", "go", "b")
        .build()
        .unwrap();
    let engine = Engine::new(definition).unwrap();
    let error = fire_twice(&engine).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `go` is not valid in state `b`: the state is terminal"
    );
    assert_error(&engine.fire("go", &Value::Null).unwrap_err());
    assert_error(&Engine::new(gated()).unwrap_err());
    assert_error(&Definition::from_fsm("").unwrap_err());
}

#[test]
fn guards_are_asked_lazily_each_at_most_once() {
    let asked: Arc<[AtomicUsize; 3]> = Arc::default();
    let count = |i: usize, value: bool| {
        let asked = Arc::clone(&asked);
        move |_: &Value| {
            asked[i].fetch_add(1, Ordering::Relaxed);
            value
        }
    };
    let engine = Engine::builder(gated())
        .guard("authorized", count(0, false))
        .guard("alarm", count(1, false))
        .guard("override", count(2, false))
        .build()
        .unwrap();
    let error = engine.fire("open", &Value::Null).unwrap_err();
    // `authorized` is false, so `alarm` is never asked.
    let asked_now: Vec<usize> = asked.iter().map(|a| a.load(Ordering::Relaxed)).collect();
    assert_eq!(asked_now, [1, 0, 1]);
    assert_eq!(
        error.to_string(),
        "action `open` rejected in state `closed`: guard `authorized && !alarm` was false (-> opened), guard \
         `override` was false (-> opened)"
    );
    let FireError::GuardRejected(rejected) = &error else {
        panic!("{error:?}")
    };
    let guards: Vec<&str> = rejected.candidates().map(|c| c.guard()).collect();
    assert_eq!(guards, ["authorized && !alarm", "override"]);

    // A guard repeated across candidates is asked once.
    let repeated = Definition::from_fsm(
        "machine R { initial state a { on go [x && y] priority 2 -> b; on go [!x] priority 1 -> c; on go [x] -> d; } \
         state b; state c; state d; }",
    )
    .unwrap();
    let x = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&x);
    let engine = Engine::builder(repeated)
        .guard("x", move |_| {
            counted.fetch_add(1, Ordering::Relaxed);
            true
        })
        .guard("y", |_| false)
        .build()
        .unwrap();
    assert_eq!(engine.fire("go", &Value::Null).unwrap().to_name(), "d");
    assert_eq!(x.load(Ordering::Relaxed), 1);
}

#[test]
fn priorities_then_declaration_then_any() {
    let definition = Definition::builder("P")
        .initial("a")
        .state("low")
        .state("own")
        .state("high")
        .state("from_any")
        .terminal("end")
        .add_transition(TransitionDef::on("a", "go").to("high").guard("h").priority(3))
        .add_transition(TransitionDef::on("a", "go").to("own").guard("g"))
        .add_transition(TransitionDef::on("a", "go").to("low").guard("l").priority(-1))
        .add_transition(TransitionDef::on_any("go").to("from_any").guard("k"))
        .any_transition("stop", "end")
        .transition("low", "back", "a")
        .transition("own", "back", "a")
        .transition("high", "back", "a")
        .transition("from_any", "back", "a")
        .build()
        .unwrap();
    let mut engine = Engine::builder(definition);
    for guard in ["h", "g", "l", "k"] {
        engine = engine.guard(guard, move |input| input[guard] == true);
    }
    let engine = engine.build().unwrap();
    let go = |input: Value| match engine.fire("go", &input) {
        Ok(fired) => {
            let to = fired.to_name();
            engine.fire("back", &Value::Null).unwrap();
            to.to_owned()
        }
        Err(error) => error.to_string(),
    };
    assert_eq!(go(json!({"g": true, "h": true, "k": true, "l": true})), "high");
    // At equal priority the state's own transition comes before `any`.
    assert_eq!(go(json!({"g": true, "k": true, "l": true})), "own");
    assert_eq!(go(json!({"k": true, "l": true})), "from_any");
    assert_eq!(go(json!({"l": true})), "low");
    assert_eq!(
        go(json!({})),
        "action `go` rejected in state `a`: guard `h` was false (-> high), guard `g` was false (-> own), guard `k` \
         was false (-> from_any), guard `l` was false (-> low)"
    );

    // In every other non-terminal state the `any` transition applies.
    engine.fire("go", &json!({"g": true})).unwrap();
    assert_eq!(
        engine.fire("go", &json!({"k": true})).unwrap().to_string(),
        "`own` --go--> `from_any`"
    );
    engine.fire("stop", &Value::Null).unwrap();
    // ... but not in terminal ones.
    assert_eq!(
        engine.fire("go", &json!({"k": true})).unwrap_err().to_string(),
        "action `go` is not valid in state `end`: the state is terminal"
    );
}

#[test]
fn firing_by_id_and_the_fired_record() {
    let definition = Definition::from_fsm(
        "machine Door {
            initial state closed { exit emit creak; on open -> opened emit swing; on knock emit echo; }
            state opened { enter emit draft; on close -> closed; }
        }",
    )
    .unwrap();
    let open = definition.action_id("open").unwrap();
    let knock = definition.action_id("knock").unwrap();
    let engine = Engine::new(definition).unwrap();

    let fired = engine.fire_id(knock, &Value::Null).unwrap();
    assert_eq!(fired.seq, 0);
    assert_eq!(fired.from, fired.definition().state_id("closed").unwrap());
    assert_eq!(fired.to, fired.from, "an internal transition stays");
    assert!(fired.internal);
    assert_eq!(fired.to_string(), "`closed` --knock--> `closed` (emit `echo`)");

    assert!(engine.can_fire_id(open, &Value::Null));
    let fired = engine.fire_id(open, &Value::Null).unwrap();
    assert_eq!(fired.seq, 1);
    assert_eq!(fired.action, open);
    assert_eq!(
        fired.output_names().collect::<Vec<_>>(),
        ["creak", "swing", "draft"]
    );
    let definition = fired.definition();
    assert_eq!(fired.outputs[1], definition.output_id("swing").unwrap());
    assert_eq!(
        format!("{fired:?}"),
        r#"Fired { seq: 1, from: "closed", to: "opened", action: "open", outputs: ["creak", "swing", "draft"], internal: false }"#
    );
    assert!(!engine.can_fire_id(open, &Value::Null));
    assert_eq!(
        &*engine.valid_actions(),
        [engine.definition().action_id("close").unwrap()]
    );
    assert_eq!(engine.fired_count(), 2);
    assert_eq!(
        format!("{engine:?}"),
        r#"Engine { machine: "Door", state: "opened", fired_count: 2, .. }"#
    );
}

#[test]
#[should_panic(expected = "is not an action of machine `M`, which has 1")]
fn an_id_of_another_definition_is_a_bug() {
    let big = Definition::from_fsm("machine B { initial state a { on x -> a; on y -> a; } }").unwrap();
    let engine =
        Engine::new(Definition::from_fsm("machine M { initial state a { on go -> a; } }").unwrap()).unwrap();
    let _ = engine.fire_id(big.action_id("y").unwrap(), &Value::Null);
}

#[test]
fn a_panicking_guard_leaves_the_engine_unchanged_and_usable() {
    let engine = Engine::builder(gated())
        .guard("authorized", |input| input.as_bool().expect("a boolean input"))
        .guard("alarm", |_| false)
        .guard("override", |_| false)
        .build()
        .unwrap();
    let engine = Arc::new(engine);
    let panicking = Arc::clone(&engine);
    let result = std::thread::spawn(move || {
        let _ = panicking.fire("open", &json!("not a boolean"));
    })
    .join();
    assert!(result.is_err());
    assert_eq!(engine.state_name(), "closed");
    assert_eq!(engine.fire("open", &json!(true)).unwrap().to_name(), "opened");
}

#[test]
fn a_recording_engine_keeps_its_history_in_its_snapshots() {
    use fsm_runtime::History;
    use std::time::{Duration, SystemTime};

    let definition = Arc::new(
        Definition::from_fsm(
            "machine Execution {
                initial state idle { on start -> executing; }
                state executing { on progress; on success -> completed; }
                terminal state completed;
            }",
        )
        .unwrap(),
    );
    let at = fsm_runtime::Timestamp::from(SystemTime::UNIX_EPOCH + Duration::from_secs(1_768_037_535));
    let recording = || {
        Engine::builder(Arc::clone(&definition))
            .history(History::new().with_clock(move || at))
            .build()
            .unwrap()
    };
    let engine = recording();
    assert!(engine.fire("progress", &Value::Null).is_err());
    for action in ["start", "progress", "success"] {
        engine.fire(action, &Value::Null).unwrap();
    }
    let entries = |engine: &Engine| {
        engine
            .with_history(|history| history.iter().map(ToString::to_string).collect::<Vec<_>>())
            .unwrap()
    };
    assert_eq!(
        entries(&engine),
        [
            "#0 2026-01-10T09:32:15.000Z `idle` --start--> `executing`",
            "#1 2026-01-10T09:32:15.000Z `executing` --progress--> `executing`",
            "#2 2026-01-10T09:32:15.000Z `executing` --success--> `completed`",
        ]
    );
    let snapshot = engine.snapshot();
    assert_eq!(snapshot.current_state(), "completed");
    assert_eq!(snapshot.history().len(), 3);

    // A recording engine restored from it resumes the history.
    let resumed = recording();
    resumed.restore(&snapshot).unwrap();
    assert_eq!(entries(&resumed), entries(&engine));
    assert_eq!(resumed.snapshot(), snapshot);

    // One without a history neither records nor carries one.
    let plain = Engine::new(Arc::clone(&definition)).unwrap();
    plain.fire("start", &Value::Null).unwrap();
    assert_eq!(plain.with_history(|history| history.len()), None);
    assert!(plain.snapshot().history().is_empty());
}

#[test]
fn a_recording_engine_fired_from_many_threads_records_one_chain() {
    use fsm_runtime::History;

    let definition = Definition::from_fsm(
        "machine Ring {
            initial state a { on step -> b; }
            state b { on step -> c; }
            state c { on step -> a; }
        }",
    )
    .unwrap();
    let engine = Arc::new(
        Engine::builder(definition)
            .history(History::new())
            .build()
            .unwrap(),
    );
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let engine = Arc::clone(&engine);
            std::thread::spawn(move || {
                for _ in 0..2_000 {
                    engine.fire("step", &Value::Null).unwrap();
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    // `with_history` holds the lock: ask for the state first.
    let state = engine.state_name();
    engine
        .with_history(|history| {
            assert_eq!(history.len(), 8_000);
            let entries: Vec<_> = history.iter().collect();
            assert_eq!(entries[0].from(), "a");
            for (i, pair) in entries.windows(2).enumerate() {
                assert_eq!(pair[0].seq() + 1, pair[1].seq(), "entry {i}");
                assert_eq!(pair[0].to(), pair[1].from(), "entry {i}");
            }
            assert_eq!(entries.last().unwrap().to(), state);
        })
        .unwrap();
}
