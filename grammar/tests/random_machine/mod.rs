//! Random `.fsm` machines for property tests: every construct of the
//! language (declarations with docs, hooks, guards, priorities, internal
//! transitions, `any`, terminal states, `#[allow]`), in small vocabularies so
//! that names repeat and candidates compete.
//!
//! Within a state, the transitions of one action are written next to each
//! other: the JSON format groups candidates by action, and
//! `Machine::canonical` lists transitions in declaration order.

use proptest::prelude::*;
use proptest::sample::select;

const ACTIONS: &[&str] = &["go", "stop", "tick", "state", "emit"];
const GUARDS: &[&str] = &["a", "b", "priority"];
const OUTPUTS: &[&str] = &["o1", "o2", "enter", "note"];
const DOCS: &[&str] = &[
    "",
    "Plain doc.",
    "  indented",
    "Two\nlines",
    "Ends with a blank\n",
];

#[derive(Clone, Debug)]
struct TransitionSpec {
    action: usize,
    guard: Option<String>,
    priority: Option<i32>,
    target: Option<usize>,
    emits: Vec<&'static str>,
    doc: &'static str,
}

#[derive(Clone, Debug)]
struct StateSpec {
    terminal: bool,
    enter: Vec<&'static str>,
    exit: Vec<&'static str>,
    transitions: Vec<TransitionSpec>,
    doc: &'static str,
    allow: bool,
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

fn transition(states: usize) -> impl Strategy<Value = TransitionSpec> {
    (
        0..ACTIONS.len(),
        proptest::option::of(guard()),
        proptest::option::of(-2i32..3),
        proptest::option::of(0..states),
        proptest::collection::vec(select(OUTPUTS), 0..3),
        select(DOCS),
    )
        .prop_map(|(action, guard, priority, target, emits, doc)| TransitionSpec {
            action,
            guard,
            priority,
            target,
            emits,
            doc,
        })
}

fn state(states: usize) -> impl Strategy<Value = StateSpec> {
    (
        proptest::bool::weighted(0.2),
        proptest::collection::vec(select(OUTPUTS), 0..2),
        proptest::collection::vec(select(OUTPUTS), 0..2),
        proptest::collection::vec(transition(states), 0..4),
        select(DOCS),
        proptest::bool::weighted(0.2),
    )
        .prop_map(|(terminal, enter, exit, mut transitions, doc, allow)| {
            transitions.sort_by_key(|t| t.action);
            StateSpec {
                terminal,
                enter,
                exit,
                transitions: if terminal { Vec::new() } else { transitions },
                doc,
                allow,
            }
        })
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

fn write_transition(out: &mut String, t: &TransitionSpec, indent: &str) {
    docs(out, indent, t.doc);
    out.push_str(&format!("{indent}on {}", ACTIONS[t.action]));
    if let Some(g) = &t.guard {
        out.push_str(&format!(" [{g}]"));
    }
    if let Some(p) = t.priority {
        out.push_str(&format!(" priority {p}"));
    }
    if let Some(target) = t.target {
        out.push_str(&format!(" -> s{target}"));
    }
    if !t.emits.is_empty() {
        out.push_str(&format!(" emit {}", t.emits.join(", ")));
    }
    out.push_str(";\n");
}

/// The text of a random machine. It may have warnings and errors (duplicate
/// or shadowed transitions, names colliding in Rust); callers keep the ones
/// they need.
pub fn machine_text() -> impl Strategy<Value = String> {
    (1usize..6)
        .prop_flat_map(|n| {
            (
                proptest::collection::vec(state(n), n),
                0..n,
                proptest::collection::vec(transition(n), 0..3),
                proptest::bool::ANY,
                proptest::bool::ANY,
                select(DOCS),
            )
        })
        .prop_map(
            |(states, initial, mut any, declare_actions, declare_outputs, doc)| {
                any.sort_by_key(|t| t.action);
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
                for (i, s) in states.iter().enumerate() {
                    docs(&mut out, "    ", s.doc);
                    if s.allow {
                        out.push_str("    #[allow(unreachable-state, dead-end)]\n");
                    }
                    out.push_str("    ");
                    if i == initial {
                        out.push_str("initial ");
                    }
                    if s.terminal {
                        out.push_str("terminal ");
                    }
                    out.push_str(&format!("state s{i} {{\n"));
                    if !s.enter.is_empty() {
                        out.push_str(&format!("        enter emit {};\n", s.enter.join(", ")));
                    }
                    if !s.exit.is_empty() {
                        out.push_str(&format!("        exit emit {};\n", s.exit.join(", ")));
                    }
                    for t in &s.transitions {
                        write_transition(&mut out, t, "        ");
                    }
                    out.push_str("    }\n");
                }
                if !any.is_empty() {
                    out.push_str("    any {\n");
                    for t in &any {
                        write_transition(&mut out, t, "        ");
                    }
                    out.push_str("    }\n");
                }
                out.push_str("}\n");
                out
            },
        )
}
