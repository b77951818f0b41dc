//! Machines whose state is a configuration: those with parallel states.
//! (A machine with `final` states, `done` or `always` transitions or
//! `in(...)` guards but no parallel state has one active leaf: its steps,
//! and the `always` and `done` steps after them, run from the tables, as
//! code generation lays them out: `Engine::chain`.)
//!
//! The engine decides nothing here. Which transitions an action's step
//! chooses is the model's ([`Machine::select`]); which of them conflict,
//! what the step exits and enters, what it runs, emits, arms and
//! remembers, what comes after it, which armed timer is due first, and
//! which snapshots restore are `fsm_runtime::__private::chart`'s, over the plan's
//! tables ([`ChartPlan`]): the runtime's one account of a step over
//! configurations, which agrees with the model's (`model/configuration.rs`)
//! and the SCXML reference on random machines (`engine/chart_tests.rs`,
//! `tests/it/configurations.rs`). The engine asks the guards, runs the effects
//! and keeps the timers, the history and the outbox, as it does for the
//! other machines.

use super::{Current, Engine, NULL};
use crate::definition::Definition;
use crate::fire_error::{FireError, GuardRejected, InvalidTransition, Runaway};
use crate::fired::{Fired, FiredTimer, Taken, TakenKind, Trail};
use crate::ids::{ActionId, OutputId, StateId};
use crate::timer_rejected::TimerRejected;
use crate::trace;
use fsm_grammar::model::{self, Chosen, Configuration, Machine, Memory};
use fsm_grammar::plan::{ChartKind, ChartPlan, Plan, PoolList};
use fsm_runtime::__private::chart::{self, Bits, Chart, Settled};
use fsm_runtime::__private::deadline;
use fsm_runtime::{ArmedTimer, FingerprintPolicy, RestoreError, Snapshot, Timestamp};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// `$body` with `$w` a `const` of as many 64-bit words as `$words`
/// configurations need, rounded up to one of a few widths, so that each is a
/// fixed array. `Definition::MAX_PARALLEL_STATES` is 1,024 words:
/// definitions of larger machines with parallel states are refused.
macro_rules! by_width {
    ($words:expr, $w:ident => $body:expr) => {
        match $words {
            1 => {
                const $w: usize = 1;
                $body
            }
            2 => {
                const $w: usize = 2;
                $body
            }
            3..=4 => {
                const $w: usize = 4;
                $body
            }
            5..=8 => {
                const $w: usize = 8;
                $body
            }
            9..=16 => {
                const $w: usize = 16;
                $body
            }
            17..=64 => {
                const $w: usize = 64;
                $body
            }
            _ => {
                const $w: usize = 1024;
                $body
            }
        }
    };
}

/// `config` as a bit set of `W` words.
fn bits<const W: usize>(config: &Configuration) -> Bits<W> {
    let mut bits = Bits::EMPTY;
    for s in config {
        bits.insert(s.index() as u32);
    }
    bits
}

/// What a definition that runs over configurations adds to its tables.
#[derive(Clone, Debug)]
pub(crate) struct ConfiguredPlan {
    pub(crate) plan: Plan,
    /// The initial configuration.
    pub(crate) initial: Configuration,
    /// The plan's tables for `fsm_runtime::__private::chart`, which takes the steps.
    chart: ChartPlan,
    /// `chart`'s states and transitions as the runtime reads them.
    states: Vec<chart::State>,
    transitions: Vec<chart::Transition>,
    /// Each timer group's state, its candidates (as transitions of
    /// `chart`) and their indices among the state's timers.
    groups: Vec<(u32, Vec<u32>, Vec<u32>)>,
}

impl ConfiguredPlan {
    pub(crate) fn new(machine: &Machine) -> ConfiguredPlan {
        let plan = Plan::new(machine);
        let chart = ChartPlan::new(machine, &plan);
        let (states, transitions) = runtime_tables(&chart);
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
            initial: machine.initial_configuration().into_iter().collect(),
            plan,
            chart,
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
            pool: &self.chart.pool,
        }
    }
}

/// `plan`'s states and transitions in the runtime's types.
pub(super) fn runtime_tables(plan: &ChartPlan) -> (Vec<chart::State>, Vec<chart::Transition>) {
    let list = |l: PoolList| chart::List {
        start: l.start,
        len: l.len,
    };
    let id = |s: Option<model::StateId>| s.map_or(chart::NONE, |s| s.index() as u32);
    let states = plan
        .states
        .iter()
        .map(|s| chart::State {
            parent: id(s.parent),
            kind: match s.kind {
                ChartKind::Leaf => chart::Kind::Leaf,
                ChartKind::Final => chart::Kind::Final,
                ChartKind::Composite => chart::Kind::Composite,
                ChartKind::Parallel => chart::Kind::Parallel,
            },
            depth: s.depth,
            end: s.end,
            initial: id(s.initial),
            children: list(s.children),
            memory: s.memory.map_or(chart::NONE, |m| m as u32),
            enter: chart::Hook {
                outputs: list(s.enter.0),
                effects: list(s.enter.1),
            },
            exit: chart::Hook {
                outputs: list(s.exit.0),
                effects: list(s.exit.1),
            },
            timer_groups: list(s.timer_groups),
            eventless: list(s.eventless),
        })
        .collect();
    let transitions = plan
        .transitions
        .iter()
        .map(|t| chart::Transition {
            source: id(t.source),
            target: id(t.target),
            history: t.history,
            priority: t.priority,
            exits: t.exits,
            path: list(t.path),
            own: chart::Hook {
                outputs: list(t.own.0),
                effects: list(t.own.1),
            },
        })
        .collect();
    (states, transitions)
}

/// The configuration of an engine that runs over configurations, and its
/// history memory, beside [`Current`]'s other fields.
#[derive(Clone, Debug)]
pub(crate) struct Configured {
    pub(crate) config: Configuration,
    pub(crate) memory: Memory,
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
pub(crate) fn summary(m: &Machine, config: &Configuration) -> StateId {
    let mut at = *config.first().expect("a configuration holds a state");
    loop {
        let state = m.state(at);
        if state.is_parallel() || !state.is_composite() {
            return ours(at);
        }
        match state.children.iter().find(|c| config.contains(c)) {
            Some(&child) => at = child,
            None => return ours(at),
        }
    }
}

/// The active leaves of `config`, in document order.
pub(crate) fn leaves(m: &Machine, config: &Configuration) -> Box<[StateId]> {
    m.active_leaves(config).map(ours).collect()
}

/// The actions valid in some leaf of `config`, in the definition's order.
pub(crate) fn valid_in(definition: &Definition, config: &Configuration) -> Vec<ActionId> {
    let m = definition.machine();
    let mut valid: Vec<ActionId> = m
        .active_leaves(config)
        .flat_map(|leaf| definition.valid_actions(ours(leaf)).iter().copied())
        .collect();
    valid.sort_unstable();
    valid.dedup();
    valid
}

/// The guard of a chosen transition.
fn guard_of(m: &Machine, c: Chosen) -> Option<&model::GuardExpr> {
    match c {
        Chosen::Action(t) => m.transition(t).guard.as_ref().map(|g| &g.expr),
        Chosen::Timer(t) => m.timers[t.index()].guard.as_ref().map(|g| &g.expr),
        Chosen::Eventless(i) => m.eventless[i].guard.as_ref().map(|g| &g.expr),
    }
}

/// A transition taken, as [`Fired::taken`] reports it.
pub(crate) fn taken(m: &Machine, c: Chosen) -> Taken {
    let (source, target, history, _) = m.chosen_parts(c);
    let kind = match c {
        Chosen::Action(_) => TakenKind::Action,
        Chosen::Timer(_) => TakenKind::Timer,
        Chosen::Eventless(i) => match m.eventless[i].kind {
            model::EventlessKind::Done => TakenKind::Done,
            model::EventlessKind::Always => TakenKind::Always,
        },
    };
    Taken {
        kind,
        source: match source {
            model::Source::State(s) => Some(ours(s)),
            model::Source::Any => None,
        },
        target: target.map(ours),
        history,
    }
}

/// What the chart's steps did, for [`Engine::step_configured`].
struct Chained {
    outputs: Vec<OutputId>,
    taken: Vec<Taken>,
    moved: bool,
    effects: usize,
    stable: bool,
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
        let chosen = self.cp.chart.transitions[transition as usize].chosen;
        let guards = &self.engine.bound.guards;
        let (context, cache) = (&*self.context, &mut self.cache);
        cache.resize(guards.len(), None);
        guard_of(self.m, chosen).is_none_or(|expr| {
            expr.eval(
                &mut |g| *cache[g.index()].get_or_insert_with(|| (guards[g.index()])(context, &NULL)),
                &mut |s| config.contains(s.index() as u32),
            )
        })
    }

    fn taken(&mut self, transition: u32) {
        // The next step asks its guards afresh: this one's effects may
        // change what they read.
        self.cache.clear();
        let chosen = self.cp.chart.transitions[transition as usize].chosen;
        self.moved |= self.cp.chart.transitions[transition as usize].target.is_some();
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

    /// The candidates `action` has in `leaf`, in trial order.
    fn action_candidates(plan: &Plan, leaf: model::StateId, action: ActionId) -> Vec<Chosen> {
        plan.row(leaf, model::ActionId::from_index(action.index()))
            .map(|row| {
                row.candidates
                    .iter()
                    .map(|c| Chosen::Action(c.transition))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Choose the transitions `action` takes from `config`, asking each
    /// guard at most once: `Err(true)` when some leaf has candidates but no
    /// guard held, `Err(false)` when none has any.
    fn choose(
        &self,
        config: &Configuration,
        action: ActionId,
        context: &C,
        payload: &Value,
    ) -> Result<Vec<Chosen>, bool> {
        let ConfiguredPlan { plan, .. } = self.configured_plan();
        let m = self.definition.machine();
        let guards = &self.bound.guards;
        let mut cache: Vec<Option<bool>> = vec![None; guards.len()];
        let mut any = false;
        let chosen = m.select(
            config,
            |leaf| {
                let candidates = Self::action_candidates(plan, leaf, action);
                any |= !candidates.is_empty();
                candidates
            },
            |c| {
                guard_of(m, c).is_none_or(|expr| {
                    expr.eval(
                        &mut |g| {
                            *cache[g.index()].get_or_insert_with(|| (guards[g.index()])(context, payload))
                        },
                        &mut |s| config.contains(&s),
                    )
                })
            },
        );
        if chosen.is_empty() {
            Err(any)
        } else {
            Ok(chosen)
        }
    }

    /// `fire` for a machine that runs over configurations.
    pub(super) fn fire_configured(&self, action: ActionId, payload: &Value) -> Result<Fired<'_>, FireError> {
        let definition = &*self.definition;
        let mut guard = self.lock();
        let current = &mut *guard;
        let configured = current.configured.as_mut().expect("a configured engine");
        let before = configured.config.clone();
        let chosen = match self.choose(&before, action, &current.context, payload) {
            Ok(chosen) => chosen,
            Err(guarded) => {
                drop(guard);
                return Err(self.refuse(self.refusal(&before, action, guarded)));
            }
        };
        let label = definition.shared_action_name(action).clone();
        let step = self.step_configured(current, &before, &chosen, payload, None, label);
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

    /// Take `taken` (free of conflicts) from `before`, the current
    /// configuration, then the `always` and `done` steps after them
    /// ([`Machine::settle_with`]); write the configuration, the memory, the
    /// timers and the state back, record the step in the history as
    /// `label`, and count it. `payload` goes to the step's own effects
    /// (`null` for a timer's); `now` is the time timers count from, read
    /// from the clock when first needed if `None`.
    fn step_configured(
        &self,
        current: &mut Current<C>,
        before: &Configuration,
        taken: &[Chosen],
        payload: &Value,
        now: Option<Timestamp>,
        label: Arc<str>,
    ) -> Stepped {
        let m = self.definition.machine();
        let words = self.configured_plan().chart.words;
        let mut armed = current.armed.clone();
        // The configuration in words of 64 states, as many as the machine
        // needs (a few widths, so each is a fixed array).
        let (config, memory, chained) =
            by_width!(words, W => self.chart_step::<W>(current, before, taken, payload, now, &mut armed));
        let Chained {
            outputs,
            taken,
            moved,
            effects,
            stable,
        } = chained;
        let (from, to) = (summary(m, before), summary(m, &config));
        let trail = Trail {
            from: leaves(m, before),
            to: leaves(m, &config),
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
        let configured = current.configured.as_mut().expect("a configured engine");
        configured.config = config;
        configured.memory = memory;
        current.armed = armed;
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

    /// [`step_configured`](Self::step_configured)'s step on configurations
    /// of `W` words: the chart takes the transitions `taken` (their
    /// conflicts removed) and the `always` and `done` steps after them.
    /// Returns the configuration, the memory and what the steps did.
    fn chart_step<const W: usize>(
        &self,
        current: &mut Current<C>,
        before: &Configuration,
        taken: &[Chosen],
        payload: &Value,
        now: Option<Timestamp>,
        armed: &mut [Option<Timestamp>],
    ) -> (Configuration, Memory, Chained) {
        let m = self.definition.machine();
        let cp = self.configured_plan();
        let chart = cp.chart();
        let configured = current.configured.as_ref().expect("a configured engine");
        let mut config: Bits<W> = bits(before);
        let start = config;
        let mut memory: Vec<Bits<W>> = cp
            .plan
            .history
            .iter()
            .map(|slot| {
                let mut bits = Bits::EMPTY;
                for leaf in configured
                    .memory
                    .last_leaves
                    .get(&slot.composite)
                    .into_iter()
                    .flatten()
                {
                    bits.insert(leaf.index() as u32);
                }
                bits
            })
            .collect();
        let mut chosen: Vec<u32> = taken.iter().map(|&c| cp.chart.index_of(m, c) as u32).collect();
        chosen.resize(chosen.len().max(cp.chart.max_leaves), 0);
        let n = chart::remove_conflicts(&chart, &start, &mut chosen, taken.len());
        let first: Vec<u32> = chosen[..n].to_vec();
        let mut host = ChartHost {
            engine: self,
            m,
            cp,
            context: &mut current.context,
            armed,
            payload,
            by_action: true,
            outputs: Vec::new(),
            taken: Vec::new(),
            effects: 0,
            now,
            moved: false,
            cache: Vec::new(),
        };
        let entered = chart::microstep(&chart, &mut config, &mut memory, &first, &mut host);
        host.by_action = false;
        host.cache.clear();
        // Without `always` and `done` transitions nothing follows a step.
        let stable = m.eventless.is_empty()
            || chart::settle(
                &chart,
                &mut config,
                &mut memory,
                &start,
                &entered,
                &mut host,
                &mut chosen,
            ) == Settled::Stable;
        let ChartHost {
            outputs,
            taken,
            moved,
            effects,
            ..
        } = host;
        let config: Configuration = config
            .iter()
            .map(|s| model::StateId::from_index(s as usize))
            .collect();
        let mut remembered = Memory::default();
        for (slot, bits) in cp.plan.history.iter().zip(&memory) {
            if !bits.is_empty() {
                let leaves = bits
                    .iter()
                    .map(|s| model::StateId::from_index(s as usize))
                    .collect();
                remembered.last_leaves.insert(slot.composite, leaves);
            }
        }
        let chained = Chained {
            outputs,
            taken,
            moved,
            effects,
            stable,
        };
        (config, remembered, chained)
    }

    /// The error of an action no leaf of `config` takes.
    fn refusal(&self, config: &Configuration, action: ActionId, guarded: bool) -> FireError {
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
        self.choose(config, action, &current.context, payload).is_ok()
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
            let before = current
                .configured
                .as_ref()
                .expect("a configured engine")
                .config
                .clone();
            // The plan's tie order: priority, then each leaf's own groups
            // before those of the states holding it, leaves in document
            // order.
            let Some((group, due)) = cp.due(&current.armed, Some(now)) else {
                break;
            };
            current.armed[group] = None;
            let timers = &plan.timer_groups[group].timers;
            let declared_in = ours(plan.timer_groups[group].state);
            let from = summary(m, &before);
            let context = &current.context;
            let guards = &self.bound.guards;
            let chosen = timers.iter().find(|&&(t, _)| {
                guard_of(m, Chosen::Timer(t)).is_none_or(|expr| {
                    expr.eval(&mut |g| (guards[g.index()])(context, &NULL), &mut |s| {
                        before.contains(&s)
                    })
                })
            });
            let Some(&(timer, index)) = chosen else {
                fired.push(Err(TimerRejected {
                    state: from,
                    declared_in,
                    timer: timers[0].1 as usize,
                    due,
                    leaves: Some(leaves(m, &before).into()),
                    definition,
                }));
                continue;
            };
            // A guarded cycle past the bound stops the chain; the timer's
            // step and those before the bound stay taken, as for an action,
            // and `FiredTimer::ran_away` says so.
            let label = plan.timer_groups[group].label.as_str().into();
            let step =
                self.step_configured(current, &before, &[Chosen::Timer(timer)], &NULL, Some(now), label);
            fired.push(Ok(FiredTimer {
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
        let groups = config
            .iter()
            .flat_map(|s| configured.plan.state_timer_groups[s.index()].clone())
            .collect();
        (
            Configured {
                config,
                memory: Memory::default(),
            },
            groups,
        )
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
        let names: Vec<String> = m.active_leaves(config).map(|s| m.state(s).name.clone()).collect();
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
        let armed =
            by_width!(cp.chart.words, W => chart.armed_timers(&groups, &bits::<W>(config), &current.armed));
        let timers: Vec<ArmedTimer> = armed
            .into_iter()
            .map(|(state, index, due)| ArmedTimer::new(m.states[state as usize].name.clone(), index, due))
            .collect();
        if !timers.is_empty() {
            snapshot = snapshot.with_timers(timers);
        }
        let remembered: Vec<(String, Vec<String>)> = m
            .history_composites()
            .into_iter()
            .filter_map(|composite| {
                let leaves = configured.memory.last_leaves.get(&composite)?;
                let names = leaves.iter().map(|&l| m.state(l).name.clone()).collect();
                Some((m.state(composite).name.clone(), names))
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
        let ids = |bits: &mut dyn Iterator<Item = u32>| -> Configuration {
            bits.map(|s| model::StateId::from_index(s as usize)).collect()
        };
        let (config, memory) = by_width!(cp.chart.words, W => {
            let mut memory: Vec<Bits<W>> = vec![Bits::EMPTY; slots.len()];
            let config = chart::restore::<W>(&restoring, snapshot, policy, &mut memory, &mut armed)?;
            let mut remembered = Memory::default();
            for (slot, leaves) in cp.plan.history.iter().zip(&memory) {
                if !leaves.is_empty() {
                    let leaves = leaves.iter().map(|s| model::StateId::from_index(s as usize));
                    remembered.last_leaves.insert(slot.composite, leaves.collect());
                }
            }
            (ids(&mut config.iter()), remembered)
        });
        let armed = armed
            .into_iter()
            .enumerate()
            .filter_map(|(g, due)| Some((g, due?)))
            .collect();
        Ok((Configured { config, memory }, armed))
    }
}

/// The random machines of the SCXML reference's tests.
#[cfg(test)]
#[path = "../../../grammar/tests/scxml/mod.rs"]
pub(super) mod scxml;

#[cfg(test)]
mod tests {
    use super::scxml;
    use super::ConfiguredPlan;
    use fsm_grammar::model::StateId;
    use fsm_runtime::__private::chart::Bits;
    use std::fmt;

    /// A chart problem in words.
    struct Words<'a>(
        &'a fsm_runtime::__private::chart::Problem,
        &'a fsm_runtime::__private::chart::Chart<'a>,
        &'a [&'a str],
    );

    impl fmt::Display for Words<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.describe(self.1, self.2, f)
        }
    }

    /// Generated code checks a snapshot's leaves with the chart's rule, the
    /// dynamic engine with the model's: on random machines with parallel
    /// states and random sets of states, both accept the same sets as
    /// configurations (and as memories inside each composite), with the
    /// same states, and refuse the others with the same words.
    #[test]
    fn the_charts_configuration_rule_is_the_models() {
        let (mut machines, mut accepted, mut refused) = (0, 0, 0);
        let mut seed = 0u64;
        while machines < 150 {
            seed += 1;
            let text = scxml::random_machine_with(seed, false);
            let checked = fsm_grammar::check(&text);
            let Some(m) = checked.model.machines.first().filter(|m| m.has_parallel()) else {
                continue;
            };
            if checked.has_errors() || m.states.len() > 64 {
                continue;
            }
            machines += 1;
            let plan = ConfiguredPlan::new(m);
            let chart = plan.chart();
            let names: Vec<&str> = m.states.iter().map(|s| s.name.as_str()).collect();
            let mut rng = scxml::Rng(seed | 1);
            for _ in 0..60 {
                let count = 1 + rng.below(4);
                let leaves: Vec<StateId> = (0..count)
                    .map(|_| StateId::from_index(rng.below(m.states.len())))
                    .collect();
                let ids: Vec<u32> = leaves.iter().map(|s| s.index() as u32).collect();
                let within = m
                    .state_ids()
                    .filter(|&s| m.state(s).is_composite())
                    .nth(rng.below(3))
                    .filter(|_| rng.chance(30));
                let model = match within {
                    None => m
                        .configuration_from_leaves(&leaves)
                        .map(|c| c.into_iter().map(|s| s.index() as u32).collect::<Vec<u32>>()),
                    Some(c) => m.remembered_leaves(c, &leaves).map(|l| {
                        let mut set: Vec<u32> = l.iter().map(|s| s.index() as u32).collect();
                        // The chart's set holds the states on the way too.
                        for &leaf in &l {
                            set.extend(
                                m.ancestors(leaf)
                                    .take_while(|&a| a != c)
                                    .map(|a| a.index() as u32),
                            );
                        }
                        set.push(c.index() as u32);
                        set.sort_unstable();
                        set.dedup();
                        set
                    }),
                };
                let ours = chart
                    .configuration_of_leaves::<1>(&ids, within.map(|c| c.index() as u32))
                    .map(|bits: Bits<1>| bits.iter().collect::<Vec<u32>>());
                match (model, ours) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a, b, "{text}\n{leaves:?} within {within:?}");
                        accepted += 1;
                    }
                    (Err(a), Err(b)) => {
                        assert_eq!(
                            a.to_string(),
                            Words(&b, &chart, &names).to_string(),
                            "{text}\n{leaves:?} within {within:?}"
                        );
                        refused += 1;
                    }
                    (a, b) => {
                        panic!("{text}\n{leaves:?} within {within:?}: the model {a:?}, the chart {b:?}")
                    }
                }
            }
        }
        assert!(
            accepted > 300 && refused > 2_000,
            "{accepted} accepted, {refused} refused"
        );
    }
}
