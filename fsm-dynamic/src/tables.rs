//! The selection tables: the machine's [plan](fsm_grammar::plan) laid out
//! for speed. For every leaf state, the actions valid in it and, for each,
//! its candidate transitions in the order they are tried, each with what
//! taking it does from that leaf (the [`Step`]); for timers, every state's
//! timer groups and, for every leaf, the groups armed while in it, in the
//! order ties fire, with their candidates and steps. All of it comes from
//! the plan, in flat arrays of small ids, so firing a nested machine looks up
//! what a flat one does and walks no tree. Nothing here decides a rule of a
//! step: the plan is their one implementation, shared with code generation.
//!
//! A step through a history target that depends on the memory holds one
//! [`Move`] per case of the plan's step, and a table from each leaf the
//! memory can hold to its case. Every other step has one move.

use super::condition::{ConditionId, Conditions, GuardCache};
use super::ids::{ActionId, GuardId, OutputId, StateId};
use fsm_grammar::model::{self, Delay, Machine, TransitionId};
use fsm_grammar::plan::{self, Plan};
use std::ops::Range;
use std::sync::Arc;
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

/// `i` as a table index.
fn index(i: usize) -> u32 {
    u32::try_from(i).expect("selection tables hold fewer than 2^32 entries")
}

/// What taking a transition or timer does from one leaf, once the history
/// memory is known: the outputs and effects in order (exits' hooks
/// innermost first, its own, entries' hooks outermost first), the new leaf,
/// and the timer groups of the states entered, to arm.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Move {
    /// The leaf entered; `None` for an internal transition (no target).
    pub(crate) to: Option<StateId>,
    /// The outputs, in [`Tables::outputs`].
    outputs: Slice,
    /// The effects, in [`Tables::effects`].
    effects: Slice,
    /// The timer groups to arm, in [`Tables::arms`], outermost state first.
    arm: Slice,
}

/// What taking a transition or timer does from one leaf.
///
/// Kept small for the common case, a step that neither records nor reads
/// history (every step of a flat machine): its move is inline, and the rest
/// is behind [`Step::history`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    /// The move, when it does not depend on the history memory.
    fixed: Move,
    /// What it does with the history memory, an index of
    /// [`Tables::step_histories`]; [`NO_HISTORY`] when nothing.
    history: u32,
}

/// [`Step::history`] of a step that neither records nor reads history.
const NO_HISTORY: u32 = u32::MAX;

impl Step {
    /// True when taking it records or reads the history memory.
    #[inline]
    pub(crate) fn uses_history(&self) -> bool {
        self.history != NO_HISTORY
    }
}

/// What a step does with the history memory.
#[derive(Clone, Copy, Debug)]
struct StepHistory {
    /// The history slots of the composites it exits (where it records the
    /// leaf it leaves), in [`Tables::records`].
    record: Slice,
    /// The slot whose memory selects the move; `None` for [`Step::fixed`].
    read: Option<u32>,
    /// The first of its moves in [`Tables::moves`], one per case.
    variants: u32,
    /// Per leaf the read slot can hold (in the slot's order), its case: a
    /// range of [`Tables::case_table`].
    case_of: Slice,
    /// The case taken when the slot holds nothing.
    default: u32,
}

impl Move {
    /// True when it enters a state with timers.
    #[inline]
    pub(crate) fn arms_timers(&self) -> bool {
        self.arm.len != 0
    }
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

/// An `always` or `done` transition as a candidate after a step that left
/// the machine in one leaf.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SettleCandidate {
    /// The guard expression, its `in(...)` decided for the leaf; `None`
    /// when it needs no guard.
    condition: Option<ConditionId>,
    /// The transition: an index of the model's `Machine::eventless`.
    pub(crate) eventless: u32,
    /// What taking it does.
    pub(crate) step: Step,
}

/// A transition as a candidate in one leaf: what it needs and what it does
/// from there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    /// The guard expression; `None` when unguarded.
    condition: Option<ConditionId>,
    /// The transition in the machine, for its guard text and target.
    transition: TransitionId,
    /// What taking it does.
    pub(crate) step: Step,
}

/// How long a timer group waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimerDelay {
    /// A literal duration.
    Literal(Duration),
    /// A declared delay, by index, computed by the context on entry.
    Named(u32),
}

/// The timers of one state that share a delay: armed together when the
/// state is entered, and when due, the first whose guard holds fires.
#[derive(Clone, Debug)]
pub(crate) struct TimerGroup {
    pub(crate) delay: TimerDelay,
    /// `after 30s`, `after backoff`: the action of its history entries,
    /// made once and shared by every entry.
    pub(crate) label: Arc<str>,
    /// The state that declares its timers.
    pub(crate) state: StateId,
    /// Armed whenever `state` is active
    /// (`Machine::timer_group_always_armed`): a snapshot with `state`
    /// active that arms none of its timers lost it.
    pub(crate) always_armed: bool,
}

/// A timer group armed while the machine is in one leaf, with its
/// candidates' steps from that leaf.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LeafGroup {
    /// The group, an index of [`Tables::timer_group`] and of the engine's
    /// deadlines.
    pub(crate) group: u32,
    /// Its candidates, a range of `timer_candidates`.
    candidates: Slice,
}

/// A timer as a candidate of its group, from one leaf.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimerCandidate {
    condition: Option<ConditionId>,
    /// The state whose `after` it is.
    pub(crate) declared_in: StateId,
    /// The timer's index among `declared_in`'s timers, in declaration order
    /// (the `timer` of a snapshot).
    pub(crate) index: u32,
    /// The timer in the machine.
    timer: model::TimerId,
    /// What firing it does.
    pub(crate) step: Step,
}

impl TimerCandidate {
    /// The timer in the machine.
    pub(crate) fn timer(&self) -> model::TimerId {
        self.timer
    }
}

impl Candidate {
    /// The transition in the machine.
    pub(crate) fn transition(&self) -> TransitionId {
        self.transition
    }
}

/// A timer armed while the machine is in one leaf, as snapshots list it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArmedSlot {
    /// The state whose `after` it is.
    pub(crate) state: StateId,
    /// Its index among `state`'s timers.
    pub(crate) timer: u32,
    /// Its group: where its deadline is kept.
    pub(crate) group: u32,
}

/// A composite state some transition or timer enters through its history:
/// the engine remembers the leaf last active inside it.
#[derive(Clone, Debug)]
pub(crate) struct HistorySlot {
    /// The composite.
    pub(crate) composite: StateId,
    /// Per state: for a leaf inside the composite, its position among the
    /// leaves inside (the index of a reading step's case table); `None` for
    /// other states.
    position: Box<[Option<u32>]>,
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
    /// Per state: its groups, a range of `group_actions` and
    /// `group_candidates`. Empty for composites, which are never current.
    state_groups: Box<[Slice]>,
    /// Per group: the action. Within a state, in action order (the order of
    /// generated code's valid actions), so it can be binary searched.
    group_actions: Box<[ActionId]>,
    /// Per group: its candidates, a range of `candidates`.
    group_candidates: Box<[Slice]>,
    /// Every candidate of every group, in the order they are tried.
    candidates: Box<[Candidate]>,
    /// Every move's outputs (transitions' and timers').
    outputs: Box<[OutputId]>,
    /// Every move's effects, in the same order as its outputs.
    effects: Box<[EffectCall]>,
    /// Every move's timer groups to arm.
    arms: Box<[u32]>,
    /// Every step's history slots to record.
    records: Box<[u32]>,
    /// The moves of the steps that depend on the history memory.
    moves: Box<[Move]>,
    /// What the steps that use history memory do with it.
    step_histories: Box<[StepHistory]>,
    /// Every reading step's case per leaf its slot can hold.
    case_table: Box<[u32]>,
    /// Every timer group, per declaring state in the order its ties fire.
    timer_groups: Box<[TimerGroup]>,
    /// Per state: the groups armed while in it (its own and its
    /// ancestors'), in the order ties fire, a range of `leaf_groups`.
    state_leaf_groups: Box<[Slice]>,
    /// The groups armed per leaf.
    leaf_groups: Box<[LeafGroup]>,
    /// Every leaf group's candidates, in the order they are tried.
    timer_candidates: Box<[TimerCandidate]>,
    /// Per state: the timers armed while in it in snapshot order (see
    /// `Machine::timers_in`), a range of `armed_slots`.
    state_armed: Box<[Slice]>,
    /// The timers armed per leaf.
    armed_slots: Box<[ArmedSlot]>,
    /// Per state: how many timers it declares.
    timer_counts: Box<[u32]>,
    /// The groups armed when the machine starts, in [`Tables::arms`].
    initial_arm: Slice,
    /// The composites whose history is kept, in the model's order.
    history: Box<[HistorySlot]>,
    /// Per state: its ancestors, innermost first, a range of `ancestor_list`.
    state_ancestors: Box<[Slice]>,
    ancestor_list: Box<[StateId]>,
    /// Per group: true when a guard occurs more than once among its
    /// candidates (see [`Group::repeats`]).
    group_repeats: Box<[bool]>,
    /// Every guard expression.
    conditions: Conditions,
    /// Per state, and whether the step entered it: the `always` and `done`
    /// candidates tried after a step that left the machine there
    /// (`Plan::settle_candidates`), ranges of `settle_candidates`.
    settle: Box<[[Slice; 2]]>,
    settle_candidates: Box<[SettleCandidate]>,
    /// True when the machine has `always` or `done` transitions.
    has_eventless: bool,
    /// The group per (state, action), with an empty range where the action
    /// is not valid: one load instead of a search on every fire. Only built
    /// while states × actions stays small (see [`DENSE_LIMIT`]).
    dense: Option<Box<[Group]>>,
    /// The number of actions: the row length of `dense`.
    action_count: usize,
    /// Per transition of the machine: its guard as canonical text (empty
    /// when unguarded), for `GuardRejected`.
    guard_texts: Box<[Box<str>]>,
    /// Per transition of the machine: its target as written (possibly a
    /// composite), for `GuardRejected`.
    targets: Box<[Option<StateId>]>,
}

/// The arrays a [`Step`]'s slices point into, while they are built.
#[derive(Default)]
struct StepArrays {
    outputs: Vec<OutputId>,
    effects: Vec<EffectCall>,
    arms: Vec<u32>,
    records: Vec<u32>,
    moves: Vec<Move>,
    histories: Vec<StepHistory>,
    case_table: Vec<u32>,
}

impl StepArrays {
    /// The plan's `step`, laid out.
    fn step(&mut self, plan: &Plan, step: &plan::Step) -> Step {
        let first = self.records.len();
        self.records.extend(step.records.iter().map(|&slot| index(slot)));
        let record = Slice::since(first, self.records.len());
        let Some(slot) = step.read else {
            let fixed = self.push_move(&step.default_case().mv);
            let history = if record.len == 0 {
                NO_HISTORY
            } else {
                self.push_history(StepHistory {
                    record,
                    read: None,
                    variants: 0,
                    case_of: Slice::default(),
                    default: 0,
                })
            };
            return Step { fixed, history };
        };
        let variants = index(self.moves.len());
        for case in &step.cases {
            let mv = self.push_move(&case.mv);
            self.moves.push(mv);
        }
        let default = index(step.cases.len() - 1);
        let first = self.case_table.len();
        for leaf in &plan.history[slot].leaves {
            let case = step.cases.iter().position(|c| c.remembered.contains(leaf));
            self.case_table.push(case.map_or(default, index));
        }
        let history = self.push_history(StepHistory {
            record,
            read: Some(index(slot)),
            variants,
            case_of: Slice::since(first, self.case_table.len()),
            default,
        });
        Step {
            fixed: Move::default(),
            history,
        }
    }

    /// Keep `history`, returning its index.
    fn push_history(&mut self, history: StepHistory) -> u32 {
        self.histories.push(history);
        index(self.histories.len() - 1)
    }

    /// The plan's `mv`, laid out.
    fn push_move(&mut self, mv: &plan::Move) -> Move {
        let (first_output, first_effect, first_arm) =
            (self.outputs.len(), self.effects.len(), self.arms.len());
        self.outputs.extend(mv.outputs.iter().map(output_id));
        self.effects.extend(mv.effects.iter().map(|call| EffectCall {
            effect: index(call.effect.index()),
            payload: call.payload,
        }));
        self.arms.extend(mv.arm.iter().map(|&group| index(group)));
        Move {
            to: mv.to.map(|s| StateId::from_index(s.index())),
            outputs: Slice::since(first_output, self.outputs.len()),
            effects: Slice::since(first_effect, self.effects.len()),
            arm: Slice::since(first_arm, self.arms.len()),
        }
    }
}

/// The condition of `guard` in `leaf`: the transition's own, `shared`,
/// unless the guard tests `in(...)`, which is decided for the leaf
/// (`Machine::decide_in_leaf`).
fn condition_in(
    m: &Machine,
    conditions: &mut Conditions,
    leaf: model::StateId,
    guard: Option<&model::GuardExpr>,
    shared: Option<ConditionId>,
) -> Option<ConditionId> {
    let expr = guard?;
    let mut tested = Vec::new();
    expr.in_states(&mut tested);
    if tested.is_empty() {
        return shared;
    }
    match m.decide_in_leaf(leaf, expr) {
        Err(true) => None,
        Err(false) => Some(conditions.never()),
        Ok(rest) => Some(conditions.add(&rest)),
    }
}

impl Tables {
    /// The tables of `machine`, laid out from its plan.
    pub(crate) fn new(machine: &Machine, plan: &Plan) -> Tables {
        let m = machine;
        let mut conditions = Conditions::default();
        let mut transition_conditions = Vec::with_capacity(m.transitions.len());
        let mut guard_texts = Vec::with_capacity(m.transitions.len());
        for transition in &m.transitions {
            let guard = transition.guard.as_ref();
            transition_conditions.push(guard.map(|g| conditions.add(&g.expr)));
            guard_texts.push(guard.map(|g| m.guard_text(&g.expr)).unwrap_or_default().into());
        }
        let timer_conditions: Vec<Option<ConditionId>> = m
            .timers
            .iter()
            .map(|t| t.guard.as_ref().map(|g| conditions.add(&g.expr)))
            .collect();
        let eventless_conditions: Vec<Option<ConditionId>> = m
            .eventless
            .iter()
            .map(|t| t.guard.as_ref().map(|g| conditions.add(&g.expr)))
            .collect();

        let timer_groups: Box<[TimerGroup]> = plan
            .timer_groups
            .iter()
            .map(|g| TimerGroup {
                delay: match g.delay {
                    Delay::Literal(d) => TimerDelay::Literal(d),
                    Delay::Named(d) => TimerDelay::Named(index(d.index())),
                },
                label: g.label.as_str().into(),
                state: StateId::from_index(g.state.index()),
                always_armed: m.timer_group_always_armed(g.state, g.timers.iter().map(|&(t, _)| t)),
            })
            .collect();
        let history = plan
            .history
            .iter()
            .map(|slot| {
                let mut position = vec![None; m.states.len()];
                for (i, leaf) in slot.leaves.iter().enumerate() {
                    position[leaf.index()] = Some(index(i));
                }
                HistorySlot {
                    composite: StateId::from_index(slot.composite.index()),
                    position: position.into(),
                }
            })
            .collect();

        let mut arrays = StepArrays::default();
        let mut state_groups = Vec::with_capacity(m.states.len());
        let mut group_actions = Vec::new();
        let mut group_candidates = Vec::new();
        let mut group_repeats = Vec::new();
        let mut candidates = Vec::new();
        let mut state_leaf_groups = Vec::with_capacity(m.states.len());
        let mut leaf_groups = Vec::new();
        let mut timer_candidates = Vec::new();
        let mut state_armed = Vec::with_capacity(m.states.len());
        let mut armed_slots = Vec::new();
        let mut settle = Vec::with_capacity(m.states.len());
        let mut settle_candidates = Vec::new();
        for (state, leaf) in m.state_ids().zip(&plan.states) {
            let first_group = group_actions.len();
            for row in &leaf.actions {
                let first_candidate = candidates.len();
                for candidate in &row.candidates {
                    let guard = m.transition(candidate.transition).guard.as_ref().map(|g| &g.expr);
                    let shared = transition_conditions[candidate.transition.index()];
                    candidates.push(Candidate {
                        condition: condition_in(m, &mut conditions, state, guard, shared),
                        transition: candidate.transition,
                        step: arrays.step(plan, &candidate.step),
                    });
                }
                group_actions.push(ActionId::from_index(row.action.index()));
                group_candidates.push(Slice::since(first_candidate, candidates.len()));
                group_repeats.push(!row.cached_guards.is_empty());
            }
            state_groups.push(Slice::since(first_group, group_actions.len()));

            let first_leaf_group = leaf_groups.len();
            for group in &leaf.timer_groups {
                let first_candidate = timer_candidates.len();
                let declared_in = plan.timer_groups[group.group].state;
                for candidate in &group.candidates {
                    let guard = m.timers[candidate.timer.index()].guard.as_ref().map(|g| &g.expr);
                    let shared = timer_conditions[candidate.timer.index()];
                    timer_candidates.push(TimerCandidate {
                        condition: condition_in(m, &mut conditions, state, guard, shared),
                        declared_in: StateId::from_index(declared_in.index()),
                        index: candidate.index,
                        timer: candidate.timer,
                        step: arrays.step(plan, &candidate.step),
                    });
                }
                leaf_groups.push(LeafGroup {
                    group: index(group.group),
                    candidates: Slice::since(first_candidate, timer_candidates.len()),
                });
            }
            state_leaf_groups.push(Slice::since(first_leaf_group, leaf_groups.len()));

            let first_armed = armed_slots.len();
            armed_slots.extend(leaf.armed.iter().map(|armed| ArmedSlot {
                state: StateId::from_index(armed.state.index()),
                timer: armed.index,
                group: index(armed.group),
            }));
            state_armed.push(Slice::since(first_armed, armed_slots.len()));

            settle.push([false, true].map(|entered| {
                let first = settle_candidates.len();
                for candidate in plan.settle_candidates(state, entered) {
                    let guard = m.eventless[candidate.eventless].guard.as_ref().map(|g| &g.expr);
                    let shared = eventless_conditions[candidate.eventless];
                    settle_candidates.push(SettleCandidate {
                        condition: condition_in(m, &mut conditions, state, guard, shared),
                        eventless: index(candidate.eventless),
                        step: arrays.step(plan, &candidate.step),
                    });
                }
                Slice::since(first, settle_candidates.len())
            }));
        }

        let first_arm = arrays.arms.len();
        arrays
            .arms
            .extend(plan.start.arm.iter().map(|&group| index(group)));
        let initial_arm = Slice::since(first_arm, arrays.arms.len());

        let mut state_ancestors = Vec::with_capacity(m.states.len());
        let mut ancestor_list = Vec::new();
        for state in m.state_ids() {
            let first = ancestor_list.len();
            ancestor_list.extend(m.ancestors(state).map(|s| StateId::from_index(s.index())));
            state_ancestors.push(Slice::since(first, ancestor_list.len()));
        }

        let action_count = m.actions.len();
        let dense = (m.states.len().saturating_mul(action_count) <= DENSE_LIMIT).then(|| {
            let mut dense = vec![Group::default(); m.states.len() * action_count];
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
            outputs: arrays.outputs.into(),
            effects: arrays.effects.into(),
            arms: arrays.arms.into(),
            records: arrays.records.into(),
            moves: arrays.moves.into(),
            step_histories: arrays.histories.into(),
            case_table: arrays.case_table.into(),
            timer_groups,
            state_leaf_groups: state_leaf_groups.into(),
            leaf_groups: leaf_groups.into(),
            timer_candidates: timer_candidates.into(),
            state_armed: state_armed.into(),
            armed_slots: armed_slots.into(),
            timer_counts: plan.timer_counts.clone().into(),
            initial_arm,
            history,
            state_ancestors: state_ancestors.into(),
            ancestor_list: ancestor_list.into(),
            group_repeats: group_repeats.into(),
            conditions,
            settle: settle.into(),
            settle_candidates: settle_candidates.into(),
            has_eventless: !m.eventless.is_empty(),
            guard_texts: guard_texts.into(),
            targets: m
                .transitions
                .iter()
                .map(|t| t.target.map(|s| StateId::from_index(s.index())))
                .collect(),
        }
    }

    /// The actions that have a transition in `state` (its own, its
    /// ancestors' and `any`'s), in action order; empty for terminal states
    /// and composites.
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

    /// The move `step` makes with the history memory `memory` (one leaf or
    /// none per history slot).
    #[inline]
    pub(crate) fn resolve<'t>(&'t self, step: &'t Step, memory: &[Option<StateId>]) -> &'t Move {
        if step.uses_history() {
            self.resolve_history(step, memory)
        } else {
            &step.fixed
        }
    }

    /// [`resolve`](Self::resolve) for a step that uses history memory.
    #[inline(never)]
    fn resolve_history<'t>(&'t self, step: &'t Step, memory: &[Option<StateId>]) -> &'t Move {
        let history = &self.step_histories[step.history as usize];
        let Some(slot) = history.read else {
            return &step.fixed;
        };
        let case = match memory[slot as usize] {
            None => history.default,
            Some(leaf) => {
                let position = self.history[slot as usize].position[leaf.index()]
                    .expect("the memory holds leaves inside the composite");
                self.case_table[history.case_of.start as usize + position as usize]
            }
        };
        &self.moves[(history.variants + case) as usize]
    }

    /// The history slots `step` records the leaf it leaves in.
    pub(crate) fn records(&self, step: &Step) -> &[u32] {
        match self.step_histories.get(step.history as usize) {
            Some(history) => &self.records[history.record.range()],
            None => &[],
        }
    }

    /// The outputs of `mv`.
    #[inline]
    pub(crate) fn outputs(&self, mv: &Move) -> &[OutputId] {
        &self.outputs[mv.outputs.range()]
    }

    /// The effects of `mv`, in the order they run.
    #[inline]
    pub(crate) fn effects(&self, mv: &Move) -> &[EffectCall] {
        &self.effects[mv.effects.range()]
    }

    /// The timer groups `mv` arms, outermost state first.
    #[inline]
    pub(crate) fn arms(&self, mv: &Move) -> &[u32] {
        &self.arms[mv.arm.range()]
    }

    /// The timer groups armed when the machine starts.
    pub(crate) fn initial_arms(&self) -> &[u32] {
        &self.arms[self.initial_arm.range()]
    }

    /// The number of timer groups in the machine.
    pub(crate) fn timer_group_count(&self) -> usize {
        self.timer_groups.len()
    }

    /// The timer group `group`.
    #[inline]
    pub(crate) fn timer_group(&self, group: u32) -> &TimerGroup {
        &self.timer_groups[group as usize]
    }

    /// The timer groups armed while in `leaf`, in the order ties fire.
    #[inline]
    pub(crate) fn leaf_groups(&self, leaf: StateId) -> &[LeafGroup] {
        &self.leaf_groups[self.state_leaf_groups[leaf.index()].range()]
    }

    /// The timers armed while in `leaf`, in snapshot order.
    pub(crate) fn armed_slots(&self, leaf: StateId) -> &[ArmedSlot] {
        &self.armed_slots[self.state_armed[leaf.index()].range()]
    }

    /// How many timers `state` declares.
    pub(crate) fn timer_count(&self, state: StateId) -> u32 {
        self.timer_counts[state.index()]
    }

    /// The composites whose history is kept, in slot order.
    pub(crate) fn history_slots(&self) -> &[HistorySlot] {
        &self.history
    }

    /// True when `leaf` lies inside the composite of history slot `slot`.
    pub(crate) fn remembers(&self, slot: usize, leaf: StateId) -> bool {
        self.history[slot].position[leaf.index()].is_some()
    }

    /// The states holding `state`, innermost first.
    #[inline]
    pub(crate) fn ancestors(&self, state: StateId) -> &[StateId] {
        &self.ancestor_list[self.state_ancestors[state.index()].range()]
    }

    /// The first candidate of `group` whose guard holds, asking `guard`
    /// lazily, each guard at most once.
    pub(crate) fn select_timer(
        &self,
        group: &LeafGroup,
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

    /// The first candidate of `group` in the order they are tried (by
    /// priority, then declaration order): the timer a rejected group is
    /// named by.
    pub(crate) fn first_timer(&self, group: &LeafGroup) -> &TimerCandidate {
        &self.timer_candidates[group.candidates.range()][0]
    }

    /// True when the machine has `always` or `done` transitions, so a step
    /// may be followed by others in the same `fire`.
    #[inline]
    pub(crate) fn has_eventless(&self) -> bool {
        self.has_eventless
    }

    /// The first `always` or `done` candidate whose guard holds after a
    /// step that left the machine in `leaf` (`entered`: the step entered
    /// it), asking `guard` lazily, each guard at most once.
    pub(crate) fn select_settle(
        &self,
        leaf: StateId,
        entered: bool,
        mut guard: impl FnMut(GuardId) -> bool,
    ) -> Option<&SettleCandidate> {
        let mut cache = GuardCache::default();
        self.settle_candidates[self.settle[leaf.index()][usize::from(entered)].range()]
            .iter()
            .find(|candidate| match candidate.condition {
                None => true,
                Some(condition) => self.conditions.eval(condition, &mut cache, &mut guard),
            })
    }

    /// The guard of `candidate` as canonical text; empty when unguarded.
    pub(crate) fn guard_text(&self, candidate: &Candidate) -> &str {
        &self.guard_texts[candidate.transition.index()]
    }

    /// The state `candidate` targets as written (possibly a composite);
    /// `None` for an internal transition.
    pub(crate) fn target(&self, candidate: &Candidate) -> Option<StateId> {
        self.targets[candidate.transition.index()]
    }
}

fn output_id(id: &model::OutputId) -> OutputId {
    OutputId::from_index(id.index())
}
