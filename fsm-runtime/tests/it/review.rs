//! A guarded review step: the transition is chosen by
//! priority, and a rejection says which guard rejected each candidate.

#![deny(warnings)]

include!("../generated/review.rs");

use review::{Action, Review, State};
use std::cell::RefCell;

/// Answers the guards and records the order in which they were asked.
struct Verdict {
    quality_ok: bool,
    retries_left: bool,
    asked: RefCell<Vec<&'static str>>,
}

impl Verdict {
    fn new(quality_ok: bool, retries_left: bool) -> Self {
        Verdict {
            quality_ok,
            retries_left,
            asked: RefCell::new(Vec::new()),
        }
    }

    fn asked(&self) -> Vec<&'static str> {
        self.asked.borrow().clone()
    }
}

impl review::Guards for Verdict {
    fn quality_ok(&self) -> bool {
        self.asked.borrow_mut().push("quality_ok");
        self.quality_ok
    }

    fn retries_left(&self) -> bool {
        self.asked.borrow_mut().push("retries_left");
        self.retries_left
    }
}

fn running() -> Review {
    let mut review = Review::new();
    review.fire(Action::Start, &Verdict::new(false, false)).unwrap();
    review
}

#[test]
fn the_higher_priority_guard_is_tried_first() {
    let mut review = running();
    let verdict = Verdict::new(true, true);
    let fired = review.fire(Action::Review, &verdict).unwrap();
    assert_eq!(fired.to, State::Done);
    assert_eq!(
        verdict.asked(),
        ["quality_ok"],
        "the second candidate is never looked at"
    );
    assert!(review.is_terminal());
}

#[test]
fn the_second_candidate_reuses_the_first_guard_value() {
    let mut review = running();
    let verdict = Verdict::new(false, true);
    let fired = review.fire(Action::Review, &verdict).unwrap();
    assert_eq!(fired.to, State::Revising);
    assert_eq!(
        verdict.asked(),
        ["quality_ok", "retries_left"],
        "`quality_ok` is asked once"
    );
    review.fire(Action::Restart, &verdict).unwrap();
    assert_eq!(review.state(), State::Running);
}

#[test]
fn rejection_names_every_guard_expression() {
    let mut review = running();
    let verdict = Verdict::new(false, false);
    let error = review.fire(Action::Review, &verdict).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `review` rejected in state `running`: guard `quality_ok` was false (-> done), \
         guard `!quality_ok && retries_left` was false (-> revising)"
    );
    assert_eq!(verdict.asked(), ["quality_ok", "retries_left"]);
    assert_eq!(review.state(), State::Running);
}

#[test]
fn the_terminal_state_accepts_nothing() {
    let mut review = Review::from_state(State::Done);
    assert!(review.valid_actions().is_empty());
    for &action in Action::ALL {
        let error = review.fire(action, &Verdict::new(true, true)).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("action `{action}` is not valid in state `done`: the state is terminal")
        );
    }
}

#[test]
fn unguarded_transitions_ask_no_guard() {
    let mut review = Review::new();
    let verdict = Verdict::new(true, true);
    review.fire(Action::Start, &verdict).unwrap();
    review.fire(Action::Finish, &verdict).unwrap();
    assert!(verdict.asked().is_empty());
}
