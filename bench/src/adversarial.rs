//! Machines shaped to make a naive checker quadratic, for
//! `check_throughput --adversarial`. Each shape is built at two sizes, the
//! second twice the first, so the growth of the check time shows whether it
//! stays linear (about 2×) or not (about 4× for a quadratic one).
//!
//! - [`any_block`]: `n` states and an `any` block of `n` transitions, one to
//!   each state: expanding `any` into every state is `n²` candidates;
//! - [`guarded_candidates`]: one state with `n` guarded candidates for one
//!   action, at distinct priorities: comparing candidates pairwise
//!   (shadowing, ambiguity, satisfiability) is `n²`;
//! - [`unknown_targets`]: `n` states, each with a transition to a misspelt
//!   state: a "did you mean" search over every state for each is `n²`;
//! - [`undeclared_actions`]: `n` declared actions, each used once, and `n`
//!   uses of misspelt, undeclared ones: the same search over the actions.

use std::fmt::Write as _;

/// One adversarial shape.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// A short name for the tables.
    pub name: &'static str,
    /// What `size` counts.
    pub unit: &'static str,
    /// The smaller size; the larger is twice this.
    pub size: usize,
    /// The machine of a given size.
    pub build: fn(usize) -> String,
}

/// Every shape, at the sizes of the checker's adversarial cases (the larger of
/// each pair).
pub const SHAPES: &[Shape] = &[
    Shape {
        name: "(a) `any` block × states",
        unit: "states and `any` transitions",
        size: 10_000,
        build: any_block,
    },
    Shape {
        name: "(b) guarded candidates for one action",
        unit: "candidates",
        size: 2_000,
        build: guarded_candidates,
    },
    Shape {
        name: "(c) transitions to unknown states",
        unit: "unknown targets",
        size: 2_000,
        build: unknown_targets,
    },
    Shape {
        name: "(d) uses of undeclared actions",
        unit: "undeclared uses",
        size: 4_000,
        build: undeclared_actions,
    },
];

/// `n` states without bodies and `any { on go_i -> s_i; }` for each.
pub fn any_block(n: usize) -> String {
    let mut out = String::from("machine Adversarial {\n    initial state s0;\n");
    for i in 1..n {
        let _ = writeln!(out, "    state s{i};");
    }
    out.push_str("    any {\n");
    for i in 0..n {
        let _ = writeln!(out, "        on go_{i} -> s{i};");
    }
    out.push_str("    }\n}\n");
    out
}

/// One state with `on go [guard_i] priority i -> done;` for every `i < n`.
pub fn guarded_candidates(n: usize) -> String {
    let mut out = String::from("machine Adversarial {\n    initial state start {\n");
    for i in 0..n {
        let _ = writeln!(out, "        on go [guard_{i}] priority {i} -> done;");
    }
    out.push_str("    }\n    state done { on back -> start; }\n}\n");
    out
}

/// States `state_i`, each with `on go -> stat_i;` (a misspelling of its own
/// name) and `on next -> state_{i+1};`.
pub fn unknown_targets(n: usize) -> String {
    let mut out = String::from("machine Adversarial {\n");
    for i in 0..n {
        let initial = if i == 0 { "initial " } else { "" };
        let _ = writeln!(
            out,
            "    {initial}state state_{i} {{ on go -> stat_{i}; on next -> state_{}; }}",
            (i + 1) % n
        );
    }
    out.push_str("}\n");
    out
}

/// Actions `act_i` declared and used once each, and `n` transitions on
/// `acts_i`, misspellings that are not declared.
pub fn undeclared_actions(n: usize) -> String {
    let mut out = String::from("machine Adversarial {\n");
    for i in 0..n {
        let _ = writeln!(out, "    action act_{i};");
    }
    out.push_str("    initial state one {\n");
    for i in 0..n {
        let _ = writeln!(out, "        on act_{i} -> two;");
    }
    out.push_str("    }\n    state two {\n");
    for i in 0..n {
        let _ = writeln!(out, "        on acts_{i} -> one;");
    }
    out.push_str("    }\n}\n");
    out
}
