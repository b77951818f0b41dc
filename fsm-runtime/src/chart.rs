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

use crate::timestamp::Timestamp;

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

    /// The least id in the set that is `from` or more.
    #[inline]
    pub fn first_from(&self, from: u32) -> Option<u32> {
        let mut word = from as usize / 64;
        if word >= W {
            return None;
        }
        let mut bits = self.0[word] & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                return Some((word * 64) as u32 + bits.trailing_zeros());
            }
            word += 1;
            if word == W {
                return None;
            }
            bits = self.0[word];
        }
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

/// Up to `N` items kept in place, for what one `fire` of generated code
/// collects (its outputs, the transitions it took) without allocating. The
/// plan bounds how many a `fire` can collect, and code generation sizes `N`
/// to that bound.
#[derive(Clone, Copy)]
pub struct Inline<T: Copy, const N: usize> {
    items: [T; N],
    len: usize,
}

impl<T: Copy, const N: usize> Inline<T, N> {
    /// An empty list whose storage starts as `items` (any values: none is
    /// read before it is pushed).
    #[inline]
    pub const fn new(items: [T; N]) -> Self {
        Inline { items, len: 0 }
    }

    /// Add `item` at the end.
    ///
    /// # Panics
    ///
    /// When `N` items are held already, which the plan's bound rules out for
    /// generated code.
    #[inline]
    pub fn push(&mut self, item: T) {
        self.items[self.len] = item;
        self.len += 1;
    }

    /// The items, in the order pushed.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len]
    }
}

impl<T: Copy, const N: usize> core::ops::Deref for Inline<T, N> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + core::fmt::Debug, const N: usize> core::fmt::Debug for Inline<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: Copy + PartialEq, const N: usize> PartialEq for Inline<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Eq, const N: usize> Eq for Inline<T, N> {}

impl<T: Copy + core::hash::Hash, const N: usize> core::hash::Hash for Inline<T, N> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

/// What one `fire` of generated code collected (its outputs, the
/// transitions it took), read as a slice: a list written out ahead of time
/// for the step it took, or one collected in place.
#[derive(Clone, Copy)]
pub enum Collected<T: Copy + 'static, const N: usize> {
    /// A list written out ahead of time.
    Static(&'static [T]),
    /// A list collected in place.
    Inline(Inline<T, N>),
}

impl<T: Copy + 'static, const N: usize> Collected<T, N> {
    /// The items, in order.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match self {
            Collected::Static(items) => items,
            Collected::Inline(items) => items.as_slice(),
        }
    }
}

impl<T: Copy + 'static, const N: usize> core::ops::Deref for Collected<T, N> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + core::fmt::Debug + 'static, const N: usize> core::fmt::Debug for Collected<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// Equal when the items are, however each was collected.
impl<T: Copy + PartialEq + 'static, const N: usize> PartialEq for Collected<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Eq + 'static, const N: usize> Eq for Collected<T, N> {}

impl<T: Copy + core::hash::Hash + 'static, const N: usize> core::hash::Hash for Collected<T, N> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
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

/// The context a generated [`Host`] reaches: `&mut C` in `fire`, whose
/// guards read it and whose effects change it, and `&C` in `can_fire`,
/// which only asks guards.
pub trait Access<C: ?Sized> {
    /// The context, to read.
    fn read(&self) -> &C;
    /// The context, to change; `None` when it is only read.
    fn write(&mut self) -> Option<&mut C>;
}

impl<C: ?Sized> Access<C> for &C {
    fn read(&self) -> &C {
        self
    }

    fn write(&mut self) -> Option<&mut C> {
        None
    }
}

impl<C: ?Sized> Access<C> for &mut C {
    fn read(&self) -> &C {
        self
    }

    fn write(&mut self) -> Option<&mut C> {
        Some(self)
    }
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
        let mut next = set.first_from(0);
        while let Some(s) = next {
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
            // What `s` added lies after it.
            next = set.first_from(s + 1);
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

/// The candidates of one active leaf for one action, in the sparse rows of
/// generated code: a leaf's rows are sorted by action ([`Row::find`]).
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// The action's index.
    pub action: u32,
    /// The candidates, in trial order.
    pub candidates: List,
    /// The leaf's written-out step for the action ([`Fast`]); `NONE` when
    /// it has none.
    pub fast: u32,
}

impl Row {
    /// The row of `action` in `rows` (one leaf's, sorted by action).
    #[inline]
    pub fn find(rows: &[Row], action: u32) -> Option<&Row> {
        rows.binary_search_by_key(&action, |r| r.action)
            .ok()
            .map(|i| &rows[i])
    }
}

/// A step the plan wrote out for one leaf and one action (`fsm_grammar`'s
/// `ChartPlan::static_steps`): the same in every configuration holding the
/// leaf, without effects or timers. Its lists are of a pool of ids.
#[derive(Clone, Copy, Debug)]
pub struct Fast {
    /// The leaf that takes it.
    pub leaf: u32,
    /// The transition.
    pub transition: u32,
    /// The states it exits.
    pub exits: List,
    /// The states it enters.
    pub entries: List,
    /// The outputs of its exits, in exit order.
    pub exit_outputs: List,
    /// The transition's own outputs.
    pub own_outputs: List,
    /// The outputs of its entries, in entry order.
    pub entry_outputs: List,
    /// The history slots it records (each remembers `leaf`).
    pub memory: List,
}

/// Take the steps of `leaves` (the active leaves with candidates for the
/// action) from the written-out ones, `step_of(leaf)` naming each leaf's
/// (an index of `steps`, `NONE` when it has none): what [`select`],
/// [`remove_conflicts`] and [`microstep`] would do, for a step whose chosen
/// transitions are all written out. Returns the states entered, or `None`,
/// having changed nothing and told `host` nothing, when some leaf's step is
/// not written out, two leaves take one transition, or two steps' exits
/// meet: the general step decides those. `pool` holds the steps' lists;
/// `chosen` is scratch for one per active leaf.
#[allow(clippy::too_many_arguments)]
pub fn fast_step<const W: usize>(
    steps: &[Fast],
    pool: &[u32],
    leaves: &Bits<W>,
    step_of: impl Fn(u32) -> u32,
    config: &mut Bits<W>,
    memory: &mut [Bits<W>],
    host: &mut impl Host<W>,
    chosen: &mut [u32],
) -> Option<Bits<W>> {
    let list = |l: List| &pool[l.start as usize..(l.start + l.len) as usize];
    let mut n = 0;
    let mut clear = Bits::<W>::EMPTY;
    for leaf in leaves.iter() {
        let f = step_of(leaf);
        if f == NONE || n == chosen.len() {
            return None;
        }
        let step = &steps[f as usize];
        let shared = chosen[..n]
            .iter()
            .any(|&o| steps[o as usize].transition == step.transition);
        if shared || list(step.exits).iter().any(|&s| clear.contains(s)) {
            return None;
        }
        for &s in list(step.exits) {
            clear.insert(s);
        }
        chosen[n] = f;
        n += 1;
    }
    if n == 0 {
        return None;
    }
    Some(take_fast(steps, pool, &chosen[..n], config, memory, host))
}

/// Take the written-out steps `chosen` (indices of `steps`, in document
/// order of their leaves, in disjoint regions, no two of one transition):
/// all exits in reverse, then each transition, then all entries, as
/// [`microstep`] would. Returns the states entered.
pub fn take_fast<const W: usize>(
    steps: &[Fast],
    pool: &[u32],
    chosen: &[u32],
    config: &mut Bits<W>,
    memory: &mut [Bits<W>],
    host: &mut impl Host<W>,
) -> Bits<W> {
    let list = |l: List| &pool[l.start as usize..(l.start + l.len) as usize];
    for &f in chosen.iter().rev() {
        for &o in list(steps[f as usize].exit_outputs) {
            host.output(o);
        }
    }
    for &f in chosen {
        let step = &steps[f as usize];
        host.taken(step.transition);
        for &o in list(step.own_outputs) {
            host.output(o);
        }
        for &slot in list(step.memory) {
            let mut leaf = Bits::EMPTY;
            leaf.insert(step.leaf);
            memory[slot as usize] = leaf;
        }
    }
    let mut set = Bits::EMPTY;
    for &f in chosen {
        let step = &steps[f as usize];
        for &o in list(step.entry_outputs) {
            host.output(o);
        }
        for &s in list(step.exits) {
            config.remove(s);
        }
        for &s in list(step.entries) {
            set.insert(s);
        }
    }
    *config = config.or(&set);
    set
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

/// Why a set of leaves is not a configuration (or not a history memory
/// inside a state), with state ids: the rule of
/// `fsm_grammar`'s `Machine::configuration_from_leaves`, over the chart.
/// [`Problem::describe`] words it as the model's `ConfigurationError` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// No leaf at all (inside this state, for a memory).
    NoLeaf(Option<u32>),
    /// A state that holds states.
    NotALeaf(u32),
    /// A leaf named twice.
    Repeated(u32),
    /// A leaf of a memory outside its state: `(leaf, state)`.
    Outside(u32, u32),
    /// Two leaves (in document order) that cannot be active together.
    Apart(u32, u32),
    /// An active parallel state with a region without a leaf:
    /// `(parallel, region)`.
    MissingRegion(u32, u32),
}

impl Problem {
    /// The problem in words, with `names[id]` the name of state `id`.
    pub fn describe(
        &self,
        chart: &Chart<'_>,
        names: &[&str],
        f: &mut core::fmt::Formatter<'_>,
    ) -> core::fmt::Result {
        let name = |s: u32| names[s as usize];
        match *self {
            Problem::NoLeaf(None) => f.write_str("no leaf is named, and a machine is always in at least one"),
            Problem::NoLeaf(Some(c)) => write!(
                f,
                "no leaf is named inside `{}`, and one was active there when it was left",
                name(c)
            ),
            Problem::NotALeaf(s) => write!(
                f,
                "`{}` is not a leaf: it holds states, and only the active leaves are named \
                 (the states holding them follow)",
                name(s)
            ),
            Problem::Repeated(s) => write!(f, "`{}` is named twice", name(s)),
            Problem::Outside(leaf, c) => write!(f, "`{}` is not inside `{}`", name(leaf), name(c)),
            Problem::MissingRegion(p, r) => write!(
                f,
                "`{}` is active but its region `{}` has no active leaf",
                name(p),
                name(r)
            ),
            Problem::Apart(first, second) => {
                let common = chart.common_ancestor(first, second);
                let branch = |leaf: u32| {
                    let mut at = leaf;
                    while chart.state(at).parent != common {
                        at = chart.state(at).parent;
                    }
                    at
                };
                let region_of = (common != NONE)
                    .then(|| chart.state(common).parent)
                    .filter(|&p| p != NONE && chart.state(p).kind == Kind::Parallel);
                match region_of {
                    Some(parallel) => write!(
                        f,
                        "`{}` and `{}` are both in region `{}` of `{}`; a region has one active state",
                        name(first),
                        name(second),
                        name(common),
                        name(parallel)
                    ),
                    None if common == NONE => write!(
                        f,
                        "`{}` and `{}` cannot be active together: they are under different \
                         top-level states (`{}` and `{}`), and one top-level state is active at a time",
                        name(first),
                        name(second),
                        name(branch(first)),
                        name(branch(second))
                    ),
                    None => write!(
                        f,
                        "`{}` and `{}` cannot be active together: they are on different branches of \
                         `{}` (`{}` and `{}`), and `{}` is not parallel",
                        name(first),
                        name(second),
                        name(common),
                        name(branch(first)),
                        name(branch(second)),
                        name(common)
                    ),
                }
            }
        }
    }
}

impl Chart<'_> {
    /// The innermost state holding both `a` and `b` (`NONE` when only the
    /// machine does).
    fn common_ancestor(&self, a: u32, b: u32) -> u32 {
        let mut at = self.state(a).parent;
        while at != NONE && !self.is_inside(b, at) {
            at = self.state(at).parent;
        }
        at
    }

    /// The configuration whose active leaves are `leaves` (in any order):
    /// the leaves and every state holding them (below `within`, which is
    /// included, for a history memory inside it), checked to be a set of
    /// states the machine can be in together. The rule of
    /// `fsm_grammar`'s `Machine::configuration_from_leaves` and
    /// `Machine::remembered_leaves`, which the dynamic engine applies, with
    /// the first problem reported in the same order.
    ///
    /// # Errors
    ///
    /// The first [`Problem`]: no leaf, a state that is not a leaf (in the
    /// order given), a leaf outside `within`, a leaf named twice, two leaves
    /// that cannot be active together, a region without a leaf.
    pub fn configuration_of_leaves<const W: usize>(
        &self,
        leaves: &[u32],
        within: Option<u32>,
    ) -> Result<Bits<W>, Problem> {
        if leaves.is_empty() {
            return Err(Problem::NoLeaf(within));
        }
        for &leaf in leaves {
            if matches!(self.state(leaf).kind, Kind::Composite | Kind::Parallel) {
                return Err(Problem::NotALeaf(leaf));
            }
            if let Some(c) = within.filter(|&c| !self.is_inside(leaf, c)) {
                return Err(Problem::Outside(leaf, c));
            }
        }
        let mut named = Bits::<W>::EMPTY;
        let mut repeated = Bits::<W>::EMPTY;
        for &leaf in leaves {
            if named.contains(leaf) {
                repeated.insert(leaf);
            }
            named.insert(leaf);
        }
        if let Some(leaf) = repeated.iter().next() {
            return Err(Problem::Repeated(leaf));
        }
        let mut config = Bits::<W>::EMPTY;
        if let Some(c) = within {
            config.insert(c);
        }
        // Each state is added once, walking up from each leaf (in document
        // order) until a state already added. A child of a state that is
        // not parallel claims its one active child.
        for leaf in named.iter() {
            let mut s = leaf;
            while s != NONE && !config.contains(s) {
                config.insert(s);
                let parent = self.state(s).parent;
                let parallel = parent != NONE && self.state(parent).kind == Kind::Parallel;
                if !parallel {
                    let (lo, hi) = match parent {
                        NONE => (0, self.states.len() as u32),
                        p => (p + 1, self.state(p).end),
                    };
                    let siblings = config
                        .and(&Bits::range(lo, hi))
                        .minus(&Bits::range(s, self.state(s).end));
                    if !siblings.is_empty() {
                        // The first leaf added there claimed it.
                        let other = named
                            .and(&Bits::range(lo, hi))
                            .minus(&Bits::range(s, self.state(s).end))
                            .iter()
                            .next()
                            .expect("a claimed branch holds an earlier leaf");
                        return Err(Problem::Apart(other, leaf));
                    }
                }
                s = parent;
            }
        }
        for s in config.iter() {
            let state = self.state(s);
            if state.kind == Kind::Parallel {
                if let Some(&region) = self.list(state.children).iter().find(|&&r| !config.contains(r)) {
                    return Err(Problem::MissingRegion(s, region));
                }
            }
        }
        Ok(config)
    }
}

/// A machine whose generated code runs on a [`Chart`], as [`restore`]
/// needs it.
#[cfg(feature = "alloc")]
#[doc(hidden)]
pub struct Restoring<'a> {
    /// Its tables.
    pub chart: Chart<'a>,
    /// Its name.
    pub machine: &'a str,
    /// Its fingerprint.
    pub fingerprint: &'a str,
    /// Every state's name, by id.
    pub names: &'a [&'a str],
    /// The composite state of each history slot.
    pub slots: &'a [u32],
    /// Its timer groups, by index.
    pub groups: &'a [TimerGroup<'a>],
}

/// The configuration `snapshot` holds, with the history memory it carries
/// written into `memory` (one per slot), checked as the dynamic engine
/// checks them: a snapshot of this machine and (under
/// [`FingerprintPolicy::Strict`]) this definition, known leaves forming a
/// configuration ([`Chart::configuration_of_leaves`]), each armed timer one
/// an active state declares (its group's deadline written into `armed`, the
/// earliest when the snapshot lists more than one timer of a group), and
/// each memory a composite entered through its history with leaves forming
/// a configuration inside it.
///
/// # Errors
///
/// The first [`RestoreError`] found, in that order.
#[cfg(feature = "alloc")]
#[doc(hidden)]
pub fn restore<const W: usize>(
    m: &Restoring<'_>,
    snapshot: &crate::Snapshot,
    policy: crate::FingerprintPolicy,
    memory: &mut [Bits<W>],
    armed: &mut [Option<Timestamp>],
) -> Result<Bits<W>, crate::RestoreError> {
    use crate::prelude::*;
    use crate::RestoreError;
    struct Words<'a>(&'a Problem, &'a Chart<'a>, &'a [&'a str]);
    impl core::fmt::Display for Words<'_> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            self.0.describe(self.1, self.2, f)
        }
    }
    if snapshot.machine() != m.machine {
        return Err(RestoreError::OtherMachine {
            expected: m.machine.to_owned(),
            found: snapshot.machine().to_owned(),
        });
    }
    if policy == crate::FingerprintPolicy::Strict && snapshot.fingerprint() != m.fingerprint {
        return Err(RestoreError::FingerprintMismatch {
            machine: m.machine.to_owned(),
            expected: m.fingerprint.to_owned(),
            found: snapshot.fingerprint().to_owned(),
        });
    }
    let is_leaf = |s: u32| matches!(m.chart.state(s).kind, Kind::Leaf | Kind::Final);
    let leaf_id = |name: &str| {
        m.names
            .iter()
            .position(|n| *n == name)
            .map(|s| s as u32)
            .filter(|&s| is_leaf(s))
    };
    let mut leaves = Vec::with_capacity(snapshot.leaves().len());
    for name in snapshot.leaves() {
        match leaf_id(name) {
            Some(leaf) => leaves.push(leaf),
            None => {
                return Err(RestoreError::UnknownState {
                    machine: m.machine.to_owned(),
                    state: name.to_string(),
                    known: (0..m.names.len() as u32)
                        .filter(|&s| is_leaf(s))
                        .map(|s| m.names[s as usize].to_owned())
                        .collect(),
                })
            }
        }
    }
    let config = m
        .chart
        .configuration_of_leaves::<W>(&leaves, None)
        .map_err(|problem| RestoreError::InvalidConfiguration {
            machine: m.machine.to_owned(),
            leaves: snapshot.leaves().iter().map(|l| l.to_string()).collect(),
            reason: Words(&problem, &m.chart, m.names).to_string(),
        })?;
    for timer in snapshot.checked_timers()? {
        // Only the timers of an active state can be armed.
        let active = m
            .names
            .iter()
            .position(|n| *n == timer.state())
            .map(|s| s as u32)
            .filter(|&s| config.contains(s));
        let Some(state) = active else {
            return Err(snapshot.unknown_timer(timer, None));
        };
        let own = m.chart.list(m.chart.state(state).timer_groups);
        let Some(&group) = own
            .iter()
            .find(|&&g| m.groups[g as usize].indices.contains(&timer.timer()))
        else {
            let count = own
                .iter()
                .map(|&g| m.groups[g as usize].indices.len() as u32)
                .sum();
            return Err(snapshot.unknown_timer(timer, Some(count)));
        };
        let due = &mut armed[group as usize];
        *due = Some(due.map_or(timer.due(), |d| d.min(timer.due())));
    }
    for (state, names) in snapshot.checked_last_leaves()? {
        let invalid = |reason: String| RestoreError::InvalidLastLeaves {
            machine: m.machine.to_owned(),
            state: state.to_owned(),
            leaves: names.iter().map(|l| l.to_string()).collect(),
            reason,
        };
        let Some(slot) = m.slots.iter().position(|&c| m.names[c as usize] == state) else {
            return Err(invalid(format!(
                "`{state}` is not a composite state that a transition enters through its history"
            )));
        };
        let mut ids = Vec::with_capacity(names.len());
        for name in names {
            match leaf_id(name) {
                Some(leaf) => ids.push(leaf),
                None => return Err(invalid(format!("`{name}` is not a leaf state of the machine"))),
            }
        }
        let inside = m
            .chart
            .configuration_of_leaves::<W>(&ids, Some(m.slots[slot]))
            .map_err(|problem| invalid(Words(&problem, &m.chart, m.names).to_string()))?;
        let mut kept = Bits::EMPTY;
        for s in inside.iter().filter(|&s| is_leaf(s)) {
            kept.insert(s);
        }
        memory[slot] = kept;
    }
    Ok(config)
}

/// The timers one state declares with one delay: armed together when it is
/// entered, disarmed when it is left, and due together, when the first of
/// them whose guard holds fires.
#[derive(Clone, Copy, Debug)]
pub struct TimerGroup<'a> {
    /// The state that declares them.
    pub state: u32,
    /// Their transitions, in trial order (priority, then declaration).
    pub candidates: &'a [u32],
    /// Each candidate's index among its state's timers, as snapshots and
    /// timer results name it.
    pub indices: &'a [u32],
}

impl Chart<'_> {
    /// The armed group of `config` due first, and its deadline; with `by`,
    /// only a group due at or before it (docs/dsl.md, "History and timers
    /// in regions"). Ties go by the active leaves in document order: within
    /// one leaf and the states holding it, as for any machine, to the group
    /// whose best timer has the highest priority, then to the innermost
    /// state, then to the timer declared first; across leaves, to the
    /// earlier leaf's.
    pub fn due<const W: usize>(
        &self,
        groups: &[TimerGroup<'_>],
        config: &Bits<W>,
        armed: &[Option<Timestamp>],
        by: Option<Timestamp>,
    ) -> Option<(u32, Timestamp)> {
        // Smaller first: the best timer's priority, highest first; its
        // state's depth, deepest first; its declaration.
        let rank = |g: u32| {
            let group = &groups[g as usize];
            let best = group.candidates[0];
            (
                core::cmp::Reverse(self.transition(best).priority),
                core::cmp::Reverse(self.state(group.state).depth),
                best,
            )
        };
        let mut best: Option<(u32, Timestamp)> = None;
        for leaf in config
            .iter()
            .filter(|&s| matches!(self.state(s).kind, Kind::Leaf | Kind::Final))
        {
            let mut leaf_best: Option<(u32, Timestamp)> = None;
            let mut at = leaf;
            while at != NONE {
                for &g in self.list(self.state(at).timer_groups) {
                    let Some(due) = armed[g as usize] else { continue };
                    if by.is_some_and(|by| due > by) {
                        continue;
                    }
                    let better = match leaf_best {
                        None => true,
                        Some((b, at)) => due < at || (due == at && rank(g) < rank(b)),
                    };
                    if better {
                        leaf_best = Some((g, due));
                    }
                }
                at = self.state(at).parent;
            }
            if let Some((g, due)) = leaf_best {
                if best.is_none_or(|(_, b)| due < b) {
                    best = Some((g, due));
                }
            }
        }
        best
    }

    /// The timers armed in `config`, as a snapshot lists them: for each
    /// active leaf in document order, its own, then those of each state
    /// holding it, outward, each state once, each state's by index: `(state,
    /// index, deadline)`.
    #[cfg(feature = "alloc")]
    pub fn armed_timers<const W: usize>(
        &self,
        groups: &[TimerGroup<'_>],
        config: &Bits<W>,
        armed: &[Option<Timestamp>],
    ) -> crate::prelude::Vec<(u32, u32, Timestamp)> {
        let mut listed: Bits<W> = Bits::EMPTY;
        let mut out = crate::prelude::Vec::new();
        for leaf in config
            .iter()
            .filter(|&s| matches!(self.state(s).kind, Kind::Leaf | Kind::Final))
        {
            let mut at = leaf;
            while at != NONE && !listed.contains(at) {
                listed.insert(at);
                let start = out.len();
                for &g in self.list(self.state(at).timer_groups) {
                    if let Some(due) = armed[g as usize] {
                        out.extend(groups[g as usize].indices.iter().map(|&i| (at, i, due)));
                    }
                }
                out[start..].sort_by_key(|&(_, index, _)| index);
                at = self.state(at).parent;
            }
        }
        out
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
    fn first_from_finds_the_next_id_across_words() {
        let mut bits: Bits<3> = Bits::EMPTY;
        for s in [5, 63, 64, 191] {
            bits.insert(s);
        }
        let found: Vec<Option<u32>> = [0, 5, 6, 64, 65, 191, 192]
            .iter()
            .map(|&s| bits.first_from(s))
            .collect();
        assert_eq!(
            found,
            [Some(5), Some(5), Some(63), Some(64), Some(191), Some(191), None]
        );
        assert_eq!(Bits::<1>::EMPTY.first_from(0), None);
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
