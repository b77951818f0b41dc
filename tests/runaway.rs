//! Machines whose `always` and `done` transitions can cycle: code generation
//! generates them (it used to refuse them), and the generated code ends
//! each `fire` where the dynamic engine does, or stops with a runaway where
//! it does, in the configuration the last microstep left.

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

fsm_runtime::fsm! {
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
