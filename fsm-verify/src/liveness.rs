//! `F leads to G` over the graph of stored states the search built: a
//! violation is a fair run that reaches a state where `F` holds and `G`
//! does not, and then never meets `G`. Such a run either ends where the
//! machine rests (no timer armed, no assumed action accepted: the
//! environment may stop sending events) or goes round a fair cycle, found
//! among the strongly connected components of the states where `G` does
//! not hold (Tarjan's algorithm, then the components cut down until the
//! fairness holds, as for Streett conditions).
//!
//! Fairness on a cycle: time passes (a cycle where a timer stays armed in
//! every state takes an advance), and each assumed action accepted
//! somewhere on the cycle is taken on it.

use crate::search::{move_of, path_to, step_between, Store, ADVANCE};
use crate::step::Tables;
use crate::Path;
use std::collections::VecDeque;

/// The graph of moves: per stored state, each move out as (to, via).
pub(crate) struct Graph {
    pub out: Vec<Vec<(u32, u32)>>,
}

/// Where a violation goes after reaching a state where `F` holds and `G`
/// does not.
pub(crate) enum Found {
    /// A lasso, or a path to a state where the machine rests.
    Path(Path),
    /// None: the property holds on the graph.
    Nothing,
    /// A step could not be run again (never expected).
    Lost,
}

/// Decide `F leads to G` on the graph; `f` and `g` tell the formulas'
/// values per stored state, `assumed` the actions the environment keeps
/// sending.
pub(crate) fn leads_to<const W: usize>(
    tables: &Tables<'_>,
    store: &Store,
    graph: &Graph,
    f: &dyn Fn(&[u64]) -> bool,
    g: &dyn Fn(&[u64]) -> bool,
    assumed: &[u32],
    max_answers: usize,
) -> Found {
    let n = store.len();
    let inside: Vec<bool> = (0..n).map(|i| !g(store.row(i))).collect();
    let armed: Vec<bool> = (0..n).map(|i| tables.any_armed(store.row(i))).collect();
    let accepts = |i: usize, a: u32| graph.out[i].iter().any(|&(_, via)| via == a);

    // The ends of a fair run: resting states, and the states of fair
    // components (each with the component it is in).
    let rest: Vec<bool> = (0..n)
        .map(|i| inside[i] && !armed[i] && !assumed.iter().any(|&a| accepts(i, a)))
        .collect();
    let mut end = rest.clone();
    let mut component = vec![u32::MAX; n];
    let mut fair: Vec<Vec<u32>> = Vec::new();
    let mut tarjan = Tarjan::new(n);
    let mut work = tarjan.run(
        &graph.out,
        &|i| inside[i as usize],
        (0..n as u32).filter(|&i| inside[i as usize]),
    );
    // Which component a state is in while it is looked at: a stamp per
    // component, so that no array is allocated per component.
    let mut stamp = vec![u32::MAX; n];
    let mut stamps = 0u32;
    while let Some(c) = work.pop() {
        let single = c.len() == 1 && !graph.out[c[0] as usize].iter().any(|&(to, _)| to == c[0]);
        if single {
            continue; // One state, no edge to itself: no cycle.
        }
        stamps += 1;
        for &i in &c {
            stamp[i as usize] = stamps;
        }
        let this = stamps;
        let stamp_ref = &stamp;
        let internal = |i: u32| {
            graph.out[i as usize]
                .iter()
                .filter(move |&&(to, _)| stamp_ref[to as usize] == this)
                .map(|&(_, via)| via)
        };
        let unfair: Vec<u32> = assumed
            .iter()
            .copied()
            .filter(|&a| {
                c.iter().any(|&i| accepts(i as usize, a))
                    && !c.iter().any(|&i| internal(i).any(|via| via == a))
            })
            .collect();
        if unfair.is_empty() {
            let time_passes = c
                .iter()
                .any(|&i| !armed[i as usize] || internal(i).any(|via| via == ADVANCE));
            if time_passes {
                for &i in &c {
                    end[i as usize] = true;
                    component[i as usize] = fair.len() as u32;
                }
                fair.push(c);
            }
            continue;
        }
        // A run staying here would refuse an assumed action for ever: keep
        // only the states that do not accept it, and look again.
        let kept: Vec<u32> = c
            .iter()
            .copied()
            .filter(|&i| !unfair.iter().any(|&a| accepts(i as usize, a)))
            .collect();
        stamps += 1;
        for &i in &kept {
            stamp[i as usize] = stamps;
        }
        let keep = stamps;
        let stamp_ref = &stamp;
        work.extend(tarjan.run(&graph.out, &|i| stamp_ref[i as usize] == keep, kept.into_iter()));
    }

    // Which states of `inside` reach an end without leaving it.
    let mut into: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (from, edges) in graph.out.iter().enumerate() {
        if inside[from] {
            for &(to, _) in edges {
                if inside[to as usize] {
                    into[to as usize].push(from as u32);
                }
            }
        }
    }
    let mut reaches = end.clone();
    let mut queue: VecDeque<u32> = (0..n as u32).filter(|&i| end[i as usize]).collect();
    while let Some(i) = queue.pop_front() {
        for &from in &into[i as usize] {
            if !reaches[from as usize] {
                reaches[from as usize] = true;
                queue.push_back(from);
            }
        }
    }
    // The nearest start: the search stored states in breadth-first order.
    let Some(start) = (0..n).find(|&i| reaches[i] && f(store.row(i))) else {
        return Found::Nothing;
    };
    let mut path = path_to::<W>(tables, store, start as u32, max_answers);
    // On to the nearest end, inside.
    let Some(way) = shortest(graph, start as u32, &|i| inside[i as usize], &|i| end[i as usize]) else {
        return Found::Lost;
    };
    let at = way.last().map_or(start as u32, |&(_, _, to)| to);
    if !push::<W>(tables, store, &mut path, &way, max_answers) {
        return Found::Lost;
    }
    let c = component[at as usize];
    if rest[at as usize] || c == u32::MAX {
        return Found::Path(path); // It rests there.
    }
    // Round the fair component: through an edge of each assumed action it
    // accepts, and an advance (or a state with no timer armed), and back.
    let c = &fair[c as usize];
    let mut member = vec![false; n];
    for &i in c {
        member[i as usize] = true;
    }
    let within = |i: u32| member[i as usize];
    let mut needed: Vec<(u32, u32, u32)> = Vec::new();
    let internal_edge = |want: &dyn Fn(u32) -> bool| {
        c.iter().find_map(|&i| {
            graph.out[i as usize]
                .iter()
                .find(|&&(to, via)| within(to) && want(via))
                .map(|&(to, via)| (i, via, to))
        })
    };
    for &a in assumed {
        if c.iter().any(|&i| accepts(i as usize, a)) {
            needed.extend(internal_edge(&|via| via == a));
        }
    }
    if let Some(advance) = internal_edge(&|via| via == ADVANCE) {
        needed.push(advance);
    }
    if needed.is_empty() {
        // Some state rests between the steps: any edge of the cycle.
        needed.extend(internal_edge(&|_| true));
    }
    let cycle_start = path.steps.len();
    let mut here = at;
    let mut cycle: Vec<(u32, u32, u32)> = Vec::new();
    for (from, via, to) in needed {
        let Some(way) = shortest(graph, here, &within, &|i| i == from) else {
            return Found::Lost;
        };
        cycle.extend(way);
        cycle.push((from, via, to));
        here = to;
    }
    if here != at {
        let Some(way) = shortest(graph, here, &within, &|i| i == at) else {
            return Found::Lost;
        };
        cycle.extend(way);
    }
    if !push::<W>(tables, store, &mut path, &cycle, max_answers) {
        return Found::Lost;
    }
    path.cycle = Some(cycle_start);
    Found::Path(path)
}

/// Append the steps of `edges` (from, via, to) to `path`; false when one
/// cannot be run again.
fn push<const W: usize>(
    tables: &Tables<'_>,
    store: &Store,
    path: &mut Path,
    edges: &[(u32, u32, u32)],
    max_answers: usize,
) -> bool {
    for &(from, via, to) in edges {
        let (from, to) = (store.row(from as usize), store.row(to as usize));
        match step_between::<W>(tables, from, move_of(via), to, max_answers) {
            Some(step) => path.steps.push(step),
            None => return false,
        }
    }
    true
}

/// The edges of a shortest way from `from` to a state `goal` accepts,
/// through states `within` accepts; empty when `from` is one.
fn shortest(
    graph: &Graph,
    from: u32,
    within: &dyn Fn(u32) -> bool,
    goal: &dyn Fn(u32) -> bool,
) -> Option<Vec<(u32, u32, u32)>> {
    if goal(from) {
        return Some(Vec::new());
    }
    let mut came: std::collections::HashMap<u32, (u32, u32)> = std::collections::HashMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(i) = queue.pop_front() {
        for &(to, via) in &graph.out[i as usize] {
            if !within(to) || to == from || came.contains_key(&to) {
                continue;
            }
            came.insert(to, (i, via));
            if goal(to) {
                let mut way = Vec::new();
                let mut at = to;
                while at != from {
                    let (prev, via) = came[&at];
                    way.push((prev, via, at));
                    at = prev;
                }
                way.reverse();
                return Some(way);
            }
            queue.push_back(to);
        }
    }
    None
}

/// Tarjan's algorithm, without recursion (the graph may hold millions of
/// states), its arrays kept between runs and reset only where a run wrote.
struct Tarjan {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
}

const UNSEEN: u32 = u32::MAX;

impl Tarjan {
    fn new(n: usize) -> Tarjan {
        Tarjan {
            index: vec![UNSEEN; n],
            low: vec![0; n],
            on_stack: vec![false; n],
        }
    }

    /// The strongly connected components of the graph cut down to the
    /// states `keep` accepts, found from `roots` (each accepted).
    fn run(
        &mut self,
        out: &[Vec<(u32, u32)>],
        keep: &dyn Fn(u32) -> bool,
        roots: impl Iterator<Item = u32>,
    ) -> Vec<Vec<u32>> {
        let Tarjan { index, low, on_stack } = self;
        let mut stack: Vec<u32> = Vec::new();
        let mut found: Vec<Vec<u32>> = Vec::new();
        let mut next = 0u32;
        // (state, the position of the next edge to look at)
        let mut calls: Vec<(u32, usize)> = Vec::new();
        for root in roots {
            if index[root as usize] != UNSEEN {
                continue;
            }
            calls.push((root, 0));
            index[root as usize] = next;
            low[root as usize] = next;
            next += 1;
            stack.push(root);
            on_stack[root as usize] = true;
            while let Some(&mut (v, ref mut edge)) = calls.last_mut() {
                if let Some(&(w, _)) = out[v as usize].get(*edge) {
                    *edge += 1;
                    if !keep(w) {
                        continue;
                    }
                    if index[w as usize] == UNSEEN {
                        index[w as usize] = next;
                        low[w as usize] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w as usize] = true;
                        calls.push((w, 0));
                    } else if on_stack[w as usize] {
                        low[v as usize] = low[v as usize].min(index[w as usize]);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(parent, _)) = calls.last() {
                    low[parent as usize] = low[parent as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    let mut c = Vec::new();
                    loop {
                        let w = stack.pop().expect("v is on the stack");
                        on_stack[w as usize] = false;
                        c.push(w);
                        if w == v {
                            break;
                        }
                    }
                    found.push(c);
                }
            }
        }
        // Every state a run numbered is in one of its components.
        for &i in found.iter().flatten() {
            index[i as usize] = UNSEEN;
        }
        found
    }
}
