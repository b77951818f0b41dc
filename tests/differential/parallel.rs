//! Machines with parallel states: their generated code, the dynamic engine
//! and the independent SCXML reference of `grammar/tests/scxml` (written
//! from W3C SCXML 1.0, Appendix D, and docs/dsl.md, not from the plan) on
//! random action sequences with random guard values. After every `fire`,
//! the generated code and the dynamic engine agree on everything: the
//! configuration before and after, the outputs in order, whether the step
//! moved, the kind
//! of a refusal and the valid actions it lists, and the valid actions and
//! the terminal flag afterwards. Where the machine is one of the reference's
//! random machines (each state emits `in_sK` when entered and `out_sK` when
//! left), the reference agrees on every state exited and entered, in order,
//! and on the configuration.
//!
//! Machines with timers (the random `timers_N` machines and the examples) run
//! on one manual clock: between actions, time passes by random amounts and
//! both fire what came due; every timer's step (or rejection), its deadline,
//! and the next deadline after every step must agree.
//!
//! Machines over a context (the random `data_N` machines: effects on
//! transitions, timers and hooks, a guard and an effect that read `a`'s
//! payload, named delays) run the instrumented context of `data.rs` in both
//! engines, whose guards and delays hash everything the effects did: after
//! every step the two contexts must be equal. Those with payloads and no
//! context take the drawn guard values, a guard that reads the payload
//! flipping on odd ones.
//!
//! Every few steps both engines take a snapshot: the two are the same JSON
//! (armed timers and the context included), and each engine goes on from
//! the other's snapshot (the cross-engine round trip).

use crate::data::Ctx;
use crate::engine::TestGuards;
use crate::scxml::{Reference, Rng};
use fsm_dynamic::{Definition, Engine, FireError};
use fsm_runtime::{ManualClock, Timestamp};
use fsm_tests::{relative_name, workspace_root};
use serde_json::Value;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// What one `fire` did, in names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// It fired.
    Fired {
        /// The active leaves before.
        from: Vec<String>,
        /// The active leaves after.
        to: Vec<String>,
        /// The outputs, in order.
        outputs: Vec<String>,
        /// True when no state was exited or entered.
        internal: bool,
    },
    /// It was refused.
    Refused {
        /// Some leaf had candidates, and no guard held.
        guarded: bool,
        /// The valid actions the error lists.
        valid: Vec<String>,
    },
}

/// What one due timer did, in names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimerStep {
    /// Its step was taken.
    Fired {
        /// The active leaves before.
        from: Vec<String>,
        /// The active leaves after.
        to: Vec<String>,
        /// The state that declares it.
        declared_in: String,
        /// Its index among that state's timers.
        timer: u32,
        /// Its deadline.
        due: Timestamp,
        /// The outputs, in order.
        outputs: Vec<String>,
        /// True when no state was exited or entered.
        internal: bool,
    },
    /// No guard of its group held.
    Rejected {
        /// The active leaves.
        leaves: Vec<String>,
        /// The state that declares the group.
        declared_in: String,
        /// The index of the group's first timer.
        timer: u32,
        /// Its deadline.
        due: Timestamp,
    },
}

/// A generated machine with parallel states, as `build.rs` adapts it.
pub trait ParallelEngine {
    /// The active leaves, in document order.
    fn leaves(&self) -> Vec<String>;
    /// The actions some active leaf takes.
    fn valid_actions(&self) -> Vec<String>;
    /// True in a top-level terminal state.
    fn is_terminal(&self) -> bool;
    /// Fire `action` with `guards` (a machine with a context reads its
    /// own), its payload built from `payload` when it carries one.
    fn fire(&mut self, action: &str, payload: u64, guards: &TestGuards) -> Step;
    /// Its context, when it has one.
    fn context(&self) -> Option<Ctx> {
        None
    }
    /// Its snapshot.
    fn snapshot(&self) -> fsm_runtime::Snapshot;
    /// Go on from `snapshot`.
    fn restore(&mut self, snapshot: &fsm_runtime::Snapshot) -> Result<(), String>;
    /// When its next timer is due.
    fn next_deadline(&self) -> Option<Timestamp> {
        None
    }
    /// Fire every due timer with `guards`.
    fn fire_due(&mut self, guards: &TestGuards) -> Vec<TimerStep> {
        let _ = guards;
        Vec::new()
    }
}

/// A row of `PARALLEL`.
pub struct ParallelMachine {
    /// The `.fsm` file, relative to the workspace root.
    pub file: &'static str,
    /// The machine's name.
    pub machine: &'static str,
    /// The generated `FINGERPRINT`.
    pub fingerprint: &'static str,
    /// A new machine in its initial configuration, on `clock` when it has
    /// timers.
    pub new: fn(&ManualClock) -> Box<dyn ParallelEngine>,
}

/// The names of `ids`.
fn names(definition: &Definition, ids: &[fsm_dynamic::StateId]) -> Vec<String> {
    ids.iter().map(|&s| definition.state_name(s).to_owned()).collect()
}

/// The dynamic engine's `fire`, as a [`Step`].
fn dynamic_fire(engine: &Engine<Ctx>, definition: &Definition, action: &str, payload: &Value) -> Step {
    let names = |ids: &[fsm_dynamic::StateId]| names(definition, ids);
    match engine.fire(action, payload) {
        Ok(fired) => Step::Fired {
            from: names(fired.from_leaves()),
            to: names(fired.to_leaves()),
            outputs: fired.output_names().map(str::to_owned).collect(),
            internal: fired.internal,
        },
        Err(FireError::InvalidTransition(e)) => Step::Refused {
            guarded: false,
            valid: e
                .valid()
                .iter()
                .map(|&a| definition.action_name(a).to_owned())
                .collect(),
        },
        Err(FireError::GuardRejected(_)) => Step::Refused {
            guarded: true,
            valid: engine
                .valid_actions()
                .iter()
                .map(|&a| definition.action_name(a).to_owned())
                .collect(),
        },
        Err(e) => panic!("the dynamic engine: {e}"),
    }
}

/// The dynamic engine's `fire_due`, as [`TimerStep`]s.
fn dynamic_fire_due(engine: &Engine<Ctx>, definition: &Definition) -> Vec<TimerStep> {
    let names = |ids: &[fsm_dynamic::StateId]| names(definition, ids);
    engine
        .fire_due()
        .into_iter()
        .map(|outcome| match outcome {
            Ok(fired) => TimerStep::Fired {
                from: names(fired.from_leaves()),
                to: names(fired.to_leaves()),
                declared_in: fired.declared_in_name().to_owned(),
                timer: fired.timer as u32,
                due: fired.due,
                outputs: fired.output_names().map(str::to_owned).collect(),
                internal: fired.internal,
            },
            Err(rejected) => TimerStep::Rejected {
                leaves: names(rejected.leaves()),
                declared_in: rejected.declared_in_name().to_owned(),
                timer: rejected.timer as u32,
                due: rejected.due,
            },
        })
        .collect()
}

/// `in_s3` as the reference writes an entry (`+s3`), `out_s3` as an exit.
fn moves(outputs: &[String]) -> Vec<String> {
    outputs
        .iter()
        .map(|o| match (o.strip_prefix("in_"), o.strip_prefix("out_")) {
            (Some(state), _) => format!("+{state}"),
            (_, Some(state)) => format!("-{state}"),
            _ => panic!("only hooks emit in the reference's machines: {o}"),
        })
        .collect()
}

#[test]
fn generated_code_the_dynamic_engine_and_the_reference_agree_on_machines_with_parallel_states() {
    let rows = crate::generated::PARALLEL;
    let files = crate::generated::parallel_corpus();
    let listed: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r.file.to_owned(), r.machine.to_owned()))
        .collect();
    let (mut steps, mut fired, mut snapshots, mut with_reference) = (0, 0, 0, 0);
    let (mut with_timers, mut timers_fired) = (0, 0);
    let (mut with_context, mut with_payloads) = (0, 0);
    let mut in_corpus = 0;
    for path in &files {
        let file = relative_name(path, workspace_root());
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let model = fsm_grammar::check(&text)
            .into_model()
            .unwrap_or_else(|_| panic!("{file} has errors"));
        for m in &model.machines {
            in_corpus += 1;
            let row = rows
                .iter()
                .find(|r| r.file == file && r.machine == m.name)
                .unwrap_or_else(|| {
                    panic!(
                        "build.rs generated no code for `{}` of {file}: {listed:?}",
                        m.name
                    )
                });
            assert_eq!(row.fingerprint, m.fingerprint(), "{file}: `{}`", m.name);
            let definition = Arc::new(
                Definition::from_fsm_named(&text, &m.name).unwrap_or_else(|e| panic!("{file}: {e}")),
            );
            // The reference's machines emit their moves and nothing else;
            // it runs no timers.
            let referenced = m
                .outputs
                .iter()
                .all(|o| o.name.starts_with("in_") || o.name.starts_with("out_"))
                && file.contains("parallel_")
                && m.timers.is_empty();
            let timed = !m.timers.is_empty();
            with_timers += usize::from(timed);
            with_reference += usize::from(referenced);
            let context = m.context.is_some();
            with_context += usize::from(context);
            with_payloads += usize::from(!context && m.actions.iter().any(|a| a.payload.is_some()));
            for run in 0..8u64 {
                let values: Arc<Mutex<Vec<bool>>> = Arc::new(Mutex::new(vec![false; m.guards.len()]));
                let clock =
                    ManualClock::new(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000));
                // Over the instrumented context, whose guards and effects the
                // generated code computes alike; otherwise with the drawn
                // guard values, a guard that reads a payload flipping on odd
                // ones.
                let dynamic = if context {
                    crate::timed::dynamic_engine(&definition, &clock)
                } else {
                    let mut builder = Engine::with_context(Arc::clone(&definition), Ctx::default());
                    for (i, guard) in m.guards.iter().enumerate() {
                        let values = Arc::clone(&values);
                        let typed = guard.payload.is_some();
                        builder = builder.guard(&guard.name, move |payload| {
                            let odd = typed && payload.as_u64().expect("a drawn number") % 2 == 1;
                            values.lock().unwrap()[i] ^ odd
                        });
                    }
                    builder.clock(clock.clone()).build().expect("every guard bound")
                };
                let mut generated = (row.new)(&clock);
                let mut reference = referenced.then(|| Reference::new(m));
                let mut rng = Rng((run + 1) * 7919 + in_corpus as u64);
                let mut trail = String::new();
                for step in 0..40 {
                    if timed && rng.chance(40) {
                        // Time passes, and both fire what came due.
                        let by = [0, 40, 100, 170, 300][rng.below(5)];
                        clock.advance(std::time::Duration::from_millis(by));
                        let drawn: Vec<bool> = (0..m.guards.len()).map(|_| rng.chance(50)).collect();
                        *values.lock().unwrap() = drawn.clone();
                        let _ = writeln!(trail, "advance {by}ms, fire_due with {drawn:?}");
                        let got = generated.fire_due(&TestGuards::new(drawn));
                        let expected = dynamic_fire_due(&dynamic, &definition);
                        assert_eq!(got, expected, "{file}: `{}`\n{text}\n{trail}", m.name);
                        if context {
                            assert_eq!(
                                generated.context(),
                                Some(dynamic.context()),
                                "{file}: `{}`\n{text}\n{trail}",
                                m.name
                            );
                        }
                        timers_fired += got.len();
                    }
                    let action = rng.below(m.actions.len());
                    let name = &m.actions[action].name;
                    // A number for an action that carries a payload.
                    let payload = match m.actions[action].payload {
                        Some(_) => rng.below(1_000) as u64,
                        None => 0,
                    };
                    let payload_json = match m.actions[action].payload {
                        Some(_) => Value::from(payload),
                        None => Value::Null,
                    };
                    let drawn: Vec<bool> = (0..m.guards.len()).map(|_| rng.chance(50)).collect();
                    *values.lock().unwrap() = drawn.clone();
                    let _ = writeln!(trail, "fire {name}({payload_json}) with {drawn:?}");
                    let context_of = || format!("{file}: `{}`\n{text}\n{trail}", m.name);
                    let got = generated.fire(name, payload, &TestGuards::new(drawn.clone()));
                    let expected = dynamic_fire(&dynamic, &definition, name, &payload_json);
                    assert_eq!(got, expected, "{}", context_of());
                    if context {
                        assert_eq!(generated.context(), Some(dynamic.context()), "{}", context_of());
                    }
                    if let Some(reference) = reference.as_mut() {
                        let moved = reference.fire(action, &drawn).expect("generated machines settle");
                        let ours = match &got {
                            Step::Fired { outputs, .. } => moves(outputs),
                            Step::Refused { .. } => Vec::new(),
                        };
                        assert_eq!(ours, moved, "the reference: {}", context_of());
                        let leaves: Vec<String> = reference
                            .config
                            .iter()
                            .filter(|&&s| !m.state(s).is_composite())
                            .map(|&s| m.state(s).name.clone())
                            .collect();
                        assert_eq!(generated.leaves(), leaves, "the reference: {}", context_of());
                    }
                    let dynamic_leaves: Vec<String> = dynamic
                        .configuration()
                        .into_iter()
                        .map(|s| definition.state_name(s).to_owned())
                        .collect();
                    assert_eq!(generated.leaves(), dynamic_leaves, "{}", context_of());
                    let dynamic_valid: Vec<String> = dynamic
                        .valid_actions()
                        .iter()
                        .map(|&a| definition.action_name(a).to_owned())
                        .collect();
                    assert_eq!(generated.valid_actions(), dynamic_valid, "{}", context_of());
                    assert_eq!(generated.is_terminal(), dynamic.is_terminal(), "{}", context_of());
                    assert_eq!(
                        generated.next_deadline(),
                        dynamic.next_deadline(),
                        "{}",
                        context_of()
                    );
                    steps += 1;
                    fired += usize::from(matches!(got, Step::Fired { .. }));
                    if step % 5 == 4 {
                        let ours = generated.snapshot();
                        let theirs = dynamic.snapshot();
                        assert_eq!(
                            serde_json::to_value(&ours).unwrap(),
                            serde_json::to_value(&theirs).unwrap(),
                            "{}",
                            context_of()
                        );
                        // Each goes on from the other's snapshot.
                        generated
                            .restore(&theirs)
                            .unwrap_or_else(|e| panic!("{e}\n{}", context_of()));
                        dynamic
                            .restore(&ours)
                            .unwrap_or_else(|e| panic!("{e}\n{}", context_of()));
                        snapshots += 1;
                    }
                }
            }
        }
    }
    eprintln!(
        "{in_corpus} machines with parallel states ({with_reference} against the reference, \
         {with_timers} with timers, {with_context} with a context, {with_payloads} with payloads \
         and no context), {steps} steps, {fired} fired, {timers_fired} timers due, \
         {snapshots} snapshots exchanged"
    );
    assert_eq!(
        in_corpus,
        crate::generated::parallel_in_corpus(),
        "build.rs generated machines that are not in the corpus"
    );
    assert!(
        with_reference >= 30,
        "only {with_reference} machines against the reference"
    );
    assert!(fired > 3_000, "only {fired} steps fired");
    assert!(with_timers >= 20, "only {with_timers} machines with timers");
    assert!(timers_fired > 300, "only {timers_fired} timers came due");
    assert!(with_context >= 6, "only {with_context} machines with a context");
    assert!(
        with_payloads >= 3,
        "only {with_payloads} machines with payloads and no context"
    );
}
