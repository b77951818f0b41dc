//! Configurations, as the model describes them: the set of active states,
//! the parts of a chosen transition, its domain (what it changes: the
//! states inside one, or one region of a parallel state), and the order in
//! which candidates are tried. docs/dsl.md states the rules and their
//! reasons:
//!
//! - candidates are tried in fsmc's order (priority, then the innermost
//!   level, then declaration, `any` outermost);
//! - a transition whose source and target lie in one region of a parallel
//!   state stays in that region ([`Domain::Region`]); a transition declared
//!   on a parallel state to a state inside it re-enters only the region
//!   holding its target, and the sibling regions keep their state.
//!
//! What a step does with them (choosing per leaf, conflicts, exit and entry
//! order, history, the `always` and `done` steps after it) is stated once,
//! in `fsm_runtime::__private::chart`, over the tables the plan lays out
//! from these answers (`plan::ChartPlan`), and run by every engine;
//! `tests/differential` compares the engines with an independent SCXML
//! reference (`grammar/tests/scxml`).

use super::{
    EventlessKind, HistoryKind, Machine, Source, StateId, TimerId, Transition, TransitionId, Trigger,
};
use std::collections::BTreeSet;

/// The set of active states. State ids are in document order (a parent
/// before its children, siblings as written), so iterating the set is entry
/// order, and iterating it backwards is exit order.
pub type Configuration = BTreeSet<StateId>;

/// The most microsteps one `fire` may take: past it, a guarded cycle of
/// `always` or `done` transitions stops (a runaway). The one step's bound
/// ([`fsm_step::MAX_MICROSTEPS`]), which the checks measure chains against.
pub use fsm_step::MAX_MICROSTEPS;

/// A transition of any kind, as steps choose it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Chosen {
    /// `on ACTION ...;`
    Action(TransitionId),
    /// `after ...;`
    Timer(TimerId),
    /// `done ...;` or `always ...;`: an index of [`Machine::eventless`].
    Eventless(usize),
}

/// What a transition changes: the states inside it, or one region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// The machine itself: every active state may be exited.
    Root,
    /// The active states strictly inside this one are exited.
    State(StateId),
    /// This region of a parallel state, and the active states inside it,
    /// are exited: the rest of the parallel state keeps its state.
    Region(StateId),
}

impl Machine {
    /// The transition chosen.
    pub fn transition_of(&self, c: Chosen) -> &Transition {
        match c {
            Chosen::Action(t) => self.transition(t),
            Chosen::Timer(t) => self.timer(t),
            Chosen::Eventless(i) => &self.eventless[i],
        }
    }

    /// The active leaves of `config`, in document order.
    pub fn active_leaves<'c>(&'c self, config: &'c Configuration) -> impl Iterator<Item = StateId> + 'c {
        config.iter().copied().filter(|&s| !self.state(s).is_composite())
    }

    /// The domain of a transition declared at `source` to `target` (see the
    /// module documentation).
    pub fn config_domain(&self, source: Source, target: StateId, history: Option<HistoryKind>) -> Domain {
        let declared = match source {
            Source::State(s) => s,
            Source::Any => return Domain::Root,
        };
        let holds = |d: StateId| (history.is_some() && d == target) || self.is_inside(target, d);
        let mut from = Some(declared);
        while let Some(d) = std::iter::successors(from, |&s| self.state(s).parent).find(|&d| holds(d)) {
            if d == target || !self.state(d).is_parallel() {
                return Domain::State(d);
            }
            // A parallel state holding the target: the region holding it is
            // the domain when the source is the parallel state itself or lies
            // in that region; from another region, look further out.
            let region = self
                .ancestors_or_self(target)
                .find(|&x| self.state(x).parent == Some(d))
                .expect("the target lies inside `d`");
            if declared == d || declared == region || self.is_inside(declared, region) {
                return Domain::Region(region);
            }
            from = self.state(d).parent;
        }
        Domain::Root
    }

    /// The `always` transitions tried in `leaf`: its own and its ancestors',
    /// by priority, then innermost first, then declaration.
    pub fn always_candidates(&self, leaf: StateId) -> Vec<Chosen> {
        let mut all: Vec<(usize, i32, u32)> = self
            .eventless
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.trigger == Trigger::Eventless(EventlessKind::Always)
                    && (e.expect_state() == leaf || self.is_inside(leaf, e.expect_state()))
            })
            .map(|(i, e)| (i, e.priority, self.state(e.expect_state()).depth))
            .collect();
        all.sort_by_key(|&(i, p, depth)| (std::cmp::Reverse(p), std::cmp::Reverse(depth), i));
        all.into_iter().map(|(i, _, _)| Chosen::Eventless(i)).collect()
    }

    /// The `done` transitions of `state`, by priority, then declaration.
    pub fn done_candidates(&self, state: StateId) -> Vec<Chosen> {
        let mut all: Vec<(usize, i32)> = self
            .eventless
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.trigger == Trigger::Eventless(EventlessKind::Done) && e.expect_state() == state
            })
            .map(|(i, e)| (i, e.priority))
            .collect();
        all.sort_by_key(|&(i, p)| (std::cmp::Reverse(p), i));
        all.into_iter().map(|(i, _)| Chosen::Eventless(i)).collect()
    }
}
