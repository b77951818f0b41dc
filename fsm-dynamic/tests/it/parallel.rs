//! The dynamic engine on machines with parallel states, `final` states,
//! `done` and `always` transitions and `in(...)` guards: the cases of
//! docs/dsl.md, "Parallel states". The three classes of bugs XState's
//! tracker shows for them are pinned in both engines by
//! `tests/differential/cases.rs`.

use fsm_dynamic::{Definition, Engine, FireError, TakenKind};
use fsm_runtime::{Clock, ManualClock};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

/// The research pipeline as docs/dsl.md writes it (the same file the
/// model's and the JSON format's tests read).
const RESEARCH: &str = include_str!("../../../grammar/tests/parallel/research.fsm");

fn engine(text: &str) -> Engine {
    Engine::new(Definition::from_fsm(text).expect("the machine checks")).expect("nothing to bind")
}

fn leaves(engine: &Engine) -> Vec<&str> {
    engine.configuration_names()
}

/// Fire `action`; the outputs' names.
fn fire(engine: &Engine, action: &str) -> Vec<String> {
    let fired = engine
        .fire(action, &Value::Null)
        .unwrap_or_else(|e| panic!("{action}: {e}"));
    fired.output_names().map(str::to_owned).collect()
}

/// `text` with every state emitting `in_X` when entered and `out_X` when
/// left (after what it already emits), so that the outputs of a `fire`
/// show every state it exits and enters, in order.
fn traced(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("state ") {
        let starts_word = at == 0 || rest[..at].ends_with(char::is_whitespace);
        out.push_str(&rest[..at + 6]);
        rest = &rest[at + 6..];
        if !starts_word {
            continue;
        }
        let name_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..name_len];
        out.push_str(name);
        rest = rest[name_len..].trim_start();
        let hooks = format!(" enter emit in_{name}; exit emit out_{name};");
        if let Some(after) = rest.strip_prefix('{') {
            out.push_str(&format!(" {{{hooks}"));
            rest = after;
        } else if let Some(after) = rest.strip_prefix(';') {
            out.push_str(&format!(" {{{hooks} }}"));
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Fire `action`: every state exited (`-X`) and entered (`+X`), in order,
/// as [`traced`] machines emit them.
fn moves(engine: &Engine, action: &str) -> Vec<String> {
    fire(engine, action)
        .into_iter()
        .filter_map(|o| match (o.strip_prefix("in_"), o.strip_prefix("out_")) {
            (Some(state), _) => Some(format!("+{state}")),
            (_, Some(state)) => Some(format!("-{state}")),
            _ => None,
        })
        .collect()
}

#[test]
fn both_researchers_then_synthesis_in_the_same_fire() {
    let engine = engine(RESEARCH);
    assert_eq!(leaves(&engine), ["idle"]);
    fire(&engine, "start");
    assert_eq!(leaves(&engine), ["a_running", "b_running"]);
    assert_eq!(engine.state_name(), "collect");
    assert!(engine.is_in("collect") && engine.is_in("researcher_b") && !engine.is_in("a_done"));
    assert_eq!(fire(&engine, "a_written"), ["mark_a"]);
    let fired = engine.fire("b_written", &Value::Null).unwrap();
    assert_eq!(
        fired.output_names().collect::<Vec<_>>(),
        ["mark_b", "spawn_synthesizer"]
    );
    let definition = engine.definition();
    let names = |ids: &[fsm_dynamic::StateId]| -> Vec<&str> {
        ids.iter().map(|&s| definition.state_name(s)).collect()
    };
    assert_eq!(names(fired.from_leaves()), ["a_done", "b_running"]);
    assert_eq!(names(fired.to_leaves()), ["synthesis"]);
    let taken: Vec<(TakenKind, &str, Option<String>)> = fired
        .taken()
        .iter()
        .map(|t| (t.kind, t.source_name(definition), t.target_text(definition)))
        .collect();
    assert_eq!(
        taken,
        [
            (TakenKind::Action, "b_running", Some("b_done".to_owned())),
            (TakenKind::Done, "collect", Some("synthesis".to_owned())),
        ]
    );
    assert_eq!(leaves(&engine), ["synthesis"]);
}

#[test]
fn a_done_reads_how_the_regions_finished() {
    let engine = engine(RESEARCH);
    fire(&engine, "start");
    fire(&engine, "a_failed");
    fire(&engine, "b_written");
    assert_eq!(leaves(&engine), ["partial_synthesis"]);
}

#[test]
fn the_done_of_a_parallel_state_exits_every_region_in_reverse_document_order() {
    let engine = engine(&traced(RESEARCH));
    fire(&engine, "start");
    fire(&engine, "a_written");
    // The step into `b_done`, then the `done` of `collect` in the same fire,
    // `in(a_done)` read before it: exits in reverse document order.
    assert_eq!(
        moves(&engine, "b_written"),
        [
            "-b_running",
            "+b_done",
            "-b_done",
            "-researcher_b",
            "-a_done",
            "-researcher_a",
            "-collect",
            "+synthesis"
        ]
    );
    assert_eq!(leaves(&engine), ["synthesis"]);
}

#[test]
fn an_action_of_one_region_leaves_the_other_and_errors_name_every_leaf() {
    let engine = engine(RESEARCH);
    fire(&engine, "start");
    fire(&engine, "b_written");
    assert_eq!(leaves(&engine), ["a_running", "b_done"]);
    let error = engine.fire("s_written", &Value::Null).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `s_written` is not valid in states `a_running`, `b_done`; valid actions: `cancel`, `a_written`, `a_failed`"
    );
    let FireError::InvalidTransition(e) = error else {
        panic!()
    };
    assert_eq!(e.leaves().len(), 2);
    assert_eq!(leaves(&engine), ["a_running", "b_done"]);
    assert_eq!(fire(&engine, "cancel"), Vec::<String>::new());
    assert_eq!(leaves(&engine), ["cancelled"]);
    assert!(engine.is_terminal());
}

#[test]
fn regions_take_one_action_together() {
    let definition = Definition::from_fsm(
        "machine M { initial state idle { on go -> p; } parallel state p { on stop -> idle; \
         state a { initial state a1 { on x -> a2 emit ax; } state a2 { enter emit in_a2; } } \
         state b { initial state b1 { on x -> b2 emit bx; } state b2 { on stop [g] priority 1 -> b1; } } } }",
    )
    .unwrap();
    let engine = Engine::builder(definition).guard("g", |_| true).build().unwrap();
    fire(&engine, "go");
    // Exits, then every transition's own outputs in the order chosen, then entries.
    assert_eq!(fire(&engine, "x"), ["ax", "bx", "in_a2"]);
    assert_eq!(leaves(&engine), ["a2", "b2"]);
    // `b2`'s own `stop` (priority 1) preempts `p`'s.
    fire(&engine, "stop");
    assert_eq!(leaves(&engine), ["a2", "b1"]);
    fire(&engine, "stop");
    assert_eq!(leaves(&engine), ["idle"]);
}

#[test]
fn always_runs_in_the_same_fire_and_in_reads_the_configuration_before_it() {
    let text = traced(
        "machine M { initial state idle { on go -> route; } \
         state route { always [in(idle)] -> wrong; always [ready] -> tools; always -> waiting; } \
         state tools; state waiting; state wrong; }",
    );
    for (ready, moved, leaf) in [
        (false, ["-idle", "+route", "-route", "+waiting"], "waiting"),
        (true, ["-idle", "+route", "-route", "+tools"], "tools"),
    ] {
        let engine = Engine::builder(Definition::from_fsm(&text).unwrap())
            .guard("ready", move |_| ready)
            .build()
            .unwrap();
        assert_eq!(moves(&engine, "go"), moved);
        assert_eq!(leaves(&engine), [leaf]);
    }
}

#[test]
fn a_transient_state_decides_in_the_same_fire_with_effects_in_order() {
    let definition = Arc::new(
        Definition::from_fsm(
            "machine Router { context Ctx; initial state idle { on request -> route do count; } \
             state route { always [wants_tools] -> tools emit call_tools; always -> answer emit reply; } \
             state tools { on done -> idle; } state answer { on done -> idle; } }",
        )
        .unwrap(),
    );
    let engine = Engine::with_context(Arc::clone(&definition), json!({"n": 0}))
        .effect("count", |ctx, _| ctx["n"] = json!(ctx["n"].as_i64().unwrap() + 1))
        // Asked after `count` ran: the context it sees is the effect's.
        .context_guard("wants_tools", |ctx, _| ctx["n"].as_i64().unwrap() % 2 == 1)
        .build()
        .unwrap();
    let fired = engine.fire("request", &Value::Null).unwrap();
    assert_eq!(fired.output_names().collect::<Vec<_>>(), ["call_tools"]);
    assert_eq!(definition.state_name(fired.to), "tools");
    fire(&engine, "done");
    assert_eq!(fire(&engine, "request"), ["reply"]);
    assert_eq!(engine.context()["n"], 2);
}

#[test]
fn a_guarded_cycle_stops_at_the_bound_and_says_where() {
    let definition = Arc::new(
        Definition::from_fsm(
            "machine M { initial state idle { on go -> a; } state a { always [g] -> b emit tick; } state b { always [g] -> a; } }",
        )
        .unwrap(),
    );
    let engine = Engine::builder(Arc::clone(&definition))
        .guard("g", |_| true)
        .build()
        .unwrap();
    let error = engine.fire("go", &Value::Null).unwrap_err();
    let FireError::Runaway(runaway) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(runaway.outputs().len(), 500);
    assert_eq!(
        error.to_string(),
        "action `go` did not settle: after 1,000 microsteps the `always` and `done` transitions of the cycle \
         `a`, `b` were still enabled; the machine stopped in `a` after emitting 500 outputs"
    );
    assert_eq!(leaves(&engine), ["a"]);
    assert_eq!(engine.fired_count(), 1);
}

#[test]
fn timers_of_every_region_are_armed_and_fire_in_deadline_order() {
    let clock = ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_000));
    let definition = Arc::new(
        Definition::from_fsm(
            "machine M { initial state idle { on go -> p; } parallel state p { after 1m -> late; \
             state a { initial state a1 { after 20s -> a2 emit a_timeout; } state a2; } \
             state b { initial state b1 { after 10s -> b2 emit b_timeout; } state b2; } } \
             state late; }",
        )
        .unwrap(),
    );
    let engine = Engine::builder(Arc::clone(&definition))
        .clock(clock.clone())
        .build()
        .unwrap();
    fire(&engine, "go");
    let start = clock.now();
    assert_eq!(
        engine.next_deadline(),
        Some(fsm_runtime::__private::deadline(start, Duration::from_secs(10)))
    );
    clock.advance(Duration::from_secs(30));
    let fired: Vec<Vec<String>> = engine
        .fire_due()
        .into_iter()
        .map(|f| f.unwrap().output_names().map(str::to_owned).collect())
        .collect();
    assert_eq!(fired, [["b_timeout"], ["a_timeout"]]);
    assert_eq!(leaves(&engine), ["a2", "b2"]);
    assert_eq!(
        engine.next_deadline(),
        Some(fsm_runtime::__private::deadline(start, Duration::from_secs(60)))
    );
    clock.advance(Duration::from_secs(30));
    assert_eq!(engine.fire_due().len(), 1);
    assert_eq!(leaves(&engine), ["late"]);
}

#[test]
fn a_snapshot_names_every_leaf_and_restores_them_with_timers_and_memory() {
    let text = "machine M { initial state idle { on go -> p.deep_history; } \
         parallel state p { on out -> idle; after 1m -> idle; \
         state a { initial state a1 { on x -> a2; } state a2 { after 30s -> a1; } } \
         state b { initial state b1 { on y -> b2; } state b2; } } }";
    let clock = ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_000));
    let definition = Arc::new(Definition::from_fsm(text).unwrap());
    let build = || {
        Engine::builder(Arc::clone(&definition))
            .clock(clock.clone())
            .build()
            .unwrap()
    };
    let engine = build();
    for action in ["go", "x", "y", "out", "go"] {
        fire(&engine, action);
    }
    let snapshot = engine.snapshot();
    let json = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(json["configuration"], json!(["a2", "b2"]));
    assert_eq!(json.get("current_state"), None);
    assert_eq!(json["last_active"], json!({"p": ["a2", "b2"]}));
    let timers: Vec<(&str, u64)> = json["timers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["state"].as_str().unwrap(), t["timer"].as_u64().unwrap()))
        .collect();
    assert_eq!(timers, [("a2", 0), ("p", 0)]);

    // Back from JSON, in another engine: the same leaves, timers and memory.
    let read: fsm_runtime::Snapshot = serde_json::from_value(json.clone()).unwrap();
    let restored = build();
    restored.restore(&read).unwrap();
    assert_eq!(leaves(&restored), ["a2", "b2"]);
    assert_eq!(restored.snapshot(), snapshot);
    clock.advance(Duration::from_secs(30));
    assert_eq!(restored.fire_due().len(), 1);
    assert_eq!(leaves(&restored), ["a1", "b2"]);
    fire(&restored, "out");
    fire(&restored, "go");
    assert_eq!(leaves(&restored), ["a1", "b2"], "the deep history, updated");

    // What is not a configuration is refused, naming what is wrong.
    let refused = |configuration: Value| {
        let mut json = json.clone();
        json["configuration"] = configuration;
        json.as_object_mut().unwrap().remove("timers");
        let read: fsm_runtime::Snapshot = serde_json::from_value(json).unwrap();
        build().restore(&read).unwrap_err().to_string()
    };
    assert!(
        refused(json!(["a1", "a2", "b1"])).contains("`a1` and `a2`"),
        "{}",
        refused(json!(["a1", "a2", "b1"]))
    );
    assert!(
        refused(json!(["a1"])).contains("`b`"),
        "{}",
        refused(json!(["a1"]))
    );
    assert!(
        refused(json!(["idle", "a1"])).contains("`idle`"),
        "{}",
        refused(json!(["idle", "a1"]))
    );
    let both: Result<fsm_runtime::Snapshot, _> = serde_json::from_value(json!({
        "type": "fsm", "machine": "M", "fingerprint": "0", "current_state": "idle", "configuration": ["idle"]
    }));
    assert!(both.unwrap_err().to_string().contains("not both"));
}

#[test]
fn a_parallel_machine_loaded_from_its_json_runs_the_same() {
    let text_engine = engine(RESEARCH);
    let json = text_engine.definition().to_json();
    let from_json = Engine::new(Definition::from_json(&json).expect("the export imports")).unwrap();
    assert_eq!(
        from_json.definition().fingerprint(),
        text_engine.definition().fingerprint()
    );
    for action in ["start", "a_failed", "b_written", "s_written"] {
        assert_eq!(fire(&from_json, action), fire(&text_engine, action), "{action}");
        assert_eq!(leaves(&from_json), leaves(&text_engine));
    }
    assert_eq!(leaves(&from_json), ["delivered"]);
}

#[test]
fn the_memory_an_always_transition_reads_survives_a_snapshot() {
    let text = "machine M { initial state idle { on go -> route; } \
         state work { on pause -> idle; initial state w1 { on x -> w2; } state w2; } \
         state route { always -> work.history; } }";
    let engine = engine(text);
    for action in ["go", "x", "pause"] {
        fire(&engine, action);
    }
    let restored = self::engine(text);
    restored.restore(&engine.snapshot()).unwrap();
    fire(&restored, "go");
    assert_eq!(
        leaves(&restored),
        ["w2"],
        "back where `work` was left, through `route`"
    );
}

#[test]
fn a_machine_with_parallel_states_too_large_for_the_engine_is_refused_by_name() {
    // Two regions of 32,768 leaves each, with the parallel state, its
    // regions and `idle`: 65,540 states, past the 65,536 the engine's
    // configurations hold.
    let mut text = String::from("machine Huge { initial state idle { on go -> p; } parallel state p {\n");
    for r in 0..2 {
        text.push_str(&format!("state r{r} {{\n"));
        for i in 0..32_768 {
            let initial = if i == 0 { "initial " } else { "" };
            text.push_str(&format!(
                "{initial}state r{r}_{i} {{ on next -> r{r}_{}; }}\n",
                (i + 1) % 32_768
            ));
        }
        text.push_str("}\n");
    }
    text.push_str("} }\n");
    // The checks refuse it, naming the limit.
    let error = Definition::from_fsm(&text).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("machine `Huge` has 65,540 states, more than the 65,536 a machine may have"),
        "{error}"
    );
    // A machine that did not go through them is refused by the engine.
    let checked = fsm_grammar::check(&text);
    let error = Definition::try_from_machine(&checked.model.machines[0]).unwrap_err();
    assert!(matches!(
        error,
        fsm_dynamic::DefinitionError::TooLarge { states: 65_540, .. }
    ));
    assert_eq!(
        error.to_string(),
        "machine `Huge` has 65540 states; the dynamic engine runs machines of at most 65536 states"
    );
}

#[test]
fn the_memory_a_run_writes_reads_back() {
    // What the engine remembers of a parallel state (a leaf in every region,
    // one inside a composite of a region) and of a composite holding a
    // parallel state is a memory a snapshot carries and a restore accepts.
    let text = "machine M {
        initial state x { on go -> p; on in_q -> q; on back_p -> p.deep_history; on back_q -> q.deep_history; }
        parallel state p {
            on out -> x;
            state a {
                initial state a1 { on next -> a2; }
                state a2 { on next -> a_more; }
                state a_more { initial state a3 { on next -> a4; } state a4 { on next -> a1; } }
            }
            state b { initial state b1 { on next -> b2; } state b2 { on next -> b1; } }
        }
        state q {
            on out -> x;
            initial state q1 { on next -> r; }
            parallel state r {
                state c { initial state c1 { on next -> c2; } state c2 { on next -> c1; } }
                state d;
            }
        }
    }";
    let running = engine(text);
    for action in ["go", "next", "next", "next", "out", "in_q", "next", "out"] {
        fire(&running, action);
    }
    assert_eq!(leaves(&running), ["x"]);
    let snapshot = running.snapshot();
    let remembered: Vec<(&str, Vec<&str>)> = snapshot
        .last_leaves()
        .map(|(state, leaves)| (state, leaves.iter().map(|l| &**l).collect()))
        .collect();
    assert_eq!(remembered, [("p", vec!["a4", "b2"]), ("q", vec!["c1", "d"])]);
    for (back, expected) in [("back_p", ["a4", "b2"]), ("back_q", ["c1", "d"])] {
        let restored = engine(text);
        restored.restore(&snapshot).expect("the memory restores");
        fire(&restored, back);
        assert_eq!(leaves(&restored), expected);
    }
}
