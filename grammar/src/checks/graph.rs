//! The state graph facts the liveness checks share, each computed once in
//! time linear in states plus transitions.

use crate::model::{Machine, Source, StateId};
use std::collections::VecDeque;

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

impl Graph {
    pub(crate) fn new(m: &Machine) -> Self {
        let n = m.states.len();
        let live = |s: StateId| !m.state(s).is_terminal();
        // Own edges of non-terminal states, and the `any` targets that every
        // non-terminal state shares.
        let mut succ: Vec<Vec<StateId>> = vec![Vec::new(); n];
        let mut pred: Vec<Vec<StateId>> = vec![Vec::new(); n];
        let mut any_targets: Vec<StateId> = Vec::new();
        let edges = m.transitions.iter().filter_map(|t| Some((t.source, t.target?)));
        for (source, to) in edges.chain(m.guessed_edges.iter().copied()) {
            match source {
                Source::State(from) if live(from) => {
                    succ[from.index()].push(to);
                    pred[to.index()].push(from);
                }
                Source::State(_) => {}
                Source::Any => any_targets.push(to),
            }
        }
        any_targets.sort_unstable();
        any_targets.dedup();

        // Forward search; the `any` targets join the frontier once, at the
        // first non-terminal state visited.
        let mut reachable = vec![false; n];
        let mut queue = VecDeque::from([m.initial]);
        reachable[m.initial.index()] = true;
        let mut any_done = false;
        while let Some(s) = queue.pop_front() {
            let any = if live(s) && !any_done {
                any_done = true;
                any_targets.as_slice()
            } else {
                &[]
            };
            for &to in succ[s.index()].iter().chain(any) {
                if !reachable[to.index()] {
                    reachable[to.index()] = true;
                    queue.push_back(to);
                }
            }
        }

        // Backward search from the terminal states. Reaching an `any` target
        // means every non-terminal state reaches a terminal one.
        let mut reaches_terminal = vec![false; n];
        let mut queue: VecDeque<StateId> = m.state_ids().filter(|&s| !live(s)).collect();
        for &s in &queue {
            reaches_terminal[s.index()] = true;
        }
        let is_any_target = {
            let mut v = vec![false; n];
            for t in &any_targets {
                v[t.index()] = true;
            }
            v
        };
        let mut all_live_done = false;
        while let Some(s) = queue.pop_front() {
            let mut visit = |p: StateId, queue: &mut VecDeque<StateId>| {
                if !reaches_terminal[p.index()] {
                    reaches_terminal[p.index()] = true;
                    queue.push_back(p);
                }
            };
            for &p in &pred[s.index()] {
                visit(p, &mut queue);
            }
            if is_any_target[s.index()] && !all_live_done {
                all_live_done = true;
                for p in m.state_ids().filter(|&p| live(p)) {
                    visit(p, &mut queue);
                }
            }
        }

        // `any_targets` is sorted and deduplicated: with two or more, every
        // state has one that is not itself.
        let any_exit = |s: StateId| match any_targets.as_slice() {
            [] => false,
            [only] => *only != s,
            _ => true,
        };
        let has_exit = m
            .state_ids()
            .map(|s| live(s) && (succ[s.index()].iter().any(|&t| t != s) || any_exit(s)))
            .collect();

        Graph {
            reachable,
            reaches_terminal,
            has_exit,
            has_terminal: m.states.iter().any(|s| s.is_terminal()),
        }
    }
}
