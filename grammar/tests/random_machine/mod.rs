//! Random `.fsm` machines for property tests: every construct of the
//! language (declarations with docs, hooks, guards, priorities, internal
//! transitions, timers, `any`, terminal states, `#[allow]`) and nested
//! states: composites up to three levels deep, each with an initial child,
//! transitions, timers and hooks at every level, and targets that are
//! composites, entered as themselves or through `.history` and
//! `.deep_history`. Vocabularies are small, so that names repeat and
//! candidates compete.
//!
//! Within a state, the transitions of one action are written next to each
//! other, and a state's hooks, transitions and timers come before the states
//! inside it: the JSON format groups candidates by action and writes a
//! state's members in that order, and `Machine::canonical` lists
//! transitions in declaration order.

use proptest::prelude::*;
use proptest::sample::{select, Index};

const ACTIONS: &[&str] = &["go", "stop", "tick", "state", "emit"];
const GUARDS: &[&str] = &["a", "b", "priority"];
const OUTPUTS: &[&str] = &["o1", "o2", "enter", "note"];
const DELAYS: &[&str] = &["250ms", "30s", "90s", "10m", "2h"];
const DOCS: &[&str] = &[
    "",
    "Plain doc.",
    "  indented",
    "Two\nlines",
    "Ends with a blank\n",
];
/// How a target is entered: as itself, or through its history (kept only
/// when the target is composite).
const ENTRIES: &[&str] = &["", "", "", ".history", ".deep_history"];
/// How many levels of states a machine has at most.
const MAX_DEPTH: usize = 3;

#[derive(Clone, Debug)]
struct TransitionSpec {
    /// An action, or for a timer a delay.
    trigger: &'static str,
    guard: Option<String>,
    priority: Option<i32>,
    target: Option<(usize, &'static str)>,
    emits: Vec<&'static str>,
    doc: &'static str,
}

#[derive(Clone, Debug)]
struct StateSpec {
    terminal: bool,
    enter: Vec<&'static str>,
    exit: Vec<&'static str>,
    transitions: Vec<TransitionSpec>,
    timers: Vec<TransitionSpec>,
    doc: &'static str,
    allow: bool,
    /// Whether it sits inside an earlier state, and which.
    nested: bool,
    parent_pick: Index,
    /// Which of its children is initial, if it has any.
    initial_pick: Index,
}

fn guard() -> impl Strategy<Value = String> {
    let leaf = select(GUARDS).prop_map(str::to_string);
    leaf.prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|g| format!("!{g}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} && {b})")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("{a} || {b}")),
        ]
    })
}

fn transition(states: usize, triggers: &'static [&'static str]) -> impl Strategy<Value = TransitionSpec> {
    (
        select(triggers),
        proptest::option::of(guard()),
        proptest::option::of(-2i32..3),
        proptest::option::weighted(0.7, (0..states, select(ENTRIES))),
        proptest::collection::vec(select(OUTPUTS), 0..3),
        select(DOCS),
    )
        .prop_map(|(trigger, guard, priority, target, emits, doc)| TransitionSpec {
            trigger,
            guard,
            priority,
            target,
            emits,
            doc,
        })
}

fn state(states: usize) -> impl Strategy<Value = StateSpec> {
    (
        (
            proptest::bool::weighted(0.2),
            proptest::collection::vec(select(OUTPUTS), 0..2),
            proptest::collection::vec(select(OUTPUTS), 0..2),
            proptest::collection::vec(transition(states, ACTIONS), 0..4),
            proptest::collection::vec(transition(states, DELAYS), 0..2),
        ),
        (
            select(DOCS),
            proptest::bool::weighted(0.2),
            proptest::bool::weighted(0.5),
            any::<Index>(),
            any::<Index>(),
        ),
    )
        .prop_map(
            |(
                (terminal, enter, exit, mut transitions, timers),
                (doc, allow, nested, parent_pick, initial_pick),
            )| {
                transitions.sort_by_key(|t| ACTIONS.iter().position(|a| *a == t.trigger));
                StateSpec {
                    terminal,
                    enter,
                    exit,
                    transitions,
                    timers,
                    doc,
                    allow,
                    nested,
                    parent_pick,
                    initial_pick,
                }
            },
        )
}

fn docs(out: &mut String, indent: &str, doc: &str) {
    if doc.is_empty() {
        return;
    }
    for line in doc.split('\n') {
        out.push_str(indent);
        out.push_str("///");
        if !line.is_empty() {
            out.push(' ');
            out.push_str(line);
        }
        out.push('\n');
    }
}

/// The machine's states as a forest: each state's parent, children and
/// depth (a top-level state is at depth 1).
struct Tree {
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
}

impl Tree {
    fn new(states: &[StateSpec]) -> Tree {
        let n = states.len();
        let mut parent = vec![None; n];
        let mut depth = vec![1; n];
        let mut children = vec![Vec::new(); n];
        for (i, s) in states.iter().enumerate().skip(1) {
            if !s.nested {
                continue;
            }
            // A state holds only later states, so the tree has no cycles;
            // a terminal state holds none (it could not be terminal).
            let p = s.parent_pick.index(i);
            if depth[p] < MAX_DEPTH && !states[p].terminal {
                parent[i] = Some(p);
                depth[i] = depth[p] + 1;
                children[p].push(i);
            }
        }
        Tree { parent, children }
    }

    fn is_composite(&self, s: usize) -> bool {
        !self.children[s].is_empty()
    }
}

fn write_transition(out: &mut String, t: &TransitionSpec, keyword: &str, tree: &Tree, indent: &str) {
    docs(out, indent, t.doc);
    out.push_str(&format!("{indent}{keyword} {}", t.trigger));
    if let Some(g) = &t.guard {
        out.push_str(&format!(" [{g}]"));
    }
    if let Some(p) = t.priority {
        out.push_str(&format!(" priority {p}"));
    }
    if let Some((target, entry)) = t.target {
        let entry = if tree.is_composite(target) { entry } else { "" };
        out.push_str(&format!(" -> s{target}{entry}"));
    }
    if !t.emits.is_empty() {
        out.push_str(&format!(" emit {}", t.emits.join(", ")));
    }
    out.push_str(";\n");
}

fn write_state(out: &mut String, states: &[StateSpec], tree: &Tree, i: usize, initial: bool, indent: &str) {
    let s = &states[i];
    docs(out, indent, s.doc);
    if s.allow {
        out.push_str(&format!("{indent}#[allow(unreachable-state, dead-end)]\n"));
    }
    out.push_str(indent);
    if initial {
        out.push_str("initial ");
    }
    if s.terminal {
        out.push_str("terminal ");
    }
    out.push_str(&format!("state s{i} {{\n"));
    let inner = format!("{indent}    ");
    if !s.enter.is_empty() {
        out.push_str(&format!("{inner}enter emit {};\n", s.enter.join(", ")));
    }
    if !s.exit.is_empty() {
        out.push_str(&format!("{inner}exit emit {};\n", s.exit.join(", ")));
    }
    // A terminal state has no transitions or timers of its own.
    if !s.terminal {
        for t in &s.transitions {
            write_transition(out, t, "on", tree, &inner);
        }
        for t in &s.timers {
            write_transition(out, t, "after", tree, &inner);
        }
    }
    let children = &tree.children[i];
    if !children.is_empty() {
        let initial_child = children[s.initial_pick.index(children.len())];
        for &c in children {
            write_state(out, states, tree, c, c == initial_child, &inner);
        }
    }
    out.push_str(&format!("{indent}}}\n"));
}

/// The text of a random machine. It may have warnings and errors (duplicate
/// or shadowed transitions, names colliding in Rust); callers keep the ones
/// they need.
pub fn machine_text() -> impl Strategy<Value = String> {
    (1usize..8)
        .prop_flat_map(|n| {
            (
                proptest::collection::vec(state(n), n),
                any::<Index>(),
                proptest::collection::vec(transition(n, ACTIONS), 0..3),
                proptest::bool::ANY,
                proptest::bool::ANY,
                select(DOCS),
            )
        })
        .prop_map(
            |(mut states, initial, mut any, declare_actions, declare_outputs, doc)| {
                any.sort_by_key(|t| ACTIONS.iter().position(|a| *a == t.trigger));
                let tree = Tree::new(&states);
                // A composite state is never terminal.
                for (i, s) in states.iter_mut().enumerate() {
                    s.terminal &= !tree.is_composite(i);
                }
                let top: Vec<usize> = (0..states.len()).filter(|&i| tree.parent[i].is_none()).collect();
                let initial = top[initial.index(top.len())];
                let mut out = String::new();
                docs(&mut out, "", doc);
                out.push_str("machine Random {\n");
                if declare_actions {
                    out.push_str("    /// The actions.\n    action ");
                    out.push_str(&ACTIONS.join(", "));
                    out.push_str(";\n");
                }
                if declare_outputs {
                    for o in OUTPUTS {
                        out.push_str(&format!("    /// Output {o}.\n    output {o};\n"));
                    }
                }
                for &i in &top {
                    write_state(&mut out, &states, &tree, i, i == initial, "    ");
                }
                if !any.is_empty() {
                    out.push_str("    any {\n");
                    for t in &any {
                        write_transition(&mut out, t, "on", &tree, "        ");
                    }
                    out.push_str("    }\n");
                }
                out.push_str("}\n");
                out
            },
        )
}
