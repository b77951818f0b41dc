//! A layered (Sugiyama) layout of labelled directed graphs, written for
//! state diagrams: boxes of any size, a label on every edge placed beside
//! that edge, edges routed around every box, self-loops, in time close to
//! linear in the size of the drawing.
//!
//! # Why our own
//!
//! The crates that exist were measured on the same graphs (release build):
//!
//! - `dagre` 0.1.2, a faithful port of dagre.js (Mermaid's layout): right
//!   in features (compound graphs, label placement, edge points), but it
//!   keeps dagre.js's string-keyed graph and its unbounded network simplex
//!   and crossing sweeps. A 500-state ring took 0.3 s, a random machine of
//!   500 states and 2,000 transitions did not finish in 300 s. Its
//!   `default-features = false` does not compile.
//! - `rust-sugiyama` 0.4: node coordinates only, no edge routes, no
//!   labels, no compound nodes, and it pulls in `petgraph`.
//! - `layout-rs`, the previous engine: exponential on rings, labels far
//!   from their edges, edges through boxes.
//!
//! The classic pipeline is small when written for one use, so it lives
//! here, with every phase bounded:
//!
//! 1. [`rank`]: cycles broken by a depth-first search from the roots (the
//!    start marker first, so the initial state leads), ranks by longest
//!    path, then every node that has more edges out than in is pulled down
//!    to its successors (the gain network simplex would find first, at
//!    linear cost). A labelled edge spans at least two ranks, so its label
//!    gets a rank of its own.
//! 2. Long edges are cut into chains of dummy nodes, one per rank; the
//!    label of an edge *is* one of its dummies, as wide as the label, so
//!    crossing reduction and placement keep it on its edge (dagre and
//!    Graphviz do the same).
//! 3. [`order`]: a depth-first initial order, then barycenter sweeps down
//!    and up, with adjacent transpositions on small graphs; the order with
//!    the fewest crossings (counted in `O(E log V)` per rank pair) wins.
//!    Sweeps stop after a few without gain, and their number shrinks with
//!    the size of the graph, so 20,000 states lay out in seconds.
//! 4. [`position`]: x by alternating sweeps in which every node wants the
//!    weighted mean of its neighbours (dummy-to-dummy links weigh most, as
//!    in Graphviz, so long edges run straight), projected exactly onto the
//!    separation constraints of its rank by pool-adjacent-violators in
//!    linear time. y by ranks, each as tall as its tallest member.
//! 5. [`route`]: each edge leaves its source's side at a port of its own,
//!    runs vertically through the rank bands inside its dummies' slots and
//!    sideways only in the empty gaps between bands, so it never crosses
//!    a box; edges that run sideways over the same stretch of a gap get
//!    [`tracks`] of their own, so they do not run together; self-loops sit
//!    in space reserved at the right of their node.
//!
//! # Compound nodes (composite states)
//!
//! A [`Graph`] with parents is laid out by [`compound`], one box at a
//! time with the pipeline above: inside, a compound node is a graph of its
//! children, with its header at the top left (placed after the rest, so it
//! pushes only the ports it covers, not the whole inside, to its right) and
//! *ports* where edges cross its border; outside, it is one node as large as
//! that drawing. This is the recursive scheme of ELK's hierarchy handling
//! rather than dagre's single graph with border nodes: boxes cannot overlap
//! and no unrelated edge can enter a box by construction, where dagre's
//! border chains only tend to stay straight. The price is that a box's
//! children do not share ranks with the nodes beside the box. Outside, an
//! edge meets the box at its port, and ordering and placement aim it there
//! rather than at the box's middle, so the edges into a box keep the order
//! of their ports and do not cross at its border.

mod compound;
mod order;
mod position;
mod rank;
mod route;
mod tracks;

/// A point of the drawing, y pointing down.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Point {
    pub x: f64,
    pub y: f64,
}

/// An axis-aligned rectangle: its top-left corner and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// A width and a height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Size {
    pub width: f64,
    pub height: f64,
}

/// A graph to lay out.
#[derive(Default)]
pub(crate) struct Graph {
    /// The size of each node's box; for a compound node, the size of its
    /// header (its title), which the layout puts at the top left of the box
    /// it draws around the node's children.
    pub nodes: Vec<Size>,
    /// The edges, in the order the caller wants them considered.
    pub edges: Vec<Edge>,
    /// Nodes the depth-first search starts from, before the others: their
    /// edges point down. For a compound node, its first child here leads
    /// inside it.
    pub roots: Vec<usize>,
    /// The node holding each node (a compound node, drawn as a box around
    /// its children); empty when no node has a parent.
    pub parents: Vec<Option<usize>>,
    /// Compound nodes whose children line up at the top of their rank
    /// rather than on its middle (a parallel state's regions, so that
    /// their names sit on one line); may be shorter than `nodes`.
    pub top_aligned: Vec<bool>,
    /// A node kept leftmost in its rank (a compound node's header).
    pub(super) leftmost: Option<usize>,
    /// This graph's nodes line up at the top of their rank.
    pub(super) align_top: bool,
    /// Which nodes are compound: an edge that ends at one meets its border
    /// wherever it arrives, not at the middle (may be shorter than
    /// `nodes`: the others are not).
    pub(super) compound: Vec<bool>,
}

/// An edge of a [`Graph`].
pub(crate) struct Edge {
    pub from: usize,
    pub to: usize,
    /// The size of its label, if it has one.
    pub label: Option<Size>,
    /// Where the edge meets its source's and its target's box, as an x
    /// offset from the box's left side; `None` lets the layout choose.
    pub(super) ports: [Option<f64>; 2],
}

impl Edge {
    /// An edge whose ports the layout chooses.
    pub(crate) fn new(from: usize, to: usize, label: Option<Size>) -> Edge {
        Edge {
            from,
            to,
            label,
            ports: [None, None],
        }
    }
}

/// Where everything goes.
pub(crate) struct Layout {
    /// Each node's box, in the order of [`Graph::nodes`]; a compound
    /// node's box holds its children's.
    pub nodes: Vec<Rect>,
    /// Each compound node's header, inside its box; `None` for the others.
    pub headers: Vec<Option<Rect>>,
    /// Each edge's route and label box, in the order of [`Graph::edges`].
    pub edges: Vec<Route>,
    /// The size of the drawing, margins included.
    pub width: f64,
    pub height: f64,
}

/// How one edge is drawn.
pub(crate) struct Route {
    /// A polyline from the source's border to the target's border.
    pub points: Vec<Point>,
    /// The label's box, beside the polyline.
    pub label: Option<Rect>,
    /// The polyline ends where it meets another edge to the same target,
    /// which goes on for both (see `LONG`): no arrowhead there.
    pub merges: bool,
}

/// Space around the drawing.
const MARGIN: f64 = 8.0;
/// Empty space between two rank bands, where edges may run diagonally.
const RANK_GAP: f64 = 22.0;
/// Horizontal space between two boxes of one rank.
const NODE_GAP: f64 = 22.0;
/// Horizontal space between two edges (dummies) of one rank.
const EDGE_GAP: f64 = 10.0;
/// Space between an edge and its label.
const LABEL_GAP: f64 = 5.0;
/// Space between an edge and the border of the drawing (of a compound
/// node's box, when the drawing is its inside), so that an edge running
/// along it reads as an edge.
const EDGE_MARGIN: f64 = 16.0;

/// What a node of the layered graph stands for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// A node of the input graph.
    Real(usize),
    /// A point of a long edge.
    Dummy,
    /// A point of a trunk, which long edges to one node share (see
    /// [`LONG`]).
    Trunk,
    /// The label of the input edge, on its chain.
    Label(usize),
}

/// A node of the layered graph: its rank and its extent around its anchor,
/// the x where its edges attach.
#[derive(Clone, Debug)]
struct Slot {
    kind: Kind,
    /// The first node of a bundled edge after its source (its label or a
    /// dummy), linked loosely: placement neither pulls the source towards
    /// the trunk nor the trunk towards each edge that joins it, or a chain
    /// of states that all go back to the start would lean a little further
    /// with every state.
    loose: bool,
    rank: usize,
    left: f64,
    right: f64,
    height: f64,
}

/// An input edge as a chain of layered nodes from top to bottom.
struct Chain {
    edge: usize,
    /// The edge points up: its source is the chain's last node.
    reversed: bool,
    nodes: Vec<usize>,
    /// Where the chain joins the trunk of another edge to the same target
    /// (see [`LONG`]) and ends: its first node is a dummy of that trunk
    /// (`Some(true)`) or its last (`Some(false)`); `None` when it reaches
    /// its target itself.
    joins: Option<bool>,
}

/// The graph after ranking, with every edge cut into rank-to-rank links.
struct Layered {
    slots: Vec<Slot>,
    /// Neighbours one rank up and one rank down.
    up: Vec<Vec<usize>>,
    down: Vec<Vec<usize>>,
    /// For each neighbour in `up` and `down`, where the link meets that
    /// neighbour and where it meets this node: x offsets from their anchors,
    /// not 0 only at a port fixed by the caller (an edge going on inside a
    /// compound node, or ending at its border). Ordering and placement aim
    /// links at these points rather than at the middle of the box, so edges
    /// into a compound node do not cross at its border.
    up_at: Vec<Vec<(f64, f64)>>,
    down_at: Vec<Vec<(f64, f64)>>,
    /// The slots of each rank, left to right once ordered.
    ranks: Vec<Vec<usize>>,
    chains: Vec<Chain>,
}

/// The most layered nodes a drawing may have: its boxes, its labels and
/// the points where its edges cross a rank. Laying out takes a few hundred
/// bytes per node, so the limit keeps a drawing well under a gigabyte; the
/// machines it refuses are too large to read as one picture anyway.
pub const MAX_NODES: usize = 1_000_000;

/// Dummies per node and edge above which a drawing counts as large: its
/// edges are then ranked breadth-first if that cuts them into fewer
/// dummies, and bundled (see [`LONG`]).
const LARGE: usize = 8;

/// Dummies that a depth-first ranking may always have: below this, it is
/// kept even when breadth-first would need fewer, as its paths run straight
/// down and on small random machines it crosses fewer edges (50 states and
/// 150 transitions: 662 crossings, breadth-first 806), in milliseconds.
const DEEP_ENOUGH: usize = 20_000;

/// In a large drawing, an edge spanning more than this many ranks joins
/// the edges to the same target that span as many: right after its label
/// they run on as one *trunk*, one dummy per rank, to one port of the
/// target (Graphviz's `concentrate`). So every state going back to the
/// start costs a dummy per rank once rather than once per state, which was
/// quadratic: 2,000 states took 1.8 GB. The edge that reaches farthest draws
/// the trunk and its arrow; the others end where they meet it.
const LONG: usize = 6;

/// A drawing with more layered nodes than [`MAX_NODES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// The layered nodes the drawing needs, or (with composite states, whose
    /// boxes are laid out one at a time) at least needs.
    pub nodes: usize,
    /// [`MAX_NODES`].
    pub limit: usize,
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the drawing needs at least {} layout nodes (states, edge labels and the points \
             where edges cross a rank), more than the limit of {}",
            self.nodes, self.limit
        )
    }
}

impl std::error::Error for TooLarge {}

/// Lay the graph out. Deterministic: the same graph gives the same layout.
impl Graph {
    /// Widen each box that is not compound so that the edges meeting it can
    /// keep [`route::MIN_PORT_SPACING`] apart, all on one side if need be:
    /// a state many transitions reach (a hub every phase returns to) would
    /// otherwise bring their ports, and the runs that leave them, closer
    /// than two edges may run.
    pub(crate) fn make_room_for_ports(&mut self) {
        let mut ends = vec![0usize; self.nodes.len()];
        for edge in self.edges.iter().filter(|e| e.from != e.to) {
            ends[edge.from] += 1;
            ends[edge.to] += 1;
        }
        let mut holds = vec![false; self.nodes.len()];
        for parent in self.parents.iter().flatten() {
            holds[*parent] = true;
        }
        for (node, size) in self.nodes.iter_mut().enumerate() {
            let compound = self.compound.get(node).copied().unwrap_or(false) || holds[node];
            if compound || ends[node] < 2 {
                continue;
            }
            size.width = size.width.max(route::room_for_ports(ends[node]));
        }
    }
}

pub(crate) fn layout(graph: &Graph) -> Result<Layout, TooLarge> {
    if graph.parents.iter().any(Option::is_some) {
        return compound::layout(graph);
    }
    let edges: Vec<rank::RankEdge> = graph
        .edges
        .iter()
        .filter(|e| e.from != e.to)
        .map(rank_edge)
        .collect();
    let ranking = rank_compactly(graph.nodes.len(), &edges, &graph.roots);
    place(graph, &ranking, true)
}

/// Ranks by a depth-first search, or breadth-first when the depth-first
/// ranks make a large drawing (see [`LARGE`]) and the breadth-first ones
/// need fewer dummies.
fn rank_compactly(nodes: usize, edges: &[rank::RankEdge], roots: &[usize]) -> rank::Ranking {
    let deep = rank::rank(nodes, edges, roots, rank::Search::DepthFirst);
    let count = rank::dummies(&deep, edges);
    if count <= LARGE * (nodes + edges.len()) || count <= DEEP_ENOUGH {
        return deep;
    }
    let wide = rank::rank(nodes, edges, roots, rank::Search::BreadthFirst);
    if rank::dummies(&wide, edges) < count {
        wide
    } else {
        deep
    }
}

/// An edge as ranking sees it: a labelled edge spans two ranks at least.
fn rank_edge(e: &Edge) -> rank::RankEdge {
    rank::RankEdge {
        from: e.from,
        to: e.to,
        minlen: if e.label.is_some() { 2 } else { 1 },
    }
}

/// Everything after ranking: order, coordinates and routes. `bundle`
/// allows long edges to share trunks (see [`LONG`]) when the drawing is
/// large; the pieces of edges into and out of compound nodes must not.
fn place(graph: &Graph, ranking: &rank::Ranking, bundle: bool) -> Result<Layout, TooLarge> {
    let loops = route::SelfLoops::new(graph);
    let mut layered = layered(graph, &loops, ranking, bundle)?;
    order::order(&mut layered);
    let Some(header) = graph.leftmost else {
        let placed = position::position(&layered);
        return Ok(route::route(graph, &layered, &placed, &loops));
    };
    // A compound node's inside: placed without its header, which then goes
    // at the top left, and only the ports it covers move right of it. Placed
    // with it, every port would sit right of it and everything below would
    // follow, leaving the box's left side empty.
    let top = layered.slots[header].rank;
    layered.ranks[top].retain(|&v| v != header);
    let mut placed = position::position(&layered);
    let left = (0..layered.slots.len())
        .filter(|&v| v != header)
        .map(|v| placed.x[v] - layered.slots[v].left)
        .fold(f64::INFINITY, f64::min);
    placed.x[header] = if left.is_finite() { left } else { 0.0 } + layered.slots[header].left;
    let rank = &mut layered.ranks[top];
    rank.insert(0, header);
    for i in 1..rank.len() {
        let (u, v) = (rank[i - 1], rank[i]);
        let least = placed.x[u] + position::gap(&layered.slots[u], &layered.slots[v]);
        placed.x[v] = placed.x[v].max(least);
    }
    placed.bands = position::bands(&layered);
    Ok(route::route(graph, &layered, &placed, &loops))
}

/// Cut the ranked graph into rank-to-rank links, with a dummy per rank an
/// edge crosses and its label on the dummy nearest its middle; in a large
/// drawing, long edges to one target share their dummies (see [`LONG`]).
/// Counts the nodes first and allocates nothing beyond [`MAX_NODES`].
fn layered(
    graph: &Graph,
    loops: &route::SelfLoops,
    ranking: &rank::Ranking,
    bundle: bool,
) -> Result<Layered, TooLarge> {
    let rank_of = |v: usize| ranking.ranks[v];
    // (edge, reversed, top, bottom) of every edge but the self-loops.
    let mut ranked = Vec::new();
    for (i, edge) in graph.edges.iter().enumerate() {
        if edge.from == edge.to {
            continue;
        }
        let reversed = ranking.reversed[ranked.len()];
        let (top, bottom) = if reversed {
            (edge.to, edge.from)
        } else {
            (edge.from, edge.to)
        };
        ranked.push((i, reversed, top, bottom));
    }
    let span = |&(_, _, top, bottom): &(usize, bool, usize, usize)| rank_of(bottom) - rank_of(top);
    let separate: usize = ranked.iter().map(|e| span(e) - 1).sum();
    let bundle = bundle && separate > LARGE * (graph.nodes.len() + ranked.len());
    // A bundled edge has a node of its own next to its source (its label,
    // or a dummy) and needs the rest of the trunk of its target, on the
    // target's top or bottom side.
    let bundled = |r: &(usize, bool, usize, usize)| bundle && span(r) > LONG;
    let side = |reversed: bool| usize::from(!reversed);
    let target =
        |&(_, reversed, top, bottom): &(usize, bool, usize, usize)| if reversed { top } else { bottom };
    let mut trunk_length: Vec<[usize; 2]> = vec![[0; 2]; if bundle { graph.nodes.len() } else { 0 }];
    let mut count = graph.nodes.len();
    for r in &ranked {
        if bundled(r) {
            let need = span(r) - 2;
            let length = &mut trunk_length[target(r)][side(r.1)];
            *length = (*length).max(need);
            count += 1;
        } else {
            count += span(r) - 1;
        }
    }
    count += trunk_length.iter().flatten().sum::<usize>();
    if count > MAX_NODES {
        return Err(TooLarge {
            nodes: count,
            limit: MAX_NODES,
        });
    }

    let mut slots: Vec<Slot> = Vec::with_capacity(count);
    slots.extend(graph.nodes.iter().enumerate().map(|(i, size)| {
        let extra = loops.extra(i);
        Slot {
            kind: Kind::Real(i),
            loose: false,
            rank: rank_of(i),
            left: size.width / 2.0,
            right: size.width / 2.0 + extra.width,
            height: size.height.max(extra.height),
        }
    }));
    let dummy = |rank: usize| Slot {
        kind: Kind::Dummy,
        loose: false,
        rank,
        left: 0.0,
        right: 0.0,
        height: 0.0,
    };
    let label_slot = |e: usize, rank: usize, size: Size| Slot {
        kind: Kind::Label(e),
        loose: false,
        rank,
        left: 0.0,
        right: LABEL_GAP + size.width,
        height: size.height,
    };
    // The trunks: dummies going away from the target, one per rank, and
    // whether an edge has drawn one yet.
    let mut trunks: Vec<[(usize, bool); 2]> = vec![[(0, false); 2]; trunk_length.len()];
    for (v, lengths) in trunk_length.iter().enumerate() {
        for (s, &length) in lengths.iter().enumerate() {
            trunks[v][s].0 = slots.len();
            for k in 1..=length {
                let rank = if s == 0 { rank_of(v) + k } else { rank_of(v) - k };
                slots.push(Slot {
                    kind: Kind::Trunk,
                    ..dummy(rank)
                });
            }
        }
    }
    let mut chains = Vec::with_capacity(ranked.len());
    for r in &ranked {
        let &(i, reversed, top, bottom) = r;
        let edge = &graph.edges[i];
        let (r0, r1) = (rank_of(top), rank_of(bottom));
        if bundled(r) {
            // Top to bottom: the target, the trunk, the label, the source;
            // or the source, the label, the trunk, the target.
            let need = span(r) - 2;
            let (start, length) = (
                trunks[target(r)][side(reversed)].0,
                trunk_length[target(r)][side(reversed)],
            );
            let drawn = &mut trunks[target(r)][side(reversed)].1;
            let owner = need == length && !*drawn;
            *drawn |= owner;
            let shared = if owner {
                start..start + need
            } else {
                start + need - 1..start + need
            };
            let rank = if reversed { r1 - 1 } else { r0 + 1 };
            let mut slot = edge
                .label
                .map_or_else(|| dummy(rank), |size| label_slot(i, rank, size));
            slot.loose = true;
            let label = slots.len();
            slots.push(slot);
            let mut nodes = Vec::with_capacity(shared.len() + 3);
            if reversed {
                if owner {
                    nodes.push(top);
                }
                nodes.extend(shared);
                nodes.push(label);
                nodes.push(bottom);
            } else {
                nodes.push(top);
                nodes.push(label);
                nodes.extend(shared.rev());
                if owner {
                    nodes.push(bottom);
                }
            }
            chains.push(Chain {
                edge: i,
                reversed,
                nodes,
                joins: (!owner).then_some(reversed),
            });
            continue;
        }
        let span = r1 - r0;
        // The label's rank: the odd offset nearest the middle, which is a
        // rank of labels when both ends sit on ranks of states.
        let label_at = edge.label.map(|_| {
            let half = span / 2;
            if half % 2 == 1 {
                half
            } else {
                half.saturating_sub(1).max(1)
            }
        });
        let mut nodes = Vec::with_capacity(span + 1);
        nodes.push(top);
        for k in 1..span {
            let slot = match (label_at, edge.label) {
                (Some(at), Some(size)) if at == k => label_slot(i, r0 + k, size),
                _ => dummy(r0 + k),
            };
            nodes.push(slots.len());
            slots.push(slot);
        }
        nodes.push(bottom);
        chains.push(Chain {
            edge: i,
            reversed,
            nodes,
            joins: None,
        });
    }
    debug_assert_eq!(slots.len(), count, "the count was exact");
    let rank_count = slots.iter().map(|s| s.rank + 1).max().unwrap_or(0);
    let mut up = vec![Vec::new(); slots.len()];
    let mut down = vec![Vec::new(); slots.len()];
    let mut up_at = vec![Vec::new(); slots.len()];
    let mut down_at = vec![Vec::new(); slots.len()];
    for chain in &chains {
        let [at_from, at_to] = graph.edges[chain.edge].ports;
        let (at_top, at_bottom) = if chain.reversed {
            (at_to, at_from)
        } else {
            (at_from, at_to)
        };
        let last = chain.nodes.len() - 2;
        for (k, pair) in chain.nodes.windows(2).enumerate() {
            let (a, b) = (pair[0], pair[1]);
            let offset = |port: Option<f64>, v: usize| port.map_or(0.0, |dx| dx - slots[v].left);
            let at_a = offset(at_top.filter(|_| k == 0 && chain.joins != Some(true)), a);
            let at_b = offset(at_bottom.filter(|_| k == last && chain.joins != Some(false)), b);
            down[a].push(b);
            down_at[a].push((at_b, at_a));
            up[b].push(a);
            up_at[b].push((at_a, at_b));
        }
    }
    Ok(Layered {
        ranks: vec![Vec::new(); rank_count],
        slots,
        up,
        down,
        up_at,
        down_at,
        chains,
    })
}
