//! Timer groups ([`TimerGroup`]): which armed group is due first
//! ([`first_due`]), and which timers a snapshot lists.

#[cfg(feature = "alloc")]
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

/// Which armed timer group fires first: of the groups `order` lists, armed
/// in `armed` (indexed by group; with `by`, due at or before it), the one
/// with the earliest deadline, ties to the first listed; with its deadline.
///
/// The one account of "which timer of a due group fires" for every engine
/// (docs/dsl.md, "How a step runs" and "History and timers in regions"):
/// `order` is the plan's tie order (`fsm_grammar::plan::Plan::timer_order`,
/// every group: priority, then each leaf's before the states holding it,
/// leaves in document order, then declaration), or a leaf's groups in that
/// order for a machine whose state is one leaf. Generated code passes the
/// slots of a leaf's timers group by group, each slot one index of `armed`.
#[inline]
pub fn first_due(
    order: impl IntoIterator<Item = u32>,
    armed: &[Option<Timestamp>],
    by: Option<Timestamp>,
) -> Option<(u32, Timestamp)> {
    let mut best: Option<(u32, Timestamp)> = None;
    for g in order {
        let Some(due) = armed[g as usize] else { continue };
        if by.is_some_and(|by| due > by) {
            continue;
        }
        if best.is_none_or(|(_, earliest)| due < earliest) {
            best = Some((g, due));
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
    chart: &Chart<'_>,
    groups: &[TimerGroup<'_>],
    config: &Bits<W>,
    armed: &[Option<Timestamp>],
) -> crate::prelude::Vec<(u32, u32, Timestamp)> {
    let mut listed: Bits<W> = Bits::EMPTY;
    let mut out = crate::prelude::Vec::new();
    for leaf in config
        .iter()
        .filter(|&s| matches!(chart.state(s).kind, Kind::Leaf | Kind::Final))
    {
        let mut at = leaf;
        while at != NONE && !listed.contains(at) {
            listed.insert(at);
            let start = out.len();
            for &g in chart.list(chart.state(at).timer_groups) {
                if let Some(due) = armed[g as usize] {
                    out.extend(groups[g as usize].indices.iter().map(|&i| (at, i, due)));
                }
            }
            out[start..].sort_by_key(|&(_, index, _)| index);
            at = chart.state(at).parent;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earliest_armed_group_fires_first_ties_to_the_first_listed() {
        let at = |ms| Timestamp::from_unix_millis(ms);
        let armed = [at(20), None, at(10), at(10), at(5)];
        // Group 4 is due first, but not by 9.
        assert_eq!(
            first_due([3, 2, 0, 1, 4], &armed, None),
            Some((4, at(5).unwrap()))
        );
        assert_eq!(first_due([3, 2, 0, 1], &armed, None), Some((3, at(10).unwrap())));
        assert_eq!(first_due([2, 3, 0, 1], &armed, None), Some((2, at(10).unwrap())));
        assert_eq!(first_due([0, 1], &armed, at(15)), None);
        assert_eq!(first_due([1], &armed, None), None);
    }
}
