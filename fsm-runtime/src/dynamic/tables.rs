//! The selection tables: for every state, the actions valid in it and, for
//! each, its candidate transitions in the order they are tried. Built once
//! from `Machine::candidate_groups`, the order generated code uses, into flat
//! arrays of small ids. The same for timers: for every state, its timer
//! groups (the timers that share a delay), each with its candidates in the
//! order they are tried.

use super::condition::{ConditionId, Conditions, GuardCache};
use super::ids::{ActionId, GuardId, OutputId, StateId};
use fsm_grammar::model::{Delay, Machine, TransitionId};
use std::ops::Range;
use std::time::Duration;

/// The largest states × actions for which the dense lookup table is built
/// (4 MiB of `u32`); larger machines binary-search each state's actions.
const DENSE_LIMIT: usize = 1 << 20;

/// A range of a flat array, in 8 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slice {
    start: u32,
    len: u32,
}

impl Slice {
    /// The entries `start..end` of a flat array.
    fn since(start: usize, end: usize) -> Slice {
        let index = |i: usize| u32::try_from(i).expect("selection tables hold fewer than 2^32 entries");
        Slice {
            start: index(start),
            len: index(end - start),
        }
    }

    #[inline]
    fn range(self) -> Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// A transition as a candidate in one state: what it needs and what it does
/// from there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    /// The guard expression; `None` when unguarded.
    condition: Option<ConditionId>,
    /// The transition in the machine, for its guard text.
    transition: TransitionId,
    /// The state entered; `None` for an internal transition.
    pub(crate) target: Option<StateId>,
    /// The outputs, in [`Tables::outputs`].
    outputs: Slice,
    /// The effects, in [`Tables::effects`].
    effects: Slice,
}

/// An effect a candidate runs, and whether it is given the payload of the
/// firing action (a transition's own `do`) or `null` (a hook's `do`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EffectCall {
    /// The effect's index in the machine.
    pub(crate) effect: u32,
    /// True for a transition's own effects.
    pub(crate) payload: bool,
}

/// How long a timer group waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimerDelay {
    /// A literal duration.
    Literal(Duration),
    /// A declared delay, by index, computed by the context on entry.
    Named(u32),
}

/// The timers of one state that share a delay: armed together, and when
/// due, the first whose guard holds fires.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimerGroup {
    pub(crate) delay: TimerDelay,
    /// Its candidates, a range of `timer_candidates`.
    candidates: Slice,
}

/// A timer as a candidate of its group.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimerCandidate {
    condition: Option<ConditionId>,
    /// The timer's index among its state's timers, in declaration order
    /// (the `timer` of a snapshot).
    pub(crate) index: u32,
    /// The state entered; `None` for an internal timer.
    pub(crate) target: Option<StateId>,
    outputs: Slice,
    effects: Slice,
}

/// The candidates of one `(state, action)`, as the dense table holds them.
#[derive(Clone, Copy, Debug, Default)]
struct Group {
    /// A range of `candidates`; empty where the action is not valid.
    candidates: Slice,
    /// True when a guard occurs more than once in the candidates' guard
    /// expressions, so selecting needs a [`GuardCache`] to ask it once.
    repeats: bool,
}

/// The candidates of one `(state, action)`, from [`Tables::candidates`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidates<'t> {
    candidates: &'t [Candidate],
    repeats: bool,
}

impl<'t> Candidates<'t> {
    /// The candidates, in the order they are tried.
    pub(crate) fn as_slice(self) -> &'t [Candidate] {
        self.candidates
    }
}

/// The selection tables of one definition.
#[derive(Clone, Debug)]
pub(crate) struct Tables {
    /// Per state: its groups, a range of `group_actions` and `group_candidates`.
    state_groups: Box<[Slice]>,
    /// Per group: the action. Within a state, in action order (the order of
    /// generated code's valid actions), so it can be binary searched.
    group_actions: Box<[ActionId]>,
    /// Per group: its candidates, a range of `candidates`.
    group_candidates: Box<[Slice]>,
    /// Every candidate of every group, in the order they are tried.
    candidates: Box<[Candidate]>,
    /// Every candidate's outputs (transitions' and timers'): exit outputs
    /// of the state left, the transition's own, then enter outputs of the
    /// state entered.
    outputs: Box<[OutputId]>,
    /// Every candidate's effects, in the same order as its outputs.
    effects: Box<[EffectCall]>,
    /// Per state: its timer groups, a range of `timer_groups`.
    state_timers: Box<[Slice]>,
    /// Every timer group, per state in the order ties fire: by the
    /// priority of their first timer, then declaration order.
    timer_groups: Box<[TimerGroup]>,
    /// Every timer group's candidates, in the order they are tried.
    timer_candidates: Box<[TimerCandidate]>,
    /// The most timer groups of any state.
    max_timer_groups: usize,
    /// Per state: the group of each of its timers, in declaration order,
    /// a range of `timer_group_of`.
    state_timer_groups: Box<[Slice]>,
    /// Per timer of a state: the index of its group among the state's.
    timer_group_of: Box<[u32]>,
    /// Per group: true when a guard occurs more than once among its
    /// candidates (see [`Group::repeats`]).
    group_repeats: Box<[bool]>,
    /// True when some state has timers: otherwise entering a state never
    /// arms or disarms anything.
    has_timers: bool,
    /// Every guard expression.
    conditions: Conditions,
    /// The group per (state, action), with an empty range where the action
    /// is not valid: one load instead of a search on every fire. Only built
    /// while states × actions stays small (see [`DENSE_LIMIT`]).
    dense: Option<Box<[Group]>>,
    /// The number of actions: the row length of `dense`.
    action_count: usize,
    /// Per transition of the machine: its guard as canonical text (empty
    /// when unguarded), for `GuardRejected`.
    guard_texts: Box<[Box<str>]>,
}

impl Tables {
    /// The tables of `machine`.
    pub(crate) fn new(machine: &Machine) -> Tables {
        let mut conditions = Conditions::default();
        let mut transition_conditions = Vec::with_capacity(machine.transitions.len());
        let mut guard_texts = Vec::with_capacity(machine.transitions.len());
        for transition in &machine.transitions {
            let guard = transition.guard.as_ref();
            transition_conditions.push(guard.map(|g| conditions.add(&g.expr)));
            guard_texts.push(
                guard
                    .map(|g| machine.guard_text(&g.expr))
                    .unwrap_or_default()
                    .into(),
            );
        }

        let mut state_groups = Vec::with_capacity(machine.states.len());
        let mut group_actions = Vec::new();
        let mut group_candidates = Vec::new();
        let mut group_repeats = Vec::new();
        let mut candidates = Vec::new();
        let mut outputs = Vec::new();
        let mut effects = Vec::new();
        // The outputs and effects of a move from `state`, `own` being the
        // transition's or timer's own, into `target` (none: internal).
        let push_steps = |outputs: &mut Vec<OutputId>,
                          effects: &mut Vec<EffectCall>,
                          state: fsm_grammar::model::StateId,
                          own: (&[fsm_grammar::model::OutputId], &[fsm_grammar::model::EffectId]),
                          payload: bool,
                          target: Option<fsm_grammar::model::StateId>| {
            let (first_output, first_effect) = (outputs.len(), effects.len());
            let call = |payload: bool| {
                move |e: &fsm_grammar::model::EffectId| EffectCall {
                    effect: e.index() as u32,
                    payload,
                }
            };
            match target {
                None => {
                    outputs.extend(own.0.iter().map(output_id));
                    effects.extend(own.1.iter().map(call(payload)));
                }
                Some(target) => {
                    let (from, to) = (machine.state(state), machine.state(target));
                    outputs.extend(from.exit.iter().chain(own.0).chain(&to.enter).map(output_id));
                    effects.extend(from.exit_effects.iter().map(call(false)));
                    effects.extend(own.1.iter().map(call(payload)));
                    effects.extend(to.enter_effects.iter().map(call(false)));
                }
            }
            (
                Slice::since(first_output, outputs.len()),
                Slice::since(first_effect, effects.len()),
            )
        };
        for state in machine.state_ids() {
            let first_group = group_actions.len();
            for (action, group) in machine.candidate_groups(state) {
                let first_candidate = candidates.len();
                for t in group {
                    let transition = machine.transition(t);
                    let (output_slice, effect_slice) = push_steps(
                        &mut outputs,
                        &mut effects,
                        state,
                        (&transition.emits, &transition.effects),
                        true,
                        transition.target,
                    );
                    let condition = transition_conditions[t.index()];
                    candidates.push(Candidate {
                        condition,
                        transition: t,
                        target: transition.target.map(|s| StateId::from_index(s.index())),
                        outputs: output_slice,
                        effects: effect_slice,
                    });
                    // Candidates after an unguarded one can never fire (the
                    // checker reports them); generated code drops them too.
                    if condition.is_none() {
                        break;
                    }
                }
                group_actions.push(ActionId::from_index(action.index()));
                group_candidates.push(Slice::since(first_candidate, candidates.len()));
                let mut guards = Vec::new();
                for candidate in &candidates[first_candidate..] {
                    if let Some(condition) = candidate.condition {
                        conditions.guards_of(condition, &mut guards);
                    }
                }
                let count = guards.len();
                guards.sort_unstable();
                guards.dedup();
                group_repeats.push(guards.len() != count);
            }
            state_groups.push(Slice::since(first_group, group_actions.len()));
        }

        let mut state_timers = Vec::with_capacity(machine.states.len());
        let mut timer_groups: Vec<TimerGroup> = Vec::new();
        let mut timer_candidates = Vec::new();
        let mut state_timer_groups = Vec::with_capacity(machine.states.len());
        let mut timer_group_of = Vec::new();
        for state in machine.state_ids() {
            let mut timers: Vec<_> = machine.timers_of(state).enumerate().collect();
            // Stable: equal priorities keep declaration order.
            timers.sort_by_key(|(_, (_, t))| std::cmp::Reverse(t.priority));
            let mut delays: Vec<Delay> = Vec::new();
            for (_, (_, t)) in &timers {
                if !delays.contains(&t.delay) {
                    delays.push(t.delay);
                }
            }
            let first = timer_group_of.len();
            for (_, timer) in machine.timers_of(state) {
                let group = delays
                    .iter()
                    .position(|d| *d == timer.delay)
                    .expect("collected above");
                timer_group_of.push(group as u32);
            }
            state_timer_groups.push(Slice::since(first, timer_group_of.len()));
            let first_group = timer_groups.len();
            for delay in delays {
                let first_candidate = timer_candidates.len();
                for (index, (_, timer)) in timers.iter().filter(|(_, (_, t))| t.delay == delay) {
                    let (output_slice, effect_slice) = push_steps(
                        &mut outputs,
                        &mut effects,
                        state,
                        (&timer.emits, &timer.effects),
                        false,
                        timer.target,
                    );
                    let condition = timer.guard.as_ref().map(|g| conditions.add(&g.expr));
                    timer_candidates.push(TimerCandidate {
                        condition,
                        index: *index as u32,
                        target: timer.target.map(|s| StateId::from_index(s.index())),
                        outputs: output_slice,
                        effects: effect_slice,
                    });
                    if condition.is_none() {
                        break;
                    }
                }
                timer_groups.push(TimerGroup {
                    delay: match delay {
                        Delay::Literal(d) => TimerDelay::Literal(d),
                        Delay::Named(d) => TimerDelay::Named(d.index() as u32),
                    },
                    candidates: Slice::since(first_candidate, timer_candidates.len()),
                });
            }
            state_timers.push(Slice::since(first_group, timer_groups.len()));
        }
        let max_timer_groups = state_timers.iter().map(|s| s.len as usize).max().unwrap_or(0);

        let action_count = machine.actions.len();
        let dense = (machine.states.len().saturating_mul(action_count) <= DENSE_LIMIT).then(|| {
            let mut dense = vec![Group::default(); machine.states.len() * action_count];
            for (state, groups) in state_groups.iter().enumerate() {
                for group in groups.range() {
                    let action = group_actions[group].index();
                    dense[state * action_count + action] = Group {
                        candidates: group_candidates[group],
                        repeats: group_repeats[group],
                    };
                }
            }
            dense.into_boxed_slice()
        });

        Tables {
            dense,
            action_count,
            state_groups: state_groups.into(),
            group_actions: group_actions.into(),
            group_candidates: group_candidates.into(),
            candidates: candidates.into(),
            outputs: outputs.into(),
            effects: effects.into(),
            state_timers: state_timers.into(),
            timer_groups: timer_groups.into(),
            timer_candidates: timer_candidates.into(),
            max_timer_groups,
            has_timers: max_timer_groups > 0,
            group_repeats: group_repeats.into(),
            state_timer_groups: state_timer_groups.into(),
            timer_group_of: timer_group_of.into(),
            conditions,
            guard_texts: guard_texts.into(),
        }
    }

    /// The actions that have a transition in `state`, in action order; empty
    /// for terminal states.
    #[inline]
    pub(crate) fn valid_actions(&self, state: StateId) -> &[ActionId] {
        &self.group_actions[self.state_groups[state.index()].range()]
    }

    /// The candidates for `action` in `state`, in the order they are tried,
    /// and whether selecting among them needs a [`GuardCache`]; `None` when
    /// the action is not valid there.
    #[inline]
    pub(crate) fn candidates(&self, state: StateId, action: ActionId) -> Option<Candidates<'_>> {
        let group = match &self.dense {
            Some(dense) => dense[state.index() * self.action_count + action.index()],
            None => self.search(state, action)?,
        };
        if group.candidates.len == 0 {
            return None;
        }
        Some(Candidates {
            candidates: &self.candidates[group.candidates.range()],
            repeats: group.repeats,
        })
    }

    /// The group of `action` in `state`, by binary search: for machines too
    /// large for the dense table.
    #[inline(never)]
    fn search(&self, state: StateId, action: ActionId) -> Option<Group> {
        let groups = self.state_groups[state.index()];
        let position = self.group_actions[groups.range()].binary_search(&action).ok()?;
        let group = groups.start as usize + position;
        Some(Group {
            candidates: self.group_candidates[group],
            repeats: self.group_repeats[group],
        })
    }

    /// The first of `candidates` whose guard holds (an unguarded one always
    /// does), asking `guard` lazily, each guard at most once.
    #[inline]
    pub(crate) fn select<'t>(
        &self,
        candidates: Candidates<'t>,
        mut guard: impl FnMut(GuardId) -> bool,
    ) -> Option<&'t Candidate> {
        if candidates.repeats {
            return self.select_cached(candidates.candidates, guard);
        }
        // No guard occurs twice: evaluating each expression in turn asks
        // each guard at most once without remembering any.
        candidates
            .candidates
            .iter()
            .find(|candidate| match candidate.condition {
                None => true,
                Some(condition) => self.conditions.eval_uncached(condition, &mut guard),
            })
    }

    /// [`select`](Self::select) among candidates where a guard repeats.
    #[inline(never)]
    fn select_cached<'t>(
        &self,
        candidates: &'t [Candidate],
        mut guard: impl FnMut(GuardId) -> bool,
    ) -> Option<&'t Candidate> {
        let mut cache = GuardCache::default();
        candidates.iter().find(|candidate| match candidate.condition {
            None => true,
            Some(condition) => self.conditions.eval(condition, &mut cache, &mut guard),
        })
    }

    /// The number of actions.
    #[inline]
    pub(crate) fn action_count(&self) -> usize {
        self.action_count
    }

    /// True when some state of the machine has timers.
    #[inline]
    pub(crate) fn has_timers(&self) -> bool {
        self.has_timers
    }

    /// The outputs of `candidate`.
    #[inline]
    pub(crate) fn outputs(&self, candidate: &Candidate) -> &[OutputId] {
        &self.outputs[candidate.outputs.range()]
    }

    /// The effects of `candidate`, in the order they run.
    #[inline]
    pub(crate) fn effects(&self, candidate: &Candidate) -> &[EffectCall] {
        &self.effects[candidate.effects.range()]
    }

    /// The timer groups of `state`, in the order ties fire.
    #[inline]
    pub(crate) fn timer_groups(&self, state: StateId) -> &[TimerGroup] {
        &self.timer_groups[self.state_timers[state.index()].range()]
    }

    /// For each timer of `state`, in declaration order, the index of its
    /// group among the state's.
    pub(crate) fn timer_group_of(&self, state: StateId) -> &[u32] {
        &self.timer_group_of[self.state_timer_groups[state.index()].range()]
    }

    /// The most timer groups of any state.
    pub(crate) fn max_timer_groups(&self) -> usize {
        self.max_timer_groups
    }

    /// The first candidate of `group` whose guard holds, asking `guard`
    /// lazily, each guard at most once.
    pub(crate) fn select_timer(
        &self,
        group: &TimerGroup,
        mut guard: impl FnMut(GuardId) -> bool,
    ) -> Option<&TimerCandidate> {
        let mut cache = GuardCache::default();
        self.timer_candidates[group.candidates.range()]
            .iter()
            .find(|candidate| match candidate.condition {
                None => true,
                Some(condition) => self.conditions.eval(condition, &mut cache, &mut guard),
            })
    }

    /// The outputs of a timer candidate.
    #[inline]
    pub(crate) fn timer_outputs(&self, candidate: &TimerCandidate) -> &[OutputId] {
        &self.outputs[candidate.outputs.range()]
    }

    /// The effects of a timer candidate.
    #[inline]
    pub(crate) fn timer_effects(&self, candidate: &TimerCandidate) -> &[EffectCall] {
        &self.effects[candidate.effects.range()]
    }

    /// The guard of `candidate` as canonical text; empty when unguarded.
    pub(crate) fn guard_text(&self, candidate: &Candidate) -> &str {
        &self.guard_texts[candidate.transition.index()]
    }
}

fn output_id(id: &fsm_grammar::model::OutputId) -> OutputId {
    OutputId::from_index(id.index())
}
