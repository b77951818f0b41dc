//! Nested states for the reference interpreters, written again from
//! docs/dsl.md ("Nested states") over the plain tree of the model (`parent`
//! and `children` links) and deliberately without the model's own
//! helpers and the plan (`Machine::candidate_groups`, `fsm_grammar::plan`, ...),
//! which code generation and the dynamic engine use: a mistake there shows
//! up as a disagreement here.
//!
//! - The machine is in one leaf. The candidates for an action are the
//!   transitions on it written in the leaf, in each state holding it, and in
//!   the `any` blocks (the outermost level); a terminal leaf has none. They
//!   are tried by priority, then innermost level first, then in declaration
//!   order.
//! - A transition declared in `D` (the machine for `any`) to `T` has a
//!   domain: the innermost of `D` and the states holding `D` that holds `T`
//!   strictly inside, where a history target `T.history` counts as inside
//!   `T`. Taking it from leaf `S` exits `S` and the states holding it below
//!   the domain, innermost first, then enters the states below the domain
//!   down to `T`, outermost first, then `T`'s initial descent, or, through a
//!   history, the states down to the child (shallow) or the leaf (deep) last
//!   active in `T`.
//! - Every composite exited remembers the leaf the machine was in; the
//!   history targets read that memory after the exits.

use fsm_grammar::model::{EventlessKind, HistoryKind, Machine, Source, StateId, Transition, Trigger};
use std::cmp::Reverse;
use std::collections::BTreeMap;

/// For each composite exited so far, the leaf the machine was in.
pub type Memory = BTreeMap<StateId, StateId>;

/// `state`, then the states holding it, outward.
pub fn up(machine: &Machine, state: StateId) -> Vec<StateId> {
    let mut chain = vec![state];
    while let Some(parent) = machine.state(*chain.last().expect("not empty")).parent {
        chain.push(parent);
    }
    chain
}

/// The leaf the machine settles in when it enters `state`, and the states
/// entered below `state` on the way, outermost first.
pub fn descent(machine: &Machine, state: StateId) -> Vec<StateId> {
    let mut below = Vec::new();
    let mut at = state;
    loop {
        let children = &machine.state(at).children;
        let Some(&first) = children.first() else {
            return below;
        };
        at = children
            .iter()
            .copied()
            .find(|&c| machine.state(c).initial)
            .unwrap_or(first);
        below.push(at);
    }
}

/// Where the machine starts: the initial state and its descent.
pub fn start(machine: &Machine) -> Vec<StateId> {
    let mut path = vec![machine.initial];
    path.extend(descent(machine, machine.initial));
    path
}

/// The transitions on `action` tried in leaf `leaf`, in order.
pub fn candidates(machine: &Machine, leaf: StateId, action: usize) -> Vec<&Transition> {
    if machine.state(leaf).is_terminal() {
        return Vec::new();
    }
    let levels: Vec<Source> = up(machine, leaf)
        .into_iter()
        .map(Source::State)
        .chain([Source::Any])
        .collect();
    let mut found: Vec<(usize, &Transition)> = Vec::new();
    for (depth_rank, level) in levels.iter().enumerate() {
        found.extend(
            machine
                .transitions
                .iter()
                .filter(|t| t.source == *level && t.expect_action().index() == action)
                .map(|t| (depth_rank, t)),
        );
    }
    // Priority first; innermost level, then declaration order, as found.
    found.sort_by_key(|&(rank, t)| (Reverse(t.priority), rank));
    found.into_iter().map(|(_, t)| t).collect()
}

/// Whether `state` lies strictly inside `composite`.
fn inside(machine: &Machine, state: StateId, composite: StateId) -> bool {
    up(machine, state)[1..].contains(&composite)
}

/// What taking a transition declared at `source` to `target` (through
/// `history`) from `leaf` exits and enters, in order, recording history in
/// `memory` as the exits happen.
pub fn take(
    machine: &Machine,
    leaf: StateId,
    source: Source,
    target: Option<StateId>,
    history: Option<HistoryKind>,
    memory: &mut Memory,
) -> (Vec<StateId>, Vec<StateId>) {
    let Some(target) = target else {
        return (Vec::new(), Vec::new());
    };
    let declared = match source {
        Source::State(s) => up(machine, s),
        Source::Any => Vec::new(),
    };
    let domain = declared
        .into_iter()
        .find(|&d| (history.is_some() && d == target) || inside(machine, target, d));
    let below_domain = |s: StateId| -> Vec<StateId> {
        up(machine, s)
            .into_iter()
            .take_while(|&a| Some(a) != domain)
            .collect()
    };
    let exits = below_domain(leaf);
    for &s in &exits {
        if !machine.state(s).children.is_empty() {
            memory.insert(s, leaf);
        }
    }
    let mut entries = below_domain(target);
    entries.reverse();
    match (history, memory.get(&target)) {
        (Some(kind), Some(&remembered)) => {
            let mut down: Vec<StateId> = up(machine, remembered)
                .into_iter()
                .take_while(|&s| s != target)
                .collect();
            down.reverse();
            match kind {
                HistoryKind::Deep => entries.extend(down),
                HistoryKind::Shallow => {
                    entries.push(down[0]);
                    entries.extend(descent(machine, down[0]));
                }
            }
        }
        _ => entries.extend(descent(machine, target)),
    }
    (exits, entries)
}

/// The composites entered through their history somewhere in `machine`, in
/// declaration order: the memory a snapshot lists.
pub fn history_targets(machine: &Machine) -> Vec<StateId> {
    let targets: Vec<StateId> = machine
        .transitions
        .iter()
        .filter_map(|t| t.history.and(t.target))
        .chain(machine.timers.iter().filter_map(|t| t.history.and(t.target)))
        .chain(machine.eventless.iter().filter_map(|t| t.history.and(t.target)))
        .collect();
    machine.state_ids().filter(|s| targets.contains(s)).collect()
}

/// `memory` as a snapshot lists it: the history targets that have one, in
/// declaration order, by name.
pub fn last_active(machine: &Machine, memory: &Memory) -> Vec<(String, String)> {
    history_targets(machine)
        .into_iter()
        .filter_map(|c| {
            memory
                .get(&c)
                .map(|&leaf| (machine.state(c).name.clone(), machine.state(leaf).name.clone()))
        })
        .collect()
}

/// The memory of a snapshot's `last_active`, checked against `machine`.
pub fn memory_of(machine: &Machine, snapshot: &fsm_runtime::Snapshot) -> Result<Memory, String> {
    let targets = history_targets(machine);
    let mut memory = Memory::new();
    for (state, leaf) in snapshot.last_active() {
        let composite = machine
            .state_by_name(state)
            .filter(|s| targets.contains(s))
            .ok_or_else(|| format!("`{state}` is not entered through its history"))?;
        let leaf = machine
            .state_by_name(leaf)
            .filter(|&l| machine.state(l).children.is_empty() && inside(machine, l, composite))
            .ok_or_else(|| format!("`{leaf}` is not a leaf inside `{state}`"))?;
        memory.insert(composite, leaf);
    }
    Ok(memory)
}

/// The `always` and `done` transitions tried after a step that left the
/// machine in `leaf` (`entered`: the step had a target), in order: the
/// `always` ones of the leaf and of the states holding it, highest priority
/// first, then innermost first, then in declaration order; then, when the
/// step entered a `final` leaf, the `done` ones of the state holding it,
/// highest priority first, then in declaration order.
pub fn settle_candidates(machine: &Machine, leaf: StateId, entered: bool) -> Vec<&Transition> {
    let m = machine;
    let depth = |s: StateId| m.ancestors_or_self(s).count();
    let mut always: Vec<&Transition> = m
        .eventless
        .iter()
        .filter(|e| {
            e.trigger == Trigger::Eventless(EventlessKind::Always)
                && m.ancestors_or_self(leaf).any(|a| e.state() == Some(a))
        })
        .collect();
    // Stable: declaration order stays among equals.
    always.sort_by_key(|e| {
        (
            std::cmp::Reverse(e.priority),
            std::cmp::Reverse(depth(e.expect_state())),
        )
    });
    if entered && m.state(leaf).is_final() {
        let parent = m.state(leaf).parent.expect("a final state lies in a composite");
        let mut done: Vec<&Transition> = m
            .eventless
            .iter()
            .filter(|e| e.trigger == Trigger::Eventless(EventlessKind::Done) && e.state() == Some(parent))
            .collect();
        done.sort_by_key(|e| std::cmp::Reverse(e.priority));
        always.extend(done);
    }
    always
}
