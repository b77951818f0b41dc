//! The state graph facts the liveness checks share, each computed once in
//! time linear in states plus transitions (up to a logarithmic factor).
//!
//! A state that handles an action itself with an unguarded transition does not
//! get the `any` edges on that action it overrides: those of the same or a
//! lower priority, which by the selection order (docs/dsl.md) are tried after
//! its own and never fire there. That is the deliberate override, not an
//! error. Candidates shadowed in any other way (within a state's own
//! transitions, within the `any` block, or an own one by an `any` one) are
//! reported as `shadowed-transition` (an error) and keep their edges, like
//! guessed edges, so one mistake is not reported again as unreachable states. Guards are not
//! evaluated here: guarded candidates all count. Timers (`after`) are edges
//! of their state like its own transitions.

use crate::model::{ActionId, EventlessKind, HistoryKind, Machine, Source, StateId, Transition};
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, VecDeque};

pub(crate) struct Graph {
    /// Reachable from the initial state.
    pub reachable: Vec<bool>,
    /// Some terminal state is reachable from here (terminal states included).
    pub reaches_terminal: Vec<bool>,
    /// Has a transition (own or `any`) to a different state.
    pub has_exit: Vec<bool>,
    /// The machine has at least one terminal state.
    pub has_terminal: bool,
}

/// The `any` edges, per action (`None`: guessed edges
/// without one, which no state overrides), highest priority first.
type AnyEdges = BTreeMap<Option<ActionId>, Vec<(i32, StateId)>>;

impl Graph {
    pub(crate) fn new(m: &Machine) -> Self {
        if m.is_nested() {
            return Self::nested(m);
        }
        let n = m.states.len();
        let live = |s: StateId| !m.state(s).is_terminal();
        let tr = |t| m.transition(t);

        // `any` edges per action, highest priority first.
        let mut any_edges: AnyEdges = BTreeMap::new();
        for &t in m.any_transitions() {
            if let Some(to) = tr(t).target {
                any_edges
                    .entry(Some(tr(t).expect_action()))
                    .or_default()
                    .push((tr(t).priority, to));
            }
        }
        for edges in any_edges.values_mut() {
            edges.sort_by_key(|&(p, _)| Reverse(p));
        }
        for &(source, to) in &m.guessed_edges {
            if source == Source::Any {
                any_edges.entry(None).or_default().push((i32::MAX, to));
            }
        }

        // Own edges, and per state and action the highest priority of an
        // unguarded own transition: the `any` edges it overrides.
        let mut succ: Vec<Vec<StateId>> = vec![Vec::new(); n];
        let mut pred: Vec<Vec<StateId>> = vec![Vec::new(); n];
        let mut overrides: Vec<BTreeMap<ActionId, i32>> = vec![BTreeMap::new(); n];
        for s in m.state_ids().filter(|&s| live(s)) {
            for &t in m.own_transitions(s) {
                let t = tr(t);
                if let Some(to) = t.target {
                    succ[s.index()].push(to);
                    pred[to.index()].push(s);
                }
                // Only `any` edges can be overridden: without them the map
                // stays empty (a map per state is most of this graph's memory).
                if t.guard.is_none() && !m.any_transitions().is_empty() {
                    let q = overrides[s.index()]
                        .entry(t.expect_action())
                        .or_insert(t.priority);
                    *q = (*q).max(t.priority);
                }
            }
        }
        // Timer edges count like own edges: a state left only by a timer is
        // not a dead end. They override no `any` edge (a timer is no action).
        for (state, target) in m
            .timers
            .iter()
            .map(|t| (t.expect_state(), t.target))
            .chain(m.eventless.iter().map(|t| (t.expect_state(), t.target)))
        {
            if let (Some(to), true) = (target, live(state)) {
                succ[state.index()].push(to);
                pred[to.index()].push(state);
            }
        }
        for &(source, to) in &m.guessed_edges {
            if let Source::State(from) = source {
                if live(from) {
                    succ[from.index()].push(to);
                    pred[to.index()].push(from);
                }
            }
        }
        // Whether `s` overrides the `any` edge on `action` at priority `p`.
        let killed = |s: StateId, action: Option<ActionId>, p: i32| {
            action
                .and_then(|a| overrides[s.index()].get(&a))
                .is_some_and(|&q| q >= p)
        };

        // Forward search. Per action, the `any` edges released so far are a
        // prefix (by priority) of its list; actions some visited state does
        // not override at all are released whole and dropped from `pending`.
        let mut reachable = vec![false; n];
        let mut queue = VecDeque::from([m.initial]);
        reachable[m.initial.index()] = true;
        let mut released: BTreeMap<Option<ActionId>, usize> = any_edges.keys().map(|&a| (a, 0)).collect();
        let mut pending: Vec<Option<ActionId>> = any_edges.keys().copied().collect();
        while let Some(s) = queue.pop_front() {
            let mut next: Vec<StateId> = succ[s.index()].clone();
            if live(s) {
                pending.retain(|&action| {
                    let edges = &any_edges[&action];
                    let upto = match action.and_then(|a| overrides[s.index()].get(&a)) {
                        Some(&q) => edges.partition_point(|&(p, _)| p > q),
                        None => edges.len(),
                    };
                    let done = released.get_mut(&action).expect("every action has an entry");
                    if upto > *done {
                        next.extend(edges[*done..upto].iter().map(|&(_, to)| to));
                        *done = upto;
                    }
                    upto < edges.len()
                });
            }
            for to in next {
                if !reachable[to.index()] {
                    reachable[to.index()] = true;
                    queue.push_back(to);
                }
            }
        }

        // Backward search from the terminal states. Reaching the target of an
        // `any` edge means every live state that does not override it does.
        let mut any_into: Vec<Vec<(Option<ActionId>, i32)>> = vec![Vec::new(); n];
        for (&action, edges) in &any_edges {
            for &(p, to) in edges {
                any_into[to.index()].push((action, p));
            }
        }
        let mut reaches_terminal = vec![false; n];
        let mut queue: VecDeque<StateId> = m.state_ids().filter(|&s| !live(s)).collect();
        for &s in &queue {
            reaches_terminal[s.index()] = true;
        }
        // Live states not yet known to reach a terminal state.
        let mut waiting: Vec<StateId> = m.state_ids().filter(|&s| live(s)).collect();
        // Per action, the highest priority of an `any` edge already followed back.
        let mut best: BTreeMap<Option<ActionId>, i32> = BTreeMap::new();
        while let Some(s) = queue.pop_front() {
            for &p in &pred[s.index()] {
                if !reaches_terminal[p.index()] {
                    reaches_terminal[p.index()] = true;
                    queue.push_back(p);
                }
            }
            for &(action, p) in &any_into[s.index()] {
                if best.get(&action).is_some_and(|&b| b >= p) {
                    continue;
                }
                best.insert(action, p);
                waiting.retain(|&w| {
                    if reaches_terminal[w.index()] {
                        return false;
                    }
                    if killed(w, action, p) {
                        return true;
                    }
                    reaches_terminal[w.index()] = true;
                    queue.push_back(w);
                    false
                });
            }
        }

        // A way out: an own edge to another state, or an `any` edge to
        // another state that the state does not override. Counted: the `any`
        // edges not into `s`, minus those `s` overrides that are not into `s`.
        let total: usize = any_edges.values().map(Vec::len).sum();
        let has_exit = m
            .state_ids()
            .map(|s| {
                if !live(s) {
                    return false;
                }
                if succ[s.index()].iter().any(|&t| t != s) {
                    return true;
                }
                let overridden: usize = overrides[s.index()]
                    .iter()
                    .map(|(&a, &q)| {
                        let edges = any_edges.get(&Some(a)).map(Vec::as_slice).unwrap_or_default();
                        edges.len() - edges.partition_point(|&(p, _)| p > q)
                    })
                    .sum();
                let into = &any_into[s.index()];
                let overridden_into = into.iter().filter(|&&(a, p)| killed(s, a, p)).count();
                (total - into.len()) > (overridden - overridden_into)
            })
            .collect();

        Graph {
            reachable,
            reaches_terminal,
            has_exit,
            has_terminal: m.states.iter().any(|s| s.is_terminal()),
        }
    }

    /// The same facts for a machine with composite states, over its leaves
    /// (the machine is always in a leaf). A leaf's edges are its candidates
    /// on each action ([`Machine::candidate_groups`]: its own, its
    /// ancestors' and the `any` block's) up to the first unguarded one, and
    /// the timers of it and its ancestors. An edge into a composite enters
    /// its initial leaf; into a history, its initial leaf going forward (any
    /// other leaf it may resume was reached before) and, going backward,
    /// every leaf inside it. A composite is reachable when a leaf inside it
    /// is, and counts as having a way out and a path to a terminal state
    /// (the checks report its leaves). Time: leaves × candidates of a leaf.
    ///
    /// With parallel states the machine is in one leaf per region, and the
    /// facts are over-approximated per leaf: an edge enters every leaf of
    /// its target's default entry, and the default entries of the other
    /// regions of each parallel state around the target; `always` edges are
    /// a leaf's and its ancestors', a `done` edge leaves every final leaf
    /// inside its state; and a leaf inside a parallel state may leave it
    /// whenever a leaf of another region can (through the parallel state's
    /// node, which stands for "some region leaves").
    fn nested(m: &Machine) -> Self {
        let n = m.states.len();
        let live = |s: StateId| !m.state(s).is_terminal();
        // The leaves inside each state, found once: leaves × depth.
        let mut leaves_inside: Vec<Vec<StateId>> = vec![Vec::new(); n];
        for leaf in m.leaves() {
            for a in m.ancestors(leaf) {
                leaves_inside[a.index()].push(leaf);
            }
        }
        let mut graph = Nodes {
            succ: vec![Vec::new(); n],
            pred: vec![Vec::new(); n],
            hub_leaves: Vec::new(),
            n,
        };
        // Hubs: "enter this state by default" and "a leaf inside this
        // state" (for a history target, going backward), each built once,
        // so that an edge into a large state costs one edge, not one per
        // leaf it may enter.
        let mut enter_hub: HashMap<StateId, usize> = HashMap::new();
        let mut inside_hub: HashMap<StateId, usize> = HashMap::new();
        let mut edge = |graph: &mut Nodes, from: StateId, to: StateId, history: Option<HistoryKind>| {
            let f = from.index();
            // Parallel states the transition enters (or re-enters, from
            // another region): their other regions start by default.
            let entered_parallel = m
                .ancestors(to)
                .filter(|&p| m.state(p).is_parallel())
                .filter(|&p| {
                    let toward = |s: StateId| m.ancestors_or_self(s).find(|&x| m.state(x).parent == Some(p));
                    !m.is_inside(from, p) || toward(from) != toward(to)
                });
            let mut forward: Vec<usize> = Vec::new();
            if !m.state(to).is_composite() && history.is_none() {
                forward.push(to.index());
            } else {
                forward.push(graph.hub(&mut enter_hub, to, || {
                    m.default_entry(to)
                        .into_iter()
                        .filter(|&x| !m.state(x).is_composite())
                        .collect()
                }));
            }
            for p in entered_parallel {
                forward.push(graph.hub(&mut enter_hub, p, || {
                    m.default_entry(p)
                        .into_iter()
                        .filter(|&x| !m.state(x).is_composite())
                        .collect()
                }));
            }
            for &node in &forward {
                graph.succ[f].push(node);
            }
            match history {
                None => forward.into_iter().for_each(|node| graph.pred[node].push(f)),
                Some(_) => {
                    let hub = graph.hub(&mut inside_hub, to, || leaves_inside[to.index()].clone());
                    graph.pred[hub].push(f);
                    // The other regions it may start, as without history.
                    forward
                        .into_iter()
                        .skip(1)
                        .for_each(|node| graph.pred[node].push(f));
                }
            }
        };
        for leaf in m.leaves().filter(|&l| live(l)) {
            for (_, group) in m.candidate_groups(leaf) {
                for &t in &group {
                    let t = m.transition(t);
                    if let Some(to) = t.target {
                        edge(&mut graph, leaf, to, t.history);
                    }
                    if t.guard.is_none() {
                        break;
                    }
                }
            }
            for (_, t) in m.timers_in(leaf) {
                if let Some(to) = t.target {
                    edge(&mut graph, leaf, to, t.history);
                }
            }
            for (i, t) in eventless_of(m, leaf) {
                let _ = i;
                if let Some(to) = t.target {
                    edge(&mut graph, leaf, to, t.history);
                }
            }
            for &(source, to) in &m.guessed_edges {
                let applies = match source {
                    Source::Any => true,
                    Source::State(s) => s == leaf || m.is_inside(leaf, s),
                };
                if applies {
                    edge(&mut graph, leaf, to, None);
                }
            }
        }

        // Some region leaves a parallel state: its node, between each leaf
        // inside it and what a leaf inside it reaches outside it.
        for p in m.state_ids().filter(|&p| m.state(p).is_parallel()) {
            let inner = &leaves_inside[p.index()];
            let outside = |node: usize| -> bool {
                if node < n {
                    !m.is_inside(StateId::from_index(node), p)
                } else {
                    graph.hub_leaves[node - n].iter().any(|&l| !m.is_inside(l, p))
                }
            };
            let mut out: Vec<usize> = inner
                .iter()
                .flat_map(|l| graph.succ[l.index()].iter().copied())
                .filter(|&node| outside(node))
                .collect();
            out.sort_unstable();
            out.dedup();
            if out.is_empty() {
                continue;
            }
            for &node in &out {
                graph.pred[node].push(p.index());
            }
            graph.succ[p.index()] = out;
            for l in inner {
                graph.succ[l.index()].push(p.index());
                graph.pred[p.index()].push(l.index());
            }
        }

        let total = graph.succ.len();
        let mut reached = vec![false; total];
        let mut queue: VecDeque<usize> = m
            .initial_configuration()
            .into_iter()
            .filter(|&s| !m.state(s).is_composite())
            .map(StateId::index)
            .collect();
        for &s in &queue {
            reached[s] = true;
        }
        while let Some(s) = queue.pop_front() {
            for &to in &graph.succ[s] {
                if !reached[to] {
                    reached[to] = true;
                    queue.push_back(to);
                }
            }
        }
        let mut reaches = vec![false; total];
        let mut queue: VecDeque<usize> = m.leaves().filter(|&s| !live(s)).map(StateId::index).collect();
        for &s in &queue {
            reaches[s] = true;
        }
        while let Some(s) = queue.pop_front() {
            for &p in &graph.pred[s] {
                if !reaches[p] {
                    reaches[p] = true;
                    queue.push_back(p);
                }
            }
        }
        let mut reachable: Vec<bool> = reached[..n].to_vec();
        let mut reaches_terminal: Vec<bool> = reaches[..n].to_vec();
        // A way out: a successor that is another leaf, a hub entering some
        // other leaf, or a parallel state's node (some region leaves it).
        let mut has_exit: Vec<bool> = m
            .state_ids()
            .map(|s| {
                live(s)
                    && graph.succ[s.index()].iter().any(|&to| {
                        if to < n {
                            to != s.index()
                        } else {
                            graph.hub_leaves[to - n].iter().any(|&l| l != s)
                        }
                    })
            })
            .collect();
        // Composites take their facts from their leaves.
        let reached_leaves: Vec<StateId> = m.leaves().filter(|l| reachable[l.index()]).collect();
        for leaf in reached_leaves {
            for a in m.ancestors(leaf) {
                reachable[a.index()] = true;
            }
        }
        for s in m.state_ids().filter(|&s| m.state(s).is_composite()) {
            has_exit[s.index()] = true;
            reaches_terminal[s.index()] = true;
        }
        Graph {
            reachable,
            reaches_terminal,
            has_exit,
            has_terminal: m.states.iter().any(|s| s.is_terminal()),
        }
    }
}

/// The nested graph's nodes: the states (by index), then hubs, each standing
/// for a set of leaves ([`Nodes::hub`]).
struct Nodes {
    succ: Vec<Vec<usize>>,
    pred: Vec<Vec<usize>>,
    /// Per hub (node `n + i`): its leaves.
    hub_leaves: Vec<Vec<StateId>>,
    n: usize,
}

impl Nodes {
    /// The hub of `state` in `hubs`, made on first use with the leaves
    /// `leaves` gives: it leads to each of them.
    fn hub(
        &mut self,
        hubs: &mut HashMap<StateId, usize>,
        state: StateId,
        leaves: impl FnOnce() -> Vec<StateId>,
    ) -> usize {
        if let Some(&hub) = hubs.get(&state) {
            return hub;
        }
        let hub = self.n + self.hub_leaves.len();
        let leaves = leaves();
        self.succ.push(leaves.iter().map(|l| l.index()).collect());
        self.pred.push(Vec::new());
        for l in &leaves {
            self.pred[l.index()].push(hub);
        }
        self.hub_leaves.push(leaves);
        hubs.insert(state, hub);
        hub
    }
}

/// The `always` transitions that apply in `leaf` (its own and its
/// ancestors'), and for a final leaf the `done` transitions of the states
/// holding it: depth lookups, not a pass over every transition.
fn eventless_of(m: &Machine, leaf: StateId) -> impl Iterator<Item = (usize, &Transition)> + '_ {
    let is_final = m.state(leaf).is_final();
    m.ancestors_or_self(leaf).flat_map(move |level| {
        m.eventless_of(level)
            .filter(move |(_, e)| match e.eventless_kind() {
                Some(EventlessKind::Always) => true,
                _ => is_final && level != leaf,
            })
    })
}
