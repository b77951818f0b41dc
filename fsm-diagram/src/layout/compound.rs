//! Compound nodes (composite states): each is laid out inside, by the flat
//! pipeline, as a graph of its children, its header and its ports; outside,
//! it is one node as large as that drawing. So a composite's box holds its
//! children's, and no other box or edge enters it.
//!
//! An edge whose ends lie in different compound nodes is cut at every box
//! border it crosses. Its middle piece, with its label, belongs to the
//! innermost graph holding both ends (or both sides of it); each other piece
//! runs between a node and a *port* of the box around it, a point pinned to
//! the box's top rank or its bottom rank. Which one depends on the ranking
//! one level out: a piece that leaves its box downward leaves through the
//! bottom. So the levels are ranked from the outside in, laid out from the
//! inside out (a box's size and its ports' x are known before the level
//! around it is placed), then moved into place and the pieces joined by
//! vertical runs through the port's own column. An edge to or from a
//! compound node itself ends at its border. Every level is laid out once,
//! so the whole stays near-linear.

use super::{
    place, rank, rank_compactly, rank_edge, Edge, Graph, Layout, Point, Rect, Route, Size, TooLarge,
};

/// Which side of its box a port sits on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Top,
    Bottom,
}

/// One box's inside (or the whole drawing's, for the root).
#[derive(Default)]
struct Level {
    /// The input node of each local node; `None` for the header and ports.
    input: Vec<Option<usize>>,
    /// The local graph; its nodes are the members, then the header, then
    /// the ports.
    graph: Graph,
    /// The side of each local port node.
    sides: Vec<(usize, Side)>,
    /// Members first in the depth-first search.
    roots: Vec<usize>,
    /// For each local edge, the input edge whose piece it is.
    pieces: Vec<usize>,
    layout: Option<Layout>,
    /// The top-left corner of the level's drawing in the whole drawing.
    origin: Point,
}

/// Where a piece of an input edge lies: a level and its local edge.
#[derive(Clone, Copy)]
struct Piece {
    level: usize,
    edge: usize,
}

/// The pieces of one input edge, from its source to its target.
#[derive(Default)]
struct Pieces {
    /// On the source's side, outermost first.
    source: Vec<Piece>,
    middle: Option<Piece>,
    /// On the target's side, outermost first.
    target: Vec<Piece>,
}

/// A compound node's local node in the level of its parent, and its
/// continuation: the port a piece inside it ends at.
struct Continuation {
    /// The level and local edge that ends at the compound node.
    outer: Piece,
    /// Which end of that local edge: 0 for its source, 1 for its target.
    end: usize,
    /// The compound node's level and its port there.
    inner_level: usize,
    port: usize,
}

pub(super) fn layout(graph: &Graph) -> Result<Layout, TooLarge> {
    let n = graph.nodes.len();
    let parent = |v: usize| graph.parents.get(v).copied().flatten();
    // Level 0 is the root; compound node c's level is level_of[c].
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut top = Vec::new();
    for v in 0..n {
        match parent(v) {
            Some(p) => children[p].push(v),
            None => top.push(v),
        }
    }
    let mut level_of = vec![usize::MAX; n];
    let mut levels: Vec<Level> = vec![Level::default()];
    // Levels in breadth-first order: a level comes after the one around it.
    let mut owner: Vec<Option<usize>> = vec![None];
    let mut local = vec![usize::MAX; n];
    let mut next = 0;
    let mut members_of = vec![top];
    while next < levels.len() {
        let members = std::mem::take(&mut members_of[next]);
        for &v in &members {
            local[v] = levels[next].input.len();
            levels[next].input.push(Some(v));
            levels[next].graph.nodes.push(graph.nodes[v]);
            levels[next].graph.compound.push(!children[v].is_empty());
            if !children[v].is_empty() {
                level_of[v] = levels.len();
                levels.push(Level::default());
                if let Some(level) = levels.last_mut() {
                    level.graph.align_top = graph.top_aligned.get(v).copied().unwrap_or(false);
                }
                owner.push(Some(v));
                members_of.push(children[v].clone());
            }
        }
        if let Some(c) = owner[next] {
            // The header, leftmost in the top rank.
            let level = &mut levels[next];
            level.graph.leftmost = Some(level.input.len());
            level.input.push(None);
            level.graph.nodes.push(graph.nodes[c]);
        }
        next += 1;
    }
    for &r in &graph.roots {
        let l = parent(r).map_or(0, |p| level_of[p]);
        levels[l].roots.push(local[r]);
    }

    // The child of `level`'s owner (or a top-level node) on the way to `v`.
    let toward = |owner: Option<usize>, v: usize| -> usize {
        let mut w = v;
        while parent(w) != owner {
            w = parent(w).expect("v lies inside the owner");
        }
        w
    };
    let inside = |v: usize, c: usize| {
        let mut w = v;
        while let Some(p) = parent(w) {
            if p == c {
                return true;
            }
            w = p;
        }
        false
    };

    // The middle pieces.
    let mut pieces: Vec<Pieces> = (0..graph.edges.len()).map(|_| Pieces::default()).collect();
    for (e, edge) in graph.edges.iter().enumerate() {
        let (u, v) = (edge.from, edge.to);
        let (l, a, b) = if u == v {
            let l = parent(u).map_or(0, |p| level_of[p]);
            (l, local[u], local[u])
        } else if inside(v, u) {
            let l = level_of[u];
            let port = add_port(&mut levels[l], Side::Top);
            (l, port, local[toward(Some(u), v)])
        } else if inside(u, v) {
            let l = level_of[v];
            let port = add_port(&mut levels[l], Side::Top);
            (l, local[toward(Some(v), u)], port)
        } else {
            // The innermost box holding both.
            let mut lca = parent(u);
            while let Some(c) = lca {
                if inside(v, c) {
                    break;
                }
                lca = parent(c);
            }
            let l = lca.map_or(0, |c| level_of[c]);
            (l, local[toward(lca, u)], local[toward(lca, v)])
        };
        let level = &mut levels[l];
        pieces[e].middle = Some(Piece {
            level: l,
            edge: level.graph.edges.len(),
        });
        level.graph.edges.push(Edge::new(a, b, edge.label));
        level.pieces.push(e);
    }

    // Rank from the outside in; each ranked level adds the pieces inside
    // the compound nodes its edges reach into.
    let mut rankings = Vec::with_capacity(levels.len());
    let mut continuations = Vec::new();
    for l in 0..levels.len() {
        let ranking = rank_level(&levels[l]);
        let mut added = Vec::new();
        for (le, edge) in levels[l].graph.edges.iter().enumerate() {
            let e = levels[l].pieces[le];
            for (end, node) in [(0, edge.from), (1, edge.to)] {
                let Some(c) = levels[l].input[node] else {
                    continue;
                };
                let input_end = if end == 0 {
                    graph.edges[e].from
                } else {
                    graph.edges[e].to
                };
                if edge.from == edge.to || level_of[c] == usize::MAX {
                    continue;
                }
                let other = if end == 0 { edge.to } else { edge.from };
                let side = if ranking.ranks[node] < ranking.ranks[other] {
                    Side::Bottom
                } else {
                    Side::Top
                };
                added.push((le, end, c, input_end, side, e));
            }
        }
        for (le, end, c, input_end, side, e) in added {
            if input_end == c {
                // The edge ends at the border, where the level around
                // chooses (see `Graph::compound`): near where it goes.
                continue;
            }
            let inner = level_of[c];
            let port = add_port(&mut levels[inner], side);
            continuations.push(Continuation {
                outer: Piece { level: l, edge: le },
                end,
                inner_level: inner,
                port,
            });
            let w = local[toward(Some(c), input_end)];
            let (a, b) = if end == 0 { (w, port) } else { (port, w) };
            let piece = Piece {
                level: inner,
                edge: levels[inner].graph.edges.len(),
            };
            levels[inner].graph.edges.push(Edge::new(a, b, None));
            levels[inner].pieces.push(e);
            if end == 0 {
                pieces[e].source.push(piece);
            } else {
                pieces[e].target.push(piece);
            }
        }
        rankings.push(ranking);
    }

    // Lay out from the inside out, counting what the levels laid out keep
    // (boxes and points) against the limit.
    let mut placed = 0;
    for l in (0..levels.len()).rev() {
        let layout = place(&levels[l].graph, &rankings[l], false).map_err(|e| TooLarge {
            nodes: e.nodes + placed,
            ..e
        })?;
        placed += layout.nodes.len() + layout.edges.iter().map(|r| r.points.len()).sum::<usize>();
        if placed > super::MAX_NODES {
            return Err(TooLarge {
                nodes: placed,
                limit: super::MAX_NODES,
            });
        }
        if let Some(c) = owner[l] {
            let outer = parent(c).map_or(0, |p| level_of[p]);
            levels[outer].graph.nodes[local[c]] = Size {
                width: layout.width,
                height: layout.height,
            };
        }
        for k in continuations.iter().filter(|k| k.inner_level == l) {
            let port = layout.nodes[k.port];
            let edge = &mut levels[k.outer.level].graph.edges[k.outer.edge];
            edge.ports[k.end] = Some(port.x + port.width / 2.0);
        }
        levels[l].layout = Some(layout);
    }

    // Move every level into place, from the outside in.
    let mut nodes = vec![
        Rect {
            x: 0.0,
            y: 0.0,
            width: 0.0,
            height: 0.0,
        };
        n
    ];
    let mut headers = vec![None; n];
    for l in 0..levels.len() {
        let mut origins = Vec::new();
        let origin = levels[l].origin;
        let layout = levels[l].layout.as_ref().expect("laid out");
        let moved = |r: Rect| Rect {
            x: r.x + origin.x,
            y: r.y + origin.y,
            ..r
        };
        for (i, input) in levels[l].input.iter().enumerate() {
            match input {
                Some(v) => {
                    nodes[*v] = moved(layout.nodes[i]);
                    if level_of[*v] != usize::MAX {
                        let r = nodes[*v];
                        origins.push((level_of[*v], Point { x: r.x, y: r.y }));
                    }
                }
                None if levels[l].graph.leftmost == Some(i) => {
                    headers[owner[l].expect("only boxes have headers")] = Some(moved(layout.nodes[i]));
                }
                None => {}
            }
        }
        for (inner, origin) in origins {
            levels[inner].origin = origin;
        }
    }

    // Join the pieces of each edge.
    let edges = pieces
        .iter()
        .map(|p| {
            let mut points: Vec<Point> = Vec::new();
            let mut label = None;
            let middle = p.middle.expect("every edge has a middle piece");
            let order = p
                .source
                .iter()
                .rev()
                .chain(std::iter::once(&middle))
                .chain(p.target.iter());
            for piece in order {
                let level = &levels[piece.level];
                let route = &level.layout.as_ref().expect("laid out").edges[piece.edge];
                let o = level.origin;
                points.extend(route.points.iter().map(|q| Point {
                    x: q.x + o.x,
                    y: q.y + o.y,
                }));
                if piece.level == middle.level && piece.edge == middle.edge {
                    label = route.label.map(|r| Rect {
                        x: r.x + o.x,
                        y: r.y + o.y,
                        ..r
                    });
                    // Between a box and a state inside it: on to the box's
                    // top border, up the port's column.
                    let edge = &level.graph.edges[piece.edge];
                    let is_port = |v: usize| level.sides.iter().any(|&(p, _)| p == v);
                    let start = points.len() - route.points.len();
                    if is_port(edge.from) {
                        let x = points[start].x;
                        points.insert(start, Point { x, y: o.y });
                    }
                    if is_port(edge.to) {
                        let x = points[points.len() - 1].x;
                        points.push(Point { x, y: o.y });
                    }
                }
            }
            super::route::straighten(&mut points);
            Route {
                points,
                label,
                merges: false,
            }
        })
        .collect();
    let root = levels[0].layout.as_ref().expect("laid out");
    Ok(Layout {
        nodes,
        headers,
        edges,
        width: root.width,
        height: root.height,
    })
}

/// A port of a level: a point with no size.
fn add_port(level: &mut Level, side: Side) -> usize {
    let port = level.input.len();
    level.input.push(None);
    level.graph.nodes.push(Size {
        width: 0.0,
        height: 0.0,
    });
    level.sides.push((port, side));
    port
}

/// Rank a level's members as a flat graph, then put its header and top
/// ports on a rank above them all and its bottom ports on one below.
fn rank_level(level: &Level) -> rank::Ranking {
    let graph = &level.graph;
    let count = graph.nodes.len();
    let is_extra = |v: usize| level.input[v].is_none();
    let members = (0..count).filter(|&v| !is_extra(v)).count();
    let inner: Vec<(usize, rank::RankEdge)> = graph
        .edges
        .iter()
        .enumerate()
        .filter(|(_, e)| e.from != e.to && !is_extra(e.from) && !is_extra(e.to))
        .map(|(i, e)| (i, rank_edge(e)))
        .collect();
    let edges: Vec<rank::RankEdge> = inner
        .iter()
        .map(|(_, e)| rank::RankEdge {
            from: e.from,
            to: e.to,
            minlen: e.minlen,
        })
        .collect();
    let ranking = rank_compactly(members, &edges, &level.roots);
    let boxed = graph.leftmost.is_some();
    // Below the header; two ranks when a labelled edge leaves a top port.
    let shift = if !boxed {
        0
    } else {
        graph
            .edges
            .iter()
            .filter(|e| e.from != e.to && (is_extra(e.from) || is_extra(e.to)))
            .map(|e| rank_edge(e).minlen)
            .max()
            .unwrap_or(1)
    };
    let mut ranks: Vec<usize> = ranking.ranks.iter().map(|r| r + shift).collect();
    ranks.resize(count, 0);
    let bottom = ranks.iter().copied().max().unwrap_or(0) + 1;
    for &(port, side) in &level.sides {
        ranks[port] = match side {
            Side::Top => 0,
            Side::Bottom => bottom,
        };
    }
    let mut reversed = Vec::new();
    let mut inner_reversed = inner.iter().zip(&ranking.reversed).map(|(_, &r)| r);
    for e in graph.edges.iter().filter(|e| e.from != e.to) {
        if is_extra(e.from) || is_extra(e.to) {
            reversed.push(ranks[e.from] > ranks[e.to]);
        } else {
            reversed.push(inner_reversed.next().expect("one flag per ranked edge"));
        }
    }
    rank::Ranking { ranks, reversed }
}
