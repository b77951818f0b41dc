//! `fsmc test`: event sequences that together take every transition (timers,
//! `always` and `done` included) and give each guard of a transition both
//! values where both are possible.
//!
//! The stored states are those of the search ([`crate::verify`]), explored
//! breadth-first with the one step, each move run once per sequence of guard
//! answers, and each run recording what it took and what its guards said.
//! Every run is an edge of a graph, except one that asks a guard twice
//! with two answers: a test sets each guard once per step, as `fsmc run`
//! does. The sequences are then built greedily:
//! from where the last one stopped, the nearest edge that reaches a goal not
//! yet reached (breadth-first, so the way there is shortest; among the
//! nearest, the one reaching the most goals), until none is reachable from
//! there; then a new sequence starts from the initial state. Each sequence
//! is replayed on the dynamic engine before it is returned.
//!
//! The lower bound reported beside the total number of events holds for any
//! set of sequences from the initial state that reaches every goal the
//! search reached: the longest of the shortest ways to one goal, and the
//! goals divided by the most one event reaches.

use crate::replay::replay;
use crate::search::{contains, move_of, Store, ADVANCE, ROOT};
use crate::step::{Answers, Move, Outcome, Tables};
use crate::{Options, Path, Step, TooLarge};
use fsm_grammar::model::{Chosen, GuardId, Machine};
use std::collections::VecDeque;

/// The most greedy tries (see [`cover_in`]).
const TRIES: usize = 32;

/// What a suite must do at least once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goal {
    /// Take the transition.
    Taken(Chosen),
    /// Evaluate the transition's guard to this value.
    Guard(Chosen, bool),
}

/// The generated sequences and what they reach.
#[derive(Clone, Debug)]
pub struct Suite {
    /// Each sequence starts from the initial state.
    pub sequences: Vec<Path>,
    /// Every goal of the machine: each transition in the order of the
    /// plan's chart, followed (when it has a guard) by its guard true and
    /// its guard false.
    pub goals: Vec<Goal>,
    /// Per goal: the sequence and the step (both from 0) that first reach
    /// it; `None` when no sequence does.
    pub reached: Vec<Option<(usize, usize)>>,
    /// Events (actions and advances) over every sequence.
    pub events: usize,
    /// No set of sequences reaching the same goals has fewer events.
    pub lower_bound: usize,
    /// States stored.
    pub states: usize,
    /// True when every stored state was explored: a goal not reached then
    /// cannot be reached (up to the instants the search fires actions at;
    /// see docs/verifying.md, "Time").
    pub complete: bool,
    /// Sequences that did not replay on the dynamic engine, with why: an
    /// error of fsmc's, never expected.
    pub unreplayed: Vec<(usize, String)>,
}

/// One run of one move from one stored state.
struct Edge {
    from: u32,
    to: u32,
    mv: Move,
    asked: Vec<(GuardId, bool)>,
    outcome: Outcome,
    /// Indices into [`Suite::goals`], each once.
    goals: Vec<u32>,
}

/// Generate the sequences of `machine`; see the module documentation.
///
/// # Errors
///
/// A machine with more states than the one step takes.
pub fn cover(machine: &Machine, options: &Options) -> Result<Suite, TooLarge> {
    if machine.states.len() > fsm_step::MAX_STATES {
        return Err(TooLarge {
            states: machine.states.len(),
        });
    }
    let words = machine.states.len().div_ceil(64).max(1);
    Ok(fsm_step::by_width!(words, W => cover_in::<W>(machine, options)))
}

fn cover_in<const W: usize>(machine: &Machine, options: &Options) -> Suite {
    let tables = Tables::new(machine);
    // Goal indices by chart transition: taken, then guard true and false.
    let mut goals = Vec::new();
    let mut first_goal = Vec::new();
    for t in &tables.plan.chart.transitions {
        first_goal.push(goals.len() as u32);
        goals.push(Goal::Taken(t.chosen));
        if machine.transition_of(t.chosen).guard.is_some() {
            goals.push(Goal::Guard(t.chosen, true));
            goals.push(Goal::Guard(t.chosen, false));
        }
    }

    let (store, edges, complete) = explore::<W>(&tables, machine, options, &first_goal);
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); store.len()];
    for (i, e) in edges.iter().enumerate() {
        out[e.from as usize].push(i as u32);
    }
    let lower_bound = lower_bound(&edges, &out, goals.len());

    // The sequences, greedily: the first try takes, among the nearest
    // edges, the one reaching the most goals; the others pick among them by
    // a fixed pseudo-random sequence. The shortest suite is kept. Fewer tries
    // on larger graphs keep the whole under a bounded amount of work.
    let work = goals.len().max(1).saturating_mul(edges.len().max(1));
    let tries = (50_000_000 / work).clamp(1, TRIES);
    let sequences = (0..tries as u64)
        .map(|seed| greedy(&edges, &out, goals.len(), seed))
        .min_by_key(|sequences| sequences.iter().map(Vec::len).sum::<usize>())
        .expect("at least one try");

    let mut reached = vec![None; goals.len()];
    let mut events = 0;
    let mut unreplayed = Vec::new();
    let paths: Vec<Path> = sequences
        .iter()
        .enumerate()
        .map(|(n, sequence)| {
            events += sequence.len();
            for (k, &e) in sequence.iter().enumerate() {
                for &g in &edges[e as usize].goals {
                    reached[g as usize].get_or_insert((n, k));
                }
            }
            let path = Path {
                start: tables.leaves(store.row(0)),
                steps: sequence
                    .iter()
                    .map(|&e| {
                        let e = &edges[e as usize];
                        Step {
                            mv: e.mv,
                            guards: e.asked.clone(),
                            outcome: e.outcome.clone(),
                            leaves: tables.leaves(store.row(e.to as usize)),
                        }
                    })
                    .collect(),
                cycle: None,
            };
            if let Err(why) = replay(machine, &path) {
                unreplayed.push((n, why));
            }
            path
        })
        .collect();
    Suite {
        sequences: paths,
        goals,
        reached,
        events,
        lower_bound,
        states: store.len(),
        complete,
        unreplayed,
    }
}

/// One greedy suite; see [`cover_in`]. `seed` 0 takes the edge reaching
/// the most goals among the nearest; another picks among them with it.
fn greedy(edges: &[Edge], out: &[Vec<u32>], goals: usize, seed: u64) -> Vec<Vec<u32>> {
    let mut covered = vec![false; goals];
    let mut left = {
        let mut seen = vec![false; goals];
        edges
            .iter()
            .flat_map(|e| &e.goals)
            .for_each(|&g| seen[g as usize] = true);
        seen.into_iter().filter(|&s| s).count()
    };
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut sequences: Vec<Vec<u32>> = Vec::new();
    let mut sequence = Vec::new();
    let mut at = 0u32;
    while left > 0 {
        let pick = (seed != 0).then(|| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        });
        match nearest(edges, out, &covered, at, pick) {
            Some(way) => {
                for &e in &way {
                    for &g in &edges[e as usize].goals {
                        if !covered[g as usize] {
                            covered[g as usize] = true;
                            left -= 1;
                        }
                    }
                }
                at = edges[*way.last().expect("a way has an edge") as usize].to;
                sequence.extend(way);
            }
            // Every goal an edge reaches is reachable from the initial state.
            None if sequence.is_empty() => break,
            None => {
                sequences.push(std::mem::take(&mut sequence));
                at = 0;
            }
        }
    }
    if !sequence.is_empty() {
        sequences.push(sequence);
    }
    sequences
}

/// Every stored state breadth-first, and every run of every move from it.
fn explore<const W: usize>(
    tables: &Tables<'_>,
    machine: &Machine,
    options: &Options,
    first_goal: &[u32],
) -> (Store, Vec<Edge>, bool) {
    let moves: Vec<u32> = (0..machine.actions.len() as u32).chain([ADVANCE]).collect();
    let mut store = Store::new(tables.stride);
    store.insert(&tables.initial(), ROOT, ROOT);
    let mut edges = Vec::new();
    let (mut row, mut next) = (Vec::new(), Vec::new());
    let mut at = 0;
    let goal_of = |t: u32, value: Option<bool>| {
        first_goal[t as usize]
            + match value {
                None => 0,
                Some(true) => 1,
                Some(false) => 2,
            }
    };
    'explore: while at < store.len() {
        row.clear();
        row.extend_from_slice(store.row(at));
        for &via in &moves {
            let mv = move_of(via);
            let mut answers = Answers::recording();
            let mut runs = 0;
            loop {
                let outcome = tables.run::<W>(&row, mv, &mut answers, &mut next);
                // A test sets each guard once per step, as `fsmc run` and a
                // generated machine's guards per call do: a run that asks
                // one guard twice with two answers is not a test's step.
                let fixed = answers
                    .asked
                    .iter()
                    .all(|&(g, v)| answers.asked.iter().all(|&(h, w)| g != h || v == w));
                if let Some(outcome) = outcome.filter(|_| fixed) {
                    if store.len() >= options.max_states && !contains(&store, &next) {
                        break 'explore;
                    }
                    let (to, _) = store.insert(&next, at as u32, via);
                    let mut goals: Vec<u32> = answers
                        .taken
                        .iter()
                        .map(|&t| goal_of(t, None))
                        .chain(answers.tested.iter().map(|&(t, v)| goal_of(t, Some(v))))
                        .collect();
                    goals.sort_unstable();
                    goals.dedup();
                    edges.push(Edge {
                        from: at as u32,
                        to,
                        mv,
                        asked: answers.asked.clone(),
                        outcome,
                        goals,
                    });
                }
                runs += 1;
                if runs == options.max_answers || !answers.next() {
                    break;
                }
            }
        }
        at += 1;
    }
    let complete = at >= store.len();
    (store, edges, complete)
}

/// The shortest way from `from` to an edge reaching a goal not yet
/// `covered`, that edge last; among the nearest, the one reaching the most.
/// An edge that leads where no goal is left to reach (a terminal state, say)
/// is taken only when no other is reachable, so that it ends its sequence
/// as late as it can.
fn nearest(
    edges: &[Edge],
    out: &[Vec<u32>],
    covered: &[bool],
    from: u32,
    pick: Option<u64>,
) -> Option<Vec<u32>> {
    let fresh = |e: u32| {
        edges[e as usize]
            .goals
            .iter()
            .filter(|&&g| !covered[g as usize])
            .count()
    };
    // The states from which an edge with a goal left is reachable.
    let mut into: Vec<Vec<u32>> = vec![Vec::new(); out.len()];
    let mut alive = vec![false; out.len()];
    let mut queue = VecDeque::new();
    for (i, e) in edges.iter().enumerate() {
        into[e.to as usize].push(e.from);
        if fresh(i as u32) > 0 && !alive[e.from as usize] {
            alive[e.from as usize] = true;
            queue.push_back(e.from);
        }
    }
    while let Some(s) = queue.pop_front() {
        for &p in &into[s as usize] {
            if !alive[p as usize] {
                alive[p as usize] = true;
                queue.push_back(p);
            }
        }
    }
    let leads_on = |e: u32| alive[edges[e as usize].to as usize];
    way_to(edges, out, from, |e| fresh(e) > 0 && leads_on(e), fresh, pick)
        .or_else(|| way_to(edges, out, from, |e| fresh(e) > 0, fresh, pick))
}

/// The shortest way from `from` to an edge that is `wanted`, that edge last;
/// among the nearest, the one with the most `worth`, or the one `pick`
/// chooses.
fn way_to(
    edges: &[Edge],
    out: &[Vec<u32>],
    from: u32,
    wanted: impl Fn(u32) -> bool,
    worth: impl Fn(u32) -> usize,
    pick: Option<u64>,
) -> Option<Vec<u32>> {
    // The edge each state was first reached by.
    let mut by: Vec<Option<u32>> = vec![None; out.len()];
    let mut seen = vec![false; out.len()];
    seen[from as usize] = true;
    let mut level = vec![from];
    while !level.is_empty() {
        let candidates = level
            .iter()
            .flat_map(|&s| &out[s as usize])
            .copied()
            .filter(|&e| wanted(e));
        let best = match pick {
            None => candidates
                .fold(None, |best: Option<(usize, u32)>, e| match best {
                    Some((m, _)) if m >= worth(e) => best,
                    _ => Some((worth(e), e)),
                })
                .map(|(_, e)| e),
            Some(r) => {
                let all: Vec<u32> = candidates.collect();
                (!all.is_empty()).then(|| all[(r % all.len() as u64) as usize])
            }
        };
        if let Some(e) = best {
            let mut way = vec![e];
            let mut s = edges[e as usize].from;
            while s != from {
                let e = by[s as usize].expect("a state of the search was reached by an edge");
                way.push(e);
                s = edges[e as usize].from;
            }
            way.reverse();
            return Some(way);
        }
        let mut next = Vec::new();
        for &s in &level {
            for &e in &out[s as usize] {
                let to = edges[e as usize].to;
                if !seen[to as usize] {
                    seen[to as usize] = true;
                    by[to as usize] = Some(e);
                    next.push(to);
                }
            }
        }
        level = next;
    }
    None
}

/// A bound below the events of any set of sequences from the initial state
/// reaching every goal an edge reaches, the larger of two:
/// - the farthest goal: the longest of the shortest ways to a goal;
/// - goals that no one event can reach together: goals are taken in turn,
///   those reached by the fewest edges first, and one is kept when no edge
///   reaching it reaches a goal kept before; each kept goal needs an event
///   of its own;
/// - goals reached only by edges into a state with no way out (a terminal
///   state), no two by one edge: each ends a sequence of its own, at least
///   as long as the shortest way to it.
fn lower_bound(edges: &[Edge], out: &[Vec<u32>], goals: usize) -> usize {
    let mut distance = vec![usize::MAX; out.len()];
    let mut queue = VecDeque::from([0u32]);
    if !out.is_empty() {
        distance[0] = 0;
    }
    while let Some(s) = queue.pop_front() {
        for &e in &out[s as usize] {
            let to = edges[e as usize].to as usize;
            if distance[to] == usize::MAX {
                distance[to] = distance[s as usize] + 1;
                queue.push_back(to as u32);
            }
        }
    }
    let mut nearest = vec![usize::MAX; goals];
    let mut reached_by: Vec<Vec<u32>> = vec![Vec::new(); goals];
    for (i, e) in edges.iter().enumerate() {
        let d = distance[e.from as usize].saturating_add(1);
        for &g in &e.goals {
            nearest[g as usize] = nearest[g as usize].min(d);
            reached_by[g as usize].push(i as u32);
        }
    }
    let farthest = nearest
        .iter()
        .copied()
        .filter(|&d| d != usize::MAX)
        .max()
        .unwrap_or(0);
    let mut order: Vec<usize> = (0..goals).filter(|&g| !reached_by[g].is_empty()).collect();
    order.sort_by_key(|&g| reached_by[g].len());
    let mut used = vec![false; edges.len()];
    let mut apart = 0;
    for g in order {
        if reached_by[g].iter().all(|&e| !used[e as usize]) {
            apart += 1;
            for &e in &reached_by[g] {
                used[e as usize] = true;
            }
        }
    }
    // The goals that end their sequence, nearest first.
    let ends = |e: u32| out[edges[e as usize].to as usize].is_empty();
    let mut last: Vec<usize> = (0..goals)
        .filter(|&g| !reached_by[g].is_empty() && reached_by[g].iter().all(|&e| ends(e)))
        .collect();
    last.sort_by_key(|&g| nearest[g]);
    used.iter_mut().for_each(|u| *u = false);
    let mut ending = 0usize;
    for g in last {
        if reached_by[g].iter().all(|&e| !used[e as usize]) {
            ending += nearest[g];
            for &e in &reached_by[g] {
                used[e as usize] = true;
            }
        }
    }
    farthest.max(apart).max(ending)
}
