//! Ranks: which band of the drawing each node goes to.
//!
//! Cycles are broken by reversing the edges a depth-first search finds
//! going back up its stack; ranks are longest paths from the sources, then
//! nodes with more edges out than in move down next to their successors.
//! Everything is iterative and linear, so a chain of 100,000 states
//! neither recurses deeply nor takes long.

use std::collections::VecDeque;

/// An edge to rank (never a self-loop).
pub(super) struct RankEdge {
    pub from: usize,
    pub to: usize,
    /// The fewest ranks it spans.
    pub minlen: usize,
}

/// The result of [`rank`].
pub(super) struct Ranking {
    /// The rank of each node, from 0.
    pub ranks: Vec<usize>,
    /// For each edge, whether it points up.
    pub reversed: Vec<bool>,
}

/// Rank the nodes. `roots` are searched first, in order, then the other
/// nodes in index order, so edges out of the roots point down.
pub(super) fn rank(nodes: usize, edges: &[RankEdge], roots: &[usize]) -> Ranking {
    let reversed = back_edges(nodes, edges, roots);
    let mut out: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nodes];
    let mut into: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nodes];
    for (edge, &back) in edges.iter().zip(&reversed) {
        let (a, b) = if back {
            (edge.to, edge.from)
        } else {
            (edge.from, edge.to)
        };
        out[a].push((b, edge.minlen));
        into[b].push((a, edge.minlen));
    }

    // Kahn's topological order; the graph is acyclic now.
    let mut pending: Vec<usize> = into.iter().map(Vec::len).collect();
    let mut queue: VecDeque<usize> = (0..nodes).filter(|&v| pending[v] == 0).collect();
    let mut topo = Vec::with_capacity(nodes);
    while let Some(v) = queue.pop_front() {
        topo.push(v);
        for &(w, _) in &out[v] {
            pending[w] -= 1;
            if pending[w] == 0 {
                queue.push_back(w);
            }
        }
    }
    debug_assert_eq!(topo.len(), nodes, "the reversed graph is acyclic");

    let mut ranks = vec![0usize; nodes];
    for &v in &topo {
        for &(w, minlen) in &out[v] {
            ranks[w] = ranks[w].max(ranks[v] + minlen);
        }
    }
    // Pull down what has more edges out than in: each rank it moves
    // shortens more edges than it lengthens. Successors are final first.
    for &v in topo.iter().rev() {
        if out[v].len() > into[v].len() {
            let lowest = out[v]
                .iter()
                .map(|&(w, minlen)| ranks[w] - minlen)
                .min()
                .expect("has edges out");
            ranks[v] = ranks[v].max(lowest);
        }
    }
    let least = ranks.iter().copied().min().unwrap_or(0);
    for rank in &mut ranks {
        *rank -= least;
    }
    Ranking { ranks, reversed }
}

/// The edges a depth-first search meets going back to a node still on its
/// stack: reversing them leaves the graph acyclic.
fn back_edges(nodes: usize, edges: &[RankEdge], roots: &[usize]) -> Vec<bool> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    for (i, edge) in edges.iter().enumerate() {
        out[edge.from].push(i);
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnStack,
        Done,
    }
    let mut mark = vec![Mark::New; nodes];
    let mut reversed = vec![false; edges.len()];
    // (node, index of the next edge out to look at)
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for start in roots.iter().copied().chain(0..nodes) {
        if mark[start] != Mark::New {
            continue;
        }
        mark[start] = Mark::OnStack;
        stack.push((start, 0));
        while let Some(top) = stack.last_mut() {
            let (v, next) = *top;
            if let Some(&e) = out[v].get(next) {
                top.1 += 1;
                let w = edges[e].to;
                match mark[w] {
                    Mark::New => {
                        mark[w] = Mark::OnStack;
                        stack.push((w, 0));
                    }
                    Mark::OnStack => reversed[e] = true,
                    Mark::Done => {}
                }
            } else {
                mark[v] = Mark::Done;
                stack.pop();
            }
        }
    }
    reversed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(from: usize, to: usize) -> RankEdge {
        RankEdge { from, to, minlen: 2 }
    }

    #[test]
    fn a_cycle_points_down_from_the_root() {
        let edges = [edge(0, 1), edge(1, 2), edge(2, 0)];
        let ranking = rank(3, &edges, &[1]);
        assert_eq!(ranking.reversed, [true, false, false]);
        assert_eq!(ranking.ranks, [4, 0, 2]);
    }

    #[test]
    fn a_source_moves_down_to_its_successors() {
        // 0 -> 1 -> 2 -> 3, and 4 -> 3 only: 4 belongs just above 3.
        let edges = [edge(0, 1), edge(1, 2), edge(2, 3), edge(4, 3)];
        let ranking = rank(5, &edges, &[0]);
        assert_eq!(ranking.ranks, [0, 2, 4, 6, 4]);
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let n = 200_000;
        let edges: Vec<_> = (0..n - 1).map(|i| edge(i, i + 1)).collect();
        let ranking = rank(n, &edges, &[0]);
        assert_eq!(ranking.ranks[n - 1], 2 * (n - 1));
    }
}
