//! Generated machines and the dynamic engine report a refused action in one
//! shape: the same variants, read through the same methods. Each test below
//! runs one piece of code, written once in `describe!`, against both: it
//! would not compile if either side read through fields.

use fsm_dynamic::{Definition, Engine};
use serde_json::json;

fsm_runtime::fsm! {
    machine Door {
        initial state closed { on open -> opened; on lock [has_key && !alarm] -> locked; on lock [alarm]; }
        state opened { on close -> closed; }
        state locked { on unlock -> closed; on break_in -> broken; }
        terminal state broken;
    }
}

const DOOR: &str = "machine Door {
    initial state closed { on open -> opened; on lock [has_key && !alarm] -> locked; on lock [alarm]; }
    state opened { on close -> closed; }
    state locked { on unlock -> closed; on break_in -> broken; }
    terminal state broken;
}";

struct Guards;

impl door::Guards for Guards {
    fn has_key(&self) -> bool {
        false
    }
    fn alarm(&self) -> bool {
        false
    }
}

/// One description of a refused action, in the same words for either kind of
/// error; `$name` turns a state or action (typed, or an id) into its name.
macro_rules! describe {
    ($error:expr, $error_type:ident, $name:expr) => {{
        let name = $name;
        match $error {
            $error_type::InvalidTransition(e) => {
                let valid: Vec<String> = e.valid().iter().map(|&a| name(a.into())).collect();
                format!(
                    "{} in {}: invalid, terminal {}, valid {valid:?}",
                    name(e.action().into()),
                    name(e.state().into()),
                    e.terminal()
                )
            }
            $error_type::GuardRejected(e) => {
                let candidates: Vec<(String, Option<String>)> = e
                    .candidates()
                    .into_iter()
                    .map(|c| (c.guard().to_owned(), c.target().map(|t| name(t.into()))))
                    .collect();
                format!(
                    "{} in {}: rejected, {} candidates {candidates:?}",
                    name(e.action().into()),
                    name(e.state().into()),
                    e.candidates().len()
                )
            }
            #[allow(unreachable_patterns)]
            other => panic!("{other:?}"),
        }
    }};
}

/// A state or action of either kind, for `describe!`'s `$name`.
enum Named {
    State(door::State),
    Action(door::Action),
    StateId(fsm_dynamic::StateId),
    ActionId(fsm_dynamic::ActionId),
    /// A candidate's target in generated code: a name, since with nested
    /// states it may be a composite state, which `State` does not list.
    Name(&'static str),
}

impl From<&'static str> for Named {
    fn from(name: &'static str) -> Named {
        Named::Name(name)
    }
}

impl From<door::State> for Named {
    fn from(state: door::State) -> Named {
        Named::State(state)
    }
}

impl From<door::Action> for Named {
    fn from(action: door::Action) -> Named {
        Named::Action(action)
    }
}

impl From<fsm_dynamic::StateId> for Named {
    fn from(state: fsm_dynamic::StateId) -> Named {
        Named::StateId(state)
    }
}

impl From<fsm_dynamic::ActionId> for Named {
    fn from(action: fsm_dynamic::ActionId) -> Named {
        Named::ActionId(action)
    }
}

#[test]
fn both_kinds_of_fire_error_read_the_same() {
    let definition = Definition::from_fsm(DOOR).unwrap();
    let cases = [
        (door::State::Closed, "lock"),   // rejected: every guard false
        (door::State::Opened, "open"),   // invalid
        (door::State::Broken, "unlock"), // invalid, terminal
    ];
    for (state, action) in cases {
        let generated = {
            use fsm_runtime::FireError;
            let error = door::Door::from_state(state)
                .fire(action.parse().unwrap(), &Guards)
                .unwrap_err();
            // The error as a whole has the same methods too.
            assert_eq!((error.state(), error.action().name()), (state, action));
            assert!(
                std::error::Error::source(&error).is_none(),
                "a FireError displays as the error it holds, so it has no source"
            );
            describe!(error, FireError, |named: Named| match named {
                Named::State(s) => s.name().to_owned(),
                Named::Action(a) => a.name().to_owned(),
                Named::Name(n) => n.to_owned(),
                _ => unreachable!(),
            })
        };
        let dynamic = {
            use fsm_dynamic::FireError;
            let engine = Engine::builder(definition.clone())
                .guard("has_key", |_| false)
                .guard("alarm", |_| false)
                .build()
                .unwrap();
            engine.restore(&door::Door::from_state(state).snapshot()).unwrap();
            let error = engine.fire(action, &json!({})).unwrap_err();
            assert_eq!(
                (error.state(), error.action()),
                (definition.state_id(state.name()), definition.action_id(action))
            );
            assert!(
                std::error::Error::source(&error).is_none(),
                "a FireError displays as the error it holds, so it has no source"
            );
            describe!(error, FireError, |named: Named| match named {
                Named::StateId(s) => definition.state_name(s).to_owned(),
                Named::ActionId(a) => definition.action_name(a).to_owned(),
                _ => unreachable!(),
            })
        };
        assert_eq!(generated, dynamic);
    }
}

#[test]
fn the_descriptions_say_what_happened() {
    use fsm_runtime::FireError;
    let describe = |state: door::State, action: &str| {
        let error = door::Door::from_state(state)
            .fire(action.parse().unwrap(), &Guards)
            .unwrap_err();
        describe!(error, FireError, |named: Named| match named {
            Named::State(s) => s.name().to_owned(),
            Named::Action(a) => a.name().to_owned(),
            Named::Name(n) => n.to_owned(),
            _ => unreachable!(),
        })
    };
    assert_eq!(
        describe(door::State::Closed, "lock"),
        "lock in closed: rejected, 2 candidates [(\"has_key && !alarm\", Some(\"locked\")), (\"alarm\", None)]"
    );
    assert_eq!(
        describe(door::State::Opened, "open"),
        "open in opened: invalid, terminal false, valid [\"close\"]"
    );
    assert_eq!(
        describe(door::State::Broken, "unlock"),
        "unlock in broken: invalid, terminal true, valid []"
    );
}
