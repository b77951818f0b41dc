//! The differential test: every implementation of the `.fsm` semantics must
//! agree with a small reference interpreter ([`reference`]) on every machine
//! of `examples/*.fsm`, `tests/fixtures/ok/*.fsm` and `tests/fixtures/warn/*.fsm`.
//!
//! Two drivers: every (state, action, guard assignment) as one step from a
//! restored snapshot, and random action sequences (proptest) from the initial
//! state or a restored one, with guard values drawn per step or fixed for the
//! run. Agreeing means, after every `fire`: the same outcome with every detail
//! (outputs in order, the valid actions of an `InvalidTransition` in order,
//! the terminal flag, the rejected candidates' guard texts and targets in
//! order), the same guards evaluated in the same order (which pins down
//! laziness and "at most once"), and the same state, valid actions and
//! terminal flag afterwards.
//!
//! The implementations are [`engine::Engine`]s. Today they are the generated
//! code (`build.rs` generates every machine); the dynamic engine plugs in by
//! implementing `Engine` and being added in [`engines_under_test`].
//!
//! `PROPTEST_CASES` overrides the number of random sequences per machine and
//! `PROPTEST_RNG_SEED` fixes the seed.

mod engine;
mod generated;
mod reference;

use engine::{Engine, Outcome, TestGuards};
use fsm_grammar::model::Machine;
use fsm_tests::{example_files, fixtures_dir, fsm_files, relative_name, workspace_root};
use generated::{GeneratedMachine, MACHINES};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reference::Reference;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Random sequences per machine, unless `PROPTEST_CASES` says otherwise.
const CASES: u32 = 256;
/// The longest random sequence.
const MAX_STEPS: usize = 40;
/// Guard assignments tried per (state, action) by the exhaustive one-step
/// test: all of them up to this many guards, this many beyond.
const MAX_ASSIGNMENTS: u64 = 1 << 10;
/// How many disagreements a failing exhaustive test prints.
const SHOWN_FAILURES: usize = 20;

/// One machine, its model and its generated code.
struct Subject {
    /// The `.fsm` file, relative to the workspace root.
    file: String,
    machine: Machine,
    generated: &'static GeneratedMachine,
    /// A name that is not an action of the machine.
    unknown_action: String,
}

impl Subject {
    fn title(&self) -> String {
        format!("machine `{}` ({})", self.machine.name, self.file)
    }
}

/// The engines compared with the reference, each holding `subject`'s machine
/// in its initial state.
fn engines_under_test(subject: &Subject) -> Vec<Box<dyn Engine>> {
    // The dynamic engine (`fsm_runtime::dynamic`) joins here.
    vec![(subject.generated.engine)()]
}

/// Every machine of the examples and the ok and warn fixtures, paired with
/// its generated code.
///
/// # Panics
///
/// When a file has errors, or when the machines `build.rs` generated are not
/// exactly these.
fn subjects() -> Vec<Subject> {
    let mut files: Vec<PathBuf> = example_files();
    files.extend(fsm_files(&fixtures_dir().join("ok")));
    files.extend(fsm_files(&fixtures_dir().join("warn")));
    let mut subjects = Vec::new();
    for path in files {
        let file = relative_name(&path, workspace_root());
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
        let checked = fsm_grammar::check(&text);
        assert!(
            !checked.has_errors(),
            "{file} has errors: {:#?}",
            checked.diagnostics
        );
        for machine in checked.model.machines {
            let generated = MACHINES
                .iter()
                .find(|g| g.file == file && g.machine == machine.name)
                .unwrap_or_else(|| {
                    panic!(
                        "build.rs generated no code for machine `{}` of {file}",
                        machine.name
                    )
                });
            assert!(
                machine.guards.len() <= 64,
                "{file}: `{}` has more than 64 guards; widen the guard bits",
                machine.name
            );
            let mut unknown_action = String::from("no_such_action");
            while machine.actions.iter().any(|a| a.name == unknown_action) {
                unknown_action.push('_');
            }
            subjects.push(Subject {
                file: file.clone(),
                machine,
                generated,
                unknown_action,
            });
        }
    }
    assert_eq!(
        subjects.len(),
        MACHINES.len(),
        "build.rs generated machines that are not in the examples or the ok and warn fixtures"
    );
    subjects
}

// ---------------------------------------------------------------------------
// Generated constants and snapshots
// ---------------------------------------------------------------------------

#[test]
fn every_machine_is_generated_with_the_models_fingerprint() {
    let subjects = subjects();
    assert!(subjects.len() > 20, "only {} machines found", subjects.len());
    for subject in &subjects {
        assert_eq!(
            subject.generated.fingerprint,
            subject.machine.fingerprint(),
            "{}: the generated FINGERPRINT is not the model's fingerprint",
            subject.title()
        );
    }
}

#[test]
fn snapshots_round_trip_between_engines_in_every_state() {
    for subject in &subjects() {
        let machine = &subject.machine;
        for engine in &mut engines_under_test(subject) {
            let kind = engine.kind();
            let title = subject.title();
            assert_eq!(
                engine.snapshot(),
                Reference::snapshot_in(machine, &machine.states[machine.initial.index()].name),
                "{title}: the {kind} snapshot of a new machine",
            );
            for state in &machine.states {
                // A snapshot as the reference writes it restores into the
                // engine, and the engine writes the same one back.
                let snapshot = Reference::snapshot_in(machine, &state.name);
                if let Err(error) = engine.restore(&snapshot) {
                    panic!("{title}: the {kind} engine cannot restore {snapshot:?}: {error}");
                }
                assert_eq!(
                    engine.state(),
                    state.name,
                    "{title}: {kind} state after restoring"
                );
                assert_eq!(
                    engine.snapshot(),
                    snapshot,
                    "{title}: {kind} snapshot after restoring"
                );
            }
            let before = engine.state();
            let state = &machine.states[0].name;
            let refused = [
                snapshot(&format!("{}_other", machine.name), &machine.fingerprint(), state),
                snapshot(&machine.name, "0000000000000000", state),
                snapshot(&machine.name, &machine.fingerprint(), "no_such_state"),
            ];
            for snapshot in refused {
                assert!(
                    engine.restore(&snapshot).is_err(),
                    "{title}: the {kind} engine restored {snapshot:?}"
                );
                assert_eq!(
                    engine.state(),
                    before,
                    "{title}: a refused restore moved the {kind} engine"
                );
            }
        }
    }
}

fn snapshot(machine: &str, fingerprint: &str, state: &str) -> fsm_runtime::Snapshot {
    fsm_runtime::Snapshot::new(machine.to_owned(), fingerprint.to_owned(), state.to_owned())
}

// ---------------------------------------------------------------------------
// Firing
// ---------------------------------------------------------------------------

/// Everything observable about one `fire`.
#[derive(Debug, PartialEq, Eq)]
struct Observation {
    outcome: Outcome,
    /// The guards evaluated, by name, in order.
    guards_asked: Vec<String>,
    /// What the engine says afterwards.
    after: Status,
}

/// An engine's current state, its valid actions and whether it is terminal.
#[derive(Debug, PartialEq, Eq)]
struct Status {
    state: String,
    valid: Vec<String>,
    terminal: bool,
}

impl Status {
    fn of(engine: &dyn Engine) -> Self {
        Status {
            state: engine.state(),
            valid: engine.valid_actions(),
            terminal: engine.is_terminal(),
        }
    }
}

fn fire(machine: &Machine, engine: &mut dyn Engine, action: &str, values: &[bool]) -> Observation {
    let guards = TestGuards::new(values.to_vec());
    let outcome = engine.fire(action, &guards);
    Observation {
        outcome,
        guards_asked: guards
            .calls()
            .into_iter()
            .map(|g| machine.guards[g].name.clone())
            .collect(),
        after: Status::of(engine),
    }
}

/// Whether `subject`'s observation agrees with the reference's. An engine
/// that cannot be handed an unknown action name at all agrees on everything
/// but the outcome, which it does not have.
fn agrees(reference: &Observation, subject: &Observation) -> bool {
    match (&reference.outcome, &subject.outcome) {
        (Outcome::UnknownAction { .. }, Outcome::NotApplicable) => {
            reference.guards_asked == subject.guards_asked && reference.after == subject.after
        }
        _ => reference == subject,
    }
}

/// Which parts of two observations differ, for the first line of a report.
fn differences(reference: &Observation, subject: &Observation) -> String {
    let mut parts = Vec::new();
    if reference.outcome != subject.outcome && subject.outcome != Outcome::NotApplicable {
        parts.push("the outcome");
    }
    if reference.guards_asked != subject.guards_asked {
        parts.push("the guards asked");
    }
    if reference.after != subject.after {
        parts.push("the state, valid actions or terminal flag afterwards");
    }
    parts.join(", ")
}

fn describe(observation: &Observation) -> String {
    let Status {
        state,
        valid,
        terminal,
    } = &observation.after;
    format!(
        "{}\n        guards asked: [{}]\n        then in `{state}`, valid [{}], terminal: {terminal}",
        observation.outcome,
        observation.guards_asked.join(", "),
        valid.join(", ")
    )
}

fn guard_text(machine: &Machine, values: &[bool]) -> String {
    let pairs: Vec<String> = machine
        .guards
        .iter()
        .zip(values)
        .map(|(g, v)| format!("{}={}", g.name, u8::from(*v)))
        .collect();
    format!("{{{}}}", pairs.join(" "))
}

fn bits(mask: u64, count: usize) -> Vec<bool> {
    (0..count).map(|i| mask >> i & 1 == 1).collect()
}

// ---------------------------------------------------------------------------
// Every state, every action, every guard assignment: one step
// ---------------------------------------------------------------------------

#[test]
fn engines_agree_with_the_reference_on_every_single_step() {
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    for subject in &subjects() {
        let machine = &subject.machine;
        let guard_count = machine.guards.len();
        let assignments = if guard_count < 10 {
            1u64 << guard_count
        } else {
            MAX_ASSIGNMENTS
        };
        let actions = machine
            .actions
            .iter()
            .map(|a| a.name.as_str())
            .chain([subject.unknown_action.as_str()]);
        for state in &machine.states {
            let start = Reference::snapshot_in(machine, &state.name);
            for action in actions.clone() {
                for assignment in 0..assignments {
                    // Beyond 10 guards, spread the assignments over all bits.
                    let mask = if guard_count < 10 {
                        assignment
                    } else {
                        assignment.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    };
                    let values = bits(mask, guard_count);
                    let mut reference = Reference::new(machine);
                    reference
                        .restore(&start)
                        .expect("the reference restores its own snapshot");
                    let expected = fire(machine, &mut reference, action, &values);
                    seen.extend(outcome_kind(&expected.outcome));
                    for mut engine in engines_under_test(subject) {
                        engine.restore(&start).unwrap_or_else(|e| {
                            panic!(
                                "{}: {} cannot restore {start:?}: {e}",
                                subject.title(),
                                engine.kind()
                            )
                        });
                        let actual = fire(machine, engine.as_mut(), action, &values);
                        if !agrees(&expected, &actual) {
                            failures.push(format!(
                                "{}: `{action}` in `{}` with guards {}: the {} engine differs in {}\n    \
                                 reference: {}\n    {}: {}",
                                subject.title(),
                                state.name,
                                guard_text(machine, &values),
                                engine.kind(),
                                differences(&expected, &actual),
                                describe(&expected),
                                engine.kind(),
                                describe(&actual),
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements with the reference; the first {}:\n\n{}",
        failures.len(),
        failures.len().min(SHOWN_FAILURES),
        failures[..failures.len().min(SHOWN_FAILURES)].join("\n\n")
    );
    // The corpus must exercise every rule, or agreeing proves little.
    let missing: Vec<&str> = OUTCOME_KINDS
        .iter()
        .copied()
        .filter(|k| !seen.contains(k))
        .collect();
    assert!(
        missing.is_empty(),
        "no machine produced these outcomes: {missing:?}"
    );
}

/// What [`outcome_kind`] calls the outcomes the corpus must produce.
const OUTCOME_KINDS: &[&str] = &[
    "fired to another state",
    "fired to the same state",
    "fired with outputs",
    "invalid transition",
    "invalid transition in a terminal state",
    "guard rejected",
    "guard rejected with several candidates",
    "unknown action",
];

fn outcome_kind(outcome: &Outcome) -> Vec<&'static str> {
    match outcome {
        Outcome::Fired {
            from, to, outputs, ..
        } => {
            let mut kinds = vec![if from == to {
                "fired to the same state"
            } else {
                "fired to another state"
            }];
            if !outputs.is_empty() {
                kinds.push("fired with outputs");
            }
            kinds
        }
        Outcome::InvalidTransition { terminal: false, .. } => vec!["invalid transition"],
        Outcome::InvalidTransition { terminal: true, .. } => vec!["invalid transition in a terminal state"],
        Outcome::GuardRejected { candidates, .. } if candidates.len() > 1 => {
            vec!["guard rejected", "guard rejected with several candidates"]
        }
        Outcome::GuardRejected { .. } => vec!["guard rejected"],
        Outcome::UnknownAction { .. } => vec!["unknown action"],
        Outcome::NotApplicable => Vec::new(),
    }
}

// ---------------------------------------------------------------------------
// Random sequences
// ---------------------------------------------------------------------------

/// One random run of a machine.
#[derive(Clone, Debug)]
struct Case {
    /// Where it starts: the initial state, or a state restored from a
    /// snapshot (which reaches states no sequence from the initial one does).
    start: Option<Index>,
    /// Whether the guard values are drawn per step or fixed for the run.
    guards: GuardMode,
    steps: Vec<Step>,
}

#[derive(Clone, Copy, Debug)]
enum GuardMode {
    PerStep,
    /// Guard `i` is bit `i`.
    Fixed(u64),
}

#[derive(Clone, Copy, Debug)]
struct Step {
    pick: Pick,
    /// The guard values when drawn per step: guard `i` is bit `i`.
    guards: u64,
}

/// How the action of a step is chosen, so that runs go deep into the
/// machine rather than bounce off invalid actions.
#[derive(Clone, Copy, Debug)]
enum Pick {
    /// One of the actions valid in the current state (any action if none is).
    Valid(Index),
    /// Any action of the machine.
    Any(Index),
    /// A name that is not an action of the machine.
    Unknown,
}

fn cases() -> impl Strategy<Value = Case> {
    let pick = prop_oneof![
        14 => any::<Index>().prop_map(Pick::Valid),
        5 => any::<Index>().prop_map(Pick::Any),
        1 => Just(Pick::Unknown),
    ];
    let step = (pick, any::<u64>()).prop_map(|(pick, guards)| Step { pick, guards });
    let mode = prop_oneof![Just(GuardMode::PerStep), any::<u64>().prop_map(GuardMode::Fixed)];
    (
        prop::option::of(any::<Index>()),
        mode,
        prop::collection::vec(step, 0..=MAX_STEPS),
    )
        .prop_map(|(start, guards, steps)| Case { start, guards, steps })
}

/// Run `case` on the reference and every engine in lockstep; on the first
/// disagreement, the whole run so far as readable text.
fn run(subject: &Subject, case: &Case) -> Result<(), String> {
    let machine = &subject.machine;
    let mut reference = Reference::new(machine);
    let mut engines = engines_under_test(subject);
    let mut trace = String::new();
    match case.start {
        None => {
            let _ = writeln!(trace, "    start in `{}` (initial)", reference.state());
        }
        Some(index) => {
            let state = &machine.states[index.index(machine.states.len())].name;
            let snapshot = Reference::snapshot_in(machine, state);
            let _ = writeln!(trace, "    start in `{state}` (restored from a snapshot)");
            reference.restore(&snapshot)?;
            for engine in &mut engines {
                engine
                    .restore(&snapshot)
                    .map_err(|e| format!("the {} engine cannot restore {snapshot:?}: {e}", engine.kind()))?;
            }
        }
    }
    let expected = Status::of(&reference);
    for engine in &engines {
        let actual = Status::of(engine.as_ref());
        if actual != expected {
            return Err(format!(
                "{}: the {} engine starts elsewhere:\n{trace}    reference: {expected:?}\n    {}: {actual:?}",
                subject.title(),
                engine.kind(),
                engine.kind()
            ));
        }
    }
    for (number, step) in case.steps.iter().enumerate() {
        let action = match step.pick {
            Pick::Valid(index) => {
                let valid = reference.valid_actions();
                if valid.is_empty() {
                    any_action(subject, index)
                } else {
                    valid[index.index(valid.len())].clone()
                }
            }
            Pick::Any(index) => any_action(subject, index),
            Pick::Unknown => subject.unknown_action.clone(),
        };
        let mask = match case.guards {
            GuardMode::PerStep => step.guards,
            GuardMode::Fixed(mask) => mask,
        };
        let values = bits(mask, machine.guards.len());
        let _ = writeln!(
            trace,
            "    {}. fire `{action}` with guards {}",
            number + 1,
            guard_text(machine, &values)
        );
        let expected = fire(machine, &mut reference, &action, &values);
        for engine in &mut engines {
            let actual = fire(machine, engine.as_mut(), &action, &values);
            if !agrees(&expected, &actual) {
                return Err(format!(
                    "{}: the {} engine disagrees with the reference at step {} in {}:\n{trace}\
                     \n    reference: {}\n    {}: {}\n",
                    subject.title(),
                    engine.kind(),
                    number + 1,
                    differences(&expected, &actual),
                    describe(&expected),
                    engine.kind(),
                    describe(&actual),
                ));
            }
        }
        let _ = writeln!(trace, "       {}", expected.outcome);
    }
    Ok(())
}

/// Any action of the machine, or the unknown name when it has none.
fn any_action(subject: &Subject, index: Index) -> String {
    let actions = &subject.machine.actions;
    if actions.is_empty() {
        subject.unknown_action.clone()
    } else {
        actions[index.index(actions.len())].name.clone()
    }
}

#[test]
fn engines_agree_with_the_reference_on_random_sequences() {
    let mut config = Config {
        failure_persistence: None,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = CASES;
    }
    let mut failures = Vec::new();
    for subject in &subjects() {
        let mut runner = TestRunner::new(config.clone());
        let result = runner.run(&cases(), |case| run(subject, &case).map_err(TestCaseError::fail));
        if let Err(error) = result {
            failures.push(error.to_string());
        }
    }
    assert!(
        failures.is_empty(),
        "{} machines disagree with the reference:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
