//! The differential test of contexts, payloads, effects and timers: the
//! generated code and the dynamic engine against a reference interpreter
//! written here from the rules of `docs/dsl.md` ("Context, payloads, effects
//! and timers"), on every machine of the examples and the ok and warn
//! fixtures, machines without these constructs included.
//!
//! All three run the same instrumented context ([`Ctx`], in `data.rs`): every
//! effect appends its name and payload to a log and folds both into a hash
//! chain; every guard's value is a hash of the guard, the chain and the
//! payload, so a guard that saw the context after the effects, or an effect
//! that ran on a rejection, or in the wrong order, or with the wrong payload,
//! makes them disagree; each named delay is computed from the chain. The
//! generated code gets typed payloads built from the drawn number and reads
//! them back as it (`TestPayload`); `build.rs` implements each machine's
//! `Context` or `Guards` trait for [`Ctx`] with the same functions the
//! dynamic engine's closures call. Random sequences of actions (with random
//! payloads) are interleaved with random advances of a manual clock followed
//! by `fire_due`, and after every step the outcome, the outputs, the timers
//! fired, the state, the context and the next deadline must agree.
//!
//! The rules implemented by the reference, beyond those of `reference.rs`:
//!
//! - guards see the context as it was before the firing; a transition's
//!   guards and `do` effects get the payload, hooks' effects and timers'
//!   guards and effects get none (`null`);
//! - a taken transition runs the exit hook's effects of the state left, its
//!   own, then the enter hook's effects of the state entered (an internal
//!   one only its own);
//! - entering a state (the initial one when the machine is built) arms its
//!   timers at now + delay, a named delay computed from the context once the
//!   entering effects ran; leaving disarms them; an internal transition
//!   keeps them; a self transition re-arms;
//! - a state's timers with the same delay are one group, tried by priority
//!   then declaration order; when the group is due the first whose guard
//!   holds fires, and the group is disarmed either way;
//! - `fire_due` fires the due groups earliest deadline first, ties in group
//!   order (groups ordered by their best timer), each once; groups armed by
//!   these firings wait for the next call. A due group none of whose guards
//!   holds is reported as rejected, named by its first timer, and every
//!   engine must report it in the same place.

use crate::data::{delay_value, guard_value, json_payload, run_effect, Ctx, Due, Step};
use crate::generated::generated_for;
use crate::tree::{self, Memory};
use fsm_dynamic::{Definition, Engine};
use fsm_grammar::model::{Delay, GuardExpr, HistoryKind, Machine, Source, StateId, Transition};
use fsm_runtime::{ArmedTimer, ManualClock, Snapshot, Timestamp};
use fsm_tests::{relative_name, workspace_root};
use serde_json::Value;
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Random sequences per machine.
const RUNS: u64 = 64;
/// Random sequences per machine with timers, unless `TIMED_RUNS` says
/// otherwise: they are few, and their sequences are where the engines can
/// differ most. (It was 2,048, half of this binary's CPU time in CI; at 512
/// the runs still fire about 78,000 timers, reject 17,000 groups and restore
/// 187,000 snapshots, far past what the test asserts it reaches.)
const TIMER_RUNS: u64 = 8 * RUNS;
/// Steps per sequence.
const STEPS: usize = 60;

/// The reference interpreter.
struct Reference<'m> {
    machine: &'m Machine,
    /// The model's fingerprint, which every snapshot carries: computed once
    /// per machine (it hashes the machine's canonical text, a third of this
    /// test's time when taken per snapshot).
    fingerprint: &'m str,
    /// The current leaf.
    state: StateId,
    memory: Memory,
    ctx: Ctx,
    /// The armed groups, by declaring state and index among its groups:
    /// their deadlines (ms).
    armed: BTreeMap<(StateId, usize), u64>,
}

/// The timers of `state` grouped by delay: groups in the order of their
/// best timer, each in the order tried, as (index in state, timer).
fn groups_of(machine: &Machine, state: StateId) -> Vec<Vec<(usize, &Transition)>> {
    let mut timers: Vec<(usize, &Transition)> = machine
        .timers
        .iter()
        .filter(|t| t.state() == Some(state))
        .enumerate()
        .collect();
    timers.sort_by_key(|(_, t)| Reverse(t.priority));
    let mut groups: Vec<Vec<(usize, &Transition)>> = Vec::new();
    for (index, timer) in timers {
        match groups.iter_mut().find(|g| g[0].1.delay() == timer.delay()) {
            Some(group) => group.push((index, timer)),
            None => groups.push(vec![(index, timer)]),
        }
    }
    groups
}

/// `in(S)` holds when `leaf`, the leaf before the step, is `S` or lies
/// inside it (the corpus has no parallel state).
fn holds(machine: &Machine, leaf: StateId, expr: &GuardExpr, ctx: &Ctx, payload: &Value) -> bool {
    match expr {
        GuardExpr::Var(g) => {
            let typed = machine.guards[g.index()].payload.is_some();
            guard_value(g.index(), ctx, json_payload(typed, payload))
        }
        GuardExpr::In(s) => machine.ancestors_or_self(leaf).any(|a| a == *s),
        GuardExpr::Not(e) => !holds(machine, leaf, e, ctx, payload),
        GuardExpr::And(a, b) => {
            holds(machine, leaf, a, ctx, payload) && holds(machine, leaf, b, ctx, payload)
        }
        GuardExpr::Or(a, b) => holds(machine, leaf, a, ctx, payload) || holds(machine, leaf, b, ctx, payload),
    }
}

impl<'m> Reference<'m> {
    fn new(machine: &'m Machine, fingerprint: &'m str, now: u64) -> Self {
        let path = tree::start(machine);
        let mut reference = Reference {
            machine,
            fingerprint,
            state: *path.last().expect("the initial state"),
            memory: Memory::new(),
            ctx: Ctx::default(),
            armed: BTreeMap::new(),
        };
        for state in path {
            reference.arm(state, now);
        }
        reference
    }

    fn name(&self, state: StateId) -> String {
        self.machine.state(state).name.clone()
    }

    /// Arm the timers of `state`, just entered.
    fn arm(&mut self, state: StateId, now: u64) {
        for (index, group) in groups_of(self.machine, state).iter().enumerate() {
            let delay = match group[0].1.expect_delay() {
                Delay::Literal(d) => d,
                Delay::Named(d) => delay_value(d.index(), &self.ctx),
            };
            let millis = delay.as_nanos().div_ceil(1_000_000).max(1) as u64;
            self.armed.insert((state, index), now + millis);
        }
    }

    /// Move along a taken transition or timer declared at `source`: effects,
    /// outputs, state, timers.
    #[allow(clippy::too_many_arguments)]
    fn take(
        &mut self,
        source: Source,
        own_effects: &[fsm_grammar::model::EffectId],
        own_emits: &[fsm_grammar::model::OutputId],
        target: Option<StateId>,
        history: Option<HistoryKind>,
        payload: &Value,
        now: u64,
    ) -> Vec<String> {
        let machine = self.machine;
        let effect = |ctx: &mut Ctx, e: &fsm_grammar::model::EffectId, payload: &Value| {
            let effect = &machine.effects[e.index()];
            run_effect(&effect.name, ctx, json_payload(effect.payload.is_some(), payload))
        };
        let output = |o: &fsm_grammar::model::OutputId| machine.outputs[o.index()].name.clone();
        let (exits, entries) = tree::take(machine, self.state, source, target, history, &mut self.memory);
        let mut outputs = Vec::new();
        for &s in &exits {
            let left = machine.state(s);
            left.exit_effects
                .iter()
                .for_each(|e| effect(&mut self.ctx, e, &Value::Null));
            outputs.extend(left.exit.iter().map(output));
            self.armed.retain(|&(declared, _), _| declared != s);
        }
        own_effects.iter().for_each(|e| effect(&mut self.ctx, e, payload));
        outputs.extend(own_emits.iter().map(output));
        for &s in &entries {
            let entered = machine.state(s);
            entered
                .enter_effects
                .iter()
                .for_each(|e| effect(&mut self.ctx, e, &Value::Null));
            outputs.extend(entered.enter.iter().map(output));
        }
        // Delays are read once the entering effects ran.
        for &s in &entries {
            self.arm(s, now);
        }
        if let Some(&leaf) = entries.last() {
            self.state = leaf;
        }
        outputs
    }

    /// The `always` and `done` steps after a step that left the machine in
    /// its leaf (`entered`: the step had a target), until none is taken
    /// (see the untimed reference): their guards read the context as the
    /// steps before left it, and get no payload.
    fn settle(&mut self, mut entered: bool, now: u64, outputs: &mut Vec<String>) {
        let machine = self.machine;
        for _ in 0..fsm_grammar::model::MAX_MICROSTEPS {
            let leaf = self.state;
            let next = tree::settle_candidates(machine, leaf, entered)
                .into_iter()
                .find(|e| {
                    e.guard
                        .as_ref()
                        .is_none_or(|g| holds(machine, leaf, &g.expr, &self.ctx, &Value::Null))
                });
            let Some(e) = next else { return };
            outputs.extend(self.take(
                e.source,
                &e.effects,
                &e.emits,
                e.target,
                e.history,
                &Value::Null,
                now,
            ));
            entered = e.target.is_some();
        }
        panic!("the corpus has no cycle of `always` or `done` transitions");
    }

    fn fire(&mut self, action: &str, payload: &Value, now: u64) -> Step {
        let machine = self.machine;
        let state = self.state;
        let Some(action) = machine.actions.iter().position(|a| a.name == action) else {
            return Step::Rejected;
        };
        let Some(taken) = tree::candidates(machine, state, action).into_iter().find(|t| {
            t.guard
                .as_ref()
                .is_none_or(|g| holds(machine, state, &g.expr, &self.ctx, payload))
        }) else {
            return Step::Rejected;
        };
        let mut outputs = self.take(
            taken.source,
            &taken.effects,
            &taken.emits,
            taken.target,
            taken.history,
            payload,
            now,
        );
        self.settle(taken.target.is_some(), now, &mut outputs);
        Step::Fired {
            from: self.name(state),
            to: self.name(self.state),
            outputs,
        }
    }

    fn fire_due(&mut self, now: u64) -> Step {
        let mut fired = Vec::new();
        loop {
            // Earliest first; ties by the group's best timer: priority, then
            // the innermost level, then its order in its state.
            let due = self
                .armed
                .iter()
                .filter(|(_, &due)| due <= now)
                .map(|(&(declared, group), &due)| {
                    let best = groups_of(self.machine, declared)[group][0].1.priority;
                    let depth = tree::up(self.machine, declared).len();
                    ((due, Reverse(best), Reverse(depth), group), declared)
                })
                .min();
            let Some(((due, _, _, group), declared)) = due else {
                break;
            };
            self.armed.remove(&(declared, group));
            let state = self.state;
            let groups = groups_of(self.machine, declared);
            let Some(&(index, timer)) = groups[group].iter().find(|(_, t)| {
                t.guard
                    .as_ref()
                    .is_none_or(|g| holds(self.machine, state, &g.expr, &self.ctx, &Value::Null))
            }) else {
                fired.push(Due::Rejected {
                    state: self.name(state),
                    declared_in: self.name(declared),
                    timer: groups[group][0].0,
                    due,
                });
                continue;
            };
            let mut outputs = self.take(
                Source::State(declared),
                &timer.effects,
                &timer.emits,
                timer.target,
                timer.history,
                &Value::Null,
                now,
            );
            self.settle(timer.target.is_some(), now, &mut outputs);
            fired.push(Due::Fired {
                from: self.name(state),
                to: self.name(self.state),
                declared_in: self.name(declared),
                timer: index,
                due,
                outputs,
                internal: timer.target.is_none(),
            });
        }
        Step::Timers(fired)
    }

    fn next_deadline(&self) -> Option<u64> {
        self.armed.values().min().copied()
    }

    /// The snapshot every engine must take: the leaf, the context (for a
    /// machine with one), the armed timers innermost level first, each
    /// level's in declaration order, and the history memory.
    fn snapshot(&self) -> Snapshot {
        let machine = self.machine;
        let mut timers = Vec::new();
        for state in tree::up(machine, self.state) {
            let groups = groups_of(machine, state);
            let in_state = machine.timers.iter().filter(|t| t.state() == Some(state)).count();
            for index in 0..in_state {
                let group = groups
                    .iter()
                    .position(|g| g.iter().any(|&(i, _)| i == index))
                    .expect("every timer is in a group");
                if let Some(&due) = self.armed.get(&(state, group)) {
                    let due = Timestamp::from_unix_millis(due).expect("a deadline in range");
                    timers.push(ArmedTimer::new(self.name(state), index as u32, due));
                }
            }
        }
        let snapshot = Snapshot::new(
            machine.name.clone(),
            self.fingerprint.to_owned(),
            self.name(self.state),
        )
        .with_timers(timers)
        .with_last_active(tree::last_active(machine, &self.memory));
        match machine.context {
            Some(_) => snapshot
                .with_context_of(&self.ctx)
                .expect("the context serializes"),
            None => snapshot,
        }
    }

    /// The reference restored from `snapshot`, which an engine took.
    fn restore(machine: &'m Machine, fingerprint: &'m str, snapshot: &Snapshot) -> Self {
        let state = machine
            .state_by_name(snapshot.current_state())
            .expect("a snapshot's state exists");
        let mut armed = BTreeMap::new();
        for timer in snapshot.timers() {
            let declared = machine
                .state_by_name(timer.state())
                .expect("a timer's state exists");
            let group = groups_of(machine, declared)
                .iter()
                .position(|g| g.iter().any(|&(i, _)| i == timer.timer() as usize))
                .expect("a timer of its state");
            armed.insert((declared, group), timer.due().unix_millis());
        }
        Reference {
            machine,
            fingerprint,
            state,
            memory: tree::memory_of(machine, snapshot).expect("a valid history memory"),
            ctx: match machine.context {
                Some(_) => snapshot.context_as().expect("the context reads back"),
                None => Ctx::default(),
            },
            armed,
        }
    }
}

/// A dynamic engine of `definition` running [`Ctx`] on `clock`.
pub fn dynamic_engine(definition: &Arc<Definition>, clock: &ManualClock) -> Engine<Ctx> {
    let machine = definition.machine();
    let mut builder = Engine::with_context(Arc::clone(definition), Ctx::default()).clock(clock.clone());
    for (index, guard) in machine.guards.iter().enumerate() {
        let typed = guard.payload.is_some();
        builder = builder.context_guard(&guard.name, move |ctx, payload| {
            guard_value(index, ctx, json_payload(typed, payload))
        });
    }
    for effect in &machine.effects {
        let name = effect.name.clone();
        let typed = effect.payload.is_some();
        builder = builder.effect(&effect.name, move |ctx, payload| {
            run_effect(&name, ctx, json_payload(typed, payload))
        });
    }
    for (index, delay) in machine.delays.iter().enumerate() {
        builder = builder.delay(&delay.name, move |ctx| delay_value(index, ctx));
    }
    builder
        .build()
        .unwrap_or_else(|e| panic!("machine `{}`: {e}", machine.name))
}

fn dynamic_step(engine: &Engine<Ctx>, action: &str, payload: &Value) -> Step {
    match engine.fire(action, payload) {
        Ok(fired) => Step::Fired {
            from: fired.from_name().to_owned(),
            to: fired.to_name().to_owned(),
            outputs: fired.output_names().map(str::to_owned).collect(),
        },
        Err(_) => Step::Rejected,
    }
}

fn dynamic_due(engine: &Engine<Ctx>) -> Step {
    Step::Timers(
        engine
            .fire_due()
            .iter()
            .map(|outcome| match outcome {
                Ok(f) => Due::Fired {
                    from: f.from_name().to_owned(),
                    to: f.to_name().to_owned(),
                    declared_in: f.declared_in_name().to_owned(),
                    timer: f.timer,
                    due: f.due.unix_millis(),
                    outputs: f.output_names().map(str::to_owned).collect(),
                    internal: f.internal,
                },
                Err(r) => Due::Rejected {
                    state: r.state_name().to_owned(),
                    declared_in: r.declared_in_name().to_owned(),
                    timer: r.timer,
                    due: r.due.unix_millis(),
                },
            })
            .collect(),
    )
}

/// xorshift64*, for sequences reproducible from their seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

/// 2026-01-10T09:00:00Z, in milliseconds.
const START: u64 = 1_768_035_600_000;

/// What one implementation looks like after a step.
#[derive(Debug, PartialEq, Eq)]
struct Observed<'a> {
    step: Step,
    state: &'a str,
    deadline: Option<u64>,
    context: Ctx,
}

/// One unit of work: a machine and a range of seeds.
struct Unit<'m> {
    file: &'m str,
    text: &'m str,
    machine: &'m Machine,
    seeds: std::ops::RangeInclusive<u64>,
}

/// What the runs of one or more units reached, for the test's final checks.
#[derive(Default)]
struct Counts {
    timers_fired: usize,
    timers_rejected: usize,
    effects_run: usize,
    payload_effects: usize,
    snapshots: usize,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.timers_fired += other.timers_fired;
        self.timers_rejected += other.timers_rejected;
        self.effects_run += other.effects_run;
        self.payload_effects += other.payload_effects;
        self.snapshots += other.snapshots;
    }
}

/// Seeds per unit: a machine with timers has `TIMER_RUNS` of them, split so
/// that the units spread evenly over the threads.
const SEEDS_PER_UNIT: u64 = 2 * RUNS;

#[test]
fn generated_code_and_the_dynamic_engine_agree_with_the_reference_on_context_payloads_effects_and_timers() {
    let mut sources = Vec::new();
    for path in crate::generated::corpus() {
        let file = relative_name(&path, workspace_root());
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
        let model = fsm_grammar::check(&text)
            .into_model()
            .unwrap_or_else(|_| panic!("{file} has errors"));
        sources.push((file, text, model));
    }
    let timer_runs = match std::env::var("TIMED_RUNS") {
        Ok(runs) => runs.parse().expect("TIMED_RUNS is a number of runs"),
        Err(_) => TIMER_RUNS,
    };
    let mut units = Vec::new();
    let mut machines = 0;
    for (file, text, model) in &sources {
        for machine in &model.machines {
            machines += 1;
            let runs = if machine.timers.is_empty() {
                RUNS
            } else {
                timer_runs
            };
            let mut first = 1;
            while first <= runs {
                let last = runs.min(first + SEEDS_PER_UNIT - 1);
                units.push(Unit {
                    file,
                    text,
                    machine,
                    seeds: first..=last,
                });
                first = last + 1;
            }
        }
    }
    // The units are independent: every thread the machine has takes the
    // next one until none is left (the runs are this binary's longest test).
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = Counts::default();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut counts = Counts::default();
                    while let Some(unit) = units.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                    {
                        counts.add(&run_unit(unit));
                    }
                    counts
                })
            })
            .collect();
        for worker in workers {
            match worker.join() {
                Ok(worker) => counts.add(&worker),
                // The worker printed its panic (the disagreement) already.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    let Counts {
        timers_fired,
        timers_rejected,
        effects_run,
        payload_effects,
        snapshots,
    } = counts;
    eprintln!(
        "{machines} machines, {timers_fired} timers fired, {timers_rejected} timer groups rejected, \
         {effects_run} effects run, \
         {payload_effects} of them with a payload, {snapshots} snapshots restored"
    );
    assert!(snapshots > 1_000, "only {snapshots} snapshots restored");
    assert!(machines > 20, "only {machines} machines found");
    assert_eq!(
        machines,
        crate::generated::machines_in_corpus(),
        "build.rs generated machines that are not in the corpus"
    );
    assert!(
        timers_fired > 1_000,
        "only {timers_fired} timers fired: the test does not reach them"
    );
    assert!(
        timers_rejected > 100,
        "only {timers_rejected} timer groups were rejected: the test does not reach them"
    );
    assert!(
        effects_run > 1_000,
        "only {effects_run} effects ran: the test does not reach them"
    );
    assert!(
        payload_effects > 1_000,
        "only {payload_effects} effects ran with a payload: the test does not reach them"
    );
}

/// The runs of one unit: the machine's generated code, its dynamic engine
/// and the reference in lockstep, from each seed.
fn run_unit(unit: &Unit) -> Counts {
    let Unit {
        file, text, machine, ..
    } = *unit;
    let mut counts = Counts::default();
    let generated = generated_for(file, &machine.name);
    let definition = Arc::new(
        Definition::from_fsm_named(text, &machine.name)
            .unwrap_or_else(|e| panic!("{file}: `{}`: {e}", machine.name)),
    );
    let fingerprint = machine.fingerprint();
    for seed in unit.seeds.clone() {
        let title = format!("{file}: machine `{}`, seed {seed}", machine.name);
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let clock = ManualClock::new(UNIX_EPOCH + Duration::from_millis(START));
        let engine = dynamic_engine(&definition, &clock);
        let mut code = (generated.timed)(&clock);
        let mut reference = Reference::new(machine, &fingerprint, START);
        let mut trail = Vec::new();
        for step in 0..STEPS {
            let now = || Timestamp::from_system_time(clock_now(&clock)).unix_millis();
            let (expected, dynamic, generated) = if machine.actions.is_empty() || rng.below(3) == 0 {
                // Mostly short advances, sometimes past every delay.
                let by = match rng.below(4) {
                    0 => rng.below(30_000_000),
                    _ => rng.below(25_000),
                };
                clock.advance(Duration::from_millis(by));
                trail.push(format!("advance {by}ms"));
                (reference.fire_due(now()), dynamic_due(&engine), code.fire_due())
            } else {
                let action = &machine.actions[rng.below(machine.actions.len() as u64) as usize];
                let payload = rng.below(4);
                trail.push(match action.payload {
                    Some(_) => format!("fire {}({payload})", action.name),
                    None => format!("fire {}", action.name),
                });
                let json = Value::from(payload);
                (
                    reference.fire(&action.name, &json, now()),
                    dynamic_step(&engine, &action.name, &json),
                    code.fire(&action.name, payload),
                )
            };
            if let Step::Timers(fired) = &expected {
                let rejected = fired.iter().filter(|d| matches!(d, Due::Rejected { .. })).count();
                counts.timers_fired += fired.len() - rejected;
                counts.timers_rejected += rejected;
            }
            let expected = Observed {
                step: expected,
                state: &reference.machine.states[reference.state.index()].name,
                deadline: reference.next_deadline(),
                context: reference.ctx.clone(),
            };
            let dynamic = Observed {
                step: dynamic,
                state: engine.state_name(),
                deadline: engine.next_deadline().map(Timestamp::unix_millis),
                context: engine.with_context_ref(Ctx::clone),
            };
            let generated = Observed {
                step: generated,
                state: code.state(),
                deadline: code.next_deadline(),
                context: code.context().clone(),
            };
            for (kind, actual) in [("dynamic", &dynamic), ("generated", &generated)] {
                if *actual != expected {
                    panic!(
                        "{title}: step {step}: the {kind} engine disagrees with the reference\n\
                             steps: {trail:#?}\nreference: {expected:#?}\n{kind}: {actual:#?}"
                    );
                }
            }
            if rng.below(6) == 0 {
                // Snapshots agree, and each engine goes on restored
                // from another's: the generated code from the
                // dynamic engine's, the dynamic engine from the
                // generated code's, the reference from the dynamic
                // engine's.
                let expected = serde_json::to_value(reference.snapshot()).expect("a snapshot serializes");
                let from_dynamic = engine.snapshot();
                let from_code = code.snapshot();
                for (kind, actual) in [("dynamic", &from_dynamic), ("generated", &from_code)] {
                    let actual = serde_json::to_value(actual).expect("a snapshot serializes");
                    if actual != expected {
                        panic!(
                                "{title}: step {step}: the {kind} engine's snapshot disagrees with the reference's\n\
                                 steps: {trail:#?}\nreference: {expected:#}\n{kind}: {actual:#}"
                            );
                    }
                }
                trail.push("snapshot and restore".to_owned());
                code = code
                    .restore(&from_dynamic, &clock)
                    .unwrap_or_else(|e| panic!("{title}: step {step}: the generated code restores: {e}"));
                engine
                    .restore(&from_code)
                    .unwrap_or_else(|e| panic!("{title}: step {step}: the dynamic engine restores: {e}"));
                reference = Reference::restore(machine, &fingerprint, &from_dynamic);
                counts.snapshots += 1;
            }
        }
        counts.effects_run += reference.ctx.log.len();
        counts.payload_effects += reference.ctx.log.iter().filter(|e| e.ends_with(')')).count();
    }
    counts
}

fn clock_now(clock: &ManualClock) -> SystemTime {
    fsm_runtime::Clock::now(clock).to_system_time()
}
