//! The `always` and `done` transitions as a graph, and its one cycle
//! finder.
//!
//! After a step, one `fire` tries `always` and `done` transitions until none
//! is taken or [`MAX_MICROSTEPS`] were. Which of them can follow which is
//! asked in three places, which all read it from here:
//!
//! - the checks: `completion-cycle` (unguarded transitions sure to follow
//!   each other forever), `chain-too-long` (unguarded ones sure to follow
//!   each other for more than [`MAX_MICROSTEPS`] steps) and `guarded-cycle`
//!   (transitions that may follow each other while their guards hold);
//! - the plan of a machine with parallel states, which bounds what one
//!   `fire` can do (`ChartPlan::fire_bound`);
//! - the plan of a machine without them, whose steps after a step code
//!   generation lays out as a tree unless they form a cycle
//!   (`Plan::settle_cycle`).
//!
//! Each builds its graph (nodes and edges differ: transitions that must
//! follow, transitions that may, leaves) and asks [`cycles`] for its cycles.

use super::{EventlessKind, Machine, Source, StateId, Trigger, MAX_MICROSTEPS};
use crate::model::Domain;

/// The cycles of the graph `succ`: each strongly connected component with
/// more than one node or a node's edge to itself, its nodes in increasing
/// order; the components in increasing order. Tarjan's algorithm,
/// iterative.
pub fn cycles(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succ.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next_index = 0;
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, position in its successors)
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if let Some(&w) = succ[v].get(*pos) {
                *pos += 1;
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 || succ[v].contains(&v) {
                    component.sort_unstable();
                    out.push(component);
                }
            }
        }
    }
    out.sort();
    out
}

/// One cycle through the nodes of `component` (a strongly connected
/// component of `succ`, as [`cycles`] gives it), in the order its edges
/// take them, starting at its first node: a shortest way back to it.
pub fn cycle_order(succ: &[Vec<usize>], component: &[usize]) -> Vec<usize> {
    let start = component[0];
    if succ[start].contains(&start) {
        return vec![start];
    }
    // Breadth first inside the component, back to `start`.
    let mut came_from: std::collections::HashMap<usize, usize> = Default::default();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &succ[v] {
            if w == start {
                let mut path = vec![v];
                let mut at = v;
                while at != start {
                    at = came_from[&at];
                    path.push(at);
                }
                path.reverse();
                return path;
            }
            if component.binary_search(&w).is_ok() && !came_from.contains_key(&w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    component.to_vec()
}

/// The longest path of the acyclic graph `succ`, as its nodes in order;
/// empty for a graph without nodes. `None` when `succ` has a cycle.
pub fn longest_path(succ: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = succ.len();
    // Kahn's order, then the longest path from each node, last first.
    let mut indegree = vec![0usize; n];
    for out in succ {
        for &w in out {
            indegree[w] += 1;
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut i = 0;
    while i < order.len() {
        for &w in &succ[order[i]] {
            indegree[w] -= 1;
            if indegree[w] == 0 {
                order.push(w);
            }
        }
        i += 1;
    }
    if order.len() < n {
        return None;
    }
    let mut length = vec![1usize; n];
    let mut next = vec![usize::MAX; n];
    for &v in order.iter().rev() {
        for &w in &succ[v] {
            if length[w] + 1 > length[v] {
                length[v] = length[w] + 1;
                next[v] = w;
            }
        }
    }
    let Some(mut v) = (0..n).max_by_key(|&v| (length[v], std::cmp::Reverse(v))) else {
        return Some(Vec::new());
    };
    let mut path = vec![v];
    while next[v] != usize::MAX {
        v = next[v];
        path.push(v);
    }
    Some(path)
}

impl Machine {
    /// Per transition of [`Machine::eventless`]: those that may be taken
    /// after it, as a later microstep of the same `fire`, for some values
    /// of the guards.
    ///
    /// An `always` or `done` transition is taken at most once after the
    /// event's own step unless a later step lets it fire again: a step that
    /// enters a state inside its source (or the source itself), for an
    /// `always`; one that can leave its state done again, for a `done`
    /// (entering it when that entry can complete it, through history, or
    /// entering states inside it without entering it). An `always` without
    /// a target can fire again without that. The edges are those.
    pub fn eventless_may_follow(&self) -> Vec<Vec<usize>> {
        let n = self.eventless.len();
        (0..n)
            .map(|i| {
                let e = &self.eventless[i];
                let Some(target) = e.target else {
                    return if e.trigger == Trigger::Eventless(EventlessKind::Always) {
                        vec![i]
                    } else {
                        Vec::new()
                    };
                };
                let entered = self.may_enter(e.source, target, e.history.is_some());
                (0..n)
                    .filter(|&j| {
                        let f = &self.eventless[j];
                        let s = f.expect_state();
                        // What `i` may enter inside `s`, or `s` itself.
                        let reaches = |x: &Entered| match *x {
                            Entered::One(x) => x == s || self.is_inside(x, s),
                            Entered::Below(x) => x == s || self.is_inside(x, s) || self.is_inside(s, x),
                        };
                        if !entered.iter().any(reaches) {
                            return false;
                        }
                        match f.eventless_kind() {
                            Some(EventlessKind::Always) => true,
                            _ => {
                                let enters_it = entered.iter().any(|x| match *x {
                                    Entered::One(x) => x == s,
                                    Entered::Below(x) => x == s || self.is_inside(s, x),
                                });
                                e.history.is_some() || !enters_it || self.done_after_entering(s, target)
                            }
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// What a transition from `source` to `target` may enter: the states
    /// down to its target, and everything below its target and below a
    /// parallel state on the way (entered by default, or through history).
    fn may_enter(&self, source: Source, target: StateId, history: bool) -> Vec<Entered> {
        let kind = history.then_some(super::HistoryKind::Shallow);
        let domain = self.config_domain(source, target, kind);
        let top = |s: StateId| match domain {
            Domain::Root => false,
            Domain::State(d) => s == d,
            Domain::Region(r) => self.state(r).parent == Some(s),
        };
        let path: Vec<StateId> = self.ancestors_or_self(target).take_while(|&s| !top(s)).collect();
        let mut out: Vec<Entered> = path
            .iter()
            .filter(|&&s| !(history && s == target && domain == Domain::State(target)))
            .map(|&s| Entered::One(s))
            .collect();
        out.push(Entered::Below(target));
        out.extend(
            path.iter()
                .filter(|&&s| self.state(s).is_parallel())
                .map(|&s| Entered::Below(s)),
        );
        out
    }

    /// The longest run of `always` and `done` transitions that `must`
    /// (per transition, those sure to be taken after it) makes one `fire`
    /// take, when it is longer than [`MAX_MICROSTEPS`]: its transitions in
    /// order. `None` when every run is within the bound, or `must` has a
    /// cycle (that is `completion-cycle`'s).
    pub fn chain_past_bound(&self, must: &[Vec<usize>]) -> Option<Vec<usize>> {
        longest_path(must).filter(|path| path.len() > MAX_MICROSTEPS)
    }
}

/// A state a transition may enter.
enum Entered {
    /// This state.
    One(StateId),
    /// This state and any inside it.
    Below(StateId),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_and_their_order() {
        let succ = vec![vec![1], vec![2], vec![0, 3], vec![], vec![4]];
        let found = cycles(&succ);
        assert_eq!(found, [vec![0, 1, 2], vec![4]]);
        assert_eq!(cycle_order(&succ, &found[0]), [0, 1, 2]);
        assert_eq!(cycle_order(&succ, &found[1]), [4]);
        assert_eq!(longest_path(&succ), None);
        let chain = vec![vec![1], vec![2], vec![], vec![1]];
        assert_eq!(longest_path(&chain), Some(vec![0, 1, 2]));
    }
}
