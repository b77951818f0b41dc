//! `cover`: the sequences reach every goal that can be reached, each replays
//! on the dynamic engine, and the lower bound is below what they take.

use fsm_grammar::model::{Chosen, Machine};
use fsm_verify::{cover, Goal, Move, Options, Suite};

fn machine(text: &str) -> Machine {
    let checked = fsm_grammar::check(text);
    assert!(!checked.has_errors(), "{text}");
    checked.into_model().expect("a model").machines.remove(0)
}

fn suite(m: &Machine) -> Suite {
    let suite = cover(m, &Options::default()).expect("searchable");
    assert!(suite.unreplayed.is_empty(), "{:?}", suite.unreplayed);
    assert!(suite.complete);
    let events: usize = suite.sequences.iter().map(|p| p.steps.len()).sum();
    assert_eq!(events, suite.events);
    assert!(
        suite.lower_bound <= suite.events,
        "{} > {}",
        suite.lower_bound,
        suite.events
    );
    suite
}

/// The goals no sequence reaches.
fn missed(suite: &Suite) -> Vec<Goal> {
    suite
        .goals
        .iter()
        .zip(&suite.reached)
        .filter(|(_, r)| r.is_none())
        .map(|(g, _)| *g)
        .collect()
}

#[test]
fn every_transition_and_both_values_of_every_guard_are_reached() {
    let m = machine(
        "machine Agent {
            initial state waiting { on user_input -> calling; }
            state calling {
                on completed -> processing;
                on llm_error [retries_left] priority 1 -> error;
                on llm_error -> waiting;
            }
            state processing {
                on tool_done [pending] priority 2 -> processing;
                on tool_done [mutating] priority 1 -> hook;
                on tool_done -> calling;
                after 30s -> error;
            }
            state hook { always -> calling; }
            state error { on retry -> calling; }
            terminal state stopped;
            any { on shutdown -> stopped; }
        }",
    );
    let suite = suite(&m);
    assert_eq!(missed(&suite), []);
    // 11 transitions (the timer and the `always` among them) and 3 guards.
    assert_eq!(suite.goals.len(), 11 + 2 * 3);
    // `shutdown` ends its sequence, so it comes last in one.
    for path in &suite.sequences {
        let shutdown = path
            .steps
            .iter()
            .position(|s| matches!(s.mv, Move::Fire(a) if m.actions[a.index()].name == "shutdown"));
        if let Some(at) = shutdown {
            assert_eq!(at + 1, path.steps.len(), "{path:?}");
        }
    }
    // Hand-counted: one sequence can take every goal but `shutdown`'s in
    // 16 events, and `shutdown` adds one.
    assert!(suite.events <= 20, "{} events", suite.events);
}

#[test]
fn a_guard_refused_is_a_step_that_gives_it_false() {
    let m = machine(
        "machine Gate {
            initial state closed { on open [authorized] -> opened; }
            state opened { on close -> closed; }
        }",
    );
    let suite = suite(&m);
    assert_eq!(missed(&suite), []);
    let refused: Vec<bool> = suite
        .sequences
        .iter()
        .flat_map(|p| &p.steps)
        .map(|s| s.outcome.refused)
        .collect();
    assert!(refused.contains(&true), "{:?}", suite.sequences);
}

#[test]
fn goals_that_cannot_be_reached_are_reported_not_reached() {
    // `in(b)` decides the guard before any guard is asked: in `a` it is
    // false, so `[in(b)]` never holds; `c` is reached by nothing.
    let m = machine(
        "machine M {
            initial state a { on go [in(b)] -> c; on next -> b; }
            state b { on back -> a; }
            state c;
        }",
    );
    let suite = suite(&m);
    let go = Chosen::Action(m.own_transitions(m.state_by_name("a").expect("a"))[0]);
    let mut missed = missed(&suite);
    missed.sort_by_key(|g| format!("{g:?}"));
    assert_eq!(missed, [Goal::Guard(go, true), Goal::Taken(go)]);
}

#[test]
fn a_step_sets_each_guard_once_as_fsmc_run_does() {
    // Per evaluation, `busy` could be true then false inside one `fire`; a
    // test sets it once per step, so the chain either runs away or ends at once.
    let m = machine(
        "machine Poll {
            initial state idle { on go -> checking; }
            state checking {
                always [busy] -> waiting;
                always -> finished;
            }
            state waiting { always [busy] -> checking; }
            terminal state finished;
        }",
    );
    let suite = cover(&m, &Options::default()).expect("searchable");
    assert!(suite.unreplayed.is_empty(), "{:?}", suite.unreplayed);
    for step in suite.sequences.iter().flat_map(|p| &p.steps) {
        let first = step.guards.first().map(|&(_, v)| v);
        assert!(step.guards.iter().all(|&(_, v)| Some(v) == first), "{step:?}");
    }
}
