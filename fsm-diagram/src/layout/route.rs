//! Edge routes: ports, polylines through the dummies, self-loops, and the
//! final translation of everything into the drawing's frame.
//!
//! An edge leaves its top node through a port on that node's bottom side
//! and enters its bottom node on the top side; the ports of one side are
//! spread in the order of where their edges go, so edges of one node do
//! not cross at the node. Between the ports the polyline runs vertically
//! through each rank band at its dummy's x, inside the dummy's own slot,
//! and diagonally only in the gaps between bands, where there are no
//! boxes: no edge can cross a box.

use super::position::Placed;
use super::tracks;
use super::{
    Graph, Kind, Layered, Layout, Point, Rect, Route, Size, EDGE_MARGIN, LABEL_GAP, MARGIN, RANK_GAP,
};

/// How far a self-loop reaches right of its node.
const LOOP_OUT: f64 = 18.0;
/// Vertical room of one self-loop with a one-line label; taller labels
/// get more.
const LOOP_STEP: f64 = 22.0;
/// Ports of one side stay this far from the box's corners.
const PORT_INSET: f64 = 10.0;
/// The widest spacing of neighbouring ports.
const PORT_SPACING: f64 = 14.0;
/// The narrowest spacing of neighbouring ports: a box is made wide enough
/// for it ([`room_for_ports`]).
pub(super) const MIN_PORT_SPACING: f64 = 8.0;

/// The width a box needs for `ports` ports on one side, each
/// [`MIN_PORT_SPACING`] from the next and [`PORT_INSET`] from the corners.
pub(super) fn room_for_ports(ports: usize) -> f64 {
    2.0 * PORT_INSET + ports.saturating_sub(1) as f64 * MIN_PORT_SPACING
}
/// How far above its track a link starts to run across, and below it ends:
/// a small bend at either end of the run.
const BEND: f64 = 3.0;

/// The self-loops of each node, drawn at its right.
pub(super) struct SelfLoops {
    by_node: Vec<Vec<usize>>,
    label_width: Vec<f64>,
    /// The vertical room of each of the node's loops.
    step: Vec<f64>,
}

impl SelfLoops {
    pub(super) fn new(graph: &Graph) -> SelfLoops {
        let mut by_node = vec![Vec::new(); graph.nodes.len()];
        let mut label_width = vec![0.0f64; graph.nodes.len()];
        let mut step = vec![LOOP_STEP; graph.nodes.len()];
        for (i, edge) in graph.edges.iter().enumerate() {
            if edge.from == edge.to {
                by_node[edge.from].push(i);
                let width = edge.label.map_or(0.0, |s| s.width);
                label_width[edge.from] = label_width[edge.from].max(width);
                let height = edge.label.map_or(0.0, |s| s.height + 4.0);
                step[edge.from] = step[edge.from].max(height);
            }
        }
        SelfLoops {
            by_node,
            label_width,
            step,
        }
    }

    /// The room a node's loops and their labels need at its right.
    pub(super) fn extra(&self, node: usize) -> Size {
        let loops = self.by_node[node].len();
        if loops == 0 {
            return Size {
                width: 0.0,
                height: 0.0,
            };
        }
        Size {
            width: LOOP_OUT + LABEL_GAP + self.label_width[node],
            height: loops as f64 * self.step[node],
        }
    }
}

pub(super) fn route(graph: &Graph, layered: &Layered, placed: &Placed, loops: &SelfLoops) -> Layout {
    let x = &placed.x;
    // x first: ports and tracks need it, and the tracks decide the y.
    let mut nodes: Vec<Rect> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, size)| Rect {
            x: x[i] - size.width / 2.0,
            y: 0.0,
            width: size.width,
            height: size.height,
        })
        .collect();

    // Ports: the bottom side of each chain's top node, the top side of its
    // bottom node, spread in the order of the next point along the chain.
    let mut bottom_side: Vec<Vec<(f64, usize)>> = vec![Vec::new(); nodes.len()];
    let mut top_side: Vec<Vec<(f64, usize)>> = vec![Vec::new(); nodes.len()];
    for (c, chain) in layered.chains.iter().enumerate() {
        let n = chain.nodes.len();
        // A chain that joins a trunk has no port at that end.
        if chain.joins != Some(true) {
            bottom_side[chain.nodes[0]].push((x[chain.nodes[1]], c));
        }
        if chain.joins != Some(false) {
            top_side[chain.nodes[n - 1]].push((x[chain.nodes[n - 2]], c));
        }
    }
    // Ports fixed by the caller: where the edge goes on inside a compound
    // node.
    let mut fixed: Vec<[Option<f64>; 2]> = vec![[None; 2]; layered.chains.len()];
    for (c, chain) in layered.chains.iter().enumerate() {
        let edge = &graph.edges[chain.edge];
        let (top, bottom) = (chain.nodes[0], chain.nodes[chain.nodes.len() - 1]);
        let [at_from, at_to] = edge.ports;
        let (at_top, at_bottom) = if chain.reversed {
            (at_to, at_from)
        } else {
            (at_from, at_to)
        };
        fixed[c] = [
            at_top.map(|dx| nodes[top].x + dx),
            at_bottom.map(|dx| nodes[bottom].x + dx),
        ];
    }
    let mut leave = vec![0.0; layered.chains.len()];
    let mut enter = vec![0.0; layered.chains.len()];
    for (node, rect) in nodes.iter().enumerate() {
        let compound = graph.compound.get(node).copied().unwrap_or(false);
        for (end, side, port) in [
            (0, &mut bottom_side[node], &mut leave),
            (1, &mut top_side[node], &mut enter),
        ] {
            if compound {
                border_ports(rect, side, |c| fixed[c][end], port);
                continue;
            }
            side.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let k = side.len();
            let usable = (rect.width - 2.0 * PORT_INSET).max(0.0);
            let spacing = if k > 1 {
                (usable / (k - 1) as f64).min(PORT_SPACING)
            } else {
                0.0
            };
            let centre = rect.x + rect.width / 2.0;
            for (i, &(_, c)) in side.iter().enumerate() {
                port[c] = fixed[c][end].unwrap_or(centre + (i as f64 - (k - 1) as f64 / 2.0) * spacing);
            }
        }
    }

    // Where each chain crosses each gap, and the tracks of each gap.
    let ends = |c: usize, k: usize| {
        let chain = &layered.chains[c];
        let n = chain.nodes.len();
        let from = match (k, chain.joins) {
            (0, Some(true)) | (1.., _) => x[chain.nodes[k]],
            (0, _) => leave[c],
        };
        let to = if k + 2 < n || chain.joins == Some(false) {
            x[chain.nodes[k + 1]]
        } else {
            enter[c]
        };
        tracks::Link { from, to }
    };
    let gaps = placed.bands.len().saturating_sub(1);
    let mut crossing: Vec<Vec<tracks::Link>> = vec![Vec::new(); gaps];
    let mut crossed_by: Vec<Vec<(usize, usize)>> = vec![Vec::new(); gaps];
    for (c, chain) in layered.chains.iter().enumerate() {
        for k in 0..chain.nodes.len() - 1 {
            let gap = layered.slots[chain.nodes[k]].rank;
            crossing[gap].push(ends(c, k));
            crossed_by[gap].push((c, k));
        }
    }
    let mut track: Vec<Vec<Option<usize>>> = layered
        .chains
        .iter()
        .map(|chain| vec![None; chain.nodes.len() - 1])
        .collect();
    // The gaps along a compound node's border: above and below a compound
    // node, and inside one (with a header), the first and the last.
    let mut border = vec![false; gaps];
    for (v, _) in graph.compound.iter().enumerate().filter(|(_, &c)| c) {
        let rank = layered.slots[v].rank;
        for gap in [rank.wrapping_sub(1), rank] {
            if let Some(b) = border.get_mut(gap) {
                *b = true;
            }
        }
    }
    if graph.leftmost.is_some() && gaps > 0 {
        border[0] = true;
        border[gaps - 1] = true;
    }
    let mut track_count = vec![0; gaps];
    for gap in 0..gaps {
        let (found, count) = tracks::assign(&crossing[gap], border[gap]);
        track_count[gap] = count;
        for (&(c, k), t) in crossed_by[gap].iter().zip(found) {
            track[c][k] = t;
        }
    }
    drop(crossing);
    drop(crossed_by);
    // The ranks' bands, each gap as high as its tracks need.
    let mut bands = Vec::with_capacity(placed.bands.len());
    let mut top = 0.0;
    for (r, &(t, b)) in placed.bands.iter().enumerate() {
        bands.push((top, top + b - t));
        top += b - t + tracks::gap_height(track_count.get(r).copied().unwrap_or(0), BEND, RANK_GAP);
    }
    let band = |v: usize| bands[layered.slots[v].rank];
    for (i, rect) in nodes.iter_mut().enumerate() {
        let (top, bottom) = band(i);
        rect.y = if graph.align_top {
            top
        } else {
            (top + bottom - rect.height) / 2.0
        };
    }
    // The points of a link on its track, if it has one.
    let on_track = |c: usize, k: usize, points: &mut Vec<Point>| {
        let Some(t) = track[c][k] else {
            return;
        };
        let gap = layered.slots[layered.chains[c].nodes[k]].rank;
        let (above, below) = (bands[gap].1, bands[gap + 1].0);
        // Bends included, every track keeps TRACK_GAP from the ranks.
        let y = above + BEND + (below - above - 2.0 * BEND) * (t + 1) as f64 / (track_count[gap] + 1) as f64;
        let link = ends(c, k);
        points.push(Point {
            x: link.from,
            y: y - BEND,
        });
        points.push(Point {
            x: link.to,
            y: y + BEND,
        });
    };

    let mut routes: Vec<Option<Route>> = (0..graph.edges.len()).map(|_| None).collect();
    for (c, chain) in layered.chains.iter().enumerate() {
        let (first, last) = (chain.nodes[0], chain.nodes[chain.nodes.len() - 1]);
        let mut points = Vec::with_capacity(2 * chain.nodes.len() + 2);
        if chain.joins == Some(true) {
            // On the trunk, where it leaves the band of its dummy.
            points.push(Point {
                x: x[first],
                y: band(first).1,
            });
        } else {
            let from = nodes[first];
            points.push(Point {
                x: leave[c],
                y: from.y + from.height,
            });
            points.push(Point {
                x: leave[c],
                y: band(first).1,
            });
        }
        let mut label = None;
        for (k, &d) in chain.nodes[1..chain.nodes.len() - 1].iter().enumerate() {
            on_track(c, k, &mut points);
            let (top, bottom) = band(d);
            points.push(Point { x: x[d], y: top });
            points.push(Point { x: x[d], y: bottom });
            if let Kind::Label(e) = layered.slots[d].kind {
                let size = graph.edges[e].label.expect("a label slot has a label");
                label = Some(Rect {
                    x: x[d] + LABEL_GAP,
                    y: (top + bottom - size.height) / 2.0,
                    width: size.width,
                    height: size.height,
                });
            }
        }
        on_track(c, chain.nodes.len() - 2, &mut points);
        if chain.joins == Some(false) {
            points.push(Point {
                x: x[last],
                y: band(last).0,
            });
        } else {
            let to = nodes[last];
            points.push(Point {
                x: enter[c],
                y: band(last).0,
            });
            points.push(Point { x: enter[c], y: to.y });
        }
        points.dedup();
        if chain.reversed {
            points.reverse();
        }
        if label.is_none() {
            if let Some(size) = graph.edges[chain.edge].label {
                label = Some(beside_middle(&points, size));
            }
        }
        straighten(&mut points);
        routes[chain.edge] = Some(Route {
            points,
            label,
            merges: chain.joins.is_some(),
        });
    }

    for (node, edges) in loops.by_node.iter().enumerate() {
        let rect = nodes[node];
        let right = rect.x + rect.width;
        let centre = rect.y + rect.height / 2.0;
        let k = edges.len() as f64;
        let (low, high) = (rect.y + 3.0, rect.y + rect.height - 3.0);
        for (j, &e) in edges.iter().enumerate() {
            let step = loops.step[node];
            let y = centre - k * step / 2.0 + step * (j as f64 + 0.5);
            let out = right + LOOP_OUT;
            let points = vec![
                Point {
                    x: right,
                    y: (y - 4.0).clamp(low, high),
                },
                Point { x: out, y: y - 7.0 },
                Point { x: out, y: y + 7.0 },
                Point {
                    x: right,
                    y: (y + 4.0).clamp(low, high),
                },
            ];
            let label = graph.edges[e].label.map(|size| Rect {
                x: out + LABEL_GAP,
                y: y - size.height / 2.0,
                width: size.width,
                height: size.height,
            });
            routes[e] = Some(Route {
                points,
                label,
                merges: false,
            });
        }
    }

    let edges: Vec<Route> = routes
        .into_iter()
        .map(|r| r.expect("every edge is a chain or a self-loop"))
        .collect();
    frame(nodes, edges)
}

/// The ports of one side of a compound node's box: those fixed by the
/// caller stay; each other one goes where its edge goes (`side` holds the x
/// of the next point along each chain), kept [`PORT_SPACING`] from its
/// neighbours where the box is wide enough, and inside the box.
fn border_ports(
    rect: &Rect,
    side: &mut [(f64, usize)],
    fixed: impl Fn(usize) -> Option<f64>,
    port: &mut [f64],
) {
    let (low, high) = (
        rect.x + PORT_INSET.min(rect.width / 2.0),
        rect.x + rect.width - PORT_INSET.min(rect.width / 2.0),
    );
    for entry in side.iter_mut() {
        entry.0 = fixed(entry.1).unwrap_or(entry.0.clamp(low, high));
    }
    side.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut at: Vec<f64> = side.iter().map(|e| e.0).collect();
    let free = |i: usize| fixed(side[i].1).is_none();
    for i in 1..at.len() {
        if free(i) {
            at[i] = at[i].max(at[i - 1] + PORT_SPACING);
        }
    }
    for i in (0..at.len().saturating_sub(1)).rev() {
        if free(i) {
            at[i] = at[i].min(at[i + 1] - PORT_SPACING);
        }
    }
    for (i, &(_, c)) in side.iter().enumerate() {
        port[c] = if free(i) { at[i].clamp(low, high) } else { at[i] };
    }
}

/// Drop repeated points and the middle of three on one vertical or
/// horizontal line: a long edge runs straight through many ranks, and its
/// route should cost a point per bend, not two per rank.
pub(super) fn straighten(points: &mut Vec<Point>) {
    points.dedup();
    let mut kept: usize = 0;
    for i in 0..points.len() {
        let p = points[i];
        if kept >= 2 {
            let (a, b) = (points[kept - 2], points[kept - 1]);
            let onward = (b.x - a.x) * (p.x - b.x) >= 0.0 && (b.y - a.y) * (p.y - b.y) >= 0.0;
            let vertical = a.x == b.x && b.x == p.x;
            let horizontal = a.y == b.y && b.y == p.y;
            if onward && (vertical || horizontal) {
                points[kept - 1] = p;
                continue;
            }
        }
        points[kept] = p;
        kept += 1;
    }
    points.truncate(kept);
}

/// A label box beside the middle of the polyline's longest segment, for an
/// edge whose span left no rank for its label.
fn beside_middle(points: &[Point], size: Size) -> Rect {
    let (a, b) = points
        .windows(2)
        .map(|w| (w[0], w[1]))
        .max_by(|p, q| length(p.0, p.1).total_cmp(&length(q.0, q.1)))
        .unwrap_or((points[0], points[0]));
    Rect {
        x: (a.x + b.x) / 2.0 + LABEL_GAP,
        y: (a.y + b.y - size.height) / 2.0,
        width: size.width,
        height: size.height,
    }
}

fn length(a: Point, b: Point) -> f64 {
    (a.x - b.x).hypot(a.y - b.y)
}

/// Move everything so the drawing starts at the margin, and measure it.
fn frame(mut nodes: Vec<Rect>, mut edges: Vec<Route>) -> Layout {
    let (mut min_x, mut min_y, mut max_x, mut max_y) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    let mut cover = |x0: f64, y0: f64, x1: f64, y1: f64| {
        min_x = min_x.min(x0);
        min_y = min_y.min(y0);
        max_x = max_x.max(x1);
        max_y = max_y.max(y1);
    };
    for r in nodes.iter().chain(edges.iter().filter_map(|e| e.label.as_ref())) {
        cover(r.x, r.y, r.x + r.width, r.y + r.height);
    }
    // Edges keep further from the sides than boxes: a vertical run along a
    // composite state's border would read as part of it.
    let pad = EDGE_MARGIN - MARGIN;
    for p in edges.iter().flat_map(|e| &e.points) {
        cover(p.x - pad, p.y, p.x + pad, p.y);
    }
    if nodes.is_empty() {
        (min_x, min_y, max_x, max_y) = (0.0, 0.0, 0.0, 0.0);
    }
    let (dx, dy) = (MARGIN - min_x, MARGIN - min_y);
    for r in nodes
        .iter_mut()
        .chain(edges.iter_mut().filter_map(|e| e.label.as_mut()))
    {
        r.x += dx;
        r.y += dy;
    }
    for p in edges.iter_mut().flat_map(|e| &mut e.points) {
        p.x += dx;
        p.y += dy;
    }
    Layout {
        headers: vec![None; nodes.len()],
        nodes,
        edges,
        width: max_x - min_x + 2.0 * MARGIN,
        height: max_y - min_y + 2.0 * MARGIN,
    }
}
