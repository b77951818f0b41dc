//! The review machine itself: priority decides `review`, and every rejection
//! names the valid actions.

use review::{review as machine, Action, FireError, QualityCheck, Review, State};
use std::cell::Cell;

/// Answers `quality_guard` and counts how often it was asked.
struct CountingCheck {
    passes: bool,
    asked: Cell<u32>,
}

impl CountingCheck {
    fn new(passes: bool) -> Self {
        CountingCheck {
            passes,
            asked: Cell::new(0),
        }
    }
}

impl machine::Guards for CountingCheck {
    fn quality_guard(&self) -> bool {
        self.asked.set(self.asked.get() + 1);
        self.passes
    }
}

fn running() -> Review {
    Review::from_state(State::Running)
}

#[test]
fn a_passing_review_takes_the_guarded_transition_first() {
    let mut review = running();
    let check = CountingCheck::new(true);
    let fired = review.fire(Action::Review, &check).unwrap();
    assert_eq!((fired.from, fired.to), (State::Running, State::Done));
    assert_eq!(review.state(), State::Done);
    assert!(review.is_terminal());
    assert_eq!(check.asked.get(), 1);
}

#[test]
fn a_failing_review_falls_back_to_revising() {
    let mut review = running();
    let check = CountingCheck::new(false);
    let fired = review.fire(Action::Review, &check).unwrap();
    assert_eq!((fired.from, fired.to), (State::Running, State::Revising));
    // The fallback has no guard: the quality guard was asked once, not twice.
    assert_eq!(check.asked.get(), 1);
    assert_eq!(review.valid_actions(), [Action::Restart]);
}

#[test]
fn the_score_threshold_decides_the_branch() {
    for (score, expected) in [(79, State::Revising), (80, State::Done), (100, State::Done)] {
        let fired = Review::transition(
            State::Running,
            Action::Review,
            &QualityCheck { score, threshold: 80 },
        )
        .unwrap();
        assert_eq!(fired.to, expected, "score {score}");
    }
}

#[test]
fn review_is_never_rejected_by_its_guard() {
    // The unguarded fallback makes every action either fire or be invalid:
    // a `GuardRejected` would mean the fallback was lost.
    for &state in State::ALL {
        for &action in Action::ALL {
            for passes in [false, true] {
                let result = Review::transition(state, action, &CountingCheck::new(passes));
                let valid = Review::from_state(state).valid_actions().contains(&action);
                match result {
                    Ok(_) => assert!(valid, "{action} fired in {state}"),
                    Err(FireError::InvalidTransition(_)) => {
                        assert!(!valid, "{action} rejected in {state}")
                    }
                    Err(FireError::GuardRejected(error)) => {
                        panic!("unexpected guard rejection: {error}")
                    }
                }
            }
        }
    }
}

#[test]
fn an_invalid_action_names_the_valid_ones() {
    let cases = [
        (
            State::Idle,
            Action::Review,
            &[Action::Start][..],
            "action `review` is not valid in state `idle`; valid actions: `start`",
        ),
        (
            State::Running,
            Action::Restart,
            &[Action::Finish, Action::Review][..],
            "action `restart` is not valid in state `running`; valid actions: `finish`, `review`",
        ),
        (
            State::Revising,
            Action::Finish,
            &[Action::Restart][..],
            "action `finish` is not valid in state `revising`; valid actions: `restart`",
        ),
    ];
    for (state, action, valid, message) in cases {
        let mut review = Review::from_state(state);
        let error = review.fire(action, &CountingCheck::new(true)).unwrap_err();
        let FireError::InvalidTransition(invalid) = error else {
            panic!("expected an invalid transition, got {error:?}");
        };
        assert_eq!((invalid.state(), invalid.action()), (state, action));
        assert_eq!(invalid.valid(), valid);
        assert!(!invalid.terminal());
        assert_eq!(error.to_string(), message);
        assert_eq!(review.state(), state, "a rejected action changes nothing");
    }
}

#[test]
fn every_action_in_done_says_the_state_is_terminal() {
    let mut review = Review::from_state(State::Done);
    for &action in Action::ALL {
        let check = CountingCheck::new(true);
        let error = review.fire(action, &check).unwrap_err();
        let FireError::InvalidTransition(invalid) = error else {
            panic!("expected an invalid transition, got {error:?}");
        };
        assert!(invalid.terminal());
        assert!(invalid.valid().is_empty());
        assert_eq!(
            error.to_string(),
            format!("action `{action}` is not valid in state `done`: the state is terminal")
        );
        assert_eq!(check.asked.get(), 0, "no guard is asked in a terminal state");
    }
}
