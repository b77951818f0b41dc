//! The selection tables: for every state, the actions valid in it and, for
//! each, its candidate transitions in the order they are tried. Built once
//! from `Machine::candidate_groups`, the order generated code uses, into flat
//! arrays of small ids.

use super::condition::{ConditionId, Conditions, GuardCache};
use super::ids::{ActionId, GuardId, OutputId, StateId};
use fsm_grammar::model::{Machine, TransitionId};
use std::ops::Range;

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
    /// Every candidate's outputs: exit outputs of the state left, the
    /// transition's own, then enter outputs of the state entered.
    outputs: Box<[OutputId]>,
    /// Every guard expression.
    conditions: Conditions,
    /// `group_candidates` index per (state, action), `u32::MAX` where the
    /// action is not valid: one load instead of a search on every fire. Only
    /// built while states × actions stays small (see [`DENSE_LIMIT`]).
    dense: Option<Box<[u32]>>,
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
        let mut candidates = Vec::new();
        let mut outputs = Vec::new();
        for state in machine.state_ids() {
            let first_group = group_actions.len();
            for (action, group) in machine.candidate_groups(state) {
                let first_candidate = candidates.len();
                for t in group {
                    let transition = machine.transition(t);
                    let first_output = outputs.len();
                    match transition.target {
                        None => outputs.extend(transition.emits.iter().map(output_id)),
                        Some(target) => outputs.extend(
                            machine
                                .state(state)
                                .exit
                                .iter()
                                .chain(&transition.emits)
                                .chain(&machine.state(target).enter)
                                .map(output_id),
                        ),
                    }
                    let condition = transition_conditions[t.index()];
                    candidates.push(Candidate {
                        condition,
                        transition: t,
                        target: transition.target.map(|s| StateId::from_index(s.index())),
                        outputs: Slice::since(first_output, outputs.len()),
                    });
                    // Candidates after an unguarded one can never fire (the
                    // checker reports them); generated code drops them too.
                    if condition.is_none() {
                        break;
                    }
                }
                group_actions.push(ActionId::from_index(action.index()));
                group_candidates.push(Slice::since(first_candidate, candidates.len()));
            }
            state_groups.push(Slice::since(first_group, group_actions.len()));
        }

        let action_count = machine.actions.len();
        let dense = (machine.states.len().saturating_mul(action_count) <= DENSE_LIMIT).then(|| {
            let mut dense = vec![u32::MAX; machine.states.len() * action_count];
            for (state, groups) in state_groups.iter().enumerate() {
                for group in groups.range() {
                    let action = group_actions[group].index();
                    dense[state * action_count + action] = group as u32;
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

    /// The candidates for `action` in `state`, in the order they are tried;
    /// `None` when the action is not valid there.
    #[inline]
    pub(crate) fn candidates(&self, state: StateId, action: ActionId) -> Option<&[Candidate]> {
        let group = match &self.dense {
            Some(dense) => match dense[state.index() * self.action_count + action.index()] {
                u32::MAX => return None,
                group => group as usize,
            },
            None => {
                let groups = self.state_groups[state.index()];
                let position = self.group_actions[groups.range()].binary_search(&action).ok()?;
                groups.start as usize + position
            }
        };
        Some(&self.candidates[self.group_candidates[group].range()])
    }

    /// The first of `candidates` whose guard holds (an unguarded one always
    /// does), asking `guard` lazily, each guard at most once.
    #[inline]
    pub(crate) fn select<'t>(
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

    /// The outputs of `candidate`.
    #[inline]
    pub(crate) fn outputs(&self, candidate: &Candidate) -> &[OutputId] {
        &self.outputs[candidate.outputs.range()]
    }

    /// The guard of `candidate` as canonical text; empty when unguarded.
    pub(crate) fn guard_text(&self, candidate: &Candidate) -> &str {
        &self.guard_texts[candidate.transition.index()]
    }
}

fn output_id(id: &fsm_grammar::model::OutputId) -> OutputId {
    OutputId::from_index(id.index())
}
