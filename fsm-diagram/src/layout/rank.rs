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

/// How cycles are broken: which edges point up.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Search {
    /// The edges a depth-first search meets going back up its stack point
    /// up: the search's paths run straight down, as Graphviz draws them.
    DepthFirst,
    /// Nodes are visited breadth-first and an edge points down when it
    /// goes to a node visited later: ranks follow the distance from the
    /// roots. On a random machine the depth-first paths are as long as the
    /// machine and the edges between them span hundreds of ranks (500
    /// states and 2,000 transitions: 624 ranks, 360,000 dummies); visited
    /// breadth-first, 36 ranks and 13,500 dummies.
    BreadthFirst,
}

/// Rank the nodes. `roots` are searched first, in order, then the other
/// nodes in index order, so edges out of the roots point down.
pub(super) fn rank(nodes: usize, edges: &[RankEdge], roots: &[usize], search: Search) -> Ranking {
    let reversed = match search {
        Search::DepthFirst => back_edges(nodes, edges, roots),
        Search::BreadthFirst => against_breadth_first(nodes, edges, roots),
    };
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

/// How many dummy nodes the ranked edges need: the ranks each crosses.
pub(super) fn dummies(ranking: &Ranking, edges: &[RankEdge]) -> usize {
    edges
        .iter()
        .map(|e| {
            ranking.ranks[e.from]
                .abs_diff(ranking.ranks[e.to])
                .saturating_sub(1)
        })
        .sum()
}

/// The edges that go to a node a breadth-first search from the roots (then
/// from each node not yet reached, in index order) visits no later than
/// their source.
fn against_breadth_first(nodes: usize, edges: &[RankEdge], roots: &[usize]) -> Vec<bool> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    for edge in edges {
        out[edge.from].push(edge.to);
    }
    let mut visited = vec![usize::MAX; nodes];
    let mut count = 0;
    let mut queue = VecDeque::new();
    for start in roots.iter().copied().chain(0..nodes) {
        if visited[start] != usize::MAX {
            continue;
        }
        visited[start] = count;
        count += 1;
        queue.push_back(start);
        while let Some(v) = queue.pop_front() {
            for &w in &out[v] {
                if visited[w] == usize::MAX {
                    visited[w] = count;
                    count += 1;
                    queue.push_back(w);
                }
            }
        }
    }
    edges.iter().map(|e| visited[e.from] > visited[e.to]).collect()
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
        let ranking = rank(3, &edges, &[1], Search::DepthFirst);
        assert_eq!(ranking.reversed, [true, false, false]);
        assert_eq!(ranking.ranks, [4, 0, 2]);
    }

    #[test]
    fn a_source_moves_down_to_its_successors() {
        // 0 -> 1 -> 2 -> 3, and 4 -> 3 only: 4 belongs just above 3.
        let edges = [edge(0, 1), edge(1, 2), edge(2, 3), edge(4, 3)];
        let ranking = rank(5, &edges, &[0], Search::DepthFirst);
        assert_eq!(ranking.ranks, [0, 2, 4, 6, 4]);
    }

    #[test]
    fn breadth_first_ranks_follow_the_distance_from_the_root() {
        // 0 -> 1 -> 2 -> 3, and 0 -> 3: depth-first, 3 sits below 2;
        // breadth-first, next to 1, and 2 -> 3 points up.
        let edges = [edge(0, 1), edge(1, 2), edge(2, 3), edge(0, 3)];
        let deep = rank(4, &edges, &[0], Search::DepthFirst);
        assert_eq!(deep.ranks, [0, 2, 4, 6]);
        let wide = rank(4, &edges, &[0], Search::BreadthFirst);
        assert_eq!(wide.reversed, [false, false, true, false]);
        assert_eq!(wide.ranks, [0, 2, 4, 2]);
        assert!(dummies(&wide, &edges) < dummies(&deep, &edges));
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let n = 200_000;
        let edges: Vec<_> = (0..n - 1).map(|i| edge(i, i + 1)).collect();
        let ranking = rank(n, &edges, &[0], Search::DepthFirst);
        assert_eq!(ranking.ranks[n - 1], 2 * (n - 1));
    }
}
