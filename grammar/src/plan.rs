//! The plan: everything an engine needs to run a step, computed once from a
//! checked model. Code generation and the dynamic engine both render it, and
//! decide no rule of a step (docs/dsl.md, "How a step runs") themselves.
//!
//! The rules of a step live in one place, the one step over configurations
//! (the `fsm-step` crate). The plan lays the machine out as tables for it
//! ([`ChartPlan`], `plan/chart.rs`), and takes ahead of time, with that same
//! step, every step that does not depend on the rest of the configuration
//! (`plan/ahead.rs`): every step of a machine without parallel states, and
//! each step of one with them that exits nothing beside its leaf's branch
//! ([`Step::fixed`]). What it did is written out here, for engines to render
//! as `match` arms or tables; the other steps they leave to the one step.
//! The plan holds:
//!
//! - **which candidates a leaf tries for an action**, in trial order
//!   (priority, then the innermost level, then declaration, with `any` as
//!   the outermost level), cut after the first unguarded one, and which
//!   guards occur more than once among them, so that an engine asks each
//!   guard at most once ([`ActionRow`]);
//! - **what a step does from a leaf**, as the one step did it ([`Step`],
//!   [`Move`]): the states it exits (innermost first) and enters (in
//!   document order, outermost first), the history it
//!   records and reads, with one case per path the memory can select; the
//!   outputs in order (the exited states' `exit` outputs, the transition's
//!   own `emit`, the entered states' `enter` outputs); the effects in the
//!   same order, with only the transition's own `do` given the payload; and
//!   the timer groups disarmed and armed;
//! - **timers**: a state's timers that share one delay form a group, armed
//!   together ([`TimerGroup`]); the groups armed in a leaf, in the order ties
//!   fire, each with its candidates and their steps ([`LeafTimerGroup`]); the
//!   armed timers in snapshot order ([`ArmedTimer`]);
//! - **history**: the composites whose memory is kept, one slot each
//!   ([`HistorySlot`]);
//! - **starting**: the states entered and the groups armed when a machine is
//!   created, which runs no hook and emits nothing ([`Start`]);
//! - **transitions without an action**: the `always` transitions a leaf
//!   tries after every step that leaves the machine in it, and the `done`
//!   transitions a final leaf's parent tries when a step enters it
//!   ([`EventlessRow`]), each in trial order with its steps.
//!
//! The deadline of an armed group is the time of the step that armed it plus
//! its delay, rounded up to the millisecond: that rule is the runtime's one
//! `fsm_runtime::deadline` function, which both engines call.
//!
//! Everything is in terms of the model's ids; an engine lays the plan out in
//! whatever form runs fastest (generated `match` arms, flat tables), but
//! decides nothing of its own.

mod ahead;
mod chart;

use ahead::Ahead;
pub use ahead::StaticStep;

pub use chart::{ChartKind, ChartPlan, ChartState, ChartTransition, FireBound, PoolList};

use crate::model::{
    ActionId, Chosen, Delay, EffectId, GuardExpr, GuardId, Machine, OutputId, StateId, TimerId, TransitionId,
};

/// What a transition leaves and enters, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Path {
    /// States exited, innermost first (the reverse of document order):
    /// their `exit` hooks run in this order.
    pub exits: Vec<StateId>,
    /// States entered, in document order (outermost first): their `enter`
    /// hooks run in this order, after the transition's own effects and
    /// outputs. In a machine without parallel states the last is the new
    /// leaf; empty for a transition without a target.
    pub entries: Vec<StateId>,
}

/// The plan of one machine. See the module documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Per state (indexed by [`StateId`]): what the machine does while in
    /// it. Only leaves are ever current; a composite's entry is empty.
    pub states: Vec<LeafPlan>,
    /// Every timer group of the machine: per declaring state in declaration
    /// order of the states, and within a state in the order of its first
    /// timer in trial order. A group's index is its id.
    pub timer_groups: Vec<TimerGroup>,
    /// Every timer group (an index of [`Plan::timer_groups`]) in the order
    /// groups due at the same instant fire: by their best timer in
    /// [`Machine::timer_tie_order`]. An engine fires, of the armed groups,
    /// the one with the earliest deadline, ties to the first in this order
    /// (`fsm_runtime`'s one `first_due` function); a leaf's
    /// [`LeafPlan::timer_groups`] are in this order too.
    pub timer_order: Vec<usize>,
    /// Per state: its own timer groups, a range of [`Plan::timer_groups`].
    pub state_timer_groups: Vec<std::ops::Range<usize>>,
    /// Per state: how many timers it declares.
    pub timer_counts: Vec<u32>,
    /// Per timer (indexed by [`TimerId`]): the slot of its deadline, in an
    /// engine that keeps the deadlines of the timers armed at once in a
    /// fixed array. A state's timers take consecutive slots, in declaration
    /// order, after those of the states holding it; states that are never
    /// active together share slots. A flat machine's slot of a timer is its
    /// index in its state.
    pub timer_slots: Vec<usize>,
    /// How many deadline slots the machine needs: the most timers armed at
    /// once (in one leaf and the composites around it).
    pub deadline_slots: usize,
    /// The composites whose history memory is kept, one slot each, in
    /// declaration order.
    pub history: Vec<HistorySlot>,
    /// The tables of the one step over configurations, which takes every
    /// step that is not written out (and took those that are, ahead of
    /// time).
    pub chart: ChartPlan,
    /// What creating the machine does.
    pub start: Start,
}

/// What the machine does while in one leaf.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeafPlan {
    /// The actions valid here (its own transitions, its ancestors' and
    /// `any`'s; none in a terminal state), in action order, each with its
    /// candidates.
    pub actions: Vec<ActionRow>,
    /// The timer groups armed while in this leaf (its own and its
    /// ancestors'), in the order they are tried when several are due at the
    /// same instant.
    pub timer_groups: Vec<LeafTimerGroup>,
    /// The timers armed while in this leaf, in the order snapshots list
    /// them: this leaf's, then each ancestor's, each in declaration order.
    pub armed: Vec<ArmedTimer>,
    /// The `always` transitions tried after every step that leaves the
    /// machine in this leaf (its own and its ancestors'): empty when it has
    /// none.
    pub always: EventlessRow,
    /// For a final leaf: the `done` transitions of the state it completes
    /// (its parent), tried once when a step enters this leaf, after the
    /// `always` ones. Empty otherwise.
    pub done: EventlessRow,
}

/// The `always` or `done` transitions tried in one leaf, in trial order
/// (priority, then the innermost level, then declaration), cut after the
/// first unguarded one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventlessRow {
    /// The candidates, each with its step from this leaf.
    pub candidates: Vec<EventlessCandidate>,
    /// The guards that occur more than once among the candidates' guards.
    pub cached_guards: Vec<GuardId>,
}

impl EventlessRow {
    /// True when there is nothing to try.
    pub fn is_empty(&self) -> bool {
        self.candidates.is_empty()
    }
}

/// A `done` or `always` transition as a candidate in one leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventlessCandidate {
    /// The transition: an index of [`Machine::eventless`].
    pub eventless: usize,
    /// What taking it from this leaf does.
    pub step: Step,
}

/// The candidates of one action in one leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionRow {
    /// The action.
    pub action: ActionId,
    /// The candidates in the order they are tried; none follows an
    /// unguarded one (those can never fire, and the checker reports them).
    pub candidates: Vec<Candidate>,
    /// The guards that occur more than once in the candidates' guard
    /// expressions: an engine remembers their value within one firing, so
    /// that each guard is asked at most once.
    pub cached_guards: Vec<GuardId>,
}

/// A transition as a candidate in one leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The transition.
    pub transition: TransitionId,
    /// What taking it from this leaf does.
    pub step: Step,
}

/// What taking a transition or timer does from one leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The history slots that record the leaf the machine leaves (the kept
    /// composites it exits). History is recorded as the exits happen,
    /// before a history target is read, as SCXML does.
    pub records: Vec<usize>,
    /// The history slot whose memory selects the case, for a step through a
    /// history target that depends on it; `None` when it has one case.
    pub read: Option<usize>,
    /// One case per distinct path. With [`Step::read`], the last is the
    /// default: nothing remembered, or a remembered leaf listed by no other
    /// case. Without it, exactly one.
    pub cases: Vec<Case>,
    /// True when the step is the same in every configuration holding its
    /// leaf: always, in a machine without parallel states. Otherwise it
    /// exits a parallel state holding the leaf, and so whatever is active
    /// in the other regions, or reads a history slot that may remember
    /// several leaves; the one step takes it, over the configuration, and
    /// the cases here are those of the machine at rest in the leaf.
    pub fixed: bool,
    /// How many outputs of each case come from the states it exits, then
    /// from the transition itself (the rest are the entered states').
    pub output_parts: (usize, usize),
}

impl Step {
    /// The one case of a step that reads no memory; the default case of one
    /// that does.
    pub fn default_case(&self) -> &Case {
        self.cases.last().expect("a step has at least one case")
    }

    /// The case taken when the slot [`Step::read`] holds `remembered`.
    pub fn case(&self, remembered: Option<StateId>) -> &Case {
        remembered
            .and_then(|leaf| self.cases.iter().find(|c| c.remembered.contains(&leaf)))
            .unwrap_or_else(|| self.default_case())
    }
}

/// One path of a [`Step`], and the remembered leaves that select it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The leaves in the read slot that select this case; empty for the
    /// default case.
    pub remembered: Vec<StateId>,
    /// What the step does along this path.
    pub mv: Move,
}

/// What a step does along one path, in the order it happens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// The states exited, innermost first, and entered, outermost first.
    /// Both are empty for an internal transition (no target).
    pub path: Path,
    /// The leaf the machine is in afterwards; `None` for an internal
    /// transition, which stays where it is and runs no hook.
    pub to: Option<StateId>,
    /// The outputs: each exited state's `exit` outputs, the step's own
    /// `emit`, each entered state's `enter` outputs.
    pub outputs: Vec<OutputId>,
    /// The effects, in the same order: each exited state's `exit do`, the
    /// step's own `do`, each entered state's `enter do`.
    pub effects: Vec<EffectCall>,
    /// The timer groups disarmed: those of the states exited.
    pub disarm: Vec<usize>,
    /// The timer groups armed: those of the states entered, outermost
    /// first, each from the time of this step.
    pub arm: Vec<usize>,
}

impl Move {
    /// True for an internal transition (no target): it exits and enters
    /// nothing, runs no hook, and the machine stays in its leaf. A self
    /// transition (`on x -> a;` in `a`) is not internal: it exits and
    /// re-enters.
    pub fn is_internal(&self) -> bool {
        self.to.is_none()
    }
}

/// An effect a step runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EffectCall {
    /// The effect.
    pub effect: EffectId,
    /// True for the step's own `do` of a transition fired by an action: only
    /// these are given the action's payload (when the effect declares one).
    /// A hook's effects, and a timer's, get none.
    pub payload: bool,
}

/// The timers of one state that share a delay: armed together when the
/// state is entered, disarmed together when it is left; when the group comes
/// due, the first of them whose guard holds fires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerGroup {
    /// The state that declares them.
    pub state: StateId,
    /// Their delay.
    pub delay: Delay,
    /// Its timers in trial order (priority, then declaration), each with its
    /// index among the state's timers (as snapshots and `TimerFired` name
    /// it).
    pub timers: Vec<(TimerId, u32)>,
    /// What a history records as the action of a timer of this group that
    /// fired: `after 30s`, or `after budget` for a named delay.
    pub label: String,
}

/// A timer group armed in one leaf, with its candidates' steps from there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeafTimerGroup {
    /// The group, an index of [`Plan::timer_groups`].
    pub group: usize,
    /// Its timers in trial order, cut after the first unguarded one.
    pub candidates: Vec<TimerCandidate>,
    /// The guards that occur more than once among the candidates' guards.
    pub cached_guards: Vec<GuardId>,
}

/// A timer as a candidate of its group, from one leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerCandidate {
    /// The timer.
    pub timer: TimerId,
    /// Its index among its state's timers.
    pub index: u32,
    /// What firing it from this leaf does.
    pub step: Step,
}

/// A timer armed in one leaf, as snapshots list it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArmedTimer {
    /// The timer.
    pub timer: TimerId,
    /// The state that declares it.
    pub state: StateId,
    /// Its index among that state's timers.
    pub index: u32,
    /// Its group, where its deadline is kept.
    pub group: usize,
}

/// A composite state some transition or timer enters through its history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistorySlot {
    /// The composite.
    pub composite: StateId,
    /// The leaves inside it, in declaration order: what its memory can hold.
    pub leaves: Vec<StateId>,
}

/// What creating a machine does: it enters its initial path and arms the
/// timers there, from the time of creation; it runs no hook and emits
/// nothing (docs/dsl.md, "Starting a machine emits nothing").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    /// The states entered, outermost first; the last is the initial leaf.
    pub entries: Vec<StateId>,
    /// The timer groups armed, outermost state first.
    pub arm: Vec<usize>,
}

impl Start {
    /// The leaf the machine starts in.
    pub fn leaf(&self) -> StateId {
        *self.entries.last().expect("the start enters the initial state")
    }
}

impl Plan {
    /// The plan of `machine`, which should be free of check errors (a
    /// machine with errors still gets a plan, but it runs what the model
    /// holds, not what the user meant).
    pub fn new(machine: &Machine) -> Plan {
        let m = machine;
        let mut timer_groups: Vec<TimerGroup> = Vec::new();
        let mut state_timer_groups = Vec::with_capacity(m.states.len());
        let mut timer_counts = Vec::with_capacity(m.states.len());
        let mut group_of_timer = vec![0usize; m.timers.len()];
        for state in m.state_ids() {
            let mut timers: Vec<(TimerId, u32)> = m
                .timers_of(state)
                .enumerate()
                .map(|(i, (id, _))| (id, i as u32))
                .collect();
            timer_counts.push(timers.len() as u32);
            // Trial order within a state: priority, then declaration (stable).
            timers.sort_by_key(|&(id, _)| std::cmp::Reverse(m.timers[id.index()].priority));
            let first = timer_groups.len();
            for (id, i) in timers {
                let delay = m.delay_of(id);
                let group = match timer_groups[first..].iter().position(|g| g.delay == delay) {
                    Some(g) => first + g,
                    None => {
                        let label = match delay {
                            Delay::Literal(_) => format!("after {}", m.delay_text(delay)),
                            Delay::Named(d) => format!("after {}", m.delays[d.index()].name),
                        };
                        timer_groups.push(TimerGroup {
                            state,
                            delay,
                            timers: Vec::new(),
                            label,
                        });
                        timer_groups.len() - 1
                    }
                };
                timer_groups[group].timers.push((id, i));
                group_of_timer[id.index()] = group;
            }
            state_timer_groups.push(first..timer_groups.len());
        }

        let history: Vec<HistorySlot> = m
            .history_composites()
            .into_iter()
            .map(|composite| HistorySlot {
                composite,
                leaves: m.leaves().filter(|&l| m.is_inside(l, composite)).collect(),
            })
            .collect();
        let mut slot_of = vec![None; m.states.len()];
        for (slot, h) in history.iter().enumerate() {
            slot_of[h.composite.index()] = Some(slot);
        }
        // Each leaf's candidates per action, in trial order, cut after the
        // first unguarded one (those after it can never be chosen).
        let rows: Vec<Vec<(ActionId, Vec<TransitionId>)>> = m
            .state_ids()
            .map(|state| match m.state(state).is_composite() {
                true => Vec::new(),
                false => m
                    .candidate_groups(state)
                    .into_iter()
                    .map(|(action, group)| {
                        (
                            action,
                            until_unguarded(group, |t| m.transition(t).guard.is_none()),
                        )
                    })
                    .collect(),
            })
            .collect();
        let chart = ChartPlan::new(m, &slot_of, &state_timer_groups, &rows);

        // Every step from a leaf, taken ahead of time by the one step.
        let states = if m.states.len() > fsm_step::MAX_STATES {
            // Refused by the checks (`too-many-states`): nothing runs it.
            vec![LeafPlan::default(); m.states.len()]
        } else {
            let (chart_states, chart_transitions) = chart.step_tables();
            let tables = fsm_step::Chart {
                states: &chart_states,
                transitions: &chart_transitions,
                pool: &chart.pool,
            };
            let tie_order = m.timer_tie_order();
            fsm_step::by_width!(chart.words, W => {
                let mut ahead = Ahead::<W>::new(tables, &history, m.has_parallel());
                m.state_ids()
                    .map(|state| match m.state(state).is_composite() {
                        true => LeafPlan::default(),
                        false => leaf_plan(m, &chart, &rows[state.index()], &group_of_timer, &tie_order, state, &mut ahead),
                    })
                    .collect()
            })
        };

        // Slots: a state's timers after those of the states holding it.
        let mut timer_slots = vec![0usize; m.timers.len()];
        let mut deadline_slots = 0;
        for state in m.state_ids() {
            let first: usize = m.ancestors(state).map(|a| timer_counts[a.index()] as usize).sum();
            for (i, (id, _)) in m.timers_of(state).enumerate() {
                timer_slots[id.index()] = first + i;
            }
            deadline_slots = deadline_slots.max(first + timer_counts[state.index()] as usize);
        }

        let mut timer_order: Vec<usize> = Vec::with_capacity(timer_groups.len());
        let mut ordered = vec![false; timer_groups.len()];
        for timer in m.timer_tie_order() {
            let group = group_of_timer[timer.index()];
            if !std::mem::replace(&mut ordered[group], true) {
                timer_order.push(group);
            }
        }

        let entries = m.initial_path();
        let arm = entries
            .iter()
            .flat_map(|s| state_timer_groups[s.index()].clone())
            .collect();
        Plan {
            states,
            timer_groups,
            timer_order,
            state_timer_groups,
            timer_counts,
            timer_slots,
            deadline_slots,
            history,
            chart,
            start: Start { entries, arm },
        }
    }

    /// The plan of leaf `state`.
    pub fn leaf(&self, state: StateId) -> &LeafPlan {
        &self.states[state.index()]
    }

    /// The row of `action` in `state`; `None` when the action is not valid
    /// there.
    pub fn row(&self, state: StateId, action: ActionId) -> Option<&ActionRow> {
        let actions = &self.states[state.index()].actions;
        actions
            .binary_search_by_key(&action, |row| row.action)
            .ok()
            .map(|i| &actions[i])
    }

    /// The history slot of `composite`, if its memory is kept.
    pub fn slot_of(&self, composite: StateId) -> Option<usize> {
        self.history.iter().position(|h| h.composite == composite)
    }

    /// What a machine without parallel states tries after a step that
    /// leaves it in `leaf`, in trial order: the leaf's `always`
    /// transitions, then, when the step `entered` it and it is final, the
    /// `done` transitions of the state it completes. The first whose guard
    /// holds is the next step, from `leaf`; when none holds, the `fire` is
    /// over. This is the chart's `settle` with one active leaf: only the
    /// leaf's parent can be done, it is made done by entering a final leaf,
    /// and its `done` is tried once, after the `always` transitions.
    pub fn settle_candidates(
        &self,
        leaf: StateId,
        entered: bool,
    ) -> impl Iterator<Item = &EventlessCandidate> {
        let plan = &self.states[leaf.index()];
        let done = if entered { &plan.done.candidates[..] } else { &[] };
        plan.always.candidates.iter().chain(done)
    }

    /// True when the `always` and `done` steps of a machine without
    /// parallel states can be laid out ahead of time, one `fire` as a
    /// finite tree of at most `limit` steps from each leaf: they form no
    /// cycle (a guarded one; the `completion-cycle` check refuses an
    /// unguarded one), and do not branch into more than `limit` ways. True
    /// for every machine without them. Code generation renders any other
    /// machine as it renders one with parallel states, stepping over the
    /// chart, which stops a cycle after
    /// [`MAX_MICROSTEPS`](crate::model::MAX_MICROSTEPS).
    pub fn unfolds(&self, machine: &Machine, limit: usize) -> bool {
        let m = machine;
        if m.eventless.is_empty() {
            return true;
        }
        // The nodes: (leaf, entered by the step before), two per state; an
        // edge per case of each step the plan tries there.
        let node = |leaf: StateId, entered: bool| 2 * leaf.index() + usize::from(entered);
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); 2 * m.states.len()];
        for leaf in m.leaves() {
            for entered in [false, true] {
                for candidate in self.settle_candidates(leaf, entered) {
                    for case in &candidate.step.cases {
                        let next = match case.mv.to {
                            Some(to) => node(to, true),
                            None => node(leaf, false),
                        };
                        succ[node(leaf, entered)].push(next);
                    }
                }
            }
        }
        if !crate::model::cycles(&succ).is_empty() {
            return false;
        }
        // Acyclic: the size of each node's tree, in reverse topological
        // order (the memo is filled depth first).
        fn size(succ: &[Vec<usize>], v: usize, memo: &mut [Option<usize>]) -> usize {
            if let Some(s) = memo[v] {
                return s;
            }
            let s = succ[v]
                .iter()
                .fold(0usize, |sum, &w| sum.saturating_add(1 + size(succ, w, memo)));
            memo[v] = Some(s);
            s
        }
        let mut memo = vec![None; succ.len()];
        (0..succ.len()).all(|v| size(&succ, v, &mut memo) <= limit)
    }

    /// Every step of the plan (transitions', timers' and the `always` and
    /// `done` ones), with the leaf it is taken from: for engines that lay
    /// steps out in tables of their own.
    pub fn steps(&self) -> impl Iterator<Item = (StateId, &Step)> {
        self.states.iter().enumerate().flat_map(|(i, leaf)| {
            let state = StateId::from_index(i);
            let transitions = leaf
                .actions
                .iter()
                .flat_map(|row| row.candidates.iter().map(|c| &c.step));
            let timers = leaf
                .timer_groups
                .iter()
                .flat_map(|g| g.candidates.iter().map(|c| &c.step));
            let eventless = leaf
                .always
                .candidates
                .iter()
                .chain(&leaf.done.candidates)
                .map(|c| &c.step);
            transitions
                .chain(timers)
                .chain(eventless)
                .map(move |step| (state, step))
        })
    }
}

/// The plan of leaf `state`, whose candidates per action are `rows`: each
/// step taken ahead of time by `ahead`.
fn leaf_plan<const W: usize>(
    m: &Machine,
    chart: &ChartPlan,
    rows: &[(ActionId, Vec<TransitionId>)],
    group_of_timer: &[usize],
    tie_order: &[TimerId],
    state: StateId,
    ahead: &mut Ahead<'_, W>,
) -> LeafPlan {
    let mut step =
        |chosen: Chosen, payload: bool| ahead.step(state, chart.index_of(m, chosen) as u32, payload);
    let actions = rows
        .iter()
        .map(|(action, candidates)| ActionRow {
            action: *action,
            cached_guards: repeated_guards(candidates.iter().filter_map(|&t| guard_expr(m, t))),
            candidates: candidates
                .iter()
                .map(|&transition| Candidate {
                    transition,
                    step: step(Chosen::Action(transition), true),
                })
                .collect(),
        })
        .collect();
    let done = match m.state(state).parent {
        Some(parent) if m.state(state).is_final() => m.done_candidates(parent),
        _ => Vec::new(),
    };
    let mut eventless_row = |chosen: Vec<Chosen>| {
        let ids: Vec<usize> = chosen
            .into_iter()
            .filter_map(|c| match c {
                Chosen::Eventless(i) => Some(i),
                _ => None,
            })
            .collect();
        let ids = until_unguarded(ids, |i| m.eventless[i].guard.is_none());
        EventlessRow {
            cached_guards: repeated_guards(
                ids.iter()
                    .filter_map(|&i| m.eventless[i].guard.as_ref().map(|g| &g.expr)),
            ),
            candidates: ids
                .into_iter()
                .map(|i| EventlessCandidate {
                    eventless: i,
                    step: step(Chosen::Eventless(i), false),
                })
                .collect(),
        }
    };
    let always = eventless_row(m.always_candidates(state));
    let done = eventless_row(done);

    // The timer groups armed in the leaf, in the order ties fire, each with
    // its candidates in trial order, cut after the first unguarded one.
    let order = m.timer_trial_order_in(state, tie_order);
    let mut timer_groups: Vec<LeafTimerGroup> = Vec::new();
    for &(timer, _) in &order {
        let group = group_of_timer[timer.index()];
        if timer_groups.iter().any(|g| g.group == group) {
            continue;
        }
        let members: Vec<(TimerId, u32)> = order
            .iter()
            .copied()
            .filter(|(t, _)| group_of_timer[t.index()] == group)
            .collect();
        let members = until_unguarded(members, |(t, _)| m.timers[t.index()].guard.is_none());
        timer_groups.push(LeafTimerGroup {
            group,
            cached_guards: repeated_guards(
                members
                    .iter()
                    .filter_map(|(t, _)| m.timers[t.index()].guard.as_ref().map(|g| &g.expr)),
            ),
            candidates: members
                .into_iter()
                .map(|(timer, index)| TimerCandidate {
                    timer,
                    index,
                    step: step(Chosen::Timer(timer), false),
                })
                .collect(),
        });
    }
    LeafPlan {
        actions,
        always,
        done,
        timer_groups,
        armed: m
            .ancestors_or_self(state)
            .flat_map(|level| {
                m.timers_of(level)
                    .enumerate()
                    .map(move |(i, (timer, _))| (level, i, timer))
            })
            .map(|(level, i, timer)| ArmedTimer {
                timer,
                state: level,
                index: i as u32,
                group: group_of_timer[timer.index()],
            })
            .collect(),
    }
}
/// `items` up to and including the first for which `unguarded` holds:
/// those after it can never be chosen.
fn until_unguarded<T: Copy>(mut items: Vec<T>, unguarded: impl Fn(T) -> bool) -> Vec<T> {
    if let Some(last) = items.iter().position(|&t| unguarded(t)) {
        items.truncate(last + 1);
    }
    items
}

/// The guard expression of transition `t`, if it has one.
fn guard_expr(m: &Machine, t: TransitionId) -> Option<&GuardExpr> {
    m.transition(t).guard.as_ref().map(|g| &g.expr)
}

/// The guards that occur more than once in `exprs` (counting repeats inside
/// one expression), in id order.
pub fn repeated_guards<'a>(exprs: impl IntoIterator<Item = &'a GuardExpr>) -> Vec<GuardId> {
    let mut vars = Vec::new();
    for expr in exprs {
        expr.vars(&mut vars);
    }
    vars.sort_unstable();
    let mut repeated: Vec<GuardId> = vars.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]).collect();
    repeated.dedup();
    repeated
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::testing::{id, lowered, machine, CALL};

    fn action(m: &Machine, name: &str) -> ActionId {
        ActionId::from_index(m.actions.iter().position(|a| a.name == name).expect(name))
    }

    fn names<'a>(m: &'a Machine, ids: &[StateId]) -> Vec<&'a str> {
        ids.iter().map(|&s| m.state(s).name.as_str()).collect()
    }

    fn outputs<'a>(m: &'a Machine, mv: &Move) -> Vec<&'a str> {
        mv.outputs
            .iter()
            .map(|&o| m.outputs[o.index()].name.as_str())
            .collect()
    }

    /// The first candidate `leaf` takes for `action`, with `memory` (slot →
    /// remembered leaf) as the machine keeps it: its exits, entries and new
    /// leaf.
    fn fire(
        m: &Machine,
        plan: &Plan,
        leaf: &str,
        action_name: &str,
        memory: &mut std::collections::BTreeMap<usize, StateId>,
    ) -> (Vec<String>, Vec<String>, String) {
        let leaf = id(m, leaf);
        let row = plan.row(leaf, action(m, action_name)).expect(action_name);
        let step = &row.candidates[0].step;
        for &slot in &step.records {
            memory.insert(slot, leaf);
        }
        let mv = &step
            .case(step.read.and_then(|slot| memory.get(&slot).copied()))
            .mv;
        let strings = |ids: &[StateId]| names(m, ids).into_iter().map(String::from).collect();
        let next = mv.to.unwrap_or(leaf);
        (
            strings(&mv.path.exits),
            strings(&mv.path.entries),
            m.state(next).name.clone(),
        )
    }

    #[test]
    fn exits_and_entries_follow_the_least_common_ancestor() {
        let m = machine(CALL);
        let plan = Plan::new(&m);
        let mut memory = Default::default();
        // Into a composite: its initial child is entered after it.
        assert_eq!(
            fire(&m, &plan, "connecting", "answered", &mut memory),
            (
                vec!["connecting".into()],
                vec!["connected".into(), "talking".into()],
                "talking".into()
            )
        );
        // Between siblings: the parent stays.
        assert_eq!(
            fire(&m, &plan, "talking", "transfer", &mut memory),
            (
                vec!["talking".into()],
                vec!["transferring".into(), "dialing_third".into()],
                "dialing_third".into()
            )
        );
        // Inherited from two levels up: every level is exited, innermost first.
        assert_eq!(
            fire(&m, &plan, "bridged", "hang_up", &mut memory),
            (
                vec!["bridged".into(), "transferring".into(), "connected".into()],
                vec!["idle".into()],
                "idle".into()
            )
        );
        // A leaf's own transition out of its ancestors.
        assert_eq!(
            fire(&m, &plan, "bridged", "complete", &mut memory).0,
            ["bridged", "transferring", "connected"]
        );
    }

    #[test]
    fn local_and_self_transitions() {
        let m = machine(
            "machine M { initial state p { on in -> b; on again -> p; on up -> p; on stay; \
             initial state a { on self -> a; on top -> p; } state b { on back -> a; } } }",
        );
        let plan = Plan::new(&m);
        let mut memory = Default::default();
        // Declared on `p`, into `p`: `p` is not exited.
        assert_eq!(
            fire(&m, &plan, "a", "in", &mut memory),
            (vec!["a".into()], vec!["b".into()], "b".into())
        );
        // Declared on `p`, to `p`: exited and re-entered, then its initial child.
        assert_eq!(
            fire(&m, &plan, "b", "again", &mut memory),
            (
                vec!["b".into(), "p".into()],
                vec!["p".into(), "a".into()],
                "a".into()
            )
        );
        // A leaf to itself: exited and re-entered; its parent stays.
        assert_eq!(
            fire(&m, &plan, "a", "self", &mut memory),
            (vec!["a".into()], vec!["a".into()], "a".into())
        );
        // A leaf to its own parent: the parent is exited and re-entered.
        assert_eq!(
            fire(&m, &plan, "a", "top", &mut memory),
            (
                vec!["a".into(), "p".into()],
                vec!["p".into(), "a".into()],
                "a".into()
            )
        );
        // No target: nothing exits or enters.
        let step = &plan.row(id(&m, "a"), action(&m, "stay")).unwrap().candidates[0].step;
        assert_eq!(step.default_case().mv.path, Path::default());
        assert!(step.default_case().mv.is_internal());
    }

    #[test]
    fn history_enters_the_child_or_leaf_last_active() {
        let m = machine(CALL);
        let plan = Plan::new(&m);
        let mut memory = Default::default();
        // The first time, history is the initial child.
        fire(&m, &plan, "idle", "dial", &mut memory);
        fire(&m, &plan, "connecting", "answered", &mut memory);
        assert_eq!(fire(&m, &plan, "talking", "pause", &mut memory).2, "paused");
        assert_eq!(fire(&m, &plan, "paused", "resume", &mut memory).2, "talking");
        // Shallow history of `connected` re-enters `transferring` at its initial child.
        fire(&m, &plan, "talking", "transfer", &mut memory);
        fire(&m, &plan, "dialing_third", "answered", &mut memory);
        let (exits, entries, leaf) = fire(&m, &plan, "bridged", "pause", &mut memory);
        assert_eq!(exits, ["bridged", "transferring", "connected"]);
        assert_eq!(entries, ["paused"]);
        assert_eq!(leaf, "paused");
        assert_eq!(
            fire(&m, &plan, "paused", "resume", &mut memory),
            (
                vec!["paused".into()],
                vec!["connected".into(), "transferring".into(), "dialing_third".into()],
                "dialing_third".into()
            )
        );
    }

    #[test]
    fn deep_history_and_history_from_inside() {
        let m = machine(
            "machine H { initial state idle { on go -> c.deep_history; } \
             state c { on out -> idle; on back -> c.history; initial state x { on next -> y; } \
             state y { initial state y1 { on next -> y2; } state y2 { on again -> c.history; } } } }",
        );
        let plan = Plan::new(&m);
        let mut memory = Default::default();
        // Nothing remembered: the default entry.
        assert_eq!(fire(&m, &plan, "idle", "go", &mut memory).1, ["c", "x"]);
        fire(&m, &plan, "x", "next", &mut memory);
        fire(&m, &plan, "y1", "next", &mut memory);
        fire(&m, &plan, "y2", "out", &mut memory);
        // Deep history re-enters the very leaf.
        assert_eq!(
            fire(&m, &plan, "idle", "go", &mut memory),
            (
                vec!["idle".into()],
                vec!["c".into(), "y".into(), "y2".into()],
                "y2".into()
            )
        );
        // From inside, the composite itself is kept, and records nothing: the
        // step goes by the memory `c` had when it was last left (`y2`), by
        // shallow history to `y` and its initial child.
        fire(&m, &plan, "y2", "back", &mut memory);
        let (exits, entries, leaf) = fire(&m, &plan, "y1", "back", &mut memory);
        assert_eq!(exits, ["y1", "y"]);
        assert_eq!(entries, ["y", "y1"]);
        assert_eq!(leaf, "y1");
        let slot = plan.slot_of(id(&m, "c")).unwrap();
        assert_eq!(memory.get(&slot), Some(&id(&m, "y2")));
    }

    #[test]
    fn candidates_are_cut_after_the_first_unguarded_one_and_repeated_guards_are_cached() {
        // The `any` transition is shadowed (an error), but still planned.
        let m = lowered(
            "machine M { initial state a { on go [x && !y] -> b; on go [y || x] priority 1 -> b; on go -> b; \
             on stay -> a; } state b; any { on go -> a; } }",
        );
        let plan = Plan::new(&m);
        let row = plan.row(id(&m, "a"), action(&m, "go")).expect("go is valid in a");
        assert_eq!(
            row.candidates.len(),
            3,
            "the `any` one after the unguarded one is dropped"
        );
        let x = GuardId::from_index(m.guards.iter().position(|g| g.name == "x").unwrap());
        let y = GuardId::from_index(m.guards.iter().position(|g| g.name == "y").unwrap());
        assert_eq!(row.cached_guards, [x, y]);
        assert!(plan.row(id(&m, "b"), action(&m, "stay")).is_none());
        let actions: Vec<ActionId> = plan.leaf(id(&m, "a")).actions.iter().map(|r| r.action).collect();
        let mut sorted = actions.clone();
        sorted.sort();
        assert_eq!(actions, sorted, "rows are in action order");
    }

    #[test]
    fn a_step_emits_exit_outputs_then_its_own_then_enter_outputs_with_effects_alike() {
        let m = machine(
            "machine M { context C; initial state p { exit emit left_p; exit do leave_p; initial state a { \
             exit emit left_a; on go -> q do own emit mine; } } state q { enter do enter_q; enter emit in_q; } }",
        );
        let plan = Plan::new(&m);
        let step = &plan.row(id(&m, "a"), action(&m, "go")).unwrap().candidates[0].step;
        assert!(step.read.is_none() && step.records.is_empty());
        let mv = &step.default_case().mv;
        assert_eq!(outputs(&m, mv), ["left_a", "left_p", "mine", "in_q"]);
        let effects: Vec<(&str, bool)> = mv
            .effects
            .iter()
            .map(|e| (m.effects[e.effect.index()].name.as_str(), e.payload))
            .collect();
        assert_eq!(effects, [("leave_p", false), ("own", true), ("enter_q", false)]);
        assert_eq!(names(&m, &mv.path.exits), ["a", "p"]);
        assert_eq!(mv.to, Some(id(&m, "q")));
    }

    #[test]
    fn internal_and_self_transitions_differ() {
        let m = machine("machine M { initial state a { enter emit hi; on stay; on again -> a; } }");
        let plan = Plan::new(&m);
        let internal = &plan.row(id(&m, "a"), action(&m, "stay")).unwrap().candidates[0].step;
        assert!(internal.default_case().mv.is_internal());
        assert!(internal.default_case().mv.outputs.is_empty());
        let again = &plan.row(id(&m, "a"), action(&m, "again")).unwrap().candidates[0].step;
        assert!(!again.default_case().mv.is_internal());
        assert_eq!(outputs(&m, &again.default_case().mv), ["hi"]);
    }

    #[test]
    fn history_steps_have_one_case_per_distinct_path_and_a_default() {
        let m = machine(CALL);
        let plan = Plan::new(&m);
        assert_eq!(plan.history.len(), 1);
        let connected = id(&m, "connected");
        assert_eq!(plan.history[0].composite, connected);
        let resume = plan.row(id(&m, "paused"), action(&m, "resume")).unwrap();
        let step = &resume.candidates[0].step;
        assert_eq!(step.read, Some(0));
        // The default case (nothing remembered) enters the initial child.
        assert_eq!(
            names(&m, &step.case(None).mv.path.entries),
            ["connected", "talking"]
        );
        // Shallow history: a leaf inside `transferring` re-enters it at its
        // initial child.
        assert_eq!(
            names(&m, &step.case(Some(id(&m, "bridged"))).mv.path.entries),
            ["connected", "transferring", "dialing_third"]
        );
        assert_eq!(step.case(Some(id(&m, "on_hold"))).mv.to, Some(id(&m, "on_hold")));
        // Leaving `connected` records its memory.
        let pause = plan.row(id(&m, "talking"), action(&m, "pause")).unwrap();
        assert_eq!(pause.candidates[0].step.records, [0]);
    }

    #[test]
    fn timers_group_by_delay_and_leaves_list_groups_in_tie_order() {
        let m = machine(
            "machine T { initial state a { after 1s -> b; initial state a1 { after 1s [g] -> b; after 2s priority 1 -> b; \
             after 1s -> b; } } state b { on go -> a.deep_history; } }",
        );
        let plan = Plan::new(&m);
        let a1 = id(&m, "a1");
        // a1's own groups: 2s (priority 1) first, then 1s.
        let own: Vec<&TimerGroup> = plan.state_timer_groups[a1.index()]
            .clone()
            .map(|g| &plan.timer_groups[g])
            .collect();
        assert_eq!(own.len(), 2);
        assert_eq!(own[0].timers.iter().map(|t| t.1).collect::<Vec<_>>(), [1]);
        assert_eq!(own[1].timers.iter().map(|t| t.1).collect::<Vec<_>>(), [0, 2]);
        let leaf = plan.leaf(a1);
        let order: Vec<(StateId, usize)> = leaf
            .timer_groups
            .iter()
            .map(|g| (plan.timer_groups[g.group].state, g.candidates.len()))
            .collect();
        assert_eq!(order, [(a1, 1), (a1, 2), (id(&m, "a"), 1)]);
        assert_eq!(
            leaf.armed.iter().map(|t| (t.state, t.index)).collect::<Vec<_>>(),
            [(a1, 0), (a1, 1), (a1, 2), (id(&m, "a"), 0)]
        );
        // Leaving `a` disarms every group of a1 and of a; starting arms them.
        let step = &leaf.timer_groups[0].candidates[0].step;
        assert_eq!(step.default_case().mv.disarm.len(), 3);
        assert_eq!(plan.start.arm.len(), 3);
        assert_eq!(plan.start.leaf(), a1);
    }

    #[test]
    fn leaves_try_always_transitions_by_priority_and_depth_and_final_leaves_their_parents_done() {
        let m = machine(
            "machine M { initial state idle { on go -> route; } \
             state route { always [ready] -> tools emit run; always -> waiting; } \
             state work { always [quit] -> idle; done [fine] priority 1 -> waiting; done -> idle; \
               initial state busy { on finish -> finished; always [urgent] priority 2 -> finished; } \
               final state finished; } \
             state tools { on back -> work; } state waiting { on back -> route; } }",
        );
        let plan = Plan::new(&m);
        let eventless = |row: &EventlessRow| -> Vec<String> {
            row.candidates
                .iter()
                .map(|c| {
                    let e = &m.eventless[c.eventless];
                    format!(
                        "{} {}{}",
                        e.trigger.keyword(),
                        m.state(e.expect_state()).name,
                        e.guard
                            .as_ref()
                            .map(|g| format!(" [{}]", m.guard_text(&g.expr)))
                            .unwrap_or_default()
                    )
                })
                .collect()
        };
        let route = plan.leaf(id(&m, "route"));
        assert_eq!(eventless(&route.always), ["always route [ready]", "always route"]);
        let mv = &route.always.candidates[0].step.default_case().mv;
        assert_eq!(outputs(&m, mv), ["run"]);
        assert_eq!(mv.to, Some(id(&m, "tools")));
        // Priority first, then the innermost level.
        let busy = plan.leaf(id(&m, "busy"));
        assert_eq!(
            eventless(&busy.always),
            ["always busy [urgent]", "always work [quit]"]
        );
        assert!(busy.done.is_empty());
        let finished = plan.leaf(id(&m, "finished"));
        assert_eq!(eventless(&finished.done), ["done work [fine]", "done work"]);
        assert!(plan.leaf(id(&m, "idle")).always.is_empty());
        let steps = plan
            .steps()
            .filter(|(leaf, _)| *leaf == id(&m, "finished"))
            .count();
        assert_eq!(steps, 3, "its `always` and its two `done`");
    }

    #[test]
    fn deadline_slots_follow_the_states_holding_a_timer_and_are_shared_by_siblings() {
        let m = machine(
            "machine M { initial state p { after 1s -> q; initial state a { after 2s -> b; after 3s -> b; } \
             state b { after 4s -> a; } } state q { after 5s -> p; after 6s -> p; } }",
        );
        let plan = Plan::new(&m);
        let slots = |state: &str| -> Vec<usize> {
            m.timers_of(id(&m, state))
                .map(|(t, _)| plan.timer_slots[t.index()])
                .collect()
        };
        // `p`'s timer first; its children's after it, sharing slots, as
        // `q`'s share `p`'s: never armed at once.
        assert_eq!(slots("p"), [0]);
        assert_eq!(slots("a"), [1, 2]);
        assert_eq!(slots("b"), [1]);
        assert_eq!(slots("q"), [0, 1]);
        assert_eq!(plan.deadline_slots, 3);
    }
}
