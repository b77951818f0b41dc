//! The steps the plan wrote out ahead of time ([`Fast`]), taken without
//! the general step.

use super::{Bits, Host, List, NONE};

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
/// `Plan::static_steps`): the same in every configuration holding the
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
/// (an index of `steps`, `NONE` when it has none): what [`select`](super::select),
/// [`remove_conflicts`](super::remove_conflicts) and [`microstep`](super::microstep) would do, for a step whose chosen
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
/// [`microstep`](super::microstep) would. Returns the states entered.
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
