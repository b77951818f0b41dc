//! Property tests of the front end.
//!
//! Whatever the text — random bytes, random characters, mutated fixtures or
//! generated machines that exercise every check — `fsm_grammar::check` must
//! not panic, must be deterministic, and every span it reports (diagnostics,
//! their secondary labels, and the model) must lie inside the text on char
//! boundaries, because the CLI slices the text with them; and the human, JSON
//! and GitHub reports of `fsmc check` render them. For texts without
//! syntax errors the formatter must succeed, be idempotent, keep every comment
//! and keep every machine's meaning (`Machine::canonical`).

use fsm_grammar::{check, report, Checked, Code, Span};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::test_runner::TestCaseError;
use std::sync::OnceLock;

// ---------------------------------------------------------------------------
// Invariants
// ---------------------------------------------------------------------------

fn span_ok(text: &str, span: Span, what: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        span.start <= span.end && span.end <= text.len(),
        "{what}: span {span:?} is outside the text of {} bytes",
        text.len()
    );
    prop_assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "{what}: span {span:?} splits a character"
    );
    Ok(())
}

/// Everything `check` promises about any text.
fn well_formed(text: &str, checked: &Checked) -> Result<(), TestCaseError> {
    for d in &checked.diagnostics {
        let what = format!("{} diagnostic `{}`", d.code, d.message);
        span_ok(text, d.span, &what)?;
        for label in &d.secondary {
            span_ok(text, label.span, &format!("label `{}` of {what}", label.message))?;
        }
        prop_assert!(!d.message.is_empty(), "{} diagnostic without a message", d.code);
        prop_assert!(!d.help.is_empty(), "{what} has no help line");
    }
    prop_assert!(
        checked
            .diagnostics
            .windows(2)
            .all(|w| w[0].span.start <= w[1].span.start),
        "diagnostics are not sorted by position"
    );
    for m in &checked.model.machines {
        span_ok(text, m.span, &format!("machine `{}`", m.name))?;
        for s in &m.states {
            span_ok(text, s.span, &format!("state `{}`", s.name))?;
            if let Some(kw) = s.terminal {
                span_ok(text, kw, &format!("`terminal` of state `{}`", s.name))?;
            }
        }
        for t in &m.transitions {
            span_ok(text, t.span, "transition")?;
            span_ok(text, t.trigger_span, "transition action")?;
            if let Some(g) = &t.guard {
                span_ok(text, g.span, "guard")?;
            }
        }
        for sym in m.actions.iter().chain(&m.guards).chain(&m.outputs) {
            for &span in sym.declared.iter().chain(&sym.uses) {
                span_ok(text, span, &format!("name `{}`", sym.name))?;
            }
        }
    }
    Ok(())
}

/// The three reporters of `fsmc check` render every diagnostic, whatever the text.
fn reports_render(text: &str, checked: &Checked) -> Result<(), TestCaseError> {
    let diagnostics = &checked.diagnostics;
    let human = report::human("input.fsm", text, diagnostics, 80, false);
    prop_assert_eq!(human.is_empty(), diagnostics.is_empty());
    for d in diagnostics {
        let code = format!("fsm::{}", d.code);
        prop_assert!(
            human.contains(&code),
            "the human report lacks `{}`:\n{}",
            code,
            human
        );
    }

    let records = report::json("input.fsm", text, diagnostics);
    prop_assert_eq!(records.len(), diagnostics.len());
    for r in &records {
        prop_assert!(
            r.line >= 1 && r.column >= 1,
            "position {}:{} is not 1-based",
            r.line,
            r.column
        );
        prop_assert!(
            (r.line, r.column) <= (r.end_line, r.end_column),
            "`{}` ends at {}:{}, before it starts at {}:{}",
            r.code,
            r.end_line,
            r.end_column,
            r.line,
            r.column
        );
    }
    let array: serde_json::Value = serde_json::from_str(&report::json_array(&records))
        .map_err(|e| TestCaseError::fail(format!("the JSON report does not parse: {e}")))?;
    prop_assert_eq!(array.as_array().map(Vec::len), Some(diagnostics.len()));

    let github = report::github("input.fsm", text, diagnostics);
    prop_assert_eq!(
        github.lines().count(),
        diagnostics.len(),
        "not one annotation per line:\n{}",
        github
    );
    for line in github.lines() {
        prop_assert!(
            line.starts_with("::error file=") || line.starts_with("::warning file="),
            "{}",
            line
        );
    }
    Ok(())
}

/// Check `text`, assert the invariants, and that a second run agrees.
fn check_well_formed(text: &str) -> Result<Checked, TestCaseError> {
    let checked = check(text);
    well_formed(text, &checked)?;
    reports_render(text, &checked)?;
    prop_assert_eq!(
        &check(text).diagnostics,
        &checked.diagnostics,
        "check is not deterministic"
    );
    Ok(checked)
}

/// A syntax error, or a body nested too deep, which is skipped unread like
/// one: either way part of the text is not in the tree, so the formatter
/// refuses the file rather than drop it.
fn has_syntax_error(checked: &Checked) -> bool {
    checked
        .diagnostics
        .iter()
        .any(|d| matches!(d.code, Code::Syntax | Code::NestingTooDeep))
}

fn canonical(checked: &Checked) -> Vec<String> {
    checked.model.machines.iter().map(|m| m.canonical()).collect()
}

fn codes(checked: &Checked) -> Vec<Code> {
    let mut codes: Vec<Code> = checked.diagnostics.iter().map(|d| d.code).collect();
    codes.sort();
    codes
}

/// The `///` comments in order, and the `//` comments in order. The
/// formatter keeps both orders, but not always their interleaving: a `//`
/// comment inside the first line of an item moves above the item's doc
/// comments (see `fsm_grammar::format`).
fn comments(text: &str) -> (Vec<String>, Vec<String>) {
    let (docs, plain): (Vec<_>, Vec<_>) = fsm_grammar::parse(text)
        .file
        .comments
        .into_iter()
        .partition(|c| c.doc);
    let texts = |list: Vec<fsm_grammar::ast::Comment>| list.into_iter().map(|c| c.text).collect();
    (texts(docs), texts(plain))
}

/// The formatter's contract on a text that checked as `checked`.
fn format_round_trips(text: &str, checked: &Checked) -> Result<(), TestCaseError> {
    let formatted = fsm_grammar::format::format(text);
    if has_syntax_error(checked) {
        // Formatting must not silently drop the machines that failed to parse.
        prop_assert!(
            formatted.is_err(),
            "format succeeded on a text with syntax errors"
        );
        return Ok(());
    }
    let formatted = match formatted {
        Ok(f) => f,
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "format failed on a text that parses: {e:?}"
            )))
        }
    };
    let again = check_well_formed(&formatted)?;
    prop_assert!(
        !has_syntax_error(&again),
        "formatted text does not parse:\n{formatted}"
    );
    prop_assert_eq!(
        canonical(&again),
        canonical(checked),
        "format changed a machine:\n{}",
        formatted
    );
    prop_assert_eq!(
        codes(&again),
        codes(checked),
        "format changed the diagnostics:\n{}",
        formatted
    );
    prop_assert_eq!(
        comments(&formatted),
        comments(text),
        "format lost or changed a comment:\n{}",
        formatted
    );
    match fsm_grammar::format::format(&formatted) {
        Ok(twice) => prop_assert_eq!(twice, formatted, "format is not idempotent"),
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "format failed on its own output: {e:?}"
            )))
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Seeds: the fixtures and examples, or inline machines when there are none
// ---------------------------------------------------------------------------

const INLINE_SEEDS: &[&str] = &[
    "machine M { initial state a { on go -> b; } state b; }",
    r"/// The agent loop.
machine Agent {
    action user_input, text_delta, tool_call_delta, llm_error, retry, shutdown;
    guard retries_left, fatal;
    output send_llm_request, start_timer, stop_timer, display_text, display_error;

    initial state waiting {       // exactly one initial state
        on user_input -> calling emit send_llm_request;
    }
    state calling {
        enter emit start_timer;
        exit emit stop_timer;
        on text_delta emit display_text;
        on tool_call_delta;
        on llm_error [retries_left && !fatal] priority 1 -> error;
        on llm_error -> waiting emit display_error;
    }
    state error { on retry -> calling; }
    terminal state shut_down;
    #[allow(unreachable-state, dead-end)]
    state spare;
    any { on shutdown -> shut_down; }
}
",
    r"machine Broken {
    initial state a { on x [p || (q && !p)] priority -2 -> nowhere; on x [p] priority -2 -> a; }
    initial terminal state b { on y -> a; }
    state a;
}
machine Broken { state c { on z -> c; on z -> c; } }
",
    r"/// A call, with its phases nested.
machine Call {
    initial state idle { on dial -> connected; }
    state connected {
        enter emit ring;
        exit emit hang_up;
        on hang_up -> idle;
        after 2h -> idle emit timed_out;
        initial state talking {
            on hold -> on_hold;
            state muted { on unmute -> talking; }
            initial state open { on mute -> muted; after 30s emit ping; }
        }
        state on_hold { on resume -> talking; }
    }
    state paused {
        on resume -> connected.history;
        on resume_deep [ready] priority 1 -> connected.deep_history;
    }
    terminal state ended;
    any { on pause -> paused; on end -> ended; }
}
",
];

/// Every seed text, read once.
fn seeds() -> &'static [String] {
    static SEEDS: OnceLock<Vec<String>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let files = fsm_tests::fixture_files()
            .into_iter()
            .chain(fsm_tests::example_files());
        let mut seeds: Vec<String> = files
            .map(|p| {
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
            })
            .collect();
        seeds.extend(INLINE_SEEDS.iter().map(|s| s.to_string()));
        seeds
    })
}

// ---------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------

/// Tokens and fragments inserted by mutations: the language's punctuation and
/// keywords, odd numbers, attributes, comments, and characters outside ASCII.
const TOKENS: &[&str] = &[
    "{",
    "}",
    ";",
    ",",
    "->",
    "-",
    ">",
    "[",
    "]",
    "(",
    ")",
    "!",
    "&&",
    "||",
    "&",
    "|",
    "#",
    "on ",
    "state ",
    "initial ",
    "terminal ",
    "machine ",
    "any ",
    "emit ",
    "enter ",
    "exit ",
    "action ",
    "guard ",
    "output ",
    "priority ",
    "priority -3 ",
    "priority 2147483647 ",
    "priority 2147483648 ",
    "priority -2147483649 ",
    "priority 99999999999999999999999 ",
    "#[allow(dead-end)]",
    "#[allow(syntax)]",
    "#[allow(no-such-code)]",
    "#[allow()]",
    "///",
    "//",
    "/// doc\n",
    "// note\n",
    "\n",
    "\r\n",
    "\r",
    "\t",
    " ",
    "x",
    "_",
    "0",
    "é",
    "日本",
    "🦀",
    "\u{FEFF}",
    "\u{0}",
    "\u{200B}",
    "Ω",
    "machine M { initial state a; }",
    "state s { on e -> s; }",
];

#[derive(Clone, Debug)]
enum Mutation {
    Delete { at: Index, len: Index },
    Duplicate { at: Index, len: Index },
    Insert { at: Index, token: &'static str },
    Swap { a: Index, b: Index, len: Index },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => (any::<Index>(), any::<Index>()).prop_map(|(at, len)| Mutation::Delete { at, len }),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        3 => (any::<Index>(), select(TOKENS)).prop_map(|(at, token)| Mutation::Insert { at, token }),
        1 => (any::<Index>(), any::<Index>(), any::<Index>())
            .prop_map(|(a, b, len)| Mutation::Swap { a, b, len }),
    ]
}

/// The largest char boundary of `text` at or below `i`.
fn floor(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A range of `text` starting at `at` and up to 24 bytes long, on char boundaries.
fn range(text: &str, at: &Index, len: &Index) -> (usize, usize) {
    let start = floor(text, at.index(text.len() + 1));
    let end = floor(text, start + len.index(25));
    (start, end)
}

impl Mutation {
    fn apply(&self, text: &mut String) {
        match self {
            Mutation::Delete { at, len } => {
                let (start, end) = range(text, at, len);
                text.replace_range(start..end, "");
            }
            Mutation::Duplicate { at, len } => {
                let (start, end) = range(text, at, len);
                let copy = text[start..end].to_string();
                text.insert_str(end, &copy);
            }
            Mutation::Insert { at, token } => {
                let at = floor(text, at.index(text.len() + 1));
                text.insert_str(at, token);
            }
            Mutation::Swap { a, b, len } => {
                let (start_a, end_a) = range(text, a, len);
                let (start_b, end_b) = range(text, b, len);
                if end_a <= start_b || end_b <= start_a {
                    let (first, second) = if start_a < start_b {
                        ((start_a, end_a), (start_b, end_b))
                    } else {
                        ((start_b, end_b), (start_a, end_a))
                    };
                    let swapped = format!(
                        "{}{}{}{}{}",
                        &text[..first.0],
                        &text[second.0..second.1],
                        &text[first.1..second.0],
                        &text[first.0..first.1],
                        &text[second.1..]
                    );
                    *text = swapped;
                }
            }
        }
    }
}

fn mutated_seed() -> impl Strategy<Value = String> {
    (any::<Index>(), prop::collection::vec(mutation(), 1..6)).prop_map(|(seed, mutations)| {
        let seeds = seeds();
        let mut text = seeds[seed.index(seeds.len())].clone();
        for m in &mutations {
            m.apply(&mut text);
        }
        text
    })
}

// ---------------------------------------------------------------------------
// Generated machines: grammatical text that reaches every check
// ---------------------------------------------------------------------------

/// Small name pools, so names repeat (duplicates, collisions, shadowing) and
/// include contextual keywords, Rust keywords and colliding spellings.
const STATE_NAMES: &[&str] = &[
    "idle",
    "running",
    "done",
    "waiting_input",
    "waiting__input",
    "WaitingInput",
    "exit",
    "state",
    "type",
    "s1",
];
const ACTION_NAMES: &[&str] = &["go", "stop", "retry", "tick", "on", "emit", "priority", "self"];
/// Timer delays: literals, one out of range (`invalid-duration`), and a
/// named delay (which needs a context: `missing-context`).
const DELAYS: &[&str] = &["250ms", "30s", "2m", "0s", "tool_timeout"];
const GUARD_NAMES: &[&str] = &["a", "b", "ready", "any"];
const OUTPUT_NAMES: &[&str] = &["log", "beep", "output", "Log"];
const LINT_NAMES: &[&str] = &[
    "unreachable-state",
    "dead-end",
    "no-path-to-terminal",
    "ambiguous-priority",
    "unsatisfiable-guard",
    "unused-declaration",
    "syntax",
    "not-a-code",
];

fn guard_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        3 => select(GUARD_NAMES).prop_map(str::to_string),
        1 => select(GUARD_NAMES).prop_map(|g| format!("!{g}")),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| format!("!({e})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} || {b}")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("({a} || {b}) && {a}")),
        ]
    })
}

/// `leaves` joined by `op`, grouped with parentheses as `splits` picks: the
/// same chain as `a OP b OP c ...`, written some other way.
fn grouped(leaves: &[String], op: &str, splits: &mut impl Iterator<Item = Index>) -> String {
    if leaves.len() == 1 {
        return leaves[0].clone();
    }
    let at = 1 + splits.next().map_or(0, |i| i.index(leaves.len() - 1));
    let side = |part: &[String], splits: &mut _| {
        let text = grouped(part, op, splits);
        if part.len() > 1 {
            format!("({text})")
        } else {
            text
        }
    };
    let left = side(&leaves[..at], splits);
    let right = side(&leaves[at..], splits);
    format!("{left} {op} {right}")
}

/// A chain of one operator over 2 to 8 operands, flat and grouped at random.
fn regrouped_chain() -> impl Strategy<Value = (String, String)> {
    let operand = prop_oneof![
        3 => select(GUARD_NAMES).prop_map(str::to_string),
        1 => select(GUARD_NAMES).prop_map(|g| format!("!{g}")),
        1 => (select(GUARD_NAMES), select(GUARD_NAMES)).prop_map(|(a, b)| format!("({a} && {b})")),
        1 => (select(GUARD_NAMES), select(GUARD_NAMES)).prop_map(|(a, b)| format!("!({a} || {b})")),
    ];
    (
        prop::collection::vec(operand, 2..=8),
        select(&["&&", "||"][..]),
        prop::collection::vec(any::<Index>(), 8),
    )
        .prop_map(|(leaves, op, splits)| {
            let flat = leaves.join(&format!(" {op} "));
            (flat, grouped(&leaves, op, &mut splits.into_iter()))
        })
}

/// A machine with one guarded transition.
fn guarded_machine(guard: &str) -> String {
    format!("machine M {{ initial state s {{ on go [{guard}] -> t; }} state t {{ on back -> s; }} }}")
}

fn names(pool: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(select(pool), 1..=max).prop_map(|n| n.join(", "))
}

/// A target state, entered as itself or through its history (a history of
/// a state that holds none is `history-of-leaf`).
fn target() -> impl Strategy<Value = String> {
    (
        select(STATE_NAMES),
        select(&["", "", "", ".history", ".deep_history"][..]),
    )
        .prop_map(|(state, entry)| format!("{state}{entry}"))
}

/// A transition (`on action`) or a timer (`after delay`), with literal
/// delays good and bad, and a named one (which needs a context).
fn transition_or_timer(timer: bool) -> impl Strategy<Value = String> {
    let trigger = if timer {
        select(DELAYS).prop_map(|d| format!("after {d}")).boxed()
    } else {
        select(ACTION_NAMES).prop_map(|a| format!("on {a}")).boxed()
    };
    (
        trigger,
        prop::option::weighted(0.4, guard_expr()),
        prop::option::weighted(0.3, prop_oneof![-3i32..=3, any::<i32>()]),
        prop::option::weighted(0.8, target()),
        prop::option::weighted(0.3, names(OUTPUT_NAMES, 2)),
    )
        .prop_map(|(trigger, guard, priority, target, emit)| {
            let mut t = trigger;
            if let Some(g) = guard {
                t += &format!(" [{g}]");
            }
            if let Some(p) = priority {
                t += &format!(" priority {p}");
            }
            if let Some(s) = target {
                t += &format!(" -> {s}");
            }
            if let Some(o) = emit {
                t += &format!(" emit {o}");
            }
            t + ";"
        })
}

fn transition() -> impl Strategy<Value = String> {
    transition_or_timer(false)
}

fn attributes() -> impl Strategy<Value = String> {
    prop::option::weighted(0.2, prop::collection::vec(select(LINT_NAMES), 0..3))
        .prop_map(|codes| codes.map_or(String::new(), |c| format!("#[allow({})] ", c.join(", "))))
}

/// Several transitions on one action at one priority: the cases that
/// `ambiguous-priority`, `shadowed-transition` and `duplicate-transition` judge.
fn transition_group() -> impl Strategy<Value = String> {
    (
        select(ACTION_NAMES),
        -1i32..=1,
        prop::collection::vec((prop::option::weighted(0.8, guard_expr()), target()), 2..4),
    )
        .prop_map(|(action, priority, transitions)| {
            let lines: Vec<String> = transitions
                .into_iter()
                .map(|(guard, target)| match guard {
                    Some(g) => format!("on {action} [{g}] priority {priority} -> {target};"),
                    None => format!("on {action} priority {priority} -> {target};"),
                })
                .collect();
            lines.join("\n    ")
        })
}

/// How deep generated states nest (a top-level state is at depth 1).
const MAX_GENERATED_DEPTH: usize = 3;

/// What a state at `depth` holds: transitions, timers, hooks and, above
/// [`MAX_GENERATED_DEPTH`], states of its own.
fn state_item(depth: usize) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        4 => transition(),
        2 => transition_group(),
        1 => transition_or_timer(true),
        1 => (select(&["enter", "exit"][..]), names(OUTPUT_NAMES, 2))
            .prop_map(|(k, o)| format!("{k} emit {o};")),
    ];
    if depth >= MAX_GENERATED_DEPTH {
        leaf.boxed()
    } else {
        prop_oneof![8 => leaf, 3 => state(depth + 1)].boxed()
    }
}

/// A state at `depth`, maybe with a body; nested states inside are
/// composites, with or without an `initial` child.
fn state(depth: usize) -> BoxedStrategy<String> {
    (
        attributes(),
        modifiers(),
        select(STATE_NAMES),
        prop::option::weighted(0.8, prop::collection::vec((state_item(depth), gap()), 0..5)),
    )
        .prop_map(|(attrs, modifiers, name, body)| match body {
            None => format!("{attrs}{modifiers}state {name};"),
            Some(items) => format!("{attrs}{modifiers}state {name} {{{}\n    }}", joined(items)),
        })
        .boxed()
}

fn modifiers() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        12 => Just(""),
        4 => Just("initial "),
        3 => Just("terminal "),
        1 => select(&["initial terminal ", "terminal initial "][..]),
    ]
}

/// Some text between items: nothing but a space, newlines, or comments.
fn gap() -> impl Strategy<Value = &'static str> {
    select(
        &[
            " ",
            "\n    ",
            "\n\n    ",
            " // why\n    ",
            "\n    /// What it is.\n    ",
            "\t",
        ][..],
    )
}

fn joined(items: Vec<(String, &'static str)>) -> String {
    items
        .into_iter()
        .map(|(item, gap)| format!("{gap}{item}"))
        .collect()
}

fn machine_item() -> impl Strategy<Value = String> {
    let state = state(1);
    let decl = prop_oneof![
        names(ACTION_NAMES, 3).prop_map(|n| format!("action {n};")),
        names(GUARD_NAMES, 3).prop_map(|n| format!("guard {n};")),
        names(OUTPUT_NAMES, 3).prop_map(|n| format!("output {n};")),
    ];
    let any_block = prop::collection::vec((transition(), gap()), 0..3)
        .prop_map(|items| format!("any {{{}\n    }}", joined(items)));
    prop_oneof![6 => state, 2 => decl, 1 => any_block]
}

fn machine() -> impl Strategy<Value = String> {
    (
        attributes(),
        select(&["M", "Agent", "machine"][..]),
        prop::collection::vec((machine_item(), gap()), 0..10),
    )
        .prop_map(|(attrs, name, items)| format!("{attrs}machine {name} {{{}\n}}\n", joined(items)))
}

fn generated_file() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (machine(), select(&["", "\n", "// between\n", "/// Docs.\n"][..])),
        1..3,
    )
    .prop_map(|machines| machines.into_iter().map(|(m, gap)| format!("{gap}{m}")).collect())
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        check_well_formed(&text)?;
    }

    #[test]
    fn random_strings_never_panic(text in any::<String>()) {
        check_well_formed(&text)?;
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(select(TOKENS), 0..80)) {
        check_well_formed(&tokens.concat())?;
    }

    #[test]
    fn mutated_seeds_never_panic(text in mutated_seed()) {
        let checked = check_well_formed(&text)?;
        format_round_trips(&text, &checked)?;
    }

    #[test]
    fn regrouping_a_chain_keeps_its_canonical_form((flat, regrouped) in regrouped_chain()) {
        let flat_checked = check_well_formed(&guarded_machine(&flat))?;
        let regrouped_checked = check_well_formed(&guarded_machine(&regrouped))?;
        prop_assert!(!flat_checked.has_errors() && !regrouped_checked.has_errors());
        prop_assert_eq!(canonical(&regrouped_checked), canonical(&flat_checked), "{}", regrouped);
        // The canonical guard parses back to the very same tree.
        let m = &regrouped_checked.model.machines[0];
        let text = m.guard_text(&m.transitions[0].guard.as_ref().expect("guarded").expr);
        let again = check_well_formed(&guarded_machine(&text))?;
        prop_assert_eq!(
            &again.model.machines[0].transitions[0].guard.as_ref().expect("guarded").expr,
            &m.transitions[0].guard.as_ref().expect("guarded").expr
        );
    }

    #[test]
    fn generated_machines_parse_and_check(text in generated_file()) {
        let checked = check_well_formed(&text)?;
        prop_assert!(
            !has_syntax_error(&checked),
            "generated text is grammatical but got {:#?}",
            checked.diagnostics.iter().filter(|d| d.code == Code::Syntax).collect::<Vec<_>>()
        );
        format_round_trips(&text, &checked)?;
    }
}

#[test]
fn seeds_check_and_format_round_trip() {
    for text in seeds() {
        let checked = check_well_formed(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        format_round_trips(text, &checked).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}

/// A snapshot taken before someone added harmless parentheses to a guard
/// still restores: the fingerprint is the canonical form's.
#[test]
fn a_snapshot_survives_parentheses_added_to_a_guard_chain() {
    use fsm_dynamic::Definition;
    use fsm_runtime::FingerprintPolicy;
    let before = Definition::from_fsm(&guarded_machine("a || b || c && d && e")).expect("checks");
    let snapshot = before.snapshot_in(before.state_id("t").expect("state t"));
    for after in [
        "a || (b || c && d && e)",
        "(a || b) || (c && (d && e))",
        "a || (b || (c && d) && e)",
    ] {
        let after = Definition::from_fsm(&guarded_machine(after)).expect("checks");
        assert_eq!(after.fingerprint(), before.fingerprint());
        assert_eq!(
            after.state_of(&snapshot, FingerprintPolicy::Strict).ok(),
            after.state_id("t")
        );
    }
    // Parentheses that change the meaning change the fingerprint.
    let other = Definition::from_fsm(&guarded_machine("(a || b || c) && d && e")).expect("checks");
    assert!(other.state_of(&snapshot, FingerprintPolicy::Strict).is_err());
}

/// The formatter moves a `//` comment out of an item's first line and above
/// the item's doc comments, as documented, so comments keep their order
/// within each kind, not across kinds (found by `mutated_seeds_never_panic`
/// on the pipeline example, `-> completed//`).
#[test]
fn a_comment_inside_a_documented_transition_moves_above_its_docs() {
    let text = "machine M {\n    initial state a {\n        /// Doc.\n        on go -> b // why\n            emit o;\n    }\n    state b;\n}\n";
    let checked = check_well_formed(text).unwrap();
    format_round_trips(text, &checked).unwrap();
    let formatted = fsm_grammar::format::format(text).unwrap();
    let why = formatted.find("// why").expect("the comment is kept");
    assert!(why < formatted.find("/// Doc.").unwrap(), "{formatted}");
}
