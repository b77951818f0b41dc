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
//! order, an unknown action name refused as such), the same guards evaluated
//! in the same order (which pins down laziness and "at most once"), and the
//! same state, valid actions and terminal flag afterwards. Between the
//! implementations, it also means the same words: the `Display` of every
//! transition and error.
//!
//! The implementations are [`engine::Engine`]s, listed in
//! [`engines_under_test`]: the generated code (`build.rs` generates every
//! machine) and the dynamic engine, twice: each machine loaded from its
//! file's text, and loaded again from the JSON the first definition exports
//! (which must be the same machine). Snapshots must restore from each of
//! them, and from the reference, into every other, in every state.
//!
//! Every machine is generated, has the model's fingerprint and is loaded by
//! the dynamic engine from its text and its JSON export. The drivers above
//! hand guard values in per step, so they fire the machines whose generated
//! code has the plain `Fire` API ([`plain_subjects`]). Contexts, payloads,
//! effects and timers are compared by [`timed`], on every machine: the
//! generated code, the dynamic engine and a reference interpreter of those
//! rules, running one instrumented context ([`data::Ctx`]), on random actions
//! with payloads interleaved with random clock advances, comparing the step,
//! the state, the next deadline and the context after every step.
//!
//! Steps over configurations (parallel states, `done`, `always`, `in(...)`,
//! history) are held to the independent SCXML reference of
//! `grammar/tests/scxml` here and nowhere else: [`parallel`] on the random
//! machines `build.rs` generates (generated code, the dynamic engine and the
//! reference, snapshots exchanged between the engines), [`random`] on a few
//! hundred more, flat, nested and parallel, that only the dynamic engine
//! runs (built at test time), and [`cases`] pins XState's bug cases in both
//! engines.
//!
//! `PROPTEST_CASES` overrides the number of random sequences per machine and
//! `PROPTEST_RNG_SEED` fixes the seed; `TIMED_RUNS` overrides the number of
//! [`timed`] runs of each machine with timers (512; `TIMED_RUNS=2048` for a
//! longer search).

mod cases;
mod data;
mod dynamic;
mod engine;
mod generated;
mod parallel;
mod random;
mod reference;
mod rules;
mod timed;
mod tree;

// The independent SCXML reference and its random machines, one copy for
// `parallel` and `random` (and `build.rs`, which generates some of them).
#[path = "../../grammar/tests/scxml/mod.rs"]
mod scxml;

use engine::{Engine, Outcome, TestGuards};
use fsm_dynamic::Definition;
use fsm_grammar::model::Machine;
use fsm_tests::{relative_name, workspace_root};
use generated::{generated_for, GeneratedMachine};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reference::Reference;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Arc;

// The `crate::` paths of the types the machines name (`crate::call::CallContext`),
// declared by `build.rs` as the test's own types.
include!(concat!(env!("OUT_DIR"), "/differential_paths.rs"));

/// Random sequences per machine, unless `PROPTEST_CASES` says otherwise.
const CASES: u32 = 256;
/// The longest random sequence.
const MAX_STEPS: usize = 40;
/// Guard assignments tried per (state, action) by the exhaustive one-step
/// test: all of them up to this many guards, this many beyond.
const MAX_ASSIGNMENTS: u64 = 1 << 10;
/// How many disagreements a failing exhaustive test prints.
const SHOWN_FAILURES: usize = 20;

/// One machine: its model, its generated code and its dynamic definition.
struct Subject {
    /// The `.fsm` file, relative to the workspace root.
    file: String,
    machine: Machine,
    generated: &'static GeneratedMachine,
    /// The machine loaded from the file's text by the dynamic engine.
    definition: Arc<Definition>,
    /// The machine loaded from `definition`'s JSON export.
    json_definition: Arc<Definition>,
    /// Names that are not actions of the machine: one unlike any, and, when
    /// the machine has actions, one that only differs from an action in case
    /// (a typo the dynamic engine suggests a correction for).
    unknown_actions: Vec<String>,
}

impl Subject {
    fn title(&self) -> String {
        format!("machine `{}` ({})", self.machine.name, self.file)
    }
}

/// The engines compared with the reference, each holding `subject`'s machine
/// in its initial state.
fn engines_under_test(subject: &Subject) -> Vec<Box<dyn Engine>> {
    let generated = subject
        .generated
        .engine
        .expect("the machines driven with guard values have the plain `Fire` API");
    vec![
        generated(),
        dynamic::engine("dynamic", &subject.definition, &subject.machine),
        dynamic::engine("dynamic (from JSON)", &subject.json_definition, &subject.machine),
    ]
}

/// Every machine of the examples and the ok and warn fixtures, paired with
/// its generated code and loaded by the dynamic engine.
///
/// # Panics
///
/// When a file has errors, when the machines `build.rs` generated are not
/// exactly these, or when the dynamic engine cannot load one, from its text
/// or from its JSON export.
fn subjects() -> Vec<Subject> {
    let files = generated::corpus();
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
            let generated = generated_for(&file, &machine.name);
            assert!(
                machine.guards.len() <= 64,
                "{file}: `{}` has more than 64 guards; widen the guard bits",
                machine.name
            );
            let is_action = |name: &str| machine.actions.iter().any(|a| a.name == name);
            let mut unlike_any = String::from("no_such_action");
            while is_action(&unlike_any) {
                unlike_any.push('_');
            }
            let miscased = machine
                .actions
                .iter()
                .map(|a| a.name.to_uppercase())
                .find(|name| !is_action(name));
            let unknown_actions = [unlike_any].into_iter().chain(miscased).collect();
            let definition = dynamic::definition(&text, &machine.name);
            let json_definition = dynamic::definition_from_json(&definition);
            subjects.push(Subject {
                file: file.clone(),
                definition,
                json_definition,
                machine,
                generated,
                unknown_actions,
            });
        }
    }
    assert_eq!(
        subjects.len(),
        generated::machines_in_corpus(),
        "build.rs generated machines that are not in the examples or the ok and warn fixtures"
    );
    subjects
}

/// The machines of [`subjects`] whose generated code has the plain `Fire`
/// API (no context, payload, effect, delay or timer): those the drivers here
/// fire with guard values handed in per step and snapshot without a context
/// or timers. The others are driven by [`timed`], where the generated code,
/// the dynamic engine and the reference run one instrumented context.
fn plain_subjects() -> Vec<Subject> {
    let subjects: Vec<Subject> = subjects()
        .into_iter()
        .filter(|s| s.generated.engine.is_some())
        .collect();
    assert!(
        subjects.len() > 20,
        "only {} plain machines found",
        subjects.len()
    );
    subjects
}

// ---------------------------------------------------------------------------
// Identity and snapshots
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
fn every_machine_is_loaded_by_the_dynamic_engine_with_the_models_name_and_fingerprint() {
    for subject in &subjects() {
        for (definition, source) in [
            (&subject.definition, "text"),
            (&subject.json_definition, "JSON export"),
        ] {
            let title = subject.title();
            assert_eq!(
                definition.name(),
                subject.machine.name,
                "{title}, from its {source}"
            );
            assert_eq!(
                definition.fingerprint(),
                subject.machine.fingerprint(),
                "{title}: the fingerprint of the dynamic definition from its {source} is not the model's",
            );
        }
    }
}

#[test]
fn snapshots_round_trip_between_engines_in_every_state() {
    for subject in &plain_subjects() {
        let machine = &subject.machine;
        let title = subject.title();
        let mut engines = engines_under_test(subject);
        for engine in &mut engines {
            let kind = engine.kind();
            assert_eq!(
                engine.snapshot(),
                Reference::snapshot_in(machine, &machine.state(machine.initial_leaf()).name),
                "{title}: the {kind} snapshot of a new machine",
            );
            for state in machine.leaves().map(|s| machine.state(s)) {
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
        }
        let state = &machine.state(machine.initial_leaf()).name;
        let refused = [
            snapshot(&format!("{}_other", machine.name), &machine.fingerprint(), state),
            snapshot(&machine.name, "0000000000000000", state),
            snapshot(&machine.name, &machine.fingerprint(), "no_such_state"),
        ];
        for snapshot in refused {
            // Every implementation refuses with the runtime's one
            // `RestoreError`: in the same words.
            let mut refusals: Vec<(&str, String)> = Vec::new();
            for engine in &mut engines {
                let kind = engine.kind();
                let before = engine.state();
                match engine.restore(&snapshot) {
                    Ok(()) => panic!("{title}: the {kind} engine restored {snapshot:?}"),
                    Err(error) => refusals.push((kind, error)),
                }
                assert_eq!(
                    engine.state(),
                    before,
                    "{title}: a refused restore moved the {kind} engine"
                );
            }
            let (first_kind, first) = &refusals[0];
            for (kind, error) in &refusals[1..] {
                assert_eq!(
                    error, first,
                    "{title}: the {kind} and {first_kind} engines refuse {snapshot:?} in different words"
                );
            }
        }
    }
}

#[test]
fn snapshots_restore_from_every_engine_into_every_other_in_every_state() {
    for subject in &plain_subjects() {
        let machine = &subject.machine;
        let title = subject.title();
        let mut engines: Vec<Box<dyn Engine + '_>> = vec![Box::new(Reference::new(machine))];
        engines.extend(engines_under_test(subject));
        for state in machine.leaves().map(|s| machine.state(s)) {
            for writer in 0..engines.len() {
                let written = engines[writer].kind();
                engines[writer]
                    .restore(&Reference::snapshot_in(machine, &state.name))
                    .unwrap_or_else(|e| {
                        panic!(
                            "{title}: the {written} engine cannot restore `{}`: {e}",
                            state.name
                        )
                    });
                let snapshot = engines[writer].snapshot();
                for reader in &mut engines {
                    let kind = reader.kind();
                    if let Err(error) = reader.restore(&snapshot) {
                        panic!(
                            "{title}: the {kind} engine cannot restore the {written} engine's {snapshot:?}: {error}"
                        );
                    }
                    assert_eq!(
                        reader.state(),
                        state.name,
                        "{title}: the {kind} engine's state after restoring the {written} engine's snapshot"
                    );
                    assert_eq!(
                        reader.snapshot(),
                        snapshot,
                        "{title}: the {kind} engine's snapshot after restoring the {written} engine's"
                    );
                }
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
    /// How the engine words the outcome (`None` for the reference).
    text: Option<String>,
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
    let report = engine.fire(action, &guards);
    Observation {
        outcome: report.outcome,
        text: report.text,
        guards_asked: guards
            .calls()
            .into_iter()
            .map(|g| machine.guards[g].name.clone())
            .collect(),
        after: Status::of(engine),
    }
}

/// Whether `subject`'s observation agrees with the reference's, words
/// aside (the reference has none). An engine that cannot be handed an
/// unknown action name at all agrees on everything but the outcome, which it
/// does not have.
fn agrees(reference: &Observation, subject: &Observation) -> bool {
    let outcome = match (&reference.outcome, &subject.outcome) {
        (Outcome::UnknownAction { .. }, Outcome::NotApplicable) => true,
        (expected, actual) => expected == actual,
    };
    outcome && reference.guards_asked == subject.guards_asked && reference.after == subject.after
}

/// When two engines that word their outcomes word one step differently, what
/// each said. `observed` holds each engine's kind and observation of the
/// step; every engine's words are compared with the first's.
fn words_disagreement(machine: &Machine, observed: &[(&str, Observation)]) -> Option<String> {
    let mut worded = observed.iter().filter(|(_, o)| o.text.is_some());
    let (first_kind, first) = worded.next()?;
    worded
        .find(|(_, other)| !words_agree(machine, first, other))
        .map(|(kind, other)| {
            format!(
                "the {first_kind} and {kind} engines word it differently\n    \
                 {first_kind}: {}\n    {kind}: {}",
                first.text.as_deref().unwrap_or_default(),
                other.text.as_deref().unwrap_or_default(),
            )
        })
}

/// Whether two engines word one step the same way. Generated code cannot be
/// handed an unknown name: its words for one are those of parsing it as an
/// `Action`, which the dynamic engine's `UnknownAction` repeats, adding the
/// closest action's name when it is a plausible typo.
fn words_agree(machine: &Machine, a: &Observation, b: &Observation) -> bool {
    let (Some(a_text), Some(b_text)) = (&a.text, &b.text) else {
        return true;
    };
    match (&a.outcome, &b.outcome) {
        (Outcome::NotApplicable, Outcome::UnknownAction { action, .. }) => {
            *b_text == with_suggestion(a_text, machine, action)
        }
        (Outcome::UnknownAction { action, .. }, Outcome::NotApplicable) => {
            *a_text == with_suggestion(b_text, machine, action)
        }
        _ => a_text == b_text,
    }
}

/// `parse_error`, the words of generated code for the unknown action name
/// `action`, followed by the suggestion the dynamic engine adds.
fn with_suggestion(parse_error: &str, machine: &Machine, action: &str) -> String {
    let actions = machine.actions.iter().map(|a| a.name.as_str());
    match fsm_grammar::closest(action, actions) {
        Some(closest) => format!("{parse_error} (did you mean `{closest}`?)"),
        None => parse_error.to_owned(),
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
    let words = match &observation.text {
        Some(text) => format!("\n        in words: {text}"),
        None => String::new(),
    };
    format!(
        "{}{words}\n        guards asked: [{}]\n        then in `{state}`, valid [{}], terminal: {terminal}",
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
    for subject in &plain_subjects() {
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
            .chain(subject.unknown_actions.iter().map(String::as_str));
        for state in machine.leaves().map(|s| machine.state(s)) {
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
                    let mut observed = Vec::new();
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
                        observed.push((engine.kind(), actual));
                    }
                    if let Some(disagreement) = words_disagreement(machine, &observed) {
                        failures.push(format!(
                            "{}: `{action}` in `{}` with guards {}: {disagreement}",
                            subject.title(),
                            state.name,
                            guard_text(machine, &values),
                        ));
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
    "fired an internal transition",
    "fired a self-transition",
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
            from,
            to,
            outputs,
            internal,
            ..
        } => {
            let mut kinds = vec![if from == to {
                "fired to the same state"
            } else {
                "fired to another state"
            }];
            if *internal {
                kinds.push("fired an internal transition");
            } else if from == to {
                kinds.push("fired a self-transition");
            }
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
    Unknown(Index),
}

fn cases() -> impl Strategy<Value = Case> {
    let pick = prop_oneof![
        14 => any::<Index>().prop_map(Pick::Valid),
        5 => any::<Index>().prop_map(Pick::Any),
        1 => any::<Index>().prop_map(Pick::Unknown),
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
            let leaves: Vec<_> = machine.leaves().collect();
            let state = &machine.state(leaves[index.index(leaves.len())]).name;
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
            Pick::Unknown(index) => {
                subject.unknown_actions[index.index(subject.unknown_actions.len())].clone()
            }
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
        let mut observed = Vec::new();
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
            observed.push((engine.kind(), actual));
        }
        if let Some(disagreement) = words_disagreement(machine, &observed) {
            return Err(format!(
                "{}: at step {}, {disagreement}\n{trace}",
                subject.title(),
                number + 1,
            ));
        }
        let _ = writeln!(trace, "       {}", expected.outcome);
    }
    Ok(())
}

/// Any action of the machine, or an unknown name when it has none.
fn any_action(subject: &Subject, index: Index) -> String {
    let actions = &subject.machine.actions;
    if actions.is_empty() {
        subject.unknown_actions[0].clone()
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
    for subject in &plain_subjects() {
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
