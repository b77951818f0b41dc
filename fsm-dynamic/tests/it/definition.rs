//! Definitions for the dynamic engine: built from `.fsm` text, JSON and the
//! builder, they are the same machine; every way reports problems with the
//! diagnostics of `fsmc check`.

use fsm_dynamic::{BuilderProblem, Definition, DefinitionError, Engine, TransitionDef};
use serde_json::json;

const REVIEW_FSM: &str = "machine Review {
    initial state idle {
        on start -> running emit started;
    }
    state running {
        enter emit start_clock;
        exit emit stop_clock;
        on finish -> done;
        on review [quality_guard] priority 1 -> done emit approved;
        on review -> revising;
        on note emit noted;
    }
    state revising {
        on restart -> running;
    }
    terminal state done;
    any {
        on cancel [!locked] priority -1 -> done emit cancelled;
    }
}
";

/// The same machine, written by hand in the JSON format.
const REVIEW_JSON: &str = r#"{
  "fsm_id": "Review",
  "version": "1.0",
  "initial_state": "idle",
  "terminal_states": ["done"],
  "states": {
    "idle": {"on": {"start": {"to": "running", "emit": ["started"]}}},
    "running": {
      "enter": ["start_clock"],
      "exit": ["stop_clock"],
      "on": {
        "finish": {"to": "done"},
        "review": [
          {"guard": "quality_guard", "priority": 1, "to": "done", "emit": ["approved"]},
          {"to": "revising"}
        ],
        "note": {"emit": ["noted"]}
      }
    },
    "revising": {"on": {"restart": {"to": "running"}}},
    "done": {}
  },
  "any": {"cancel": {"guard": "!locked", "priority": -1, "to": "done", "emit": ["cancelled"]}}
}"#;

fn review_builder() -> fsm_dynamic::DefinitionBuilder {
    Definition::builder("Review")
        .initial("idle")
        .state("running")
        .state("revising")
        .terminal("done")
        .enter_emit("running", "start_clock")
        .exit_emit("running", "stop_clock")
        .add_transition(TransitionDef::on("idle", "start").to("running").emit("started"))
        .transition("running", "finish", "done")
        .add_transition(
            TransitionDef::on("running", "review")
                .guard("quality_guard")
                .priority(1)
                .to("done")
                .emit("approved"),
        )
        .transition("running", "review", "revising")
        .add_transition(TransitionDef::on("running", "note").emit("noted"))
        .transition("revising", "restart", "running")
        .add_transition(
            TransitionDef::on_any("cancel")
                .guard("!locked")
                .priority(-1)
                .to("done")
                .emit("cancelled"),
        )
}

/// The outcome of firing `actions` in turn, each as `from -> to [outputs]`
/// or the error message.
fn run(definition: Definition, actions: &[(&str, serde_json::Value)]) -> Vec<String> {
    let engine = Engine::builder(definition)
        .guard("quality_guard", |input| {
            input["score"].as_u64().is_some_and(|s| s >= 8)
        })
        .guard("locked", |input| input["locked"] == true)
        .build()
        .unwrap();
    actions
        .iter()
        .map(|(action, input)| match engine.fire(action, input) {
            Ok(fired) => fired.to_string(),
            Err(error) => error.to_string(),
        })
        .collect()
}

#[test]
fn the_three_ways_give_the_same_definition() {
    let from_fsm = Definition::from_fsm(REVIEW_FSM).unwrap();
    let from_json = Definition::from_json(REVIEW_JSON).unwrap();
    let built = review_builder().build().unwrap();
    let model = fsm_grammar::check(REVIEW_FSM).into_model().unwrap();
    let from_machine = Definition::from_machine(&model.machines[0]);

    assert_eq!(built.to_json(), from_fsm.to_json());
    for other in [&from_json, &built, &from_machine] {
        assert_eq!(other.name(), "Review");
        assert_eq!(other.fingerprint(), from_fsm.fingerprint());
        assert_eq!(other.machine().canonical(), from_fsm.machine().canonical());
        assert_eq!(other.to_json(), from_fsm.to_json());
    }
    assert_eq!(review_builder().to_fsm().unwrap(), REVIEW_FSM);

    let script = [
        ("start", json!({})),
        ("note", json!({})),
        ("review", json!({"score": 3})),
        ("review", json!({})),
        ("cancel", json!({"locked": true})),
        ("restart", json!({})),
        ("review", json!({"score": 9})),
        ("cancel", json!({})),
    ];
    let expected = [
        "`idle` --start--> `running` (emit `started`, `start_clock`)",
        "`running` --note--> `running` (emit `noted`)",
        "`running` --review--> `revising` (emit `stop_clock`)",
        "action `review` is not valid in state `revising`; valid actions: `restart`, `cancel`",
        "action `cancel` rejected in state `revising`: guard `!locked` was false (-> done)",
        "`revising` --restart--> `running` (emit `start_clock`)",
        "`running` --review--> `done` (emit `stop_clock`, `approved`)",
        "action `cancel` is not valid in state `done`: the state is terminal",
    ];
    for definition in [from_fsm, from_json, built, from_machine] {
        assert_eq!(run(definition, &script), expected);
    }
}

#[test]
fn check_errors_list_every_diagnostic_with_its_line() {
    let text =
        "machine M {\n    initial state a {\n        on go -> c;\n    }\n    state b;\n    state b;\n}\n";
    let error = Definition::from_fsm(text).unwrap_err();
    assert_eq!(error.diagnostics().len(), 2);
    assert_eq!(
        error.to_string(),
        "the definition has 2 errors:
error[fsm::unknown-state]: transition on `go` targets unknown state `c`
  --> 3:18: on go -> c;
  help: define it with `state c;` or target an existing state
error[fsm::duplicate-state]: state `b` is defined more than once in machine `M`
  --> 6:11: state b;
  help: rename one of the states, or merge their transitions into one"
    );
    let DefinitionError::Check { text: checked, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(checked, text);
}

#[test]
fn the_builder_is_checked_by_the_same_checks() {
    let error = Definition::builder("Review")
        .initial("idle")
        .state("running")
        .transition("idle", "start", "runing")
        .transition("running", "stop", "idle")
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the definition has 1 error:
error[fsm::unknown-state]: transition on `start` targets unknown state `runing`
  --> 3:21: on start -> runing;
  help: did you mean `running`?"
    );

    let error = Definition::builder("M").state("a").build().unwrap_err();
    assert_eq!(error.diagnostics()[0].code, fsm_grammar::Code::MissingInitial);

    let error = Definition::builder("M")
        .initial("a")
        .add_transition(TransitionDef::on("a", "go").to("a").guard("x &&"))
        .build()
        .unwrap_err();
    assert_eq!(error.diagnostics()[0].code, fsm_grammar::Code::Syntax);
}

#[test]
fn the_builder_refuses_what_cannot_be_written() {
    let error = Definition::builder("M")
        .initial("a")
        .transition("b", "go", "a")
        .build()
        .unwrap_err();
    let DefinitionError::Builder { machine, problems } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(machine, "M");
    assert!(matches!(&problems[..], [BuilderProblem::UndeclaredState { state, .. }] if state == "b"));
    assert_eq!(
        error.to_string(),
        "the builder's definition of machine `M` has 1 problem:
- the transition on `go` leaves state `b`, which is not declared; declare it with `.state(\"b\")`"
    );
}

#[test]
fn warnings_are_kept() {
    let definition = Definition::builder("M")
        .initial("a")
        .state("spare")
        .terminal("b")
        .transition("a", "go", "b")
        .build()
        .unwrap();
    let codes: Vec<_> = definition.warnings().iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [fsm_grammar::Code::UnreachableState, fsm_grammar::Code::DeadEnd]
    );
}

#[test]
fn one_machine_of_several() {
    let text = "machine A { initial state a; }\nmachine B { initial state b { on go -> c; } state c; }\n";
    assert_eq!(
        Definition::from_fsm(text).unwrap_err().to_string(),
        "the text defines 2 machines (`A`, `B`); name the one to load"
    );
    let b = Definition::from_fsm_named(text, "B").unwrap();
    assert_eq!(b.name(), "B");
    assert_eq!(
        b.states().map(|s| b.state_name(s)).collect::<Vec<_>>(),
        ["b", "c"]
    );
    // The warnings are those of machine B only.
    assert!(
        b.warnings().iter().all(|d| d.message.contains('c')),
        "{:?}",
        b.warnings()
    );
    assert_eq!(
        Definition::from_fsm_named(text, "b").unwrap_err().to_string(),
        "the text defines no machine `b`; its machines are `A`, `B` (did you mean `B`?)"
    );
    assert_eq!(
        Definition::from_fsm("// nothing here\n").unwrap_err().to_string(),
        "the text defines no machine"
    );
}

#[test]
fn json_problems_are_located_by_path() {
    let error =
        Definition::from_json(&REVIEW_JSON.replace(r#""to": "revising""#, r#""to": "revisng""#)).unwrap_err();
    assert!(matches!(error, DefinitionError::Json { .. }));
    // The message is the importer's; the error lists it with its path and help.
    let text = error.to_string();
    assert!(
        text.starts_with("the JSON definition has 1 error:\nerror: $.states.running.on.review[1].to: "),
        "{text}"
    );
    assert!(
        text.ends_with("`revisng`\n  help: did you mean `revising`?"),
        "{text}"
    );
    let error = Definition::from_json("{").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the JSON definition has 1 error:\nerror: $: invalid JSON"),
        "{error}"
    );
}

#[test]
fn an_execution_fsm_v1_document_loads_and_runs() {
    let document = include_str!("../../../tests/fixtures/json/execution_fsm_v1.json");
    let definition = Definition::from_json(document).unwrap();
    assert_eq!(definition.name(), "execution_fsm_v1");
    assert!(definition.warnings().is_empty(), "{:?}", definition.warnings());
    let renamed: Vec<String> = definition
        .import_warnings()
        .iter()
        .map(|d| d.to_string())
        .collect();
    assert_eq!(
        renamed[0],
        "$.states.idle.on.start.emit[0]: output `fsm.transition` is not a valid .fsm name; it is imported as \
         `fsm_transition`"
    );

    let engine = Engine::new(definition).unwrap();
    let fired = engine.fire("start", &json!(null)).unwrap();
    assert_eq!(
        (fired.to_name(), fired.output_names().collect::<Vec<_>>()),
        ("executing", vec!["fsm_transition"])
    );
    engine.fire("error", &json!(null)).unwrap();
    assert_eq!(engine.state_name(), "failed");
    assert!(engine.is_terminal());
}

/// Machines with a context, payloads, effects, delays and timers load, from
/// text and from a checked model: the engine runs every construct of the
/// language.
#[test]
fn every_construct_loads() {
    let text = "machine M { context C; action go(P); effect note(P); delay wait; \
                initial state s { on go -> t do note; } state t { after wait -> s; after 30s -> s; } }";
    let definition = Definition::from_fsm(text).unwrap();
    assert!(definition.has_context());
    assert_eq!(definition.effect_names().collect::<Vec<_>>(), ["note"]);
    assert_eq!(definition.delay_names().collect::<Vec<_>>(), ["wait"]);
    let checked = fsm_grammar::check(text);
    let from_model = Definition::from_machine(&checked.model.machines[0]);
    assert_eq!(from_model.fingerprint(), definition.fingerprint());
}

/// Nested machines load from text, from JSON and from a checked model,
/// with the same fingerprint, and start in the initial leaf.
#[test]
fn nested_states_load_from_every_source() {
    let text = "machine M { initial state up { on quit -> down; initial state a { on x -> b; } state b { on y -> a; } } state down { on back -> up.history; } }";
    let from_text = Definition::from_fsm(text).unwrap();
    let checked = fsm_grammar::check(text);
    let json = fsm_grammar::interchange::to_json(&checked.model.machines[0]);
    let from_json = Definition::from_json(&json).unwrap();
    let from_model = Definition::from_machine(&checked.model.machines[0]);
    for definition in [&from_text, &from_json, &from_model] {
        assert_eq!(definition.fingerprint(), from_text.fingerprint());
        assert_eq!(definition.state_name(definition.initial()), "a");
        let up = definition.state_id("up").unwrap();
        assert!(definition.is_composite(up));
        assert!(definition.valid_actions(up).is_empty());
        let a = definition.state_id("a").unwrap();
        assert_eq!(definition.ancestors(a), [up]);
        // `a` inherits `quit` from `up`.
        let names: Vec<&str> = definition
            .valid_actions(a)
            .iter()
            .map(|&x| definition.action_name(x))
            .collect();
        assert_eq!(names, ["quit", "x"]);
    }
}
