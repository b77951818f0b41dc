//! Crossing reduction: the left-to-right order of each rank.
//!
//! A depth-first initial order, then barycenter sweeps alternating down
//! and up, each followed on small graphs by adjacent transpositions; the
//! best order seen wins. Crossings are counted per pair of ranks by
//! sorting the links and counting inversions with a Fenwick tree
//! (`O(E log V)`). The number of sweeps shrinks with the graph's size.

use super::Layered;

/// Sweeps on a small graph.
const MAX_SWEEPS: usize = 24;
/// Sweeps without a better order before giving up.
const PATIENCE: usize = 6;
/// Links times sweeps allowed: large graphs get fewer sweeps.
const WORK: usize = 6_000_000;
/// Transpositions run on graphs with at most this many layered nodes.
const TRANSPOSE_LIMIT: usize = 3_000;

/// Order every rank of `graph.ranks` (which must be empty on entry).
///
/// Small graphs try four starts (children in either order, the first
/// sweep down or up), as a single start often ends in a local minimum.
pub(super) fn order(graph: &mut Layered) {
    let links: usize = graph.down.iter().map(Vec::len).sum();
    let sweeps = (WORK / (links + graph.slots.len()).max(1)).clamp(2, MAX_SWEEPS);
    let small = graph.slots.len() <= TRANSPOSE_LIMIT;
    let starts: &[(bool, bool)] = if small {
        &[(false, false), (true, false), (false, true), (true, true)]
    } else {
        &[(false, false)]
    };
    let mut best: Option<(usize, Vec<Vec<usize>>)> = None;
    for &(reversed, upward_first) in starts {
        for rank in &mut graph.ranks {
            rank.clear();
        }
        initial(graph, reversed);
        let found = improve(graph, sweeps, small, upward_first);
        if best.as_ref().is_none_or(|b| found < b.0) {
            best = Some((found, graph.ranks.clone()));
        }
        if found == 0 {
            break;
        }
    }
    graph.ranks = best.expect("at least one start").1;
}

/// Barycenter sweeps from the current order; leaves the best order seen in
/// `graph.ranks` and returns its crossings.
fn improve(graph: &mut Layered, sweeps: usize, transpose: bool, upward_first: bool) -> usize {
    let mut pos = positions(graph);
    let mut best = graph.ranks.clone();
    let mut best_crossings = crossings(graph, &pos);
    let mut idle = 0;
    for sweep in 0..sweeps {
        if best_crossings == 0 || idle >= PATIENCE {
            break;
        }
        let downward = (sweep % 2 == 0) != upward_first;
        barycenter_sweep(graph, &mut pos, downward);
        if transpose {
            transpose_all(graph, &mut pos);
        }
        let now = crossings(graph, &pos);
        if now < best_crossings {
            best_crossings = now;
            best.clone_from(&graph.ranks);
            idle = 0;
        } else {
            idle += 1;
        }
    }
    graph.ranks = best;
    best_crossings
}

/// Place nodes rank by rank in depth-first order from the top, so each
/// tree of edges starts out uncrossed; `reversed` visits children last
/// first.
fn initial(graph: &mut Layered, reversed: bool) {
    let n = graph.slots.len();
    let mut by_rank: Vec<usize> = (0..n).collect();
    by_rank.sort_by_key(|&v| graph.slots[v].rank);
    let mut seen = vec![false; n];
    let mut stack = Vec::new();
    for start in by_rank {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        while let Some(v) = stack.pop() {
            graph.ranks[graph.slots[v].rank].push(v);
            let children = &graph.down[v];
            let mut push = |w: usize| {
                if !seen[w] {
                    seen[w] = true;
                    stack.push(w);
                }
            };
            if reversed {
                children.iter().copied().for_each(&mut push);
            } else {
                children.iter().rev().copied().for_each(&mut push);
            }
        }
    }
}

/// Each node's index within its rank.
fn positions(graph: &Layered) -> Vec<usize> {
    let mut pos = vec![0; graph.slots.len()];
    for rank in &graph.ranks {
        for (i, &v) in rank.iter().enumerate() {
            pos[v] = i;
        }
    }
    pos
}

/// Sort each rank by the mean position of its neighbours in the rank just
/// swept; nodes without such neighbours keep their place.
fn barycenter_sweep(graph: &mut Layered, pos: &mut [usize], downward: bool) {
    let count = graph.ranks.len();
    let order: Vec<usize> = if downward {
        (1..count).collect()
    } else {
        (0..count.saturating_sub(1)).rev().collect()
    };
    let mut keyed: Vec<(f64, usize, usize)> = Vec::new();
    for r in order {
        let neighbours = if downward { &graph.up } else { &graph.down };
        keyed.clear();
        keyed.extend(graph.ranks[r].iter().map(|&v| {
            let near = &neighbours[v];
            let key = if near.is_empty() {
                pos[v] as f64
            } else {
                near.iter().map(|&u| pos[u] as f64).sum::<f64>() / near.len() as f64
            };
            (key, pos[v], v)
        }));
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (i, &(_, _, v)) in keyed.iter().enumerate() {
            graph.ranks[r][i] = v;
            pos[v] = i;
        }
    }
}

/// Swap neighbours of one rank while that removes crossings with the ranks
/// above and below; a few passes at most.
fn transpose_all(graph: &mut Layered, pos: &mut [usize]) {
    for _ in 0..4 {
        let mut improved = false;
        for r in 0..graph.ranks.len() {
            for i in 1..graph.ranks[r].len() {
                let (u, v) = (graph.ranks[r][i - 1], graph.ranks[r][i]);
                let now = pair_crossings(graph, pos, u, v);
                let swapped = pair_crossings(graph, pos, v, u);
                if swapped < now {
                    graph.ranks[r].swap(i - 1, i);
                    pos[u] = i;
                    pos[v] = i - 1;
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
}

/// Crossings between the links of `u` and those of `v` when `u` is left of
/// `v`.
fn pair_crossings(graph: &Layered, pos: &[usize], u: usize, v: usize) -> usize {
    let mut count = 0;
    for side in [&graph.up, &graph.down] {
        for &a in &side[u] {
            for &b in &side[v] {
                if pos[a] > pos[b] {
                    count += 1;
                }
            }
        }
    }
    count
}

/// All crossings between consecutive ranks.
pub(super) fn crossings(graph: &Layered, pos: &[usize]) -> usize {
    let mut total = 0;
    let mut lower = Vec::new();
    let mut tree = Vec::new();
    for r in 0..graph.ranks.len().saturating_sub(1) {
        lower.clear();
        for &u in &graph.ranks[r] {
            let start = lower.len();
            lower.extend(graph.down[u].iter().map(|&w| pos[w]));
            lower[start..].sort_unstable();
        }
        // Inversions of `lower`: links that start left and end right of
        // another.
        let size = graph.ranks[r + 1].len();
        tree.clear();
        tree.resize(size + 1, 0usize);
        for (seen, &p) in lower.iter().enumerate() {
            // How many earlier links end at or left of p.
            let mut at_most = 0;
            let mut i = p + 1;
            while i > 0 {
                at_most += tree[i];
                i &= i - 1;
            }
            total += seen - at_most;
            let mut i = p + 1;
            while i <= size {
                tree[i] += 1;
                i += i & i.wrapping_neg();
            }
        }
    }
    total
}
