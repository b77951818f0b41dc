//! The tables of one machine: its states, transitions and lists of ids
//! ([`Chart`]), and what they answer.

use super::Bits;

/// What a state is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A leaf.
    Leaf,
    /// A `final` leaf.
    Final,
    /// A state holding states, one active at a time.
    Composite,
    /// A parallel state: every child (region) is active with it.
    Parallel,
}

/// A run of ids in [`Chart::pool`]: `start..start + len`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct List {
    /// Where it starts.
    pub start: u32,
    /// How many.
    pub len: u32,
}

/// A state of a [`Chart`].
#[derive(Clone, Copy, Debug)]
pub struct State {
    /// The state holding it; [`NONE`](super::NONE) at the top level.
    pub parent: u32,
    /// What it is.
    pub kind: Kind,
    /// How many states hold it.
    pub depth: u32,
    /// One past the last state inside it: the states inside it are the ids
    /// after its own, up to this one.
    pub end: u32,
    /// A composite's initial child; [`NONE`](super::NONE) for the others.
    pub initial: u32,
    /// Its children, in document order.
    pub children: List,
    /// The slot of its history memory; [`NONE`](super::NONE) when nothing reads it.
    pub memory: u32,
    /// Its `enter` outputs and effects.
    pub enter: Hook,
    /// Its `exit` outputs and effects.
    pub exit: Hook,
    /// Its own timer groups, armed when it is entered, disarmed when left.
    pub timer_groups: List,
    /// A leaf's `always` candidates (its own and its ancestors', in trial
    /// order); a composite's `done` candidates (in trial order).
    pub eventless: List,
}

/// What a hook or a transition emits and runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hook {
    /// Outputs, in order.
    pub outputs: List,
    /// Effects, in order.
    pub effects: List,
}

/// A transition of any kind (an action's, a timer's, `done`, `always`).
#[derive(Clone, Copy, Debug)]
pub struct Transition {
    /// The state that declares it; [`NONE`](super::NONE) for an `any` transition.
    pub source: u32,
    /// Its target; [`NONE`](super::NONE) for an internal transition.
    pub target: u32,
    /// `0` without history, `1` through the target's shallow history, `2`
    /// through its deep history.
    pub history: u8,
    /// Its priority.
    pub priority: i32,
    /// What it exits: the active states with ids in `exits.0..exits.1`
    /// (empty for an internal transition).
    pub exits: (u32, u32),
    /// The states it enters from just below its domain down to its target,
    /// outermost first (without the target when it re-enters it through
    /// its history from inside).
    pub path: List,
    /// Its own outputs and effects.
    pub own: Hook,
}

/// The tables of one machine.
#[derive(Clone, Copy, Debug)]
pub struct Chart<'a> {
    /// Every state, by id.
    pub states: &'a [State],
    /// Every transition, by index.
    pub transitions: &'a [Transition],
    /// The ids [`List`]s point into.
    pub pool: &'a [u32],
}

impl<'a> Chart<'a> {
    /// State `s`.
    #[inline]
    pub fn state(&self, s: u32) -> &'a State {
        &self.states[s as usize]
    }

    /// Transition `t`.
    #[inline]
    pub fn transition(&self, t: u32) -> &'a Transition {
        &self.transitions[t as usize]
    }

    /// The ids of `list`.
    #[inline]
    pub fn list(&self, list: List) -> &'a [u32] {
        &self.pool[list.start as usize..(list.start + list.len) as usize]
    }

    /// True when `s` lies strictly inside `d`.
    #[inline]
    pub fn is_inside(&self, s: u32, d: u32) -> bool {
        d < s && s < self.state(d).end
    }

    /// True when `s` is done in `config`: a final leaf, a composite whose
    /// active child is final, a parallel state all of whose regions are
    /// done.
    pub fn is_done<const W: usize>(&self, config: &Bits<W>, s: u32) -> bool {
        if !config.contains(s) {
            return false;
        }
        let state = self.state(s);
        match state.kind {
            Kind::Final => true,
            Kind::Leaf => false,
            Kind::Composite => self
                .list(state.children)
                .iter()
                .any(|&c| config.contains(c) && self.state(c).kind == Kind::Final),
            Kind::Parallel => {
                let regions = self.list(state.children);
                !regions.is_empty() && regions.iter().all(|&r| self.is_done(config, r))
            }
        }
    }

    /// The active states `t` exits from `config`.
    #[inline]
    pub fn exit_set<const W: usize>(&self, config: &Bits<W>, t: u32) -> Bits<W> {
        let (lo, hi) = self.transition(t).exits;
        config.and(&Bits::range(lo, hi))
    }
}
