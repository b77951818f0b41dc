//! The review machine itself: priority decides `review`, the quality guard
//! reads the draft the event carries, and every rejection names the valid
//! actions and hands the event back.

use fsm_runtime::{FireError, Machine, Snapshot};
use review::{review as machine, Action, Draft, Event, QualityCheck, Review, State};
use std::cell::RefCell;

/// Answers `quality_guard` from the draft's plan, and records every plan it
/// was asked about.
struct CountingCheck {
    asked: RefCell<Vec<String>>,
}

impl CountingCheck {
    fn new() -> Self {
        CountingCheck {
            asked: RefCell::new(Vec::new()),
        }
    }

    fn asked(&self) -> usize {
        self.asked.borrow().len()
    }
}

impl machine::Guards for CountingCheck {
    fn quality_guard(&self, draft: &Draft) -> bool {
        self.asked.borrow_mut().push(draft.text.clone());
        draft.text.contains("with tests")
    }
}

/// A draft that [`CountingCheck`] passes, or fails.
fn draft(passes: bool) -> Draft {
    if passes {
        Draft::new("plan: fix it, with tests", 0)
    } else {
        Draft::new("plan: fix it", 100)
    }
}

/// The machine in `state`, as a stored snapshot resumes it.
fn in_state(state: State) -> Review {
    let snapshot = Snapshot::new("Review", Review::FINGERPRINT, state.to_string());
    Review::restore(&snapshot).unwrap()
}

fn running() -> Review {
    in_state(State::Running)
}

/// The event of `action`, carrying `draft` if it has a payload.
fn event(action: Action, draft: Draft) -> Event {
    match action {
        Action::Start => Event::Start,
        Action::Finish => Event::Finish,
        Action::Restart => Event::Restart,
        Action::Review => Event::Review(draft),
    }
}

#[test]
fn a_passing_review_takes_the_guarded_transition_first() {
    let mut review = running();
    let check = CountingCheck::new();
    let fired = review.fire(Event::Review(draft(true)), &check).unwrap();
    assert_eq!((fired.from, fired.to), (State::Running, State::Done));
    assert_eq!(review.state(), State::Done);
    assert!(review.is_terminal());
    // The guard read the plan of the draft the event carried.
    assert_eq!(*check.asked.borrow(), ["plan: fix it, with tests"]);
}

#[test]
fn a_failing_review_falls_back_to_revising() {
    let mut review = running();
    let check = CountingCheck::new();
    let fired = review.fire(Event::Review(draft(false)), &check).unwrap();
    assert_eq!((fired.from, fired.to), (State::Running, State::Revising));
    // The fallback has no guard: the quality guard was asked once, not twice.
    assert_eq!(check.asked(), 1);
    assert_eq!(review.valid_actions(), [Action::Restart]);
}

#[test]
fn the_score_threshold_decides_the_branch() {
    let check = QualityCheck { threshold: 80 };
    for (score, expected) in [(79, State::Revising), (80, State::Done), (100, State::Done)] {
        let fired = running()
            .fire(Event::Review(Draft::new("plan", score)), &check)
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
                let mut review = in_state(state);
                let valid = review.valid_actions().contains(&action);
                let result = review.fire(event(action, draft(passes)), &CountingCheck::new());
                match result {
                    Ok(_) => assert!(valid, "{action} fired in {state}"),
                    Err(FireError::InvalidTransition(_)) => {
                        assert!(!valid, "{action} rejected in {state}")
                    }
                    Err(FireError::GuardRejected(error)) => {
                        panic!("unexpected guard rejection: {error}")
                    }
                    Err(error @ FireError::Runaway(_)) => panic!("{error}"),
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
        let mut review = in_state(state);
        let error = review
            .fire(event(action, draft(true)), &CountingCheck::new())
            .unwrap_err();
        let FireError::InvalidTransition(invalid) = &error else {
            panic!("expected an invalid transition, got {error:?}");
        };
        assert_eq!((invalid.state(), invalid.action()), (state, action));
        assert_eq!(invalid.valid(), valid);
        assert!(!invalid.terminal());
        assert_eq!(error.to_string(), message);
        assert_eq!(review.state(), state, "a rejected action changes nothing");
        assert_eq!(error.into_event().action(), action, "the event is handed back");
    }
}

#[test]
fn every_action_in_done_says_the_state_is_terminal() {
    let mut review = in_state(State::Done);
    for &action in Action::ALL {
        let check = CountingCheck::new();
        let error = review.fire(event(action, draft(true)), &check).unwrap_err();
        let FireError::InvalidTransition(invalid) = &error else {
            panic!("expected an invalid transition, got {error:?}");
        };
        assert!(invalid.terminal());
        assert!(invalid.valid().is_empty());
        assert_eq!(
            error.to_string(),
            format!("action `{action}` is not valid in state `done`: the state is terminal")
        );
        assert_eq!(check.asked(), 0, "no guard is asked in a terminal state");
    }
}

#[test]
fn a_reviewed_draft_comes_back_with_its_rejection() {
    let mut review = in_state(State::Revising);
    let error = review
        .fire(Event::Review(draft(true)), &CountingCheck::new())
        .unwrap_err();
    let Event::Review(back) = error.into_event() else {
        panic!("another event came back");
    };
    assert_eq!(back, draft(true));
}
