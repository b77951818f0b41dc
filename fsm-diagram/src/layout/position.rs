//! Coordinates: x of each node's anchor within its rank, y of each rank.
//!
//! Every node wants the weighted mean x of its neighbours in the rank just
//! placed; the wishes of one rank are then projected exactly onto its
//! separation constraints (`x[i + 1] - x[i] >= gap`) by pool adjacent
//! violators, a linear-time least-squares fit. Links between two dummies
//! weigh most and links to a box least, as in Graphviz, so long edges run
//! straight and boxes centre over their edges. Sweeps alternate down and
//! up and end with one that looks both ways.

use super::{Kind, Layered, Slot, EDGE_GAP, NODE_GAP, RANK_GAP};

/// Down-and-up sweep pairs.
const ROUNDS: usize = 6;
/// Layered nodes times rounds allowed: large graphs get fewer rounds.
const WORK: usize = 2_000_000;
/// How strongly a node without neighbours on the swept side stays put.
const INERTIA: f64 = 0.01;

/// The placed ranks.
pub(super) struct Placed {
    /// The anchor x of each layered node.
    pub x: Vec<f64>,
    /// The top and bottom of each rank's band.
    pub bands: Vec<(f64, f64)>,
}

pub(super) fn position(graph: &Layered) -> Placed {
    let mut x = vec![0.0; graph.slots.len()];
    for rank in &graph.ranks {
        let mut at = 0.0;
        for (i, &v) in rank.iter().enumerate() {
            if i > 0 {
                at += gap(&graph.slots[rank[i - 1]], &graph.slots[v]);
            }
            x[v] = at;
        }
    }
    let count = graph.ranks.len();
    let rounds = (WORK / graph.slots.len().max(1)).clamp(1, ROUNDS);
    for _ in 0..rounds {
        for r in 1..count {
            place(graph, &mut x, r, true, false);
        }
        for r in (0..count.saturating_sub(1)).rev() {
            place(graph, &mut x, r, false, true);
        }
    }
    for r in 0..count {
        place(graph, &mut x, r, true, true);
    }
    pack_components(graph, &mut x);
    Placed {
        x,
        bands: bands(graph),
    }
}

/// The top and bottom of each rank's band, each as tall as its tallest
/// member, [`RANK_GAP`] apart.
pub(super) fn bands(graph: &Layered) -> Vec<(f64, f64)> {
    let mut bands = Vec::with_capacity(graph.ranks.len());
    let mut top = 0.0;
    for rank in &graph.ranks {
        let height = rank.iter().map(|&v| graph.slots[v].height).fold(0.0, f64::max);
        bands.push((top, top + height));
        top += height + RANK_GAP;
    }
    bands
}

/// Move each connected part of the drawing as far left as the separation
/// constraints allow, leftmost part first. The sweeps only pull a node
/// towards its own neighbours, so a part linked to nothing else (the `any`
/// pseudo-state and what it leads to) would otherwise keep its initial
/// place, right of the full width of every rank it shares, labels included.
/// A part moves as one, by the smallest slack between one of its nodes and
/// a left neighbour of another part, so every constraint still holds.
fn pack_components(graph: &Layered, x: &mut [f64]) {
    let n = graph.slots.len();
    // Union-find over the links between ranks.
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut v: usize) -> usize {
        while parent[v] != v {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        v
    }
    for v in 0..n {
        for &u in &graph.down[v] {
            let (a, b) = (find(&mut parent, v), find(&mut parent, u));
            if a != b {
                parent[a] = b;
            }
        }
    }
    let part: Vec<usize> = (0..n).map(|v| find(&mut parent, v)).collect();
    // The parts, by their leftmost anchor.
    let mut left = vec![f64::INFINITY; n];
    for v in 0..n {
        left[part[v]] = left[part[v]].min(x[v]);
    }
    let mut parts: Vec<usize> = (0..n).filter(|&v| part[v] == v).collect();
    if parts.len() < 2 {
        return;
    }
    parts.sort_by(|&a, &b| left[a].total_cmp(&left[b]));
    // Each slot's left neighbour in its rank.
    let mut neighbour: Vec<Option<usize>> = vec![None; n];
    for rank in &graph.ranks {
        for pair in rank.windows(2) {
            neighbour[pair[1]] = Some(pair[0]);
        }
    }
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for v in 0..n {
        members[part[v]].push(v);
    }
    for &p in &parts[1..] {
        let slack = members[p]
            .iter()
            .filter_map(|&v| {
                let u = neighbour[v].filter(|&u| part[u] != p)?;
                Some(x[v] - x[u] - gap(&graph.slots[u], &graph.slots[v]))
            })
            .fold(f64::INFINITY, f64::min);
        if slack.is_finite() && slack > 0.0 {
            for &v in &members[p] {
                x[v] -= slack;
            }
        }
    }
}

/// The distance between the anchors of neighbours `a` (left) and `b`.
pub(super) fn gap(a: &Slot, b: &Slot) -> f64 {
    let space = match (a.kind, b.kind) {
        (Kind::Real(_), _) | (_, Kind::Real(_)) => NODE_GAP,
        _ => EDGE_GAP,
    };
    a.right + space + b.left
}

/// How much `a` wants its link to its neighbour `b` vertical. A loose
/// node (see `Slot::loose`) follows its neighbours, but they do not follow
/// it; a trunk follows its target, which does not follow the trunk. So a
/// chain of states that all go back to the start stays straight, with the
/// trunk beside it, rather than each state leaning towards the trunk a
/// little more than the one before.
fn weight(a: &Slot, b: &Slot) -> f64 {
    if b.loose || (matches!(a.kind, Kind::Real(_)) && b.kind == Kind::Trunk) {
        return 0.0;
    }
    if a.loose {
        return 1.0;
    }
    match (a.kind, b.kind) {
        (Kind::Real(_), Kind::Real(_)) => 1.0,
        (Kind::Real(_), _) | (_, Kind::Real(_)) => 2.0,
        _ => 8.0,
    }
}

/// Place rank `r` where its neighbours above and/or below want it.
fn place(graph: &Layered, x: &mut [f64], r: usize, above: bool, below: bool) {
    let rank = &graph.ranks[r];
    if rank.is_empty() {
        return;
    }
    // Wishes shifted by the cumulative gaps, so the constraints become
    // "non-decreasing", then pooled.
    let mut offset = 0.0;
    let mut blocks: Vec<(f64, f64, usize)> = Vec::with_capacity(rank.len()); // (mean, weight, count)
    for (i, &v) in rank.iter().enumerate() {
        if i > 0 {
            offset += gap(&graph.slots[rank[i - 1]], &graph.slots[v]);
        }
        let (mut sum, mut total) = (0.0, 0.0);
        let sides = [
            (above, &graph.up, &graph.up_at),
            (below, &graph.down, &graph.down_at),
        ];
        for (wanted, near, at) in sides {
            if wanted {
                // Where the link meets `u` above where it meets `v`.
                for (&u, &(at_u, at_v)) in near[v].iter().zip(&at[v]) {
                    let w = weight(&graph.slots[v], &graph.slots[u]);
                    sum += w * (x[u] + at_u - at_v);
                    total += w;
                }
            }
        }
        let (wish, w) = if total > 0.0 {
            (sum / total, total)
        } else {
            (x[v], INERTIA)
        };
        let mut block = (wish - offset, w, 1);
        while let Some(&last) = blocks.last() {
            if last.0 < block.0 {
                break;
            }
            blocks.pop();
            let weight = last.1 + block.1;
            block = (
                (last.0 * last.1 + block.0 * block.1) / weight,
                weight,
                last.2 + block.2,
            );
        }
        blocks.push(block);
    }
    let mut i = 0;
    let mut offset = 0.0;
    for (mean, _, count) in blocks {
        for _ in 0..count {
            if i > 0 {
                offset += gap(&graph.slots[rank[i - 1]], &graph.slots[rank[i]]);
            }
            x[rank[i]] = mean + offset;
            i += 1;
        }
    }
}
