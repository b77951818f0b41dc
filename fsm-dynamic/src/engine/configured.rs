//! Machines whose state is a configuration: those with parallel states.
//! (A machine with `final` states, `done` or `always` transitions or
//! `in(...)` guards but no parallel state has one active leaf: its steps,
//! and the `always` and `done` steps after them, run from the tables, as
//! code generation lays them out: `Engine::chain`.)
//!
//! The engine decides nothing here. Which transitions an action's step
//! chooses, which of them conflict, what the step exits and enters, what it
//! runs, emits, arms and remembers, what comes after it, which armed timer
//! is due first, and which snapshots restore are
//! `fsm_runtime::__private::chart`'s, over the plan's tables ([`ChartPlan`](fsm_grammar::plan::ChartPlan)):
//! the runtime's one account of a step over configurations, which generated
//! code runs too, and which `tests/differential` compares with the
//! independent SCXML reference of `grammar/tests/scxml` on random machines.
//! The engine asks the guards, runs the effects and keeps the timers, the
//! history and the outbox, as it does for the other machines.

use super::{Current, Engine, NULL};
use crate::definition::Definition;
use crate::fire_error::{FireError, GuardRejected, InvalidTransition, Runaway};
use crate::fired::{Fired, FiredTimer, Taken, TakenKind, Trail};
use crate::ids::{ActionId, OutputId, StateId};
use crate::timer_rejected::TimerRejected;
use crate::trace;
use fsm_grammar::model::{self, Chosen, Machine, Trigger};
use fsm_grammar::plan::{Plan, PoolList};
use fsm_runtime::__private::chart::{self, Bits, Chart, Settled};
use fsm_runtime::__private::deadline;
use fsm_runtime::{ArmedTimer, FingerprintPolicy, RestoreError, Snapshot, Timestamp};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

use fsm_runtime::__private::chart::by_width;

/// What a definition that runs over configurations adds to its tables.
#[derive(Clone, Debug)]
pub(crate) struct ConfiguredPlan {
    pub(crate) plan: Plan,
    /// The initial configuration, as [`Configured`] keeps it.
    initial: Box<[u64]>,
    /// `chart`'s states and transitions as the runtime reads them.
    states: Vec<chart::State>,
    transitions: Vec<chart::Transition>,
    /// Each timer group's state, its candidates (as transitions of
    /// `chart`) and their indices among the state's timers.
    groups: Vec<(u32, Vec<u32>, Vec<u32>)>,
}

impl ConfiguredPlan {
    pub(crate) fn new(machine: &Machine, plan: Plan) -> ConfiguredPlan {
        let chart = &plan.chart;
        let (states, transitions) = chart.step_tables();
        let groups = plan
            .timer_groups
            .iter()
            .map(|g| {
                let candidates = g
                    .timers
                    .iter()
                    .map(|&(t, _)| chart.index_of(machine, Chosen::Timer(t)) as u32)
                    .collect();
                let indices = g.timers.iter().map(|&(_, i)| i).collect();
                (g.state.index() as u32, candidates, indices)
            })
            .collect();
        ConfiguredPlan {
            initial: {
                let mut words = vec![0u64; chart.words];
                for s in machine.initial_configuration() {
                    words[s.index() / 64] |= 1 << (s.index() % 64);
                }
                words.into()
            },
            plan,
            states,
            transitions,
            groups,
        }
    }

    /// The timer groups as the runtime reads them.
    fn timer_groups(&self) -> Vec<chart::TimerGroup<'_>> {
        self.groups
            .iter()
            .map(|(state, candidates, indices)| chart::TimerGroup {
                state: *state,
                candidates,
                indices,
            })
            .collect()
    }

    /// The armed group due first (at or before `by`, if given), and its
    /// deadline: the runtime's one rule (`chart::first_due`) over the
    /// plan's tie order, which generated code follows. Only the groups of
    /// active states are armed: leaving a state disarms its groups.
    fn due(&self, armed: &[Option<Timestamp>], by: Option<Timestamp>) -> Option<(usize, Timestamp)> {
        let order = self.plan.timer_order.iter().map(|&g| g as u32);
        chart::first_due(order, armed, by).map(|(g, due)| (g as usize, due))
    }

    /// The tables `fsm_runtime::__private::chart` steps over.
    fn chart(&self) -> Chart<'_> {
        Chart {
            states: &self.states,
            transitions: &self.transitions,
            pool: &self.plan.chart.pool,
        }
    }
}

/// A problem of the one step's configuration rule, in words.
struct Words<'a>(&'a chart::Problem, &'a Chart<'a>, &'a [&'a str]);

impl std::fmt::Display for Words<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.describe(self.1, self.2, f)
    }
}

impl ConfiguredPlan {
    /// The states `leaves` (in any order) make active, in document order,
    /// below `within` (included) when it is given: the one step's rule
    /// (`Chart::configuration_of_leaves`), which generated code applies
    /// too, or its first problem in words.
    pub(crate) fn leaves_configuration(
        &self,
        m: &Machine,
        leaves: &[u32],
        within: Option<u32>,
    ) -> Result<Vec<u32>, String> {
        let chart = self.chart();
        let names: Vec<&str> = m.states.iter().map(|s| s.name.as_str()).collect();
        by_width!(self.plan.chart.words, W => chart
            .configuration_of_leaves::<W>(leaves, within)
            .map(|bits| bits.iter().collect())
            .map_err(|problem| Words(&problem, &chart, &names).to_string()))
    }
}

/// A list of the plan's pool as the runtime reads it.
fn list(l: PoolList) -> chart::List {
    chart::List {
        start: l.start,
        len: l.len,
    }
}

/// The configuration of an engine that runs over configurations, and its
/// history memory, beside [`Current`]'s other fields, as the chart keeps
/// them between fires: bit sets of [`ChartPlan::words`](fsm_grammar::plan::ChartPlan::words) words each (state
/// `s` is bit `s % 64` of word `s / 64`).
#[derive(Clone, Debug)]
pub(crate) struct Configured {
    /// The active states.
    pub(crate) config: Box<[u64]>,
    /// For each history slot of the plan, in turn, the leaves last active
    /// inside its composite (none when it was never left).
    memory: Box<[u64]>,
}

/// `words` as a bit set of `W` words, `W` at least as many.
fn to_bits<const W: usize>(words: &[u64]) -> Bits<W> {
    let mut bits = Bits::EMPTY;
    bits.0[..words.len()].copy_from_slice(words);
    bits
}

/// True when `config` (a bit set, as [`Configured`] keeps it) holds `state`.
pub(crate) fn contains(config: &[u64], state: model::StateId) -> bool {
    let s = state.index();
    config.get(s / 64).is_some_and(|w| w >> (s % 64) & 1 == 1)
}

/// The states of `config` (a bit set), in document order.
fn members(config: &[u64]) -> impl Iterator<Item = model::StateId> + '_ {
    config.iter().enumerate().flat_map(|(i, &word)| {
        let mut word = word;
        std::iter::from_fn(move || {
            (word != 0).then(|| {
                let bit = word.trailing_zeros() as usize;
                word &= word - 1;
                model::StateId::from_index(i * 64 + bit)
            })
        })
    })
}

/// The active leaves of `config` (a bit set), in document order.
fn active_leaves<'a>(m: &'a Machine, config: &'a [u64]) -> impl Iterator<Item = model::StateId> + 'a {
    members(config).filter(|&s| !m.state(s).is_composite())
}

/// A model id as this crate's.
pub(crate) fn ours(state: model::StateId) -> StateId {
    StateId::from_index(state.index())
}

/// This crate's id as the model's.
pub(crate) fn theirs(state: StateId) -> model::StateId {
    model::StateId::from_index(state.index())
}

/// The innermost state holding every active state of `config`: the leaf
/// itself when only one is active, otherwise the outermost parallel state
/// active.
pub(crate) fn summary(m: &Machine, config: &[u64]) -> StateId {
    let first = members(config).next().expect("a configuration holds a state");
    summary_by(m, first, |s| contains(config, s))
}

/// [`summary`] of a configuration as the model writes it.
pub(crate) fn summary_of(m: &Machine, config: &model::Configuration) -> StateId {
    let first = *config.first().expect("a configuration holds a state");
    summary_by(m, first, |s| config.contains(&s))
}

/// [`summary`] of the configuration whose first state is `at`.
fn summary_by(m: &Machine, mut at: model::StateId, contains: impl Fn(model::StateId) -> bool) -> StateId {
    loop {
        let state = m.state(at);
        if state.is_parallel() || !state.is_composite() {
            return ours(at);
        }
        match state.children.iter().find(|&&c| contains(c)) {
            Some(&child) => at = child,
            None => return ours(at),
        }
    }
}

/// The active leaves of `config`, in document order.
pub(crate) fn leaves(m: &Machine, config: &[u64]) -> Box<[StateId]> {
    active_leaves(m, config).map(ours).collect()
}

/// The actions valid in some leaf of `config`, in the definition's order.
pub(crate) fn valid_in(definition: &Definition, config: &[u64]) -> Vec<ActionId> {
    let m = definition.machine();
    let mut valid: Vec<ActionId> = active_leaves(m, config)
        .flat_map(|leaf| definition.valid_actions(ours(leaf)).iter().copied())
        .collect();
    valid.sort_unstable();
    valid.dedup();
    valid
}

/// The guard of a chosen transition.
fn guard_of(m: &Machine, c: Chosen) -> Option<&model::GuardExpr> {
    m.transition_of(c).guard.as_ref().map(|g| &g.expr)
}

/// A transition taken, as [`Fired::taken`] reports it.
pub(crate) fn taken(m: &Machine, c: Chosen) -> Taken {
    let t = m.transition_of(c);
    let kind = match t.trigger {
        Trigger::On(_) => TakenKind::Action,
        Trigger::After(_) => TakenKind::Timer,
        Trigger::Eventless(model::EventlessKind::Done) => TakenKind::Done,
        Trigger::Eventless(model::EventlessKind::Always) => TakenKind::Always,
    };
    Taken {
        kind,
        source: t.state().map(ours),
        target: t.target.map(ours),
        history: t.history,
    }
}

/// What the chart asks of the engine during one `fire` or one due timer.
struct ChartHost<'a, C> {
    engine: &'a Engine<C>,
    m: &'a Machine,
    cp: &'a ConfiguredPlan,
    context: &'a mut C,
    armed: &'a mut [Option<Timestamp>],
    /// The action's payload, for its own transitions' effects.
    payload: &'a Value,
    /// True during the action's own step; its guards were asked before.
    by_action: bool,
    outputs: Vec<OutputId>,
    taken: Vec<Taken>,
    /// How many effects ran.
    effects: usize,
    /// The time armed timers count from, read once when first needed.
    now: Option<Timestamp>,
    /// True when some step exited or entered a state.
    moved: bool,
    /// The guards asked in the step being chosen, by guard index.
    cache: Vec<Option<bool>>,
}

impl<C, const W: usize> chart::Host<W> for ChartHost<'_, C> {
    /// The guards of the `always` and `done` steps: no payload, each asked
    /// at most once per step, `in(...)` against the configuration before it.
    fn guard(&mut self, transition: u32, config: &Bits<W>) -> bool {
        let (engine, m, cp) = (self.engine, self.m, self.cp);
        holds(
            engine,
            m,
            cp,
            transition,
            config,
            &*self.context,
            &NULL,
            &mut self.cache,
        )
    }

    fn taken(&mut self, transition: u32) {
        // The next step asks its guards afresh: this one's effects may
        // change what they read.
        self.cache.clear();
        let chosen = self.cp.plan.chart.transitions[transition as usize].chosen;
        self.moved |= self.cp.plan.chart.transitions[transition as usize]
            .target
            .is_some();
        self.taken.push(taken(self.m, chosen));
    }

    fn effect(&mut self, effect: u32, own: bool) {
        let payload = if own && self.by_action {
            self.payload
        } else {
            &NULL
        };
        (self.engine.bound.effects[effect as usize])(self.context, payload);
        self.effects += 1;
    }

    fn output(&mut self, output: u32) {
        self.outputs.push(OutputId::from_index(output as usize));
    }

    fn arm(&mut self, groups: &[u32]) {
        let now = *self.now.get_or_insert_with(|| self.engine.clock.now());
        for &g in groups {
            let delay = match self.cp.plan.timer_groups[g as usize].delay {
                model::Delay::Literal(ms) => ms,
                model::Delay::Named(d) => (self.engine.bound.delays[d.index()])(self.context),
            };
            self.armed[g as usize] = Some(deadline(now, delay));
        }
    }

    fn disarm(&mut self, groups: &[u32]) {
        for &g in groups {
            self.armed[g as usize] = None;
        }
    }
}

/// True when the guard of chart transition `transition` holds: each guard
/// asked at most once while `cache` is kept (by guard index), `in(...)`
/// against `config`.
#[allow(clippy::too_many_arguments)]
fn holds<C, const W: usize>(
    engine: &Engine<C>,
    m: &Machine,
    cp: &ConfiguredPlan,
    transition: u32,
    config: &Bits<W>,
    context: &C,
    payload: &Value,
    cache: &mut Vec<Option<bool>>,
) -> bool {
    let chosen = cp.plan.chart.transitions[transition as usize].chosen;
    let guards = &engine.bound.guards;
    cache.resize(guards.len(), None);
    guard_of(m, chosen).is_none_or(|expr| {
        expr.eval(
            &mut |g| *cache[g.index()].get_or_insert_with(|| (guards[g.index()])(context, payload)),
            &mut |s| config.contains(s.index() as u32),
        )
    })
}

/// What `chart::select` asks of the engine while an action's step is
/// chosen: the guards, with the action's payload, each asked at most once.
/// Nothing is taken yet.
struct Choosing<'a, C> {
    engine: &'a Engine<C>,
    m: &'a Machine,
    cp: &'a ConfiguredPlan,
    context: &'a C,
    payload: &'a Value,
    cache: Vec<Option<bool>>,
}

impl<C, const W: usize> chart::Host<W> for Choosing<'_, C> {
    fn guard(&mut self, transition: u32, config: &Bits<W>) -> bool {
        let (engine, m, cp) = (self.engine, self.m, self.cp);
        holds(
            engine,
            m,
            cp,
            transition,
            config,
            self.context,
            self.payload,
            &mut self.cache,
        )
    }

    fn taken(&mut self, _: u32) {
        unreachable!("choosing takes no transition")
    }

    fn effect(&mut self, _: u32, _: bool) {
        unreachable!("choosing runs no effect")
    }

    fn output(&mut self, _: u32) {
        unreachable!("choosing emits nothing")
    }

    fn arm(&mut self, _: &[u32]) {
        unreachable!("choosing arms no timer")
    }

    fn disarm(&mut self, _: &[u32]) {
        unreachable!("choosing disarms no timer")
    }
}

/// What [`Engine::step_configured`] did.
struct Stepped {
    seq: u64,
    from: StateId,
    to: StateId,
    outputs: Vec<OutputId>,
    /// True when some step exited or entered a state.
    moved: bool,
    trail: Trail,
}

impl<C> Engine<C> {
    /// The plan of a definition that runs over configurations.
    fn configured_plan(&self) -> &ConfiguredPlan {
        self.definition
            .configured
            .as_deref()
            .expect("only called for definitions that run over configurations")
    }

    /// Choose the transitions `action` takes from `config`: the chart's
    /// own selection (`chart::select`, the first enabled candidate of each
    /// active leaf, as generated code chooses), over the plan's rows, each
    /// guard asked at most once. Chart transition indices, in the order
    /// chosen; `Err(true)` when some leaf has candidates but no guard held,
    /// `Err(false)` when none has any.
    fn choose<const W: usize>(
        &self,
        config: &Bits<W>,
        action: ActionId,
        context: &C,
        payload: &Value,
    ) -> Result<Vec<u32>, bool> {
        let cp = self.configured_plan();
        let chart = cp.chart();
        let mut host = Choosing {
            engine: self,
            m: self.definition.machine(),
            cp,
            context,
            payload,
            cache: Vec::new(),
        };
        let mut chosen = vec![0u32; cp.plan.chart.max_leaves];
        let mut any = false;
        let n = chart::select(
            &chart,
            config,
            |leaf| {
                let candidates = cp.plan.chart.rows[leaf as usize]
                    .iter()
                    .find(|&&(a, _)| a == action.index())
                    .map_or(&[][..], |&(_, l)| chart.list(list(l)));
                any |= !candidates.is_empty();
                candidates
            },
            &mut host,
            &mut chosen,
        );
        if n == 0 {
            Err(any)
        } else {
            chosen.truncate(n);
            Ok(chosen)
        }
    }

    /// `fire` for a machine that runs over configurations.
    pub(super) fn fire_configured(&self, action: ActionId, payload: &Value) -> Result<Fired<'_>, FireError> {
        // The configuration in words of 64 states, as many as the machine
        // needs (a few widths, so each is a fixed array).
        by_width!(self.configured_plan().plan.chart.words, W => self.fire_in::<W>(action, payload))
    }

    /// [`fire_configured`](Self::fire_configured) on configurations of `W`
    /// words.
    fn fire_in<const W: usize>(&self, action: ActionId, payload: &Value) -> Result<Fired<'_>, FireError> {
        let definition = &*self.definition;
        let mut guard = self.lock();
        let current = &mut *guard;
        let before: Bits<W> = to_bits(&current.configured.as_ref().expect("a configured engine").config);
        let chosen = match self.choose(&before, action, &current.context, payload) {
            Ok(chosen) => chosen,
            Err(guarded) => {
                drop(guard);
                return Err(self.refuse(self.refusal(&before.0, action, guarded)));
            }
        };
        let label = definition.shared_action_name(action).clone();
        let step = self.step_configured(current, &before, chosen, payload, None, label);
        drop(guard);
        let stable = !step.trail.ran_away;
        let fired = Fired {
            seq: step.seq,
            from: step.from,
            to: step.to,
            action,
            outputs: Cow::Owned(step.outputs),
            internal: !step.moved,
            trail: Some(Arc::new(step.trail)),
            definition,
        };
        if !stable {
            let error = FireError::Runaway(Runaway::new(&fired, Arc::clone(&self.definition)));
            return Err(self.refuse(error));
        }
        trace::fired(&fired);
        Ok(fired)
    }

    /// Take `taken` (chart transitions, in the order chosen) from `before`,
    /// the current configuration: the chart removes their conflicts, takes
    /// them, then the `always` and `done` steps after them; write the
    /// configuration, the memory, the timers and the state back, record the
    /// step in the history as `label`, and count it. `payload` goes to the
    /// step's own effects (`null` for a timer's); `now` is the time timers
    /// count from, read from the clock when first needed if `None`.
    fn step_configured<const W: usize>(
        &self,
        current: &mut Current<C>,
        before: &Bits<W>,
        mut taken: Vec<u32>,
        payload: &Value,
        now: Option<Timestamp>,
        label: Arc<str>,
    ) -> Stepped {
        let m = self.definition.machine();
        let cp = self.configured_plan();
        let chart = cp.chart();
        let words = cp.plan.chart.words;
        let configured = current.configured.as_mut().expect("a configured engine");
        let mut config = *before;
        let mut memory: Vec<Bits<W>> = configured.memory.chunks(words).map(to_bits).collect();
        let n = taken.len();
        taken.resize(n.max(cp.plan.chart.max_leaves), 0);
        let n = chart::remove_conflicts(&chart, before, &mut taken, n);
        let mut host = ChartHost {
            engine: self,
            m,
            cp,
            context: &mut current.context,
            armed: &mut current.armed,
            payload,
            by_action: true,
            outputs: Vec::new(),
            taken: Vec::new(),
            effects: 0,
            now,
            moved: false,
            cache: Vec::new(),
        };
        let entered = chart::microstep(&chart, &mut config, &mut memory, &taken[..n], &mut host);
        host.by_action = false;
        host.cache.clear();
        // Without `always` and `done` transitions nothing follows a step.
        let stable = m.eventless.is_empty()
            || chart::settle(
                &chart,
                &mut config,
                &mut memory,
                before,
                &entered,
                &mut host,
                &mut taken,
            ) == Settled::Stable;
        let ChartHost {
            outputs,
            taken,
            moved,
            effects,
            ..
        } = host;
        configured.config.copy_from_slice(&config.0[..words]);
        for (slot, bits) in configured.memory.chunks_mut(words).zip(&memory) {
            slot.copy_from_slice(&bits.0[..words]);
        }
        let (from, to) = (summary(m, &before.0), summary(m, &config.0));
        let trail = Trail {
            from: leaves(m, &before.0),
            to: leaves(m, &config.0),
            taken: taken.into(),
            effects,
            ran_away: !stable,
        };
        if current.history.is_some() {
            current.record(
                self.configuration_name(&trail.from),
                label,
                self.configuration_name(&trail.to),
                &outputs,
            );
        }
        current.state = to;
        let seq = current.seq;
        current.seq += 1;
        Stepped {
            seq,
            from,
            to,
            outputs,
            moved,
            trail,
        }
    }

    /// The error of an action no leaf of `config` takes.
    fn refusal(&self, config: &[u64], action: ActionId, guarded: bool) -> FireError {
        let m = self.definition.machine();
        let state = summary(m, config);
        let leaves: Arc<[StateId]> = leaves(m, config).into();
        if guarded {
            FireError::GuardRejected(GuardRejected {
                state,
                action,
                leaves: Some(leaves),
                definition: Arc::clone(&self.definition),
            })
        } else {
            FireError::InvalidTransition(InvalidTransition {
                state,
                action,
                leaves: Some(leaves),
                valid: Some(valid_in(&self.definition, config).into()),
                definition: Arc::clone(&self.definition),
            })
        }
    }

    /// `can_fire` for a machine that runs over configurations.
    pub(super) fn can_fire_configured(&self, action: ActionId, payload: &Value) -> bool {
        let current = self.lock();
        let config = &current.configured.as_ref().expect("a configured engine").config;
        by_width!(self.configured_plan().plan.chart.words, W => {
            self.choose(&to_bits::<W>(config), action, &current.context, payload).is_ok()
        })
    }

    /// The earliest deadline armed in the current configuration.
    pub(super) fn next_deadline_configured(&self) -> Option<Timestamp> {
        let current = self.lock();
        self.configured_plan()
            .due(&current.armed, None)
            .map(|(_, due)| due)
    }

    /// `fire_due` for a machine that runs over configurations: every group
    /// due at the clock's time, earliest first, ties in the plan's tie
    /// order (`Plan::timer_order`), each as its own step followed by its
    /// `always` and `done` steps.
    pub(super) fn fire_due_configured(&self) -> Vec<Result<FiredTimer<'_>, TimerRejected<'_>>> {
        by_width!(self.configured_plan().plan.chart.words, W => self.fire_due_in::<W>())
    }

    /// [`fire_due_configured`](Self::fire_due_configured) on configurations
    /// of `W` words.
    fn fire_due_in<const W: usize>(&self) -> Vec<Result<FiredTimer<'_>, TimerRejected<'_>>> {
        let definition = &*self.definition;
        let m = definition.machine();
        let cp = self.configured_plan();
        let plan = &cp.plan;
        let mut fired = Vec::new();
        let mut guard = self.lock();
        let now = {
            let current = &*guard;
            if cp.due(&current.armed, None).is_none() {
                return fired;
            }
            self.clock.now()
        };
        loop {
            let current = &mut *guard;
            let before: Bits<W> = to_bits(&current.configured.as_ref().expect("a configured engine").config);
            // The plan's tie order: priority, then each leaf's own groups
            // before those of the states holding it, leaves in document
            // order.
            let Some((group, due)) = cp.due(&current.armed, Some(now)) else {
                break;
            };
            current.armed[group] = None;
            let timers = &plan.timer_groups[group].timers;
            let declared_in = ours(plan.timer_groups[group].state);
            let from = summary(m, &before.0);
            let context = &current.context;
            let guards = &self.bound.guards;
            let chosen = timers.iter().find(|&&(t, _)| {
                guard_of(m, Chosen::Timer(t)).is_none_or(|expr| {
                    expr.eval(&mut |g| (guards[g.index()])(context, &NULL), &mut |s| {
                        before.contains(s.index() as u32)
                    })
                })
            });
            let Some(&(timer, index)) = chosen else {
                fired.push(Err(TimerRejected {
                    state: from,
                    declared_in,
                    timer: timers[0].1 as usize,
                    due,
                    leaves: Some(leaves(m, &before.0).into()),
                    definition,
                }));
                continue;
            };
            // A guarded cycle past the bound stops the chain; the timer's
            // step and those before the bound stay taken, as for an action,
            // and `FiredTimer::ran_away` says so.
            let label = plan.timer_groups[group].label.as_str().into();
            let timer = cp.plan.chart.index_of(m, Chosen::Timer(timer)) as u32;
            let step = self.step_configured(current, &before, vec![timer], &NULL, Some(now), label);
            fired.push(Ok(FiredTimer {
                effects: step.trail.effects,
                seq: step.seq,
                from: step.from,
                to: step.to,
                declared_in,
                timer: index as usize,
                due,
                outputs: Cow::Owned(step.outputs),
                internal: !step.moved,
                trail: Some(Arc::new(step.trail)),
                definition,
            }));
        }
        drop(guard);
        for outcome in &fired {
            match outcome {
                Ok(f) => trace::fired_timer(f),
                Err(r) => trace::timer_rejected(r),
            }
        }
        fired
    }

    /// The name a history entry gives a configuration: its one leaf, or its
    /// leaves in document order, separated by `, `.
    fn configuration_name(&self, leaves: &[StateId]) -> Arc<str> {
        let definition = &*self.definition;
        match leaves {
            [leaf] => definition.shared_state_name(*leaf).clone(),
            _ => leaves
                .iter()
                .map(|&l| definition.state_name(l))
                .collect::<Vec<_>>()
                .join(", ")
                .into(),
        }
    }

    /// The initial configuration, and the timer groups to arm when the
    /// engine starts: every group of every state of it, in entry order.
    pub(super) fn initial_configured(definition: &Definition) -> (Configured, Vec<usize>) {
        let configured = definition
            .configured
            .as_deref()
            .expect("only called for definitions that run over configurations");
        let config = configured.initial.clone();
        let groups = members(&config)
            .flat_map(|s| configured.plan.state_timer_groups[s.index()].clone())
            .collect();
        let memory = vec![0; configured.plan.history.len() * config.len()].into();
        (Configured { config, memory }, groups)
    }

    /// The active leaves, in document order.
    pub(super) fn configuration_of(&self, current: &Current<C>) -> Vec<StateId> {
        match &current.configured {
            Some(configured) => leaves(self.definition.machine(), &configured.config).into_vec(),
            None => vec![current.state],
        }
    }
}

/// Snapshots and restores of a machine that runs over configurations.
impl<C> Engine<C> {
    /// A snapshot of the configuration, its armed timers and its history
    /// memory (the caller adds the context, the history and the outbox).
    /// A machine with parallel states writes its leaves as
    /// `"configuration"`; one without, as `"current_state"`, as every other
    /// machine does.
    pub(super) fn configured_snapshot(&self, current: &Current<C>) -> Snapshot {
        let definition = &*self.definition;
        let m = definition.machine();
        let cp = self.configured_plan();
        let configured = current.configured.as_ref().expect("a configured engine");
        let config = &configured.config;
        let names: Vec<String> = active_leaves(m, config)
            .map(|s| m.state(s).name.clone())
            .collect();
        let (name, fingerprint) = (definition.name().to_owned(), definition.fingerprint().to_owned());
        let mut snapshot = if m.has_parallel() {
            Snapshot::of_configuration(name, fingerprint, names)
        } else {
            let [leaf] = <[String; 1]>::try_from(names).expect("one leaf without parallel states");
            Snapshot::new(name, fingerprint, leaf)
        };
        // Each armed timer with its group's deadline, in the chart's order:
        // for each active leaf in document order, its own timers, then those
        // of each state holding it, outward, each state once.
        let (chart, groups) = (cp.chart(), cp.timer_groups());
        let armed = by_width!(cp.plan.chart.words, W => chart::armed_timers(&chart, &groups, &to_bits::<W>(config), &current.armed));
        let timers: Vec<ArmedTimer> = armed
            .into_iter()
            .map(|(state, index, due)| ArmedTimer::new(m.states[state as usize].name.clone(), index, due))
            .collect();
        if !timers.is_empty() {
            snapshot = snapshot.with_timers(timers);
        }
        let words = cp.plan.chart.words;
        let remembered: Vec<(String, Vec<String>)> = m
            .history_composites()
            .into_iter()
            .filter_map(|composite| {
                let slot = cp.plan.history.iter().position(|h| h.composite == composite)?;
                let leaves = &configured.memory[slot * words..(slot + 1) * words];
                let names: Vec<String> = members(leaves).map(|l| m.state(l).name.clone()).collect();
                (!names.is_empty()).then(|| (m.state(composite).name.clone(), names))
            })
            .collect();
        if !remembered.is_empty() {
            snapshot = snapshot.with_last_leaves(remembered);
        }
        snapshot
    }

    /// The configuration, armed timers (group, deadline) and history memory
    /// of `snapshot`, checked by `fsm_runtime::__private::chart::restore`, as generated
    /// code checks them: identity, known leaves forming a configuration, each
    /// armed timer one an active state declares, and each memory leaves
    /// forming a configuration inside a composite entered through its
    /// history.
    pub(super) fn configured_restore(
        &self,
        snapshot: &Snapshot,
        policy: FingerprintPolicy,
    ) -> Result<(Configured, Vec<(usize, Timestamp)>), RestoreError> {
        let definition = &*self.definition;
        let m = definition.machine();
        let cp = self.configured_plan();
        let names: Vec<&str> = m.states.iter().map(|s| s.name.as_str()).collect();
        let slots: Vec<u32> = cp
            .plan
            .history
            .iter()
            .map(|slot| slot.composite.index() as u32)
            .collect();
        let groups = cp.timer_groups();
        let restoring = chart::Restoring {
            chart: cp.chart(),
            machine: definition.name(),
            fingerprint: definition.fingerprint(),
            names: &names,
            slots: &slots,
            groups: &groups,
        };
        let mut armed: Vec<Option<Timestamp>> = vec![None; groups.len()];
        let words = cp.plan.chart.words;
        let (config, memory) = by_width!(words, W => {
            let mut memory: Vec<Bits<W>> = vec![Bits::EMPTY; slots.len()];
            let config = chart::restore::<W>(&restoring, snapshot, policy, &mut memory, &mut armed)?;
            let memory: Vec<u64> = memory.iter().flat_map(|m| m.0[..words].iter().copied()).collect();
            (Box::<[u64]>::from(&config.0[..words]), memory.into_boxed_slice())
        });
        let armed = armed
            .into_iter()
            .enumerate()
            .filter_map(|(g, due)| Some((g, due?)))
            .collect();
        Ok((Configured { config, memory }, armed))
    }
}

#[cfg(test)]
mod tests {
    use super::ConfiguredPlan;
    use fsm_grammar::model::{Configuration, Machine, StateId};
    use fsm_grammar::plan::Plan;

    /// Two top-level states around a parallel state `p` of two regions, `a`
    /// (with a composite `a_more` inside it) and `b`, and a plain composite
    /// `q` holding a parallel state `r`.
    const M: &str = "machine M {
        initial state x { on go -> p; on in_q -> q; }
        parallel state p {
            on out -> x;
            state a {
                initial state a1 { on next -> a2; }
                state a2 { on next -> a_more; }
                state a_more { initial state a3 { on next -> a4; } state a4 { on next -> a1; } }
            }
            state b { initial state b1 { on next -> b2; } state b2 { on next -> b1; } }
        }
        state q {
            on out -> x;
            initial state q1 { on next -> r; }
            parallel state r {
                state c { initial state c1 { on next -> c2; } state c2 { on next -> c1; } }
                state d;
            }
        }
    }";

    fn machine(text: &str) -> Machine {
        let checked = fsm_grammar::check(text);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        checked.model.machines.into_iter().next().expect("one machine")
    }

    fn id(m: &Machine, name: &str) -> u32 {
        m.state_by_name(name).expect(name).index() as u32
    }

    fn names(m: &Machine, states: impl IntoIterator<Item = StateId>) -> Vec<String> {
        states.into_iter().map(|s| m.state(s).name.clone()).collect()
    }

    /// What the one rule makes of `leaves` below `within`: every state, by
    /// names, or the problem in words.
    fn rule(m: &Machine, leaves: &[&str], within: Option<&str>) -> Result<Vec<StateId>, String> {
        let plan = ConfiguredPlan::new(m, Plan::new(m));
        let leaves: Vec<u32> = leaves.iter().map(|l| id(m, l)).collect();
        plan.leaves_configuration(m, &leaves, within.map(|c| id(m, c)))
            .map(|states| {
                states
                    .into_iter()
                    .map(|s| StateId::from_index(s as usize))
                    .collect()
            })
    }

    /// The configuration of `leaves`, by names, or the problem in words.
    fn configuration(m: &Machine, leaves: &[&str]) -> Result<Vec<String>, String> {
        rule(m, leaves, None).map(|states| names(m, states))
    }

    /// The memory of `composite` from `leaves`: its leaves in document
    /// order, by names, or the problem in words.
    fn memory(m: &Machine, composite: &str, leaves: &[&str]) -> Result<Vec<String>, String> {
        rule(m, leaves, Some(composite))
            .map(|states| names(m, states.into_iter().filter(|&s| !m.state(s).is_composite())))
    }

    #[test]
    fn legal_leaves_give_the_configuration_with_every_state_holding_them() {
        let m = machine(M);
        assert_eq!(configuration(&m, &["x"]), Ok(vec!["x".into()]));
        assert_eq!(
            configuration(&m, &["a3", "b2"]),
            Ok(["p", "a", "a_more", "a3", "b", "b2"].map(String::from).to_vec())
        );
        // In any order, as a set.
        assert_eq!(configuration(&m, &["b2", "a3"]), configuration(&m, &["a3", "b2"]));
        // A region that is a leaf is its own active state.
        assert_eq!(
            configuration(&m, &["d", "c2"]),
            Ok(["q", "r", "c", "c2", "d"].map(String::from).to_vec())
        );
        assert_eq!(configuration(&m, &["q1"]), Ok(vec!["q".into(), "q1".into()]));
        // The initial configuration is one.
        let initial: Configuration = m.initial_configuration().into_iter().collect();
        let leaves: Vec<&str> = m
            .active_leaves(&initial)
            .map(|s| m.state(s).name.as_str())
            .collect();
        assert_eq!(configuration(&m, &leaves), Ok(names(&m, initial)));
    }

    #[test]
    fn each_problem_is_named_with_the_states() {
        let m = machine(M);
        let error = |leaves: &[&str]| configuration(&m, leaves).unwrap_err();
        assert_eq!(
            error(&[]),
            "no leaf is named, and a machine is always in at least one"
        );
        assert_eq!(
            error(&["a1", "a", "b1"]),
            "`a` is not a leaf: it holds states, and only the active leaves are named \
             (the states holding them follow)"
        );
        assert_eq!(error(&["b1", "a1", "b1"]), "`b1` is named twice");
        assert_eq!(
            error(&["a2", "b1", "a1"]),
            "`a1` and `a2` are both in region `a` of `p`; a region has one active state"
        );
        // The branch of `a` holding `a3` is `a_more`, not `a3` itself.
        assert_eq!(
            error(&["a3", "a1", "b1"]),
            "`a1` and `a3` are both in region `a` of `p`; a region has one active state"
        );
        assert_eq!(
            error(&["a3", "a4", "b1"]),
            "`a3` and `a4` cannot be active together: they are on different branches of \
             `a_more` (`a3` and `a4`), and `a_more` is not parallel"
        );
        assert_eq!(
            error(&["q1", "c1", "d"]),
            "`q1` and `c1` cannot be active together: they are on different branches of \
             `q` (`q1` and `r`), and `q` is not parallel"
        );
        assert_eq!(
            error(&["a1", "b1", "x"]),
            "`x` and `a1` cannot be active together: they are under different top-level \
             states (`x` and `p`), and one top-level state is active at a time"
        );
        assert_eq!(
            error(&["a1"]),
            "`p` is active but its region `b` has no active leaf"
        );
        assert_eq!(
            error(&["b2"]),
            "`p` is active but its region `a` has no active leaf"
        );
        assert_eq!(
            error(&["c1"]),
            "`r` is active but its region `d` has no active leaf"
        );
    }

    #[test]
    fn a_memory_is_a_configuration_inside_its_composite() {
        let m = machine(M);
        // Sorted into document order, as the model keeps them.
        assert_eq!(memory(&m, "p", &["b2", "a4"]), Ok(vec!["a4".into(), "b2".into()]));
        assert_eq!(memory(&m, "a", &["a3"]), Ok(vec!["a3".into()]));
        assert_eq!(memory(&m, "q", &["q1"]), Ok(vec!["q1".into()]));
        assert_eq!(memory(&m, "q", &["d", "c2"]), Ok(vec!["c2".into(), "d".into()]));
        assert_eq!(
            memory(&m, "p", &[]).unwrap_err(),
            "no leaf is named inside `p`, and one was active there when it was left"
        );
        assert_eq!(
            memory(&m, "a", &["a1", "x"]).unwrap_err(),
            "`x` is not inside `a`"
        );
        assert_eq!(memory(&m, "q", &["b1"]).unwrap_err(), "`b1` is not inside `q`");
        assert_eq!(
            memory(&m, "p", &["a1", "b1", "b2"]).unwrap_err(),
            "`b1` and `b2` are both in region `b` of `p`; a region has one active state"
        );
        assert_eq!(
            memory(&m, "q", &["q1", "d"]).unwrap_err(),
            "`q1` and `d` cannot be active together: they are on different branches of \
             `q` (`q1` and `r`), and `q` is not parallel"
        );
        // The composite itself, when parallel, has every region.
        assert_eq!(
            memory(&m, "p", &["a2"]).unwrap_err(),
            "`p` is active but its region `b` has no active leaf"
        );
        assert_eq!(
            memory(&m, "q", &["c1"]).unwrap_err(),
            "`r` is active but its region `d` has no active leaf"
        );
        assert_eq!(
            memory(&m, "p", &["p"]).unwrap_err(),
            "`p` is not a leaf: it holds states, and only the active leaves are named \
             (the states holding them follow)"
        );
    }
}
