//! A deterministic generator of large `.fsm` machines.
//!
//! The machines look like the ones people write, only bigger: many states, a
//! few actions per state, guarded transitions with priorities and fallbacks,
//! guard expressions with `!`, `&&`, `||` and parentheses, internal
//! transitions, enter/exit hooks, an `any` block, a few terminal states,
//! declarations, doc comments and line comments.
//!
//! They are built to check clean, so the benchmark measures the normal path
//! through every check, and a diagnostic in the output means a bug either here
//! or in the checker:
//! - each state's chain transition reaches the next state, so every state is
//!   reachable, and the `any` block reaches every terminal state;
//! - each state uses an action in one group only, so no transition repeats;
//! - guards at one priority are disjoint (`[a]`, `[!a && b]`), and the guards
//!   ahead of a fallback never cover every case, so nothing is ambiguous or
//!   shadowed;
//! - exactly the names used are declared.

use crate::xorshift::XorShift;
use std::fmt::Write as _;

/// A generated machine.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The `.fsm` text.
    pub text: String,
    /// Number of transitions written (state bodies and the `any` block).
    pub transitions: usize,
    /// Number of states, terminal ones included.
    pub states: usize,
}

/// The seed every benchmark run uses, so every run sees the same machines.
pub const SEED: u64 = 0x5eed_f5c0_2024_0001;

const STATE_WORDS: &[&str] = &[
    "idle",
    "waiting",
    "calling",
    "streaming",
    "retrying",
    "reviewing",
    "queued",
    "running",
    "paused",
    "syncing",
    "validating",
    "uploading",
    "draining",
    "backoff",
    "planning",
    "executing",
];

const VERBS: &[&str] = &[
    "start", "stop", "retry", "cancel", "receive", "send", "approve", "reject", "poll", "resume",
];

const NOUNS: &[&str] = &[
    "request", "reply", "token", "chunk", "job", "tick", "review", "batch",
];

const GUARDS: &[&str] = &[
    "retries_left",
    "is_admin",
    "has_budget",
    "cache_warm",
    "rate_limited",
    "user_present",
    "tool_pending",
    "quota_ok",
    "stream_open",
    "dirty",
    "verified",
    "expired",
    "locked",
    "primary",
    "degraded",
    "fatal",
];

const OUTPUTS: &[&str] = &[
    "send_request",
    "display_text",
    "start_timer",
    "stop_timer",
    "log_event",
    "notify_user",
    "persist_state",
    "emit_metric",
    "flush_buffer",
    "close_stream",
    "open_stream",
    "record_error",
];

/// Actions of the `any` block; states never use them, so the `any`
/// transitions neither shadow nor compete with a state's own.
const ANY_ACTIONS: &[&str] = &["shutdown", "abort", "heartbeat"];

/// The terminal states, all reached from the `any` block.
const TERMINALS: &[&str] = &["done", "failed", "cancelled"];

/// Transitions in the `any` block (see [`write_any_block`]).
const ANY_TRANSITIONS: usize = 4;

/// The transitions a state writes for one action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Group {
    /// `on a -> next;`: the edge that makes every state reachable.
    Chain,
    /// `on a -> t;`, maybe with an emit.
    Plain,
    /// `on a emit o;` or `on a;`: no state change.
    Internal,
    /// Two guarded transitions at different priorities, no fallback.
    Pair,
    /// Two disjoint guards at one priority, then an unguarded fallback.
    Split,
    /// Two disjoint compound guards at a high priority, then a fallback at a
    /// negative priority.
    Ranked,
}

impl Group {
    fn transitions(self) -> usize {
        match self {
            Group::Chain | Group::Plain | Group::Internal => 1,
            Group::Pair => 2,
            Group::Split | Group::Ranked => 3,
        }
    }
}

/// A machine named `name` with exactly `transitions` transitions (at least
/// one per state plus the `any` block's four), generated from `seed`.
pub fn machine(name: &str, transitions: usize, seed: u64) -> Generated {
    let mut rng = XorShift::new(seed);
    let plans = plan_states(transitions.max(ANY_TRANSITIONS + 1) - ANY_TRANSITIONS, &mut rng);
    let actions: Vec<String> = VERBS
        .iter()
        .flat_map(|v| NOUNS.iter().map(move |n| format!("{v}_{n}")))
        .collect();

    let mut used = Used::default();
    let mut body = String::new();
    let count = plans.len();
    for (i, groups) in plans.iter().enumerate() {
        write_state(&mut body, i, count, groups, &actions, &mut used, &mut rng);
    }
    writeln!(body).unwrap();
    for terminal in TERMINALS {
        writeln!(body, "    terminal state {terminal};").unwrap();
    }
    writeln!(body).unwrap();
    writeln!(body, "    /// Kept for the next release; nothing leads here yet.").unwrap();
    writeln!(body, "    #[allow(unreachable-state, dead-end)]").unwrap();
    writeln!(body, "    state spare;").unwrap();
    writeln!(body).unwrap();
    write_any_block(&mut body, &mut used);

    let mut text = String::with_capacity(body.len() + 4096);
    writeln!(
        text,
        "// Generated by fsm-bench (seed {seed:#x}): {transitions} transitions."
    )
    .unwrap();
    writeln!(text, "/// A generated machine for the front-end benchmark.").unwrap();
    writeln!(text, "machine {name} {{").unwrap();
    write_declarations(
        &mut text,
        "action",
        "What the outside world can tell us.",
        &used.actions.order,
    );
    write_declarations(
        &mut text,
        "guard",
        "Conditions the host answers.",
        &used.guards.order,
    );
    write_declarations(
        &mut text,
        "output",
        "What the machine asks the host to do.",
        &used.outputs.order,
    );
    writeln!(text).unwrap();
    text.push_str(&body);
    writeln!(text, "}}").unwrap();

    Generated {
        text,
        transitions: plans.iter().flatten().map(|g| g.transitions()).sum::<usize>() + ANY_TRANSITIONS,
        states: count + TERMINALS.len() + 1,
    }
}

/// Decide each state's groups so that the total is exactly `budget`.
fn plan_states(budget: usize, rng: &mut XorShift) -> Vec<Vec<Group>> {
    let mut plans = Vec::new();
    let mut left = budget;
    while left > 0 {
        let mut groups = vec![Group::Chain];
        left -= 1;
        let extra = 1 + rng.below(4);
        for _ in 0..extra {
            if left == 0 {
                break;
            }
            let roll = rng.below(100);
            let group = match roll {
                0..=44 => Group::Plain,
                45..=59 => Group::Internal,
                60..=74 => Group::Pair,
                75..=89 => Group::Split,
                _ => Group::Ranked,
            };
            let group = if group.transitions() <= left {
                group
            } else {
                Group::Plain
            };
            left -= group.transitions();
            groups.push(group);
        }
        plans.push(groups);
    }
    plans
}

/// Names used, in order of first use, to declare exactly those.
#[derive(Default)]
struct Used {
    actions: Names,
    guards: Names,
    outputs: Names,
}

/// Names of one kind in order of first use.
#[derive(Default)]
struct Names {
    order: Vec<String>,
    seen: std::collections::BTreeSet<String>,
}

impl Names {
    fn mark<'a>(&mut self, name: &'a str) -> &'a str {
        if !self.seen.contains(name) {
            self.seen.insert(name.to_string());
            self.order.push(name.to_string());
        }
        name
    }
}

impl Used {
    fn action<'a>(&mut self, name: &'a str) -> &'a str {
        self.actions.mark(name)
    }

    fn guard<'a>(&mut self, name: &'a str) -> &'a str {
        self.guards.mark(name)
    }

    fn output<'a>(&mut self, name: &'a str) -> &'a str {
        self.outputs.mark(name)
    }
}

fn write_declarations(out: &mut String, keyword: &str, doc: &str, names: &[String]) {
    if names.is_empty() {
        return;
    }
    writeln!(out, "    /// {doc}").unwrap();
    for chunk in names.chunks(6) {
        writeln!(out, "    {keyword} {};", chunk.join(", ")).unwrap();
    }
}

fn state_name(i: usize) -> String {
    format!("{}_{i}", STATE_WORDS[i % STATE_WORDS.len()])
}

/// A target near `from` most of the time (machines are mostly local), anywhere
/// otherwise, and now and then a terminal state.
fn target(from: usize, count: usize, rng: &mut XorShift) -> String {
    match rng.below(100) {
        0..=69 => state_name((from + 1 + rng.below(40)) % count),
        70..=94 => state_name(rng.below(count)),
        _ => TERMINALS[rng.below(TERMINALS.len())].to_string(),
    }
}

fn emit_clause(rng: &mut XorShift, used: &mut Used) -> String {
    match rng.below(10) {
        0..=5 => String::new(),
        6..=8 => format!(" emit {}", used.output(OUTPUTS[rng.below(OUTPUTS.len())])),
        _ => {
            let o = rng.distinct(2, OUTPUTS.len());
            format!(
                " emit {}, {}",
                used.output(OUTPUTS[o[0]]),
                used.output(OUTPUTS[o[1]])
            )
        }
    }
}

fn write_state(
    out: &mut String,
    i: usize,
    count: usize,
    groups: &[Group],
    actions: &[String],
    used: &mut Used,
    rng: &mut XorShift,
) {
    let name = state_name(i);
    if rng.chance(30) {
        writeln!(out, "    /// Stage {i}: waits for the host, then moves on.").unwrap();
    }
    if rng.chance(10) {
        writeln!(
            out,
            "    // TODO(bench): split this stage once the protocol settles."
        )
        .unwrap();
    }
    let initial = if i == 0 { "initial " } else { "" };
    writeln!(out, "    {initial}state {name} {{").unwrap();
    if rng.chance(25) {
        let o = used.output(OUTPUTS[rng.below(OUTPUTS.len())]);
        writeln!(out, "        enter emit {o};").unwrap();
    }
    if rng.chance(20) {
        let o = rng.distinct(2, OUTPUTS.len());
        let (a, b) = (used.output(OUTPUTS[o[0]]), used.output(OUTPUTS[o[1]]));
        writeln!(out, "        exit emit {a}, {b};").unwrap();
    }
    let picks = rng.distinct(groups.len(), actions.len());
    for (&group, &a) in groups.iter().zip(&picks) {
        let action = used.action(&actions[a]);
        if rng.chance(5) {
            writeln!(out, "        /// Why `{action}` matters here.").unwrap();
        }
        let g = rng.distinct(3, GUARDS.len());
        let (g1, g2, g3) = (GUARDS[g[0]], GUARDS[g[1]], GUARDS[g[2]]);
        match group {
            Group::Chain => {
                let next = state_name((i + 1) % count);
                writeln!(out, "        on {action} -> {next};").unwrap();
            }
            Group::Plain => {
                let t = target(i, count, rng);
                let emit = emit_clause(rng, used);
                let comment = if rng.chance(8) { " // the common path" } else { "" };
                writeln!(out, "        on {action} -> {t}{emit};{comment}").unwrap();
            }
            Group::Internal => {
                let emit = emit_clause(rng, used);
                writeln!(out, "        on {action}{emit};").unwrap();
            }
            Group::Pair => {
                let (g1, g2, g3) = (used.guard(g1), used.guard(g2), used.guard(g3));
                let (t1, t2) = (target(i, count, rng), target(i, count, rng));
                let emit = emit_clause(rng, used);
                writeln!(
                    out,
                    "        on {action} [{g1} && !{g2}] priority 2 -> {t1}{emit};"
                )
                .unwrap();
                writeln!(out, "        on {action} [{g2} || {g3}] -> {t2};").unwrap();
            }
            Group::Split => {
                let (g1, g2) = (used.guard(g1), used.guard(g2));
                let (t1, t2, t3) = (
                    target(i, count, rng),
                    target(i, count, rng),
                    target(i, count, rng),
                );
                let emit = emit_clause(rng, used);
                writeln!(out, "        on {action} [{g1}] priority 1 -> {t1};").unwrap();
                writeln!(
                    out,
                    "        on {action} [!{g1} && {g2}] priority 1 -> {t2}{emit};"
                )
                .unwrap();
                writeln!(out, "        on {action} -> {t3};").unwrap();
            }
            Group::Ranked => {
                let (g1, g2, g3) = (used.guard(g1), used.guard(g2), used.guard(g3));
                let (t1, t2, t3) = (
                    target(i, count, rng),
                    target(i, count, rng),
                    target(i, count, rng),
                );
                writeln!(
                    out,
                    "        on {action} [({g1} || {g2}) && !{g3}] priority 3 -> {t1};"
                )
                .unwrap();
                writeln!(out, "        on {action} [!({g1} || {g2})] priority 3 -> {t2};").unwrap();
                writeln!(out, "        on {action} priority -1 -> {t3};").unwrap();
            }
        }
    }
    writeln!(out, "    }}").unwrap();
}

fn write_any_block(out: &mut String, used: &mut Used) {
    let [shutdown, abort, heartbeat] = ANY_ACTIONS else {
        unreachable!()
    };
    let (shutdown, abort, heartbeat) = (used.action(shutdown), used.action(abort), used.action(heartbeat));
    let fatal = used.guard("fatal");
    let log = used.output("log_event");
    let [done, failed, cancelled] = TERMINALS else {
        unreachable!()
    };
    writeln!(out, "    // Every non-terminal state can be stopped.").unwrap();
    writeln!(out, "    any {{").unwrap();
    writeln!(out, "        on {shutdown} -> {done};").unwrap();
    writeln!(out, "        on {abort} [{fatal}] priority 5 -> {failed};").unwrap();
    writeln!(out, "        on {abort} -> {cancelled};").unwrap();
    writeln!(out, "        on {heartbeat} emit {log};").unwrap();
    writeln!(out, "    }}").unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_exactly_the_requested_number_of_transitions() {
        for n in [5, 6, 7, 100, 1_000, 1_001, 1_002, 1_003] {
            let g = machine("Bench", n, SEED);
            assert_eq!(g.transitions, n);
            let written = g
                .text
                .lines()
                .filter(|l| l.trim_start().starts_with("on "))
                .count();
            assert_eq!(written, n, "{n}");
        }
    }

    #[test]
    fn is_deterministic() {
        assert_eq!(
            machine("Bench", 2_000, SEED).text,
            machine("Bench", 2_000, SEED).text
        );
        assert_ne!(
            machine("Bench", 2_000, SEED).text,
            machine("Bench", 2_000, SEED + 1).text
        );
    }

    #[test]
    fn generated_machines_check_clean() {
        for (n, seed) in [(5, SEED), (50, 7), (1_000, SEED), (10_000, 42)] {
            let g = machine("Bench", n, seed);
            let checked = fsm_grammar::check(&g.text);
            assert!(
                checked.diagnostics.is_empty(),
                "{n} transitions, seed {seed}: {:#?}",
                checked.diagnostics
            );
            let m = &checked.model.machines[0];
            assert_eq!(m.transitions.len(), n);
            assert_eq!(m.states.len(), g.states);
        }
    }
}
