//! Steps written out ahead of time: the one step ([`fsm_step::microstep`])
//! taken from a leaf before any machine runs, and what it did, recorded.
//!
//! A step from a leaf does not depend on the rest of the configuration when
//! what it exits is the leaf's branch alone (no parallel state holding the
//! leaf is exited, so no other region is); that is every step of a machine
//! without parallel states. Such a step is taken here once, from the
//! configuration of the machine at rest in the leaf
//! ([`fsm_step::configuration_of`]), and once more for each leaf a history
//! target it reads can remember. What the step does (the states it exits
//! and enters and in which order, the outputs, effects and timer groups,
//! the history it records) is the step's, not this module's: this module
//! only records it ([`Recorder`]).

use super::{Case, EffectCall, HistorySlot, Move, Path, Plan, Step};
use crate::model::{Chosen, EffectId, Machine, OutputId, StateId};
use fsm_step::{Bits, Chart, Host, NONE};

/// The one step over `chart`, taken ahead of time with configurations of
/// `W` words.
pub(super) struct Ahead<'a, const W: usize> {
    pub(super) chart: Chart<'a>,
    pub(super) history: &'a [HistorySlot],
    /// True when the machine has parallel states: a history slot may then
    /// remember several leaves, which the cases of a step do not list.
    pub(super) parallel: bool,
    /// Scratch history memory, one set per slot, left empty between steps.
    memory: Vec<Bits<W>>,
}

/// What one step told its host, in order.
#[derive(Default)]
struct Recorder {
    outputs: Vec<u32>,
    /// How many outputs were emitted before the transition was taken: the
    /// exits'.
    exit_outputs: Option<usize>,
    effects: Vec<(u32, bool)>,
    arm: Vec<u32>,
    disarm: Vec<u32>,
}

impl<const W: usize> Host<W> for Recorder {
    fn guard(&mut self, _transition: u32, _config: &Bits<W>) -> bool {
        // A step is taken once chosen; choosing is not recorded here.
        true
    }

    fn taken(&mut self, _transition: u32) {
        self.exit_outputs.get_or_insert(self.outputs.len());
    }

    fn effect(&mut self, effect: u32, own: bool) {
        self.effects.push((effect, own));
    }

    fn output(&mut self, output: u32) {
        self.outputs.push(output);
    }

    fn arm(&mut self, groups: &[u32]) {
        self.arm.extend_from_slice(groups);
    }

    fn disarm(&mut self, groups: &[u32]) {
        self.disarm.extend_from_slice(groups);
    }
}

/// One step, taken: what it did, and what it exited.
struct Taken<const W: usize> {
    mv: Move,
    exits: Bits<W>,
    /// How many of its outputs are its exits', then its own.
    parts: (usize, usize),
}

impl<'a, const W: usize> Ahead<'a, W> {
    pub(super) fn new(chart: Chart<'a>, history: &'a [HistorySlot], parallel: bool) -> Self {
        Ahead {
            chart,
            history,
            parallel,
            memory: vec![Bits::EMPTY; history.len()],
        }
    }

    /// Transition `t` (an index of the chart's transitions) taken from
    /// `leaf`, with `remembered` (a slot and the leaf it holds) as the only
    /// history memory; `payload` is true when its own effects get the
    /// event's payload (an action's transition).
    fn take(
        &mut self,
        leaf: StateId,
        t: u32,
        remembered: Option<(usize, StateId)>,
        payload: bool,
    ) -> Taken<W> {
        let before: Bits<W> = fsm_step::configuration_of(&self.chart, [leaf.index() as u32]);
        let mut config = before;
        if let Some((slot, leaf)) = remembered {
            self.memory[slot].insert(leaf.index() as u32);
        }
        let exits = self.chart.exit_set(&before, t);
        let mut recorder = Recorder::default();
        let entries = fsm_step::microstep(&self.chart, &mut config, &mut self.memory, &[t], &mut recorder);
        // Leave the scratch memory empty for the next step.
        for slot in self.memory.iter_mut() {
            *slot = Bits::EMPTY;
        }
        let id = |s: u32| StateId::from_index(s as usize);
        let path = Path {
            exits: exits.iter().rev().map(id).collect(),
            entries: entries.iter().map(id).collect(),
        };
        let internal = self.chart.transition(t).target == NONE;
        let exit_outputs = recorder.exit_outputs.unwrap_or(0);
        let parts = (exit_outputs, self.chart.transition(t).own.outputs.len as usize);
        let mv = Move {
            to: (!internal).then(|| *path.entries.last().expect("a target is entered")),
            path,
            outputs: recorder
                .outputs
                .into_iter()
                .map(|o| OutputId::from_index(o as usize))
                .collect(),
            effects: recorder
                .effects
                .into_iter()
                .map(|(e, own)| EffectCall {
                    effect: EffectId::from_index(e as usize),
                    payload: own && payload,
                })
                .collect(),
            disarm: recorder.disarm.into_iter().map(|g| g as usize).collect(),
            arm: recorder.arm.into_iter().map(|g| g as usize).collect(),
        };
        Taken { mv, exits, parts }
    }

    /// The step of transition `t` from `leaf`, with one case per path a
    /// history target it reads can take.
    pub(super) fn step(&mut self, leaf: StateId, t: u32, payload: bool) -> Step {
        let Taken { mv, exits, parts } = self.take(leaf, t, None, payload);
        let branch = |s: u32| {
            let mut at = leaf.index() as u32;
            while at != NONE && at != s {
                at = self.chart.state(at).parent;
            }
            at == s
        };
        let mut fixed = exits.iter().all(branch);
        let records: Vec<usize> = exits
            .iter()
            .map(|s| self.chart.state(s).memory)
            .filter(|&slot| slot != NONE)
            .map(|slot| slot as usize)
            .collect();
        let single = |mv: Move, fixed: bool| Step {
            records: records.clone(),
            read: None,
            cases: vec![Case {
                remembered: Vec::new(),
                mv,
            }],
            fixed,
            output_parts: parts,
        };
        // A history target the step does not itself record reads the memory.
        let tr = self.chart.transition(t);
        if tr.target == NONE || tr.history == 0 || exits.contains(tr.target) {
            return single(mv, fixed);
        }
        let slot = self.chart.state(tr.target).memory;
        if slot == NONE {
            return single(mv, fixed);
        }
        let slot = slot as usize;
        // One case per distinct path over the leaves the slot can remember.
        let mut cases: Vec<Case> = Vec::new();
        for &remembered in &self.history[slot].leaves {
            let other = self.take(leaf, t, Some((slot, remembered)), payload).mv;
            if other.path == mv.path {
                continue;
            }
            match cases.iter_mut().find(|c| c.mv.path == other.path) {
                Some(case) => case.remembered.push(remembered),
                None => cases.push(Case {
                    remembered: vec![remembered],
                    mv: other,
                }),
            }
        }
        if cases.is_empty() {
            return single(mv, fixed);
        }
        // With parallel states a slot may hold several leaves at once,
        // which no case lists: the step is the chart's to take.
        fixed &= !self.parallel;
        cases.push(Case {
            remembered: Vec::new(),
            mv,
        });
        Step {
            records,
            read: Some(slot),
            cases,
            fixed,
            output_parts: parts,
        }
    }
}

/// A step of a machine that runs over configurations, written out: the
/// first candidate of a leaf for an action, when it needs no guard and the
/// step is the same in every configuration holding the leaf
/// ([`Step::fixed`]), reads no history, and neither it nor a state it exits
/// or enters runs an effect or keeps a timer ([`Plan::static_steps`]).
/// Several such steps of different leaves in one `fire` exit and enter
/// disjoint states, one region each, provided no two take the same
/// transition and their exits do not meet (otherwise the one step decides).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticStep {
    /// The leaf that takes it.
    pub leaf: StateId,
    /// The transition, an index of [`ChartPlan::transitions`](super::ChartPlan::transitions).
    pub transition: usize,
    /// The states it exits, in document order (exit order is the reverse).
    pub exits: Vec<StateId>,
    /// The states it enters, in document order.
    pub entries: Vec<StateId>,
    /// The history slots it records: each remembers `leaf` alone.
    pub memory: Vec<usize>,
    /// Its outputs as the one step emits them, in three parts: the exited
    /// states', the transition's own, the entered states'.
    pub outputs: [Vec<OutputId>; 3],
}

impl Plan {
    /// For each state, for each action: the [`StaticStep`] the state takes
    /// for it when it is an active leaf, if it has one (an index of the
    /// returned list); and the steps.
    pub fn static_steps(&self, machine: &Machine) -> (Vec<Vec<Option<usize>>>, Vec<StaticStep>) {
        let m = machine;
        let chart = &self.chart;
        let quiet = |s: &StateId| {
            let st = &chart.states[s.index()];
            st.enter.1.len == 0 && st.exit.1.len == 0 && st.timer_groups.len == 0
        };
        let mut steps = Vec::new();
        let mut table = vec![vec![None; m.actions.len()]; m.states.len()];
        for leaf in m.state_ids() {
            for row in &self.states[leaf.index()].actions {
                let Some(first) = row.candidates.first() else {
                    continue;
                };
                let t = chart.index_of(m, Chosen::Action(first.transition));
                let tr = &chart.transitions[t];
                let step = &first.step;
                if m.transition(first.transition).guard.is_some()
                    || tr.history != 0
                    || tr.own.1.len != 0
                    || !step.fixed
                {
                    continue;
                }
                let mv = &step.default_case().mv;
                if !mv.path.exits.iter().chain(&mv.path.entries).all(quiet) {
                    continue;
                }
                let (exits, own) = step.output_parts;
                table[leaf.index()][row.action.index()] = Some(steps.len());
                steps.push(StaticStep {
                    leaf,
                    transition: t,
                    exits: mv.path.exits.iter().rev().copied().collect(),
                    entries: mv.path.entries.clone(),
                    memory: step.records.clone(),
                    outputs: [
                        mv.outputs[..exits].to_vec(),
                        mv.outputs[exits..exits + own].to_vec(),
                        mv.outputs[exits + own..].to_vec(),
                    ],
                });
            }
        }
        (table, steps)
    }
}

impl Plan {
    /// For each set of static steps of leaves in different regions, taken
    /// in one step (as the one step takes them when one `fire` chooses them
    /// all): their outputs, as it emits them.
    pub fn outputs_together(&self, sets: &[Vec<&StaticStep>]) -> Vec<Vec<OutputId>> {
        let (states, transitions) = self.chart.step_tables();
        let chart = fsm_step::Chart {
            states: &states,
            transitions: &transitions,
            pool: &self.chart.pool,
        };
        fsm_step::by_width!(self.chart.words, W => {
            let mut memory: Vec<Bits<W>> = vec![Bits::EMPTY; self.history.len()];
            sets.iter()
                .map(|steps| {
                    // Chosen in document order of their leaves, as `select` does.
                    let mut steps = steps.clone();
                    steps.sort_by_key(|s| s.leaf);
                    let mut config: Bits<W> =
                        fsm_step::configuration_of(&chart, steps.iter().map(|s| s.leaf.index() as u32));
                    let taken: Vec<u32> = steps.iter().map(|s| s.transition as u32).collect();
                    let mut recorder = Recorder::default();
                    fsm_step::microstep(&chart, &mut config, &mut memory, &taken, &mut recorder);
                    for slot in memory.iter_mut() {
                        *slot = Bits::EMPTY;
                    }
                    recorder
                        .outputs
                        .into_iter()
                        .map(|o| OutputId::from_index(o as usize))
                        .collect()
                })
                .collect()
        })
    }
}
