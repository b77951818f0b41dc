//! The caller's side: the review loop over drafts, and the shared strategy.

use fsm_runtime::Snapshot;
use review::{Draft, Event, FireError, Outcome, QualityCheck, Review, Reviewer, State, Strategy};
use std::sync::{Arc, Barrier};
use std::thread;

fn drafts(scores: &[u8]) -> Vec<Draft> {
    scores
        .iter()
        .enumerate()
        .map(|(i, &score)| Draft::new(format!("draft {i}"), score))
        .collect()
}

#[test]
fn a_draft_is_accepted_after_revisions() {
    let mut reviewer = Reviewer::new(80, 3);
    let outcome = reviewer.run(&drafts(&[40, 70, 90, 100])).unwrap();
    assert_eq!(
        outcome,
        Outcome::Accepted {
            draft: 2,
            revisions: 2
        }
    );
    assert_eq!(outcome.to_string(), "accepted draft 3 after 2 revisions");
    assert_eq!(reviewer.state(), State::Done);
    let transitions: Vec<&str> = reviewer
        .trace()
        .iter()
        .filter_map(|line| line.strip_prefix("  "))
        .collect();
    assert_eq!(
        transitions,
        [
            "`idle` --start--> `running`",
            "`running` --review--> `revising`",
            "`revising` --restart--> `running`",
            "`running` --review--> `revising`",
            "`revising` --restart--> `running`",
            "`running` --review--> `done`",
        ]
    );
}

#[test]
fn the_revision_budget_ends_the_session() {
    let mut reviewer = Reviewer::new(80, 1);
    let outcome = reviewer.run(&drafts(&[10, 20, 95])).unwrap();
    assert_eq!(
        outcome,
        Outcome::Finished {
            draft: 1,
            revisions: 1
        }
    );
    assert_eq!(reviewer.state(), State::Done);
    assert_eq!(
        reviewer.trace().last().map(String::as_str),
        Some("  `running` --finish--> `done`")
    );
}

#[test]
fn running_out_of_drafts_leaves_the_agent_running() {
    let mut reviewer = Reviewer::new(80, 5);
    assert_eq!(
        reviewer.run(&drafts(&[10, 20])).unwrap(),
        Outcome::OutOfDrafts { revisions: 2 }
    );
    assert_eq!(reviewer.state(), State::Running);
}

#[test]
fn a_reviewer_runs_one_session() {
    let mut reviewer = Reviewer::new(80, 5);
    reviewer.run(&drafts(&[90])).unwrap();
    let error = reviewer.run(&drafts(&[90])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `start` is not valid in state `done`: the state is terminal"
    );
}

#[test]
fn racing_threads_see_one_transition_each() {
    // Eight threads review at once from `running`: the first to lock moves
    // the machine to `done`, and every other one is judged against `done`.
    const THREADS: usize = 8;
    let strategy = Strategy::new();
    strategy
        .execute(Event::Start, &QualityCheck { threshold: 80 })
        .unwrap();
    let strategy = Arc::new(strategy);
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let strategy = Arc::clone(&strategy);
            let barrier = Arc::clone(&barrier);
            thread::spawn(move || {
                barrier.wait();
                let check = QualityCheck { threshold: 80 };
                strategy.execute(Event::Review(Draft::new("plan", 100)), &check)
            })
        })
        .collect();
    let results: Vec<Result<_, FireError>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let fired: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(fired.len(), 1, "{results:?}");
    assert_eq!((fired[0].from, fired[0].to), (State::Running, State::Done));
    for error in results.iter().filter_map(|r| r.as_ref().err()) {
        assert!(
            matches!(error, FireError::InvalidTransition(e) if e.terminal() && e.state() == State::Done),
            "{error:?}"
        );
    }
    assert_eq!(strategy.state(), State::Done);
}

#[test]
fn a_strategy_resumes_from_its_snapshot() {
    let strategy = Strategy::new();
    let check = QualityCheck { threshold: 80 };
    strategy.execute(Event::Start, &check).unwrap();
    strategy
        .execute(Event::Review(Draft::new("plan", 10)), &check)
        .unwrap();
    let snapshot = strategy.snapshot();
    assert_eq!(snapshot.machine(), "Review");
    assert_eq!(snapshot.current_state(), "revising");

    // A checkpoint stores the three strings; a resumed session reads them back.
    let stored = Snapshot::new(
        snapshot.machine().to_owned(),
        snapshot.fingerprint().to_owned(),
        snapshot.current_state().to_owned(),
    );
    let resumed = Strategy::from_machine(Review::restore(&stored).unwrap());
    assert_eq!(resumed.state(), State::Revising);
    let fired = resumed.execute(Event::Restart, &check).unwrap();
    assert_eq!(fired.to, State::Running);
}

#[test]
fn a_snapshot_of_another_definition_is_refused() {
    let stale = Snapshot::new("Review", "0000000000000000", "revising");
    let error = Review::restore(&stale).unwrap_err();
    assert!(error.to_string().contains("different definition"), "{error}");
}
