//! Verdicts on machines with planted violations and with properties that
//! hold, and the paths reported, each replayed on the dynamic engine by
//! the search before it is reported.

use fsm_grammar::model::Machine;
use fsm_verify::{verify, Formula, Kind, Move, Options, Property, Verdict};

fn machine(text: &str) -> Machine {
    let checked = fsm_grammar::check(text);
    assert!(!checked.has_errors(), "{text}");
    checked.into_model().expect("a model").machines.remove(0)
}

fn research() -> Machine {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/research/research.fsm"
    ))
    .expect("the research example");
    machine(&text)
}

/// The verdict on `kind formula` in `m`.
fn verdict(m: &Machine, kind: Kind, formula: &str) -> Verdict {
    let formula = Formula::parse(m, formula).expect("a formula");
    let report = verify(m, &[Property::new(kind, formula)], &Options::default()).expect("searchable");
    report.verdicts.into_iter().next().expect("one verdict")
}

/// The moves of a path, as `name` or `advance 30000`.
fn moves(m: &Machine, verdict: &Verdict) -> Vec<String> {
    let (Verdict::Violated(path) | Verdict::Reached(path)) = verdict else {
        panic!("no path: {verdict:?}");
    };
    path.steps
        .iter()
        .map(|s| match s.mv {
            Move::Fire(a) => m.actions[a.index()].name.clone(),
            Move::Advance => format!("advance {}", s.outcome.advanced),
        })
        .collect()
}

const WRITERS: &str = "\
machine Writers {
    initial parallel state team {
        state a {
            initial state a_idle { on a_write -> a_writing; }
            state a_writing { on a_done -> a_idle; }
        }
        state b {
            initial state b_idle { on b_write -> b_writing; }
            state b_writing { on b_done -> b_idle; }
        }
    }
}
";

#[test]
fn two_writers_without_a_lock_both_write() {
    let m = machine(WRITERS);
    let v = verdict(&m, Kind::Never, "in(a_writing) && in(b_writing)");
    assert_eq!(moves(&m, &v), ["a_write", "b_write"]);
}

#[test]
fn two_writers_that_look_at_each_other_never_both_write() {
    let m = machine(
        &WRITERS
            .replace("on a_write ->", "on a_write [!in(b_writing)] ->")
            .replace("on b_write ->", "on b_write [!in(a_writing)] ->"),
    );
    assert_eq!(
        verdict(&m, Kind::Never, "in(a_writing) && in(b_writing)"),
        Verdict::Holds
    );
    assert_eq!(
        verdict(&m, Kind::Recoverable, "in(a_idle) && in(b_idle)"),
        Verdict::Holds
    );
}

#[test]
fn the_research_run_ends_and_can_end_partly() {
    let m = research();
    assert_eq!(verdict(&m, Kind::Recoverable, "terminal"), Verdict::Holds);
    let v = verdict(&m, Kind::Never, "in(partial_synthesis)");
    assert_eq!(moves(&m, &v), ["start", "a_failed", "b_written"]);
    let v = verdict(&m, Kind::Reachable, "in(failed)");
    assert_eq!(moves(&m, &v), ["start", "advance 600000"]);
    assert_eq!(
        verdict(&m, Kind::Reachable, "in(synthesis) && in(idle)"),
        Verdict::Unreachable
    );
}

#[test]
fn a_guard_is_asked_afresh_by_the_always_step_after_an_action() {
    let m = machine(
        "machine Decide {
            initial state idle { on go [fast] -> decide; }
            state decide { always [fast] -> quick; }
            terminal state quick;
        }",
    );
    let v = verdict(&m, Kind::Never, "in(decide)");
    let Verdict::Violated(path) = &v else {
        panic!("{v:?}")
    };
    let answers: Vec<bool> = path.steps[0].guards.iter().map(|&(_, value)| value).collect();
    assert_eq!(
        answers,
        [true, false],
        "`go` took `fast`, then the `always` step was refused it"
    );
}

#[test]
fn a_guard_is_asked_once_per_step() {
    let m = machine(
        "machine Decide {
            initial state idle { on go -> decide; }
            state decide {
                always [fast] priority 1 -> quick;
                always [!fast] -> slow;
            }
            terminal state quick;
            terminal state slow;
        }",
    );
    assert_eq!(verdict(&m, Kind::Never, "in(decide)"), Verdict::Holds);
    assert!(matches!(
        verdict(&m, Kind::Reachable, "in(slow)"),
        Verdict::Reached(_)
    ));
}

#[test]
fn timers_fire_in_deadline_order() {
    let m = machine(
        "machine Call {
            initial state ringing {
                on answer -> talking;
                after 30s -> missed;
            }
            state talking { on hang_up -> over; }
            state missed { after 1m -> over; }
            terminal state over;
        }",
    );
    let v = verdict(&m, Kind::Reachable, "in(over)");
    assert_eq!(moves(&m, &v), ["answer", "hang_up"]);
    let v = verdict(&m, Kind::Never, "in(missed)");
    assert_eq!(moves(&m, &v), ["advance 30000"]);
    assert_eq!(verdict(&m, Kind::Recoverable, "in(over)"), Verdict::Holds);
}

#[test]
fn an_action_that_arms_a_timer_beside_another_leaves_holds_inconclusive() {
    let m = machine(
        "machine Race {
            initial state waiting {
                after 10s -> late;
                initial state a { on go -> b; }
                state b { after 5s -> early; }
            }
            terminal state late;
            terminal state early;
            state never_entered { on back -> late; }
        }",
    );
    let v = verdict(&m, Kind::Never, "in(never_entered)");
    let Verdict::Inconclusive(why) = &v else {
        panic!("{v:?}")
    };
    assert!(why[0].contains("`go`"), "{why:?}");
    // What it finds is real all the same.
    let v = verdict(&m, Kind::Reachable, "in(early)");
    assert_eq!(moves(&m, &v), ["go", "advance 5000"]);
}

#[test]
fn a_recoverable_property_fails_where_no_path_leads_back() {
    let m = machine(
        "machine Door {
            initial state closed { on open -> opened; on lock -> locked; }
            state opened { on close -> closed; }
            state locked { on smash -> broken; }
            terminal state broken;
        }",
    );
    let v = verdict(&m, Kind::Recoverable, "in(closed)");
    // From `locked` only `broken` is ahead.
    assert_eq!(moves(&m, &v), ["lock"]);
}

#[test]
fn the_search_stops_at_its_limit_and_says_so() {
    let m = machine(WRITERS);
    let formula = Formula::parse(&m, "in(a_writing) && in(b_idle) && !in(a_idle)").expect("a formula");
    let options = Options {
        max_states: 2,
        ..Options::default()
    };
    let report = verify(&m, &[Property::new(Kind::Recoverable, formula)], &options).expect("searchable");
    assert_eq!(report.states, 2);
    let Verdict::Inconclusive(why) = &report.verdicts[0] else {
        panic!("{:?}", report.verdicts)
    };
    assert!(
        why.iter().any(|w| w.contains("limit of 2 stored states")),
        "{why:?}"
    );
}

#[test]
fn formulas_name_what_is_wrong() {
    let m = machine(WRITERS);
    let error = |text: &str| Formula::parse(&m, text).expect_err(text).to_string();
    assert_eq!(
        error("in(a_writin)"),
        "machine `Writers` has no state `a_writin` (did you mean `a_writing`?) (at column 4)"
    );
    assert!(error("in(a_idle) &&").contains("found the end of the formula"));
    assert!(error("a_idle").contains("a state is written `in(a_idle)`"));
    assert!(error("in(a_idle))").contains("expected `&&`, `||` or the end"));
    assert!(error(&"!".repeat(10_000)).contains("more than 256"));
    let constant = |text: &str| Formula::parse(&m, text).expect(text).constant(&m);
    assert_eq!(constant("in(a_idle) && in(a_writing)"), Some(false));
    assert_eq!(constant("in(a_idle) || !in(a_idle)"), Some(true));
    assert_eq!(constant("in(a_idle) && !in(team)"), Some(false));
    assert_eq!(constant("in(a_idle) && in(b_idle)"), None);
    let shown = |text: &str| Formula::parse(&m, text).expect(text).display(&m).to_string();
    assert_eq!(
        shown("in(a_idle)&&in(b_idle)&&terminal"),
        "in(a_idle) && in(b_idle) && terminal"
    );
    assert_eq!(
        shown("(in(a_idle)||terminal)&&!(in(b_idle)&&terminal)"),
        "(in(a_idle) || terminal) && !(in(b_idle) && terminal)"
    );
    assert_eq!(
        shown("in(a_idle) || terminal && !terminal"),
        "in(a_idle) || terminal && !terminal"
    );
}
