//! Steps over configurations, from tables: the semantics of parallel
//! states, `done`, `always` and `in(...)` as the model states them
//! (`fsm_grammar::model`'s `configuration.rs`, W3C SCXML 1.0 Appendix D with
//! fsmc's differences), laid out by the plan as a [`Chart`] and run here
//! without allocating, for every engine.
//!
//! A configuration is a [`Bits`] set of state ids. Ids are in document order
//! (a parent before its children, siblings as written), so the states
//! inside a state are one contiguous range of ids, and what a transition
//! exits is the active part of one range ([`Transition::exits`]): exit sets,
//! conflicts and entry order are a few word operations.
//!
//! The engine answers for guards, runs effects, collects outputs and keeps
//! timers through [`Host`]; the chart decides which transitions a step takes
//! ([`select`], [`remove_conflicts`]), what it exits and enters, in which
//! order, and what it remembers ([`microstep`]), and what follows it
//! ([`settle`]).

/// No state, no transition, no slot.
pub const NONE: u32 = u32::MAX;

/// The most microsteps one `fire` takes: past it, a guarded cycle of
/// `always` or `done` transitions stops (`Settled::Runaway`).
pub const MAX_MICROSTEPS: usize = 1000;

/// A set of state ids, `W` words of 64.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bits<const W: usize>(pub [u64; W]);

impl<const W: usize> Default for Bits<W> {
    fn default() -> Self {
        Bits([0; W])
    }
}

impl<const W: usize> core::fmt::Debug for Bits<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<const W: usize> Bits<W> {
    /// The empty set.
    pub const EMPTY: Self = Bits([0; W]);

    /// True when `s` is in the set.
    #[inline]
    pub fn contains(&self, s: u32) -> bool {
        let s = s as usize;
        self.0[s / 64] >> (s % 64) & 1 != 0
    }

    /// Add `s`.
    #[inline]
    pub fn insert(&mut self, s: u32) {
        let s = s as usize;
        self.0[s / 64] |= 1 << (s % 64);
    }

    /// Remove `s`.
    #[inline]
    pub fn remove(&mut self, s: u32) {
        let s = s as usize;
        self.0[s / 64] &= !(1 << (s % 64));
    }

    /// The ids `lo..hi`.
    pub fn range(lo: u32, hi: u32) -> Self {
        let mut out = Self::EMPTY;
        for (w, word) in out.0.iter_mut().enumerate() {
            let (start, end) = (w * 64, w * 64 + 64);
            let (lo, hi) = ((lo as usize).max(start), (hi as usize).min(end));
            if lo < hi {
                let width = hi - lo;
                let ones = if width == 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                *word = ones << (lo - start);
            }
        }
        out
    }

    /// The states in both.
    #[inline]
    pub fn and(&self, other: &Self) -> Self {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(&other.0) {
            *a &= b;
        }
        out
    }

    /// The states in either.
    #[inline]
    pub fn or(&self, other: &Self) -> Self {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
        out
    }

    /// The states in `self` but not in `other`.
    #[inline]
    pub fn minus(&self, other: &Self) -> Self {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(&other.0) {
            *a &= !b;
        }
        out
    }

    /// True when the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The ids, ascending (entry order); `.rev()` for exit order.
    pub fn iter(&self) -> Iter<W> {
        Iter {
            words: self.0,
            front: 0,
            back: W,
        }
    }
}

/// The ids of a [`Bits`], ascending, each found with one bit scan.
#[derive(Clone, Debug)]
pub struct Iter<const W: usize> {
    /// The words not yet visited, their visited bits cleared.
    words: [u64; W],
    /// The first word not finished.
    front: usize,
    /// One past the last word not finished.
    back: usize,
}

impl<const W: usize> Iterator for Iter<W> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.front < self.back {
            let word = self.words[self.front];
            if word == 0 {
                self.front += 1;
                continue;
            }
            self.words[self.front] = word & (word - 1);
            return Some((self.front * 64) as u32 + word.trailing_zeros());
        }
        None
    }
}

impl<const W: usize> DoubleEndedIterator for Iter<W> {
    #[inline]
    fn next_back(&mut self) -> Option<u32> {
        while self.back > self.front {
            let i = self.back - 1;
            let word = self.words[i];
            if word == 0 {
                self.back -= 1;
                continue;
            }
            let bit = 63 - word.leading_zeros();
            self.words[i] = word & !(1 << bit);
            return Some((i * 64) as u32 + bit);
        }
        None
    }
}

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
    /// The state holding it; [`NONE`] at the top level.
    pub parent: u32,
    /// What it is.
    pub kind: Kind,
    /// How many states hold it.
    pub depth: u32,
    /// One past the last state inside it: the states inside it are the ids
    /// after its own, up to this one.
    pub end: u32,
    /// A composite's initial child; [`NONE`] for the others.
    pub initial: u32,
    /// Its children, in document order.
    pub children: List,
    /// The slot of its history memory; [`NONE`] when nothing reads it.
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
    /// The state that declares it; [`NONE`] for an `any` transition.
    pub source: u32,
    /// Its target; [`NONE`] for an internal transition.
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

/// What the engine does for a step.
pub trait Host<const W: usize> {
    /// True when the guard of `transition` holds; `config` is the
    /// configuration before the step (`in(...)` reads it).
    fn guard(&mut self, transition: u32, config: &Bits<W>) -> bool;
    /// `transition` is taken (in the order its actions run).
    fn taken(&mut self, transition: u32);
    /// Run `effect`; `own` is true for a transition's own `do`, false for a
    /// hook's.
    fn effect(&mut self, effect: u32, own: bool);
    /// Emit `output`.
    fn output(&mut self, output: u32);
    /// The state owning these timer groups was entered.
    fn arm(&mut self, groups: &[u32]);
    /// The state owning these timer groups was left.
    fn disarm(&mut self, groups: &[u32]);
}

/// How a run of `always` and `done` steps ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Nothing more was enabled.
    Stable,
    /// [`MAX_MICROSTEPS`] were taken and more were enabled: the machine is
    /// where the last one left it.
    Runaway,
}

impl<'a> Chart<'a> {
    fn state(&self, s: u32) -> &'a State {
        &self.states[s as usize]
    }

    fn transition(&self, t: u32) -> &'a Transition {
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

    /// Add to `set` the default entry of `s` and what it needs below:
    /// every region of a parallel state, a composite's initial child.
    fn enter_default<const W: usize>(&self, s: u32, set: &mut Bits<W>) {
        set.insert(s);
        let state = self.state(s);
        match state.kind {
            Kind::Parallel => {
                for &r in self.list(state.children) {
                    self.enter_default(r, set);
                }
            }
            Kind::Composite => self.enter_default(state.initial, set),
            Kind::Leaf | Kind::Final => {}
        }
    }

    /// Add default entries to `set` until every active parallel state has
    /// every region and every active composite a child, in one pass in
    /// document order (what is added lies after what adds it).
    fn complete<const W: usize>(&self, set: &mut Bits<W>) {
        for s in 0..self.states.len() as u32 {
            if !set.contains(s) {
                continue;
            }
            let state = self.state(s);
            match state.kind {
                Kind::Parallel => {
                    for &r in self.list(state.children) {
                        if !set.contains(r) {
                            self.enter_default(r, set);
                        }
                    }
                }
                Kind::Composite => {
                    if !self.list(state.children).iter().any(|&c| set.contains(c)) {
                        self.enter_default(state.initial, set);
                    }
                }
                Kind::Leaf | Kind::Final => {}
            }
        }
    }

    /// Add to `set` what entering `s` through its history adds below it:
    /// the remembered leaves and the states down to them (deep), or the
    /// remembered children entered by default (shallow); the default entry
    /// when nothing is remembered. A parallel state's shallow history
    /// enters every region by default.
    fn enter_history<const W: usize>(&self, s: u32, deep: bool, memory: &[Bits<W>], set: &mut Bits<W>) {
        set.insert(s);
        let state = self.state(s);
        let remembered = match state.memory {
            NONE => Bits::EMPTY,
            slot => memory[slot as usize],
        };
        if remembered.is_empty() {
            self.enter_default(s, set);
            return;
        }
        if deep {
            for leaf in remembered.iter() {
                let mut at = leaf;
                while at != s {
                    set.insert(at);
                    at = self.state(at).parent;
                }
            }
            self.complete(set);
        } else if state.kind == Kind::Parallel {
            self.enter_default(s, set);
        } else {
            for leaf in remembered.iter() {
                let mut child = leaf;
                while self.state(child).parent != s {
                    child = self.state(child).parent;
                }
                self.enter_default(child, set);
            }
        }
    }
}

/// The first enabled candidate of each active leaf of `config`, in
/// document order of the leaves, each transition once, into `chosen`;
/// returns how many. `candidates(leaf)` lists a leaf's in trial order.
/// `chosen` holds one per active leaf at most.
pub fn select<'c, const W: usize>(
    chart: &Chart<'c>,
    config: &Bits<W>,
    mut candidates: impl FnMut(u32) -> &'c [u32],
    host: &mut impl Host<W>,
    chosen: &mut [u32],
) -> usize {
    let mut n = 0;
    for leaf in config.iter() {
        if matches!(chart.state(leaf).kind, Kind::Composite | Kind::Parallel) {
            continue;
        }
        if let Some(&t) = candidates(leaf).iter().find(|&&t| host.guard(t, config)) {
            if !chosen[..n].contains(&t) {
                chosen[n] = t;
                n += 1;
            }
        }
    }
    n
}

/// Keep the chosen transitions that do not conflict, in place; returns how
/// many are kept. In the order chosen, each is compared with those kept so
/// far: it preempts a kept one it conflicts with (their exit sets meet)
/// when its priority is higher, or equal with a source inside the kept
/// one's source; otherwise the kept one preempts it.
pub fn remove_conflicts<const W: usize>(
    chart: &Chart<'_>,
    config: &Bits<W>,
    chosen: &mut [u32],
    n: usize,
) -> usize {
    let mut kept = 0;
    for i in 0..n {
        let t = chosen[i];
        let exits = chart.exit_set(config, t);
        let tr = chart.transition(t);
        let conflicts = |other: u32| !exits.and(&chart.exit_set(config, other)).is_empty();
        let beats = |other: u32| {
            let ot = chart.transition(other);
            let inside = match (tr.source, ot.source) {
                (NONE, _) => false,
                (_, NONE) => true,
                (s, o) => chart.is_inside(s, o),
            };
            tr.priority > ot.priority || tr.priority == ot.priority && inside
        };
        if chosen[..kept]
            .iter()
            .any(|&other| conflicts(other) && !beats(other))
        {
            continue;
        }
        // It beats every kept one it conflicts with: those go.
        let mut survivors = 0;
        for k in 0..kept {
            let other = chosen[k];
            if !conflicts(other) {
                chosen[survivors] = other;
                survivors += 1;
            }
        }
        chosen[survivors] = t;
        kept = survivors + 1;
    }
    kept
}

/// Take `taken` (free of conflicts) from `config`: exit (recording history
/// in `memory` first), run each transition's own outputs and effects, and
/// enter, telling `host` of each in order. Returns the states entered.
pub fn microstep<const W: usize>(
    chart: &Chart<'_>,
    config: &mut Bits<W>,
    memory: &mut [Bits<W>],
    taken: &[u32],
    host: &mut impl Host<W>,
) -> Bits<W> {
    let mut exits = Bits::EMPTY;
    for &t in taken {
        exits = exits.or(&chart.exit_set(config, t));
    }
    // History is recorded as the exits happen, before any entry reads it.
    for s in exits.iter() {
        let state = chart.state(s);
        if state.memory != NONE {
            let inside = Bits::range(s + 1, state.end);
            let mut leaves = Bits::EMPTY;
            for l in config.and(&inside).iter() {
                if matches!(chart.state(l).kind, Kind::Leaf | Kind::Final) {
                    leaves.insert(l);
                }
            }
            memory[state.memory as usize] = leaves;
        }
    }
    let after = config.minus(&exits);
    let mut entries = Bits::EMPTY;
    for &t in taken {
        let tr = chart.transition(t);
        if tr.target == NONE {
            continue;
        }
        let path = chart.list(tr.path);
        for &s in path {
            entries.insert(s);
        }
        match tr.history {
            0 => chart.enter_default(tr.target, &mut entries),
            kind => {
                let mut below = Bits::EMPTY;
                chart.enter_history(tr.target, kind == 2, memory, &mut below);
                if !path.contains(&tr.target) {
                    // `X.history` from inside `X`: `X` stays.
                    below.remove(tr.target);
                }
                entries = entries.or(&below);
            }
        }
    }
    let mut whole = after.or(&entries);
    chart.complete(&mut whole);
    let entries = whole.minus(&after);
    for s in exits.iter().rev() {
        let state = chart.state(s);
        for &e in chart.list(state.exit.effects) {
            host.effect(e, false);
        }
        for &o in chart.list(state.exit.outputs) {
            host.output(o);
        }
        if state.timer_groups.len > 0 {
            host.disarm(chart.list(state.timer_groups));
        }
    }
    for &t in taken {
        host.taken(t);
        let own = chart.transition(t).own;
        for &e in chart.list(own.effects) {
            host.effect(e, true);
        }
        for &o in chart.list(own.outputs) {
            host.output(o);
        }
    }
    for s in entries.iter() {
        let state = chart.state(s);
        for &e in chart.list(state.enter.effects) {
            host.effect(e, false);
        }
        for &o in chart.list(state.enter.outputs) {
            host.output(o);
        }
    }
    // Timers are armed once every effect of the step ran (a named delay
    // reads the context as they left it), in entry order.
    for s in entries.iter() {
        let state = chart.state(s);
        if state.timer_groups.len > 0 {
            host.arm(chart.list(state.timer_groups));
        }
    }
    *config = whole;
    entries
}

/// The composites of `config` that are done and were made done by a step
/// that went from `before` to `config` entering `entries`: not done
/// before, or entered, or with a final state entered inside.
fn made_done<const W: usize>(
    chart: &Chart<'_>,
    before: &Bits<W>,
    config: &Bits<W>,
    entries: &Bits<W>,
) -> Bits<W> {
    let mut out = Bits::EMPTY;
    for s in config.iter() {
        let state = chart.state(s);
        if !matches!(state.kind, Kind::Composite | Kind::Parallel) || !chart.is_done(config, s) {
            continue;
        }
        let final_inside = entries
            .and(&Bits::range(s + 1, state.end))
            .iter()
            .any(|e| chart.state(e).kind == Kind::Final);
        if !chart.is_done(before, s) || entries.contains(s) || final_inside {
            out.insert(s);
        }
    }
    out
}

/// After a step from `before` that entered `entries`, take the `always`
/// transitions that are enabled, then the `done` transitions of the states
/// the steps made done, innermost first, each as its own step, until
/// nothing more is enabled. `chosen` is scratch for one per active leaf.
pub fn settle<const W: usize>(
    chart: &Chart<'_>,
    config: &mut Bits<W>,
    memory: &mut [Bits<W>],
    before: &Bits<W>,
    entries: &Bits<W>,
    host: &mut impl Host<W>,
    chosen: &mut [u32],
) -> Settled {
    let mut pending = made_done(chart, before, config, entries);
    let mut steps = 0;
    loop {
        let snapshot = *config;
        let n = select(
            chart,
            &snapshot,
            |leaf| chart.list(chart.state(leaf).eventless),
            host,
            chosen,
        );
        let n = if n > 0 {
            remove_conflicts(chart, &snapshot, chosen, n)
        } else {
            // The innermost state the steps made done that is still done.
            let mut next = None;
            while let Some(d) = innermost(chart, &pending) {
                pending.remove(d);
                if !chart.is_done(&snapshot, d) {
                    continue;
                }
                if let Some(&t) = chart
                    .list(chart.state(d).eventless)
                    .iter()
                    .find(|&&t| host.guard(t, &snapshot))
                {
                    next = Some(t);
                    break;
                }
            }
            match next {
                Some(t) => {
                    chosen[0] = t;
                    1
                }
                None => return Settled::Stable,
            }
        };
        if steps == MAX_MICROSTEPS {
            return Settled::Runaway;
        }
        let entered = microstep(chart, config, memory, &chosen[..n], host);
        pending = pending.or(&made_done(chart, &snapshot, config, &entered));
        steps += 1;
    }
}

/// The deepest state of `set`, the first in document order among equals.
fn innermost<const W: usize>(chart: &Chart<'_>, set: &Bits<W>) -> Option<u32> {
    let mut best: Option<u32> = None;
    for s in set.iter() {
        if best.is_none_or(|b| chart.state(s).depth > chart.state(b).depth) {
            best = Some(s);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec::Vec;

    #[test]
    fn bits_iterate_in_order_both_ways_across_words() {
        let mut bits: Bits<3> = Bits::EMPTY;
        for s in [0, 5, 63, 64, 100, 191] {
            bits.insert(s);
        }
        let forward: Vec<u32> = bits.iter().collect();
        assert_eq!(forward, [0, 5, 63, 64, 100, 191]);
        let backward: Vec<u32> = bits.iter().rev().collect();
        assert_eq!(backward, [191, 100, 64, 63, 5, 0]);
        // From both ends at once, each id once.
        let mut iter = bits.iter();
        assert_eq!(
            (iter.next(), iter.next_back(), iter.next(), iter.next_back()),
            (Some(0), Some(191), Some(5), Some(100))
        );
        assert_eq!(iter.collect::<Vec<_>>(), [63, 64]);
        assert_eq!(Bits::<2>::EMPTY.iter().next(), None);
    }

    #[test]
    fn a_range_holds_exactly_its_ids() {
        let range: Bits<3> = Bits::range(60, 130);
        assert_eq!(range.iter().collect::<Vec<_>>(), (60..130).collect::<Vec<u32>>());
        let whole: Bits<2> = Bits::range(0, 128);
        assert_eq!(whole.iter().count(), 128);
        assert!(Bits::<1>::range(3, 3).is_empty());
        let mut set: Bits<2> = Bits::EMPTY;
        set.insert(70);
        assert!(set.contains(70) && !set.contains(6));
        set.remove(70);
        assert!(set.is_empty());
    }
}
