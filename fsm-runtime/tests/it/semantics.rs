//! The rules of firing, one test each: output order, internal and self
//! transitions, priorities, `any`, lazy guards evaluated at most once, and
//! terminal states. The machine is `generated/semantics.fsm`.

#![deny(warnings)]

include!("../generated/semantics.rs");

use fsm_runtime::{FireError, Fired};
use semantics::{Action, Output, Semantics, State};
use std::cell::RefCell;

/// Guard values, and the order in which `fire` asked for them.
#[derive(Default)]
struct Guards {
    x: bool,
    y: bool,
    z: bool,
    asked: RefCell<Vec<&'static str>>,
}

impl Guards {
    fn with(x: bool, y: bool, z: bool) -> Self {
        Guards {
            x,
            y,
            z,
            asked: RefCell::default(),
        }
    }

    fn asked(&self) -> Vec<&'static str> {
        self.asked.borrow().clone()
    }
}

impl semantics::Guards for Guards {
    fn x(&self) -> bool {
        self.asked.borrow_mut().push("x");
        self.x
    }

    fn y(&self) -> bool {
        self.asked.borrow_mut().push("y");
        self.y
    }

    fn z(&self) -> bool {
        self.asked.borrow_mut().push("z");
        self.z
    }
}

fn fire_from(
    state: State,
    action: Action,
    guards: &Guards,
) -> Result<Fired<Semantics>, FireError<Semantics>> {
    let mut machine = Semantics::from_state(state);
    let result = machine.fire(action, guards);
    match &result {
        Ok(fired) => assert_eq!(machine.state(), fired.to),
        Err(_) => assert_eq!(machine.state(), state),
    }
    result
}

#[test]
fn outputs_are_exit_then_emit_then_enter() {
    let fired = fire_from(State::A, Action::Go, &Guards::default()).unwrap();
    assert_eq!(fired.to, State::B);
    assert_eq!(
        fired.outputs,
        [Output::ExitA, Output::ExitAAgain, Output::GoEmit, Output::EnterB]
    );
}

#[test]
fn an_internal_transition_emits_only_its_own_outputs() {
    let fired = fire_from(State::A, Action::Stay, &Guards::default()).unwrap();
    assert_eq!((fired.from, fired.to), (State::A, State::A));
    assert_eq!(fired.outputs, [Output::StayEmit]);
}

#[test]
fn a_self_transition_exits_and_enters() {
    let fired = fire_from(State::A, Action::Again, &Guards::default()).unwrap();
    assert_eq!((fired.from, fired.to), (State::A, State::A));
    assert_eq!(
        fired.outputs,
        [
            Output::ExitA,
            Output::ExitAAgain,
            Output::AgainEmit,
            Output::EnterA
        ]
    );
}

#[test]
fn states_without_hooks_add_nothing() {
    let fired = fire_from(State::B, Action::Back, &Guards::default()).unwrap();
    assert_eq!(fired.outputs, [Output::EnterA]);
    let fired = fire_from(State::C, Action::Go, &Guards::with(false, false, true)).unwrap();
    assert_eq!(fired.outputs, [Output::ExitC, Output::EnterB]);
}

#[test]
fn the_first_candidate_whose_guard_holds_fires() {
    let guards = Guards::with(true, true, true);
    let fired = fire_from(State::A, Action::Pick, &guards).unwrap();
    assert_eq!(
        fired.outputs,
        [Output::ExitA, Output::ExitAAgain, Output::PickedX, Output::EnterB]
    );
    assert_eq!(
        guards.asked(),
        ["x"],
        "later candidates' guards are not evaluated"
    );

    let guards = Guards::with(false, true, true);
    let fired = fire_from(State::A, Action::Pick, &guards).unwrap();
    assert_eq!(
        (fired.to, fired.outputs.last()),
        (State::C, Some(&Output::PickedY))
    );
    assert_eq!(
        guards.asked(),
        ["x", "y"],
        "`x` is evaluated once though two guards use it"
    );

    let guards = Guards::with(false, false, true);
    let fired = fire_from(State::A, Action::Pick, &guards).unwrap();
    assert_eq!(
        (fired.to, fired.outputs.last()),
        (State::C, Some(&Output::PickedZ))
    );
    assert_eq!(
        guards.asked(),
        ["x", "y", "z"],
        "each guard once, across three candidates"
    );
}

#[test]
fn a_guard_repeated_in_one_expression_is_evaluated_once() {
    let guards = Guards::with(true, false, false);
    fire_from(State::A, Action::Both, &guards).unwrap();
    assert_eq!(guards.asked(), ["x"]);
}

#[test]
fn when_every_guard_is_false_each_candidate_is_reported_in_order() {
    let guards = Guards::default();
    let error = fire_from(State::A, Action::Pick, &guards).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `pick` rejected in state `a`: guard `x` was false (-> b), guard `!x && y` was false (-> c), \
         guard `x || y || z` was false (-> c)"
    );
    assert_eq!(guards.asked(), ["x", "y", "z"]);
}

#[test]
fn a_higher_priority_any_transition_beats_the_states_own() {
    let guards = Guards::with(false, true, true);
    let fired = fire_from(State::A, Action::Race, &guards).unwrap();
    assert_eq!(fired.to, State::C);
    assert_eq!(
        fired.outputs,
        [Output::ExitA, Output::ExitAAgain, Output::AnyRace]
    );
    assert_eq!(guards.asked(), ["z"]);
}

#[test]
fn at_equal_priority_the_states_own_transition_comes_before_any() {
    let guards = Guards::with(false, true, false);
    let fired = fire_from(State::A, Action::Race, &guards).unwrap();
    assert_eq!(fired.to, State::B);
    assert_eq!(guards.asked(), ["z", "y"]);

    let guards = Guards::default();
    let fired = fire_from(State::A, Action::Race, &guards).unwrap();
    assert_eq!(fired.to, State::A, "the unguarded `any` fallback");
    assert_eq!(
        fired.outputs,
        [
            Output::ExitA,
            Output::ExitAAgain,
            Output::AnyRaceFallback,
            Output::EnterA
        ]
    );
}

#[test]
fn any_applies_to_every_non_terminal_state() {
    for state in [State::A, State::B, State::C] {
        let fired = fire_from(state, Action::Finish, &Guards::default()).unwrap();
        assert_eq!(fired.to, State::End);
        assert_eq!(fired.outputs.last(), Some(&Output::EnterEnd), "from {state}");
        let fired = fire_from(state, Action::Race, &Guards::with(false, false, true)).unwrap();
        assert_eq!(fired.to, State::C, "from {state}");
    }
    // From `c` to `c` through `any`: a self-transition, so `c` is exited.
    let fired = fire_from(State::C, Action::Race, &Guards::with(false, false, true)).unwrap();
    assert_eq!(fired.outputs, [Output::ExitC, Output::AnyRace]);
}

#[test]
fn any_does_not_apply_to_terminal_states() {
    let machine = Semantics::from_state(State::End);
    assert!(machine.is_terminal());
    assert!(machine.valid_actions().is_empty());
    for &action in Action::ALL {
        let error = fire_from(State::End, action, &Guards::with(true, true, true)).unwrap_err();
        let FireError::InvalidTransition(invalid) = error else {
            panic!("expected InvalidTransition, got {error:?}");
        };
        assert!(invalid.terminal());
        assert!(invalid.valid().is_empty());
    }
}

#[test]
fn valid_actions_follow_declaration_order() {
    assert_eq!(
        Semantics::from_state(State::A).valid_actions(),
        [
            Action::Go,
            Action::Stay,
            Action::Again,
            Action::Pick,
            Action::Race,
            Action::Both,
            Action::Finish
        ]
    );
    assert_eq!(
        Semantics::from_state(State::B).valid_actions(),
        [Action::Race, Action::Back, Action::Finish]
    );
    let error = fire_from(State::B, Action::Go, &Guards::default()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `go` is not valid in state `b`; valid actions: `race`, `back`, `finish`"
    );
}

#[test]
fn can_fire_evaluates_guards_but_changes_nothing() {
    let machine = Semantics::from_state(State::C);
    let guards = Guards::default();
    assert!(!machine.can_fire(Action::Go, &guards));
    assert_eq!(guards.asked(), ["z"]);
    assert!(machine.can_fire(Action::Go, &Guards::with(false, false, true)));
    assert_eq!(machine.state(), State::C);
}

#[test]
fn every_state_and_action_pair_answers() {
    // No combination panics or leaves the machine half-changed.
    for &state in State::ALL {
        for &action in Action::ALL {
            for bits in 0..8 {
                let guards = Guards::with(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
                let result = fire_from(state, action, &guards);
                let valid = Semantics::from_state(state).valid_actions().contains(&action);
                if let Err(FireError::InvalidTransition(_)) = result {
                    assert!(!valid, "{state} {action}");
                } else {
                    assert!(valid, "{state} {action}");
                }
                let mut asked = guards.asked();
                asked.sort_unstable();
                asked.dedup();
                assert_eq!(
                    asked.len(),
                    guards.asked().len(),
                    "a guard was asked twice: {state} {action}"
                );
            }
        }
    }
}
