//! Which sets of leaves form a configuration ([`Chart::configuration_of_leaves`]),
//! and why the others do not ([`Problem`]).

use super::{Bits, Chart, Kind, NONE};

/// Why a set of leaves is not a configuration (or not a history memory
/// inside a state), with state ids; [`Problem::describe`] words it with the
/// states' names.
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
    /// states the machine can be in together: the one rule for restoring a
    /// configuration or a history memory, which generated code and the
    /// dynamic engine apply.
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
