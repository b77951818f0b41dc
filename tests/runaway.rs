//! Machines whose `always` and `done` transitions can cycle: code generation
//! generates them (it used to refuse them), and the generated code ends
//! each `fire` where the dynamic engine does, or stops with a runaway where
//! it does, in the configuration the last microstep left. Its outputs hold
//! what a `fire` taking no `always` or `done` transition twice emits: one
//! that emits more keeps the first and counts the rest. A refusal over
//! configurations lists the candidates its active leaves tried, as the
//! dynamic engine's does.

use fsm_dynamic::{Definition, EngineBuilder, FireError as DynamicError};
use fsm_runtime::FireError;

/// A guarded two-state cycle, without parallel states.
const CYCLE: &str = "machine Cycle {
    initial state idle { on go -> a; }
    state a { always [ready] -> b; always -> finished; }
    state b { always [ready] -> a; }
    terminal state finished;
}";

/// A retry that re-enters a parallel state: its `done` cannot fire again in
/// the same `fire`.
const RETRY: &str = "machine Retry {
    initial state idle { on go -> work; }
    parallel state work {
        done -> decide;
        state a { initial state a1 { on x -> a2; } final state a2; }
        state b { initial state b1 { on y -> b2; } final state b2; }
    }
    state decide { always [again] priority 1 -> work; always -> finished; }
    terminal state finished;
}";

/// Regions, history and guarded `always` transitions.
const REGIONS: &str = "machine Regions {
    initial state idle { on go -> p; }
    parallel state p {
        on out -> q;
        state r1 { initial state x1 { always [spin] -> x2; } state x2 { always [spin] -> x1; } }
        state r2 { initial state y1 { on hop -> y2; } state y2 { on hop -> y1; } }
    }
    state q { on back -> p.deep_history; always [spin] -> p.deep_history; }
}";

/// A guarded cycle that emits on every turn: its outputs hold what a `fire`
/// taking no `always` transition twice emits, not what 1,000 microsteps do.
const TICKER: &str = "machine Ticker {
    initial state idle { on go -> a; }
    state a { enter emit tick; always [ready] -> b emit looped; always -> finished; }
    state b { always [ready] -> a; }
    terminal state finished;
}";

/// Guarded candidates in two regions and on the parallel state holding them.
const GATE: &str = "machine Gate {
    initial state idle { on go -> p; }
    parallel state p {
        on push [strong] -> done;
        state r1 { initial state a1 { on push [left] -> a2; } state a2 { on push [right] -> a1; } }
        state r2 { initial state b1 { on push [up] -> b2; } state b2 { on pull -> b1; } }
    }
    terminal state done;
}";

fsm_runtime::fsm! {
    machine Gate {
        initial state idle { on go -> p; }
        parallel state p {
            on push [strong] -> done;
            state r1 { initial state a1 { on push [left] -> a2; } state a2 { on push [right] -> a1; } }
            state r2 { initial state b1 { on push [up] -> b2; } state b2 { on pull -> b1; } }
        }
        terminal state done;
    }

    #[allow(guarded-cycle)]
    machine Ticker {
        initial state idle { on go -> a; }
        state a { enter emit tick; always [ready] -> b emit looped; always -> finished; }
        state b { always [ready] -> a; }
        terminal state finished;
    }

    #[allow(guarded-cycle)]
    machine Cycle {
        initial state idle { on go -> a; }
        state a { always [ready] -> b; always -> finished; }
        state b { always [ready] -> a; }
        terminal state finished;
    }

    machine Retry {
        initial state idle { on go -> work; }
        parallel state work {
            done -> decide;
            state a { initial state a1 { on x -> a2; } final state a2; }
            state b { initial state b1 { on y -> b2; } final state b2; }
        }
        state decide { always [again] priority 1 -> work; always -> finished; }
        terminal state finished;
    }

    #[allow(guarded-cycle)]
    machine Regions {
        initial state idle { on go -> p; }
        parallel state p {
            on out -> q;
            state r1 { initial state x1 { always [spin] -> x2; } state x2 { always [spin] -> x1; } }
            state r2 { initial state y1 { on hop -> y2; } state y2 { on hop -> y1; } }
        }
        state q { on back -> p.deep_history; always [spin] -> p.deep_history; }
    }
}

/// Every guard answers `self.0`.
struct All(bool);

impl cycle::Guards for All {
    fn ready(&self) -> bool {
        self.0
    }
}

impl retry::Guards for All {
    fn again(&self) -> bool {
        self.0
    }
}

impl regions::Guards for All {
    fn spin(&self) -> bool {
        self.0
    }
}

/// What one `fire` came to: the active leaves afterwards (`, `-separated),
/// and whether it ran away.
type Outcome = (String, bool);

/// The dynamic engine's outcomes of `actions` on `text`, every guard
/// answering `value`.
fn dynamic(text: &str, guards: &[&str], value: bool, actions: &[&str]) -> Vec<Outcome> {
    let definition = Definition::from_fsm(text).expect("checks");
    let mut builder = EngineBuilder::new(definition);
    for guard in guards {
        builder = builder.guard(guard, move |_| value);
    }
    let engine = builder.build().expect("binds");
    actions
        .iter()
        .map(|action| {
            let runaway = match engine.fire(action, &serde_json::Value::Null) {
                Ok(_) => false,
                Err(DynamicError::Runaway(e)) => {
                    // A real cycle, named by its states.
                    assert!(!e.cycle().is_empty(), "{e}");
                    true
                }
                // Not valid where the machine stopped: in both engines.
                Err(DynamicError::InvalidTransition(_)) => false,
                Err(e) => panic!("{e}"),
            };
            (engine.configuration_names().join(", "), runaway)
        })
        .collect()
}

macro_rules! generated {
    ($module:ident, $machine:ident, $value:expr, [$($action:ident),*]) => {{
        let mut machine = $module::$machine::new();
        let guards = All($value);
        vec![$({
            let runaway = match machine.fire($module::Action::$action, &guards) {
                Ok(_) => false,
                Err(FireError::Runaway(e)) => {
                    assert_eq!(e.state(), machine.configuration(), "it stops where the last microstep left it");
                    true
                }
                Err(FireError::InvalidTransition(_)) => false,
                Err(e) => panic!("{e}"),
            };
            (machine.configuration().to_string(), runaway)
        }),*]
    }};
}

#[test]
fn a_guarded_two_state_cycle_runs_away_or_settles_as_in_the_dynamic_engine() {
    for value in [false, true] {
        let expected = dynamic(CYCLE, &["ready"], value, &["go"]);
        assert_eq!(generated!(cycle, Cycle, value, [Go]), expected, "ready = {value}");
        assert_eq!(expected[0].1, value);
    }
}

#[test]
fn a_retry_through_a_parallel_state_generates_and_settles() {
    for value in [false, true] {
        let expected = dynamic(RETRY, &["again"], value, &["go", "x", "y"]);
        assert_eq!(
            generated!(retry, Retry, value, [Go, X, Y]),
            expected,
            "again = {value}"
        );
        assert!(expected.iter().all(|(_, runaway)| !runaway));
    }
}

#[test]
fn regions_with_history_and_guarded_always_run_away_or_settle_as_in_the_dynamic_engine() {
    for value in [false, true] {
        let expected = dynamic(REGIONS, &["spin"], value, &["go", "hop", "out", "back"]);
        let got = generated!(regions, Regions, value, [Go, Hop, Out, Back]);
        assert_eq!(got, expected, "spin = {value}");
        assert_eq!(expected[0].1, value, "`go` runs away while `spin` holds");
    }
}

/// `ready` holds for its first `turns` answers.
struct Turns {
    turns: usize,
    asked: std::cell::Cell<usize>,
}

impl ticker::Guards for Turns {
    fn ready(&self) -> bool {
        self.asked.set(self.asked.get() + 1);
        self.asked.get() <= self.turns
    }
}

/// What `go` came to in one engine: the active leaves, whether it ran away
/// (or, in generated code, overflowed), whether it settled, the outputs
/// kept and how many were emitted.
#[derive(Debug, PartialEq, Eq)]
struct Ticked {
    leaves: String,
    error: Option<bool>,
    outputs: Vec<String>,
    emitted: usize,
}

fn ticked_dynamic(turns: usize) -> Ticked {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let asked = std::sync::Arc::new(AtomicUsize::new(0));
    let definition = Definition::from_fsm(TICKER).expect("checks");
    let engine = EngineBuilder::new(definition)
        .guard("ready", move |_| asked.fetch_add(1, Ordering::SeqCst) < turns)
        .build()
        .expect("binds");
    let (error, outputs): (Option<bool>, Vec<String>) = match engine.fire("go", &serde_json::Value::Null) {
        Ok(fired) => (None, fired.output_names().map(str::to_owned).collect()),
        Err(DynamicError::Runaway(e)) => (
            Some(false),
            e.outputs()
                .iter()
                .map(|&o| e.definition().output_name(o).to_owned())
                .collect(),
        ),
        Err(e) => panic!("{e}"),
    };
    Ticked {
        leaves: engine.configuration_names().join(", "),
        error,
        emitted: outputs.len(),
        outputs,
    }
}

fn ticked_generated(turns: usize) -> (Ticked, String) {
    let mut machine = ticker::Ticker::new();
    let guards = Turns {
        turns,
        asked: std::cell::Cell::new(0),
    };
    let names = |outputs: &[ticker::Output]| outputs.iter().map(|o| o.name().to_owned()).collect();
    let (error, outputs, emitted, message) = match machine.fire(ticker::Action::Go, &guards) {
        Ok(fired) => {
            assert_eq!(fired.outputs.overflow(), 0);
            (None, names(&fired.outputs), fired.outputs.len(), String::new())
        }
        Err(FireError::Runaway(e)) => {
            assert_eq!(
                e.state(),
                machine.configuration(),
                "it stops where the last microstep left it"
            );
            assert_eq!(e.outputs().emitted(), e.emitted());
            assert_eq!(e.outputs().overflow(), e.emitted() - e.outputs().len());
            (Some(e.settled()), names(&e.outputs()), e.emitted(), e.to_string())
        }
        Err(e) => panic!("{e}"),
    };
    let leaves = machine.configuration().to_string();
    let ticked = Ticked {
        leaves: leaves.trim_matches(['[', ']']).replace('`', ""),
        error,
        outputs,
        emitted,
    };
    (ticked, message)
}

#[test]
fn a_cycle_that_emits_keeps_the_first_outputs_its_list_holds_and_counts_the_rest() {
    // Ticker's outputs hold `go`'s step and each `always` once: 2 × 4.
    const HELD: usize = 8;
    let size = std::mem::size_of::<fsm_runtime::Fired<ticker::Ticker>>();
    println!("size_of::<Fired<Ticker>>() = {size}");
    assert!(size < 64, "{size} bytes: sized for the runaway bound");
    for turns in [0, 3, 6, 7, 10, 2000] {
        let expected = ticked_dynamic(turns);
        let (got, message) = ticked_generated(turns);
        // The same leaves, and the outputs the generated list holds are the
        // first the dynamic engine emitted; the count is all of them.
        assert_eq!(got.leaves, expected.leaves, "turns = {turns}");
        assert_eq!(got.emitted, expected.emitted, "turns = {turns}");
        assert_eq!(
            got.outputs[..],
            expected.outputs[..got.outputs.len()],
            "turns = {turns}"
        );
        assert_eq!(got.outputs.len(), expected.emitted.min(HELD), "turns = {turns}");
        match (expected.error, got.error) {
            // Both ran away: 1 + 1,000 outputs, 8 kept.
            (Some(false), Some(false)) => {
                assert_eq!(expected.emitted, 1001);
                assert!(
                    message.contains("after emitting 1001 outputs, of which the first 8 were kept"),
                    "{message}"
                );
            }
            // Settled within the bound, more outputs than the list holds.
            (None, Some(true)) => {
                assert!(expected.emitted > HELD, "turns = {turns}");
                assert!(
                    message.contains("more than the 8 its machine's outputs hold"),
                    "{message}"
                );
                assert!(message.ends_with("settled in `finished`"), "{message}");
            }
            // Both settled, every output kept.
            (None, None) => assert!(expected.emitted <= HELD, "turns = {turns}"),
            other => panic!("turns = {turns}: {other:?}"),
        }
    }
}

/// `up` holds; every other guard is false.
struct Up;

impl gate::Guards for Up {
    fn strong(&self) -> bool {
        false
    }
    fn left(&self) -> bool {
        false
    }
    fn right(&self) -> bool {
        false
    }
    fn up(&self) -> bool {
        true
    }
}

#[test]
fn a_refusal_over_configurations_lists_the_candidates_its_active_leaves_tried() {
    use gate::{Action, Gate};
    let definition = Definition::from_fsm(GATE).expect("checks");
    let engine = EngineBuilder::new(definition)
        .guard("up", |_| true)
        .guard("strong", |_| false)
        .guard("left", |_| false)
        .guard("right", |_| false)
        .build()
        .expect("binds");
    let mut machine = Gate::new();
    // `push` in `a1, b1` (b1 moves, by `up`), then in `a1, b2` (refused:
    // `left` and `strong` tried), then `pull` back to `b1`.
    for action in [Action::Go, Action::Push, Action::Push, Action::Pull, Action::Go] {
        let dynamic = match engine.fire(action.name(), &serde_json::Value::Null) {
            Ok(_) => None,
            Err(DynamicError::GuardRejected(e)) => {
                let d = engine.definition();
                Some(
                    e.candidates()
                        .map(|c| {
                            (
                                c.guard().to_owned(),
                                c.target().map(|s| d.state_name(s).to_owned()),
                            )
                        })
                        .collect::<Vec<_>>(),
                )
            }
            Err(DynamicError::InvalidTransition(_)) => Some(Vec::new()),
            Err(e) => panic!("{e}"),
        };
        let generated = match machine.fire(action, &Up) {
            Ok(_) => None,
            Err(FireError::GuardRejected(e)) => {
                assert!(!e.candidates().is_empty(), "{e}");
                Some(
                    e.candidates()
                        .iter()
                        .map(|c| (c.guard().to_owned(), c.target().map(str::to_owned)))
                        .collect::<Vec<_>>(),
                )
            }
            Err(FireError::InvalidTransition(_)) => Some(Vec::new()),
            Err(e) => panic!("{e}"),
        };
        assert_eq!(generated, dynamic, "{action:?}");
    }
    let mut refused = Gate::new();
    refused.fire(Action::Go, &Up).unwrap();
    refused.fire(Action::Push, &Up).unwrap();
    let error = refused.fire(Action::Push, &Up).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `push` rejected in configuration [`a1`, `b2`]: guard `left` was false (-> a2), \
         guard `strong` was false (-> done)"
    );
}

#[test]
fn an_unguarded_chain_past_the_bound_is_a_check_error() {
    let mut text = String::from("machine M { initial state idle { on go -> s0; } ");
    for i in 0..1100 {
        text.push_str(&format!("state s{i} {{ always -> s{}; }} ", i + 1));
    }
    text.push_str("terminal state s1100; }");
    let checked = fsm_grammar::check(&text);
    assert!(checked
        .diagnostics
        .iter()
        .any(|d| d.code == fsm_grammar::Code::ChainTooLong && d.message.contains("1,100")));
    let warned = fsm_grammar::check(CYCLE);
    assert!(warned
        .diagnostics
        .iter()
        .any(|d| d.code == fsm_grammar::Code::GuardedCycle));
}
