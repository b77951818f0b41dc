//! The front end of contexts, payloads, effects and timers: text to AST to
//! model, their diagnostics at the exact token, fmt and the fingerprint.

use fsm_grammar::model::{Delay, Machine};
use fsm_grammar::Code;
use std::time::Duration;

const ROUTER: &str = "\
/// A tool-calling router, with its step budget inside the machine.
machine Router {
    context RouterContext;

    action decided(Decision);
    action tool_finished(crate::tools::ToolResult);
    action internal_error;

    guard steps_left;
    guard ready_to_answer(Decision);
    guard wants_tool(Decision);

    effect count_step;
    effect record(Decision);
    effect store_result(crate::tools::ToolResult);
    delay tool_timeout;

    initial state route {
        on decided [!steps_left] priority 2 -> fail;
        on decided [ready_to_answer] priority 1 -> answer do count_step, record;
        on decided [wants_tool] -> call_tool do count_step, record emit execute_tool;
        on decided -> fail;
    }
    state call_tool {
        enter do count_step emit request_tool;
        on tool_finished -> route do store_result emit request_decision;
        after tool_timeout -> fail emit report_timeout;
        after 10m [steps_left] priority 1 -> fail;
    }
    terminal state answer { enter emit synthesize_answer; }
    terminal state fail { enter emit report_failure; }
    any { on internal_error -> fail; }
}
";

fn machine(text: &str) -> Machine {
    let checked = fsm_grammar::check(text);
    assert!(checked.diagnostics.is_empty(), "{:#?}", checked.diagnostics);
    checked.model.machines.into_iter().next().unwrap()
}

/// Each diagnostic's code and the text it underlines.
fn found(text: &str) -> Vec<(Code, &str)> {
    fsm_grammar::check(text)
        .diagnostics
        .iter()
        .map(|d| (d.code, &text[d.span.start..d.span.end]))
        .collect()
}

#[test]
fn the_router_of_the_issue_lowers_to_the_model() {
    let m = machine(ROUTER);
    assert_eq!(m.context.as_ref().unwrap().text, "RouterContext");
    let payload = |s: &fsm_grammar::model::Symbol| s.payload.as_ref().map(|p| p.text.clone());
    assert_eq!(
        payload(&m.actions[1]).as_deref(),
        Some("crate::tools::ToolResult")
    );
    assert_eq!(payload(&m.actions[2]), None);
    assert_eq!(payload(&m.guards[1]).as_deref(), Some("Decision"));
    let effects: Vec<&str> = m.effects.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(effects, ["count_step", "record", "store_result"]);
    let t = &m.transitions[1];
    let names: Vec<&str> = t
        .effects
        .iter()
        .map(|e| m.effects[e.index()].name.as_str())
        .collect();
    assert_eq!(names, ["count_step", "record"]);
    let call_tool = m.state_by_name("call_tool").unwrap();
    assert_eq!(m.state(call_tool).enter_effects.len(), 1);
    assert_eq!(m.timers.len(), 2);
    assert_eq!(
        m.timers[0].expect_delay(),
        Delay::Named(fsm_grammar::model::DelayId(0))
    );
    assert_eq!(
        m.timers[1].expect_delay(),
        Delay::Literal(Duration::from_secs(600))
    );
    assert_eq!(m.timers[1].priority, 1);
    assert_eq!(m.delay_text(m.timers[1].expect_delay()), "10m");
    assert_eq!(m.timers[0].target, m.state_by_name("fail"));
    assert!(m.has_data_or_timers());
}

#[test]
fn machines_without_the_new_constructs_keep_their_fingerprint() {
    // The canonical text, and so the fingerprint that snapshots carry, of a
    // machine written before contexts and timers existed.
    let text = "machine M { initial state s { enter emit o; on a [g] -> t emit p; } terminal state t; any { on b -> t; } }";
    let m = machine(text);
    assert_eq!(
        m.canonical(),
        "machine M\n\
         state s initial=true terminal=false enter=[o] exit=[]\n\
         state t initial=false terminal=true enter=[] exit=[]\n\
         on s a [g] priority=0 -> t emit=[p]\n\
         on * b [] priority=0 -> t emit=[]\n"
    );
    assert_eq!(m.fingerprint(), "eb300c533fe48c3a");
    assert!(!m.has_data_or_timers());
}

#[test]
fn every_new_construct_changes_the_fingerprint() {
    let base = "machine M { context C; action a(P); guard g(P); effect e(P); effect f; delay d; initial state s { enter do f; on a [g] -> t do e; after d -> t; after 1s -> t; } state t { after 2s -> s; } }";
    let changes = [
        ("context C;", "context D;"),
        ("action a(P)", "action a(Q)"),
        ("enter do f;", ""),
        ("-> t do e;", "-> t;"),
        ("after 1s", "after 2s"),
        ("after d -> t;", ""),
    ];
    let fingerprint = |text: &str| fsm_grammar::check(text).model.machines[0].fingerprint();
    let before = fingerprint(base);
    for (from, to) in changes {
        let changed = base.replacen(from, to, 1);
        assert_ne!(fingerprint(&changed), before, "{changed}");
    }
}

#[test]
fn payload_mismatch_is_on_the_guard_or_effect_name() {
    let text = "machine M { context C; action a(P), b(Q), c; guard g(P); effect e(P);
        initial state s { enter do e; on a [g] -> t do e; on b [g] -> t; on c do e; after 1s [!g] -> t; } terminal state t; }";
    let found = found(text);
    let codes: Vec<Code> = found.iter().map(|f| f.0).collect();
    assert_eq!(codes, [Code::PayloadMismatch; 4], "{found:?}");
    let diagnostics = fsm_grammar::check(text).diagnostics;
    assert!(diagnostics[0].message.contains("`enter` hooks carry no payload"));
    assert!(
        diagnostics[1].message.contains("action `b` carries `Q`"),
        "{}",
        diagnostics[1].message
    );
    assert!(diagnostics[2].message.contains("action `c` carries no payload"));
    assert!(diagnostics[3].message.contains("timers carry no payload"));
    assert!(found.iter().all(|f| f.1 == "g" || f.1 == "e"));
}

#[test]
fn effects_and_delays_need_a_context_and_declarations() {
    let text = "machine M { effect e; initial state s { on a -> t do e; after d -> t; } terminal state t; }";
    assert_eq!(
        found(text),
        [(Code::MissingContext, "e"), (Code::MissingContext, "d")]
    );

    let text = "machine M { context C; effect e; delay d; initial state s { on a -> t do e, f; after d -> t; after x -> t; } terminal state t; }";
    assert_eq!(
        found(text),
        [(Code::UndeclaredEffect, "f"), (Code::UndeclaredDelay, "x")]
    );

    let text = "machine M { context C; effect e; delay d; initial state s { on a -> t; } terminal state t; }";
    assert_eq!(
        found(text),
        [(Code::UnusedDeclaration, "e"), (Code::UnusedDeclaration, "d")]
    );

    let text = "machine M { context C; context D; initial state s; }";
    let found = found(text);
    assert_eq!(found[0], (Code::DuplicateDeclaration, "context"), "{found:?}");
}

#[test]
fn invalid_durations_and_timers_in_terminal_states() {
    let text = "machine M { initial state s { after 0s -> t; after 8d -> t; after 169h -> t; after 5 -> t; after 100ms -> t; } terminal state t { after 1s -> s; } }";
    assert_eq!(
        found(text),
        [
            (Code::InvalidDuration, "0s"),
            (Code::InvalidDuration, "8d"),
            (Code::InvalidDuration, "169h"),
            (Code::InvalidDuration, "5"),
            (Code::TerminalHasTransitions, "after 1s -> s;"),
        ]
    );
}

#[test]
fn a_state_left_only_by_a_timer_is_live() {
    // `wait` is reached and left only through timers: no dead end, no
    // unreachable state, a path to the terminal state.
    let text = "machine M { initial state s { after 1s -> wait; } state wait { after 2s -> done; } terminal state done; }";
    assert_eq!(found(text), []);
}

#[test]
fn types_are_canonical_and_references_are_syntax_errors() {
    let text = "machine M { context crate :: a :: Ctx < Vec < ( u32 , String , ) > , [ u8 ; 4 ] , ( A , ) > ; initial terminal state s; }";
    let m = machine(text);
    assert_eq!(
        m.context.unwrap().text,
        "crate::a::Ctx<Vec<(u32, String)>, [u8; 4], (A,)>"
    );
    for bad in ["&'static str", "Vec<String", "Foo::<T>", "dyn Fn()"] {
        let text = format!("machine M {{ action a({bad}); initial state s; }}");
        let diagnostics = fsm_grammar::check(&text).diagnostics;
        assert_eq!(diagnostics.len(), 1, "{bad}: {diagnostics:?}");
        assert_eq!(diagnostics[0].code, Code::Syntax);
    }
    let help = fsm_grammar::check("machine M { context &'static str; initial state s; }").diagnostics[0]
        .help
        .clone();
    assert!(help.contains("references are not supported"), "{help}");
}

#[test]
fn keywords_stay_contextual() {
    let text = "machine M { initial state after { on do -> delay; on effect -> context; } state delay { on after -> after; } state context; action do, effect, after; }";
    let checked = fsm_grammar::check(text);
    assert!(
        checked.diagnostics.iter().all(|d| d.code != Code::Syntax),
        "{:?}",
        checked.diagnostics
    );
}

#[test]
fn fmt_prints_every_construct_canonically_and_keeps_comments() {
    let messy = "machine M{context  crate::C<u8>;// the memory\naction a( P ),b;guard g(P);effect e(P), f;delay d;\ninitial state s{enter do f emit o;exit do f;on a[g]priority 1->t do e,f emit o;/// soon\nafter 30s [g] -> t do f;after d;}terminal state t;}\n";
    let formatted = fsm_grammar::format::format(messy).unwrap();
    let expected = "\
machine M {
    context crate::C<u8>; // the memory
    action a(P), b;
    guard g(P);
    effect e(P), f;
    delay d;
    initial state s {
        enter do f emit o;
        exit do f;
        on a [g] priority 1 -> t do e, f emit o;
        /// soon
        after 30s [g] -> t do f;
        after d;
    }
    terminal state t;
}
";
    assert_eq!(formatted, expected);
    assert_eq!(fsm_grammar::format::format(&formatted).unwrap(), formatted);
    let before = fsm_grammar::check(messy).model.machines[0].fingerprint();
    let after = fsm_grammar::check(&formatted).model.machines[0].fingerprint();
    assert_eq!(before, after);
}

#[test]
fn a_timer_after_an_unguarded_shorter_one_is_shadowed() {
    let text = "machine M { initial state s { after 1m -> t; after 30s [g] -> t; after 2m -> t; after 90s; } terminal state t; }";
    assert_eq!(
        found(text),
        [(Code::TimerShadowed, "2m"), (Code::TimerShadowed, "90s")]
    );
}

/// Each diagnostic's code, the text it underlines and the texts its other
/// labels underline.
fn found_with_labels(text: &str) -> Vec<(Code, &str, Vec<&str>)> {
    fsm_grammar::check(text)
        .diagnostics
        .iter()
        .map(|d| {
            let labels = d
                .secondary
                .iter()
                .map(|l| &text[l.span.start..l.span.end])
                .collect();
            (d.code, &text[d.span.start..d.span.end], labels)
        })
        .collect()
}

#[test]
fn timers_with_the_same_delay_are_one_group_of_candidates() {
    // Shadowed: an unguarded timer, or guards that cover the later one.
    let text = "machine M { initial state s { on x -> u; after 30s -> t; after 30s [g] -> t; } state u { after 1m [a] -> t; after 1m [!a] -> t; after 1m emit o; } terminal state t; }";
    assert_eq!(
        found_with_labels(text),
        [
            (
                Code::ShadowedTransition,
                "after 30s [g] -> t;",
                vec!["after 30s -> t;"]
            ),
            (
                Code::ShadowedTransition,
                "after 1m emit o;",
                vec!["after 1m [!a] -> t;"]
            ),
        ]
    );
    // A higher priority is tried first, whatever the order of declaration;
    // the same literal written in another unit is the same delay.
    let text = "machine M { initial state s { on x -> t; after 60s -> t; after 1m [g] priority 1 -> t; } terminal state t; }";
    assert_eq!(found_with_labels(text), []);
    // Named delays group by name; different delays never shadow each other here.
    let text = "machine M { context C; delay d, e; initial state s { on x -> t; after d -> t; after e -> t; after d [g] -> t; } terminal state t; }";
    assert_eq!(
        found_with_labels(text),
        [(
            Code::ShadowedTransition,
            "after d [g] -> t;",
            vec!["after d -> t;"]
        )]
    );
}

#[test]
fn duplicate_and_ambiguous_timers() {
    let text = "machine M { initial state s { on x -> t; after 30s [g] -> t; after 30s [g] emit o; after 30s [h] -> t; after 30s [k] priority 1 -> t; } terminal state t; }";
    assert_eq!(
        found_with_labels(text),
        [
            (
                Code::DuplicateTransition,
                "after 30s [g] emit o;",
                vec!["after 30s [g] -> t;"]
            ),
            (Code::AmbiguousPriority, "h", vec!["g"]),
        ]
    );
    // A duplicate is reported once, never again as shadowed or by `timer-shadowed`.
    let text = "machine M { initial state s { on x -> t; after 10s -> t; after 1m -> t; after 1m -> t; } terminal state t; }";
    assert_eq!(
        found_with_labels(text),
        [
            (Code::TimerShadowed, "1m", vec!["10s"]),
            (
                Code::DuplicateTransition,
                "after 1m -> t;",
                vec!["after 1m -> t;"]
            ),
        ]
    );
}
