//! The dynamic engine against generated code for the same source: in every
//! state, for every action and every combination of guard values, both
//! choose the same transition with the same outputs, or fail with the same
//! message, after asking the same guards in the same order.

use fsm_dynamic::{Definition, Engine, FireError};
use fsm_runtime::Machine;
use serde_json::json;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// Guards, priorities, `any` (guarded, unguarded and internal), internal
/// transitions, self-transitions with hooks, and a terminal state with an
/// enter hook.
const AGENT: &str = "machine Agent {
    initial state waiting {
        on user_input -> calling emit send_llm_request;
    }
    state calling {
        enter emit start_timer;
        exit emit stop_timer;
        on text_delta emit display_text;
        on tool_call_delta;
        on llm_error [retries_left && !fatal] priority 1 -> error;
        on llm_error [fatal || !retries_left] -> waiting emit display_error;
        on done [has_tool_calls] priority 2 -> tools;
        on done [!has_tool_calls && (retries_left || fatal)] -> waiting;
        on restart -> calling emit restarted;
    }
    state tools {
        on tool_done [tools_pending] -> tools emit run_tool;
        on tool_done [!tools_pending] -> calling;
    }
    state error {
        on retry -> calling;
    }
    terminal state shut_down {
        enter emit bye;
    }
    any {
        on shutdown -> shut_down;
        on user_input [fatal] priority 5 -> error emit display_error;
        on ping emit pong;
    }
}
";

fsm_runtime::fsm! {
    machine Agent {
        initial state waiting {
            on user_input -> calling emit send_llm_request;
        }
        state calling {
            enter emit start_timer;
            exit emit stop_timer;
            on text_delta emit display_text;
            on tool_call_delta;
            on llm_error [retries_left && !fatal] priority 1 -> error;
            on llm_error [fatal || !retries_left] -> waiting emit display_error;
            on done [has_tool_calls] priority 2 -> tools;
            on done [!has_tool_calls && (retries_left || fatal)] -> waiting;
            on restart -> calling emit restarted;
        }
        state tools {
            on tool_done [tools_pending] -> tools emit run_tool;
            on tool_done [!tools_pending] -> calling;
        }
        state error {
            on retry -> calling;
        }
        terminal state shut_down {
            enter emit bye;
        }
        any {
            on shutdown -> shut_down;
            on user_input [fatal] priority 5 -> error emit display_error;
            on ping emit pong;
        }
    }
}

/// The generated machine's guards: bit `i` of `mask` is the value of the
/// `i`-th guard of [`GUARDS`]. Every call is recorded.
const GUARDS: [&str; 4] = ["retries_left", "fatal", "has_tool_calls", "tools_pending"];

struct Bits {
    mask: u64,
    calls: RefCell<Vec<&'static str>>,
}

impl Bits {
    fn ask(&self, index: usize) -> bool {
        self.calls.borrow_mut().push(GUARDS[index]);
        self.mask & (1 << index) != 0
    }
}

impl agent::Guards for Bits {
    fn retries_left(&self) -> bool {
        self.ask(0)
    }
    fn fatal(&self) -> bool {
        self.ask(1)
    }
    fn has_tool_calls(&self) -> bool {
        self.ask(2)
    }
    fn tools_pending(&self) -> bool {
        self.ask(3)
    }
}

/// An engine whose guard `i` is bit `i` of the input, recording every call.
fn engine(calls: &Arc<Mutex<Vec<&'static str>>>) -> Engine {
    let definition = Definition::from_fsm(AGENT).unwrap();
    let mut builder = Engine::builder(definition);
    for (index, name) in GUARDS.into_iter().enumerate() {
        let calls = Arc::clone(calls);
        builder = builder.guard(name, move |input| {
            calls.lock().unwrap().push(name);
            input.as_u64().unwrap() & (1 << index) != 0
        });
    }
    builder.build().unwrap()
}

#[test]
fn the_source_is_the_same() {
    let definition = Definition::from_fsm(AGENT).unwrap();
    assert_eq!(definition.fingerprint(), agent::Agent::FINGERPRINT);
    assert_eq!(definition.name(), agent::Agent::NAME);
    assert_eq!(definition.guard_names().collect::<Vec<_>>(), GUARDS);
}

#[test]
fn every_state_action_and_guard_combination_agrees_with_generated_code() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let engine = engine(&calls);
    let definition = engine.definition().clone();
    let mut compared = [0usize; 3];
    for &state in agent::State::ALL {
        let dyn_state = definition.state_id(state.name()).unwrap();
        let valid: Vec<&str> = definition
            .valid_actions(dyn_state)
            .iter()
            .map(|&a| definition.action_name(a))
            .collect();
        let expected: Vec<&str> = agent::Agent::valid_actions_in(state)
            .iter()
            .map(|a| a.name())
            .collect();
        assert_eq!(valid, expected, "valid actions in {state}");
        assert_eq!(
            definition.is_terminal(dyn_state),
            agent::Agent::is_terminal_state(state)
        );

        for &action in agent::Action::ALL {
            for mask in 0..(1 << GUARDS.len()) {
                let bits = Bits {
                    mask,
                    calls: RefCell::new(Vec::new()),
                };
                let generated = agent::Agent::transition(state, action, &bits);

                engine
                    .restore(&agent::Agent::from_state(state).snapshot())
                    .unwrap();
                calls.lock().unwrap().clear();
                let dynamic = engine.fire(action.name(), &json!(mask));
                let context = format!("{state} / {action} / guards {mask:04b}");

                assert_eq!(
                    *calls.lock().unwrap(),
                    *bits.calls.borrow(),
                    "guard calls: {context}"
                );
                match (generated, dynamic) {
                    (Ok(generated), Ok(dynamic)) => {
                        compared[0] += 1;
                        assert_eq!(dynamic.from_name(), generated.from.name(), "{context}");
                        assert_eq!(dynamic.to_name(), generated.to.name(), "{context}");
                        assert_eq!(dynamic.action_name(), generated.action.name(), "{context}");
                        let outputs: Vec<&str> = generated.outputs.iter().map(|o| o.name()).collect();
                        assert_eq!(dynamic.output_names().collect::<Vec<_>>(), outputs, "{context}");
                        assert_eq!(dynamic.internal, generated.internal, "{context}");
                        assert_eq!(dynamic.to_string(), generated.to_string(), "{context}");
                        assert_eq!(engine.state_name(), generated.to.name(), "{context}");
                    }
                    (Err(generated), Err(dynamic)) => {
                        assert_eq!(dynamic.to_string(), generated.to_string(), "{context}");
                        match (&generated, &dynamic) {
                            (
                                fsm_runtime::FireError::InvalidTransition(g),
                                FireError::InvalidTransition(d),
                            ) => {
                                compared[1] += 1;
                                assert_eq!(d.terminal(), g.terminal(), "{context}");
                                let valid: Vec<&str> =
                                    d.valid().iter().map(|&a| definition.action_name(a)).collect();
                                let expected: Vec<&str> = g.valid().iter().map(|a| a.name()).collect();
                                assert_eq!(valid, expected, "{context}");
                            }
                            (fsm_runtime::FireError::GuardRejected(g), FireError::GuardRejected(d)) => {
                                compared[2] += 1;
                                let candidates: Vec<(&str, Option<&str>)> = d
                                    .candidates()
                                    .map(|c| (c.guard(), c.target().map(|t| definition.state_name(t))))
                                    .collect();
                                let expected: Vec<(&str, Option<&str>)> =
                                    g.candidates().iter().map(|c| (c.guard(), c.target())).collect();
                                assert_eq!(candidates, expected, "{context}");
                            }
                            _ => panic!("different errors for {context}: {generated:?} / {dynamic:?}"),
                        }
                        assert_eq!(
                            engine.state_name(),
                            state.name(),
                            "an error changes nothing: {context}"
                        );
                    }
                    (generated, dynamic) => panic!("{context}: generated {generated:?}, dynamic {dynamic:?}"),
                }
            }
        }
    }
    // Every kind of outcome was compared, many times.
    assert!(compared.iter().all(|&n| n > 16), "{compared:?}");
}

/// `from == to` both for an internal transition (`on text_delta emit
/// display_text;`: no exit, no enter) and for a self-transition (`on restart
/// -> calling`: exit and re-enter); `internal` tells them apart, the same in
/// both engines.
#[test]
fn internal_and_self_transitions_say_which_they_are() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let engine = engine(&calls);
    let none = Bits {
        mask: 0,
        calls: RefCell::new(Vec::new()),
    };
    let calling = agent::State::Calling;
    let cases = [
        (agent::Action::TextDelta, true, vec!["display_text"]),
        (agent::Action::ToolCallDelta, true, vec![]),
        (
            agent::Action::Restart,
            false,
            vec!["stop_timer", "restarted", "start_timer"],
        ),
    ];
    for (action, internal, outputs) in cases {
        let generated = agent::Agent::transition(calling, action, &none).unwrap();
        assert_eq!((generated.from, generated.to), (calling, calling), "{action}");
        assert_eq!(generated.internal, internal, "generated: {action}");
        let names: Vec<&str> = generated.outputs.iter().map(|o| o.name()).collect();
        assert_eq!(names, outputs, "generated: {action}");

        engine
            .restore(&agent::Agent::from_state(calling).snapshot())
            .unwrap();
        let dynamic = engine.fire(action.name(), &json!(0)).unwrap();
        assert_eq!((dynamic.from_name(), dynamic.to_name()), ("calling", "calling"));
        assert_eq!(dynamic.internal, internal, "dynamic: {action}");
        assert_eq!(
            dynamic.output_names().collect::<Vec<_>>(),
            outputs,
            "dynamic: {action}"
        );
    }
}
