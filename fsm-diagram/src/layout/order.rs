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
        let (neighbours, at) = if downward {
            (&graph.up, &graph.up_at)
        } else {
            (&graph.down, &graph.down_at)
        };
        keyed.clear();
        keyed.extend(graph.ranks[r].iter().map(|&v| {
            let near = &neighbours[v];
            let key = if near.is_empty() {
                pos[v] as f64
            } else {
                near.iter()
                    .zip(&at[v])
                    .map(|(&u, &(dx, _))| key(graph, pos, u, dx))
                    .sum::<f64>()
                    / near.len() as f64
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
    for (side, at) in [(&graph.up, &graph.up_at), (&graph.down, &graph.down_at)] {
        for (&a, &(da, _)) in side[u].iter().zip(&at[u]) {
            for (&b, &(db, _)) in side[v].iter().zip(&at[v]) {
                if key(graph, pos, a, da) > key(graph, pos, b, db) {
                    count += 1;
                }
            }
        }
    }
    count
}

/// Where a link meets node `v`, `dx` from its anchor, as a position within
/// its rank: `v`'s index, moved by less than half a place towards the side
/// of the box it meets, so links into one box keep the order of their
/// ports there.
fn key(graph: &Layered, pos: &[usize], v: usize, dx: f64) -> f64 {
    let slot = &graph.slots[v];
    let width = slot.left + slot.right;
    let shift = if dx == 0.0 || width <= 0.0 {
        0.0
    } else {
        (dx / width).clamp(-0.49, 0.49)
    };
    pos[v] as f64 + shift
}

/// All crossings between consecutive ranks: links sorted by where they
/// leave the upper rank, then counted inversions of where they reach the
/// lower one (ports of one box count as places of their own).
pub(super) fn crossings(graph: &Layered, pos: &[usize]) -> usize {
    let mut total = 0;
    let mut links: Vec<(f64, f64)> = Vec::new();
    let mut places: Vec<f64> = Vec::new();
    let mut tree = Vec::new();
    for r in 0..graph.ranks.len().saturating_sub(1) {
        links.clear();
        for &u in &graph.ranks[r] {
            for (&w, &(dw, du)) in graph.down[u].iter().zip(&graph.down_at[u]) {
                links.push((key(graph, pos, u, du), key(graph, pos, w, dw)));
            }
        }
        links.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        places.clear();
        places.extend(links.iter().map(|l| l.1));
        places.sort_unstable_by(f64::total_cmp);
        places.dedup();
        // Inversions of the lower ends: links that start left and end
        // right of another.
        let size = places.len();
        tree.clear();
        tree.resize(size + 1, 0usize);
        for (seen, link) in links.iter().enumerate() {
            let p = places.partition_point(|&q| q < link.1);
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
