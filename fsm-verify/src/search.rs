//! The breadth-first search over stored states, the verdicts, and the
//! paths to them.

use crate::replay::replay;
use crate::step::{Answers, Move, Tables};
use crate::{Kind, Options, Path, Property, Report, Step, Verdict};
use fsm_grammar::model::{ActionId, Machine, StateId};
use std::collections::VecDeque;

/// `via` of the initial state.
pub(crate) const ROOT: u32 = u32::MAX;
/// `via` of an advance.
pub(crate) const ADVANCE: u32 = u32::MAX - 1;

/// Every stored state once, in the order found: rows of `stride` words in
/// one arena, an open-addressing table of their indices, and how each was
/// first reached.
pub(crate) struct Store {
    stride: usize,
    rows: Vec<u64>,
    table: Vec<u32>,
    parent: Vec<u32>,
    via: Vec<u32>,
}

const EMPTY: u32 = u32::MAX;

fn hash(row: &[u64]) -> u64 {
    let mut h = 0u64;
    for &w in row {
        h = (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h ^ h >> 29
}

impl Store {
    pub(crate) fn new(stride: usize) -> Store {
        Store {
            stride,
            rows: Vec::new(),
            table: vec![EMPTY; 1024],
            parent: Vec::new(),
            via: Vec::new(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.parent.len()
    }

    pub(crate) fn row(&self, i: usize) -> &[u64] {
        &self.rows[i * self.stride..(i + 1) * self.stride]
    }

    /// The index of `row`, and whether it was new.
    pub(crate) fn insert(&mut self, row: &[u64], parent: u32, via: u32) -> (u32, bool) {
        let mask = self.table.len() - 1;
        let mut at = hash(row) as usize & mask;
        loop {
            match self.table[at] {
                EMPTY => break,
                i if self.row(i as usize) == row => return (i, false),
                _ => at = (at + 1) & mask,
            }
        }
        let index = self.len() as u32;
        self.table[at] = index;
        self.rows.extend_from_slice(row);
        self.parent.push(parent);
        self.via.push(via);
        if self.len() * 2 > self.table.len() {
            self.grow();
        }
        (index, true)
    }

    fn grow(&mut self) {
        let mut table = vec![EMPTY; self.table.len() * 2];
        let mask = table.len() - 1;
        for i in 0..self.len() {
            let mut at = hash(self.row(i)) as usize & mask;
            while table[at] != EMPTY {
                at = (at + 1) & mask;
            }
            table[at] = i as u32;
        }
        self.table = table;
    }

    /// Bytes held per stored state: its row, its way in, its share of the
    /// table.
    pub(crate) fn bytes_per_state(&self) -> usize {
        let bytes = self.rows.capacity() * 8
            + self.table.len() * 4
            + (self.parent.capacity() + self.via.capacity()) * 4;
        bytes / self.len().max(1)
    }
}

pub(crate) fn move_of(via: u32) -> Move {
    match via {
        ADVANCE => Move::Advance,
        a => Move::Fire(ActionId::from_index(a as usize)),
    }
}

/// The search and its verdicts on configurations of `W` words.
pub(crate) fn search<const W: usize>(
    machine: &Machine,
    properties: &[Property],
    options: &Options,
) -> Report {
    let tables = Tables::new(machine);
    let terminal: Vec<StateId> = machine
        .state_ids()
        .filter(|&s| machine.state(s).is_terminal())
        .collect();
    let holds = |p: &Property, row: &[u64]| {
        let is_terminal = terminal.iter().any(|&s| tables.active(row, s));
        p.formula.holds(&|s| tables.active(row, s), is_terminal)
    };
    // `recoverable`, `escapable` and `leads to` are decided on the graph
    // of moves, kept only when one is asked.
    let graph = properties
        .iter()
        .any(|p| matches!(p.kind, Kind::Recoverable | Kind::Escapable | Kind::LeadsTo));
    let moves: Vec<u32> = (0..machine.actions.len() as u32).chain([ADVANCE]).collect();

    let mut store = Store::new(tables.stride);
    let mut edges: Vec<(u32, u32, u32)> = Vec::new();
    // For `never` and `reachable`: the first state (so, the nearest) where
    // the formula holds.
    let mut first: Vec<Option<u32>> = vec![None; properties.len()];
    let mut inexact: Vec<String> = Vec::new();
    let mut note = |reason: String| {
        if !inexact.contains(&reason) {
            inexact.push(reason);
        }
    };
    let mut stopped = false;
    let mut successors = 0u64;

    store.insert(&tables.initial(), ROOT, ROOT);
    let check = |first: &mut Vec<Option<u32>>, index: u32, row: &[u64]| {
        for (slot, p) in first.iter_mut().zip(properties) {
            let first_found = matches!(p.kind, Kind::Never | Kind::Reachable);
            if slot.is_none() && first_found && holds(p, row) {
                *slot = Some(index);
            }
        }
    };
    check(&mut first, 0, store.row(0));
    let settled = |first: &[Option<u32>]| !graph && first.iter().all(Option::is_some);

    let mut row = Vec::new();
    let mut next = Vec::new();
    let mut at = 0;
    'search: while at < store.len() && !settled(&first) {
        row.clear();
        row.extend_from_slice(store.row(at));
        for &via in &moves {
            let mv = move_of(via);
            let mut answers = Answers::default();
            let mut runs = 0;
            loop {
                if let Some(outcome) = tables.run::<W>(&row, mv, &mut answers, &mut next) {
                    successors += 1;
                    if outcome.time_sensitive {
                        note(format!(
                            "`{}` from {} arms a timer while another stays armed: firing it at \
                             another instant between two deadlines could order them otherwise, \
                             and the search fires actions only at the instants it stops at",
                            label(machine, mv),
                            leaves_text(machine, &tables.leaves(&row))
                        ));
                    }
                    if outcome.named_race {
                        note(format!(
                            "time passes in {} with a named delay armed beside another timer: \
                             which fires first depends on the delay's value",
                            leaves_text(machine, &tables.leaves(&row))
                        ));
                    }
                    if store.len() >= options.max_states && !contains(&store, &next) {
                        stopped = true;
                        break 'search;
                    }
                    let (index, new) = store.insert(&next, at as u32, via);
                    if new {
                        check(&mut first, index, &next);
                    }
                    if graph {
                        edges.push((at as u32, index, via));
                    }
                }
                runs += 1;
                if !answers.next() {
                    break;
                }
                if runs == options.max_answers {
                    note(format!(
                        "`{}` from {} has more than {} sequences of guard answers; the search \
                         followed the first {}",
                        label(machine, mv),
                        leaves_text(machine, &tables.leaves(&row)),
                        options.max_answers,
                        options.max_answers
                    ));
                    break;
                }
            }
        }
        at += 1;
    }
    if stopped {
        note(format!(
            "the search stopped at the limit of {} stored states ({} bytes each) with states \
             left to explore; raise it with --max-states",
            options.max_states,
            store.bytes_per_state()
        ));
    }
    let complete = at >= store.len() && !stopped;
    let exact = complete && inexact.is_empty();
    let undecided = || Verdict::Inconclusive(inexact.clone());

    // The edges reversed: from which states a target can be reached.
    let mut into: Vec<Vec<u32>> = Vec::new();
    if graph {
        into = vec![Vec::new(); store.len()];
        for &(from, to, _) in &edges {
            into[to as usize].push(from);
        }
    }
    // And forward, with each move, for `leads to`.
    let mut out = crate::liveness::Graph { out: Vec::new() };
    if properties.iter().any(|p| p.kind == Kind::LeadsTo) {
        out.out = vec![Vec::new(); store.len()];
        for &(from, to, via) in &edges {
            out.out[from as usize].push((to, via));
        }
    }
    drop(edges);
    let reaching = |target: &dyn Fn(&[u64]) -> bool| {
        let mut reaches = vec![false; store.len()];
        let mut queue: VecDeque<u32> = (0..store.len() as u32)
            .filter(|&i| target(store.row(i as usize)))
            .collect();
        for &i in &queue {
            reaches[i as usize] = true;
        }
        while let Some(i) = queue.pop_front() {
            for &from in &into[i as usize] {
                if !reaches[from as usize] {
                    reaches[from as usize] = true;
                    queue.push_back(from);
                }
            }
        }
        reaches
    };
    let verdicts = properties
        .iter()
        .zip(&first)
        .map(|(p, found)| {
            let path = |index: u32| path_to::<W>(&tables, &store, index, options.max_answers);
            let proven = |index: u32, real: fn(Path) -> Verdict| {
                let path = path(index);
                match replay(machine, &path) {
                    Ok(()) => real(path),
                    Err(why) => Verdict::Inconclusive(vec![format!(
                        "a path was found but did not replay on the dynamic engine: {why}"
                    )]),
                }
            };
            match p.kind {
                Kind::Never => match *found {
                    Some(index) => proven(index, Verdict::Violated),
                    None if exact => Verdict::Holds,
                    None => undecided(),
                },
                Kind::Reachable => match *found {
                    Some(index) => proven(index, Verdict::Reached),
                    None if exact => Verdict::Unreachable,
                    None => undecided(),
                },
                Kind::Recoverable => {
                    if !complete {
                        return undecided();
                    }
                    let reaches = reaching(&|row| holds(p, row));
                    match reaches.iter().position(|&r| !r) {
                        // Missing successors could be the way out.
                        Some(_) if !exact => undecided(),
                        Some(index) => proven(index as u32, Verdict::Violated),
                        None if exact => Verdict::Holds,
                        None => undecided(),
                    }
                }
                Kind::Escapable => {
                    if !complete {
                        return undecided();
                    }
                    // A loop of death: a state from which no path leaves
                    // the formula or comes to rest (no timer armed). Every
                    // move from it leads to another such state.
                    let reaches = reaching(&|row| !holds(p, row) || !tables.any_armed(row));
                    match reaches.iter().position(|&r| !r) {
                        Some(_) if !exact => undecided(),
                        Some(index) => {
                            match loop_of_death::<W>(
                                &tables,
                                &store,
                                index as u32,
                                &reaches,
                                options.max_answers,
                            ) {
                                Some(path) => match replay(machine, &path) {
                                    Ok(()) => Verdict::Violated(path),
                                    Err(why) => Verdict::Inconclusive(vec![format!(
                                        "a loop was found but did not replay on the dynamic engine: {why}"
                                    )]),
                                },
                                None => Verdict::Inconclusive(vec![
                                    "a loop of death was found but its cycle of timer steps could not be \
                                     followed again"
                                        .into(),
                                ]),
                            }
                        }
                        None if exact => Verdict::Holds,
                        None => undecided(),
                    }
                }
                Kind::LeadsTo => {
                    let Some(l) = &p.leads_to else {
                        return Verdict::Inconclusive(
                            vec!["a `leads to` property without its target".into()],
                        );
                    };
                    if !exact {
                        // Missing moves could make a run fair or end it.
                        return undecided();
                    }
                    let f = |row: &[u64]| holds(p, row);
                    let g = |row: &[u64]| {
                        let is_terminal = terminal.iter().any(|&s| tables.active(row, s));
                        l.formula.holds(&|s| tables.active(row, s), is_terminal)
                    };
                    let assumed: Vec<u32> = l.assuming.iter().map(|a| a.index() as u32).collect();
                    match crate::liveness::leads_to::<W>(
                        &tables,
                        &store,
                        &out,
                        &f,
                        &g,
                        &assumed,
                        options.max_answers,
                    ) {
                        crate::liveness::Found::Nothing => Verdict::Holds,
                        crate::liveness::Found::Path(path) => match replay(machine, &path) {
                            Ok(()) => Verdict::Violated(path),
                            Err(why) => Verdict::Inconclusive(vec![format!(
                                "a run was found but did not replay on the dynamic engine: {why}"
                            )]),
                        },
                        crate::liveness::Found::Lost => Verdict::Inconclusive(vec![
                            "a run was found but one of its steps could not be followed again".into(),
                        ]),
                    }
                }
            }
        })
        .collect();
    Report {
        verdicts,
        states: store.len(),
        successors,
        bytes_per_state: store.bytes_per_state(),
        complete,
    }
}

pub(crate) fn contains(store: &Store, row: &[u64]) -> bool {
    find(store, row).is_some()
}

/// The index of `row` in `store`, if stored.
pub(crate) fn find(store: &Store, row: &[u64]) -> Option<u32> {
    let mask = store.table.len() - 1;
    let mut at = hash(row) as usize & mask;
    loop {
        match store.table[at] {
            EMPTY => return None,
            i if store.row(i as usize) == row => return Some(i),
            _ => at = (at + 1) & mask,
        }
    }
}

/// The way to stored state `index`, each step run again to find the guard
/// answers that lead to the next state.
pub(crate) fn path_to<const W: usize>(
    tables: &Tables<'_>,
    store: &Store,
    index: u32,
    max_answers: usize,
) -> Path {
    let mut chain = vec![index];
    while let Some(&i) = chain.last() {
        match store.parent[i as usize] {
            ROOT => break,
            p => chain.push(p),
        }
    }
    chain.reverse();
    let steps = chain
        .windows(2)
        .map(|pair| {
            let (from, to) = (store.row(pair[0] as usize), store.row(pair[1] as usize));
            let mv = move_of(store.via[pair[1] as usize]);
            step_between::<W>(tables, from, mv, to, max_answers).expect("the step the search took runs again")
        })
        .collect();
    Path {
        start: tables.leaves(store.row(0)),
        steps,
        cycle: None,
    }
}

/// The step `mv` from `from` to `to`: the first sequence of guard answers
/// that leads there.
pub(crate) fn step_between<const W: usize>(
    tables: &Tables<'_>,
    from: &[u64],
    mv: Move,
    to: &[u64],
    max_answers: usize,
) -> Option<Step> {
    let mut answers = Answers::default();
    let mut next = Vec::new();
    for _ in 0..max_answers {
        if let Some(outcome) = tables.run::<W>(from, mv, &mut answers, &mut next) {
            if next == to {
                return Some(Step {
                    mv,
                    guards: answers.asked.clone(),
                    outcome,
                    leaves: tables.leaves(to),
                });
            }
        }
        if !answers.next() {
            break;
        }
    }
    None
}

/// A lasso into the loop of death around stored state `index`: the
/// shortest path to it, then timer steps through states that cannot come
/// to rest (`trapped`: not `reaches`) until one repeats. `None` when a
/// step cannot be run again (it always can: every move from such a state
/// stays among them).
fn loop_of_death<const W: usize>(
    tables: &Tables<'_>,
    store: &Store,
    index: u32,
    reaches: &[bool],
    max_answers: usize,
) -> Option<Path> {
    let mut path = path_to::<W>(tables, store, index, max_answers);
    let mut chain = vec![index];
    let mut next = Vec::new();
    let cycle_at = loop {
        let at = *chain.last()?;
        let row = store.row(at as usize);
        let mut answers = Answers::default();
        let mut found = None;
        for _ in 0..max_answers {
            if tables
                .run::<W>(row, Move::Advance, &mut answers, &mut next)
                .is_some()
            {
                if let Some(to) = find(store, &next).filter(|&to| !reaches[to as usize]) {
                    found = Some(to);
                    break;
                }
            }
            if !answers.next() {
                break;
            }
        }
        let to = found?;
        path.steps.push(step_between::<W>(
            tables,
            row,
            Move::Advance,
            store.row(to as usize),
            max_answers,
        )?);
        if let Some(k) = chain.iter().position(|&c| c == to) {
            break k;
        }
        chain.push(to);
    };
    path.cycle = Some(path.steps.len() - (chain.len() - cycle_at));
    Some(path)
}

pub(crate) fn label(machine: &Machine, mv: Move) -> String {
    match mv {
        Move::Fire(a) => machine.actions[a.index()].name.clone(),
        Move::Advance => "advance".into(),
    }
}

/// Leaves as `` `a`, `b` ``.
pub(crate) fn leaves_text(machine: &Machine, leaves: &[StateId]) -> String {
    leaves
        .iter()
        .map(|&s| format!("`{}`", machine.state(s).name))
        .collect::<Vec<_>>()
        .join(", ")
}
