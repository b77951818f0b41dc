//! Timer groups ([`TimerGroup`]): which armed group is due first, and
//! which timers a snapshot lists.

use super::{Bits, Chart, Kind, NONE};
use crate::timestamp::Timestamp;

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
