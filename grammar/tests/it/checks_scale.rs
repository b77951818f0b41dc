//! The semantic checks on large and awkward inputs: the right diagnostics,
//! at sizes where a quadratic check or an exponential guard search would not
//! finish in reasonable time. Nothing here is timed; the guard procedure's
//! work bound is asserted by the unit tests of `guard_logic`.

use fsm_grammar::{check, Code};

fn codes(text: &str) -> Vec<(Code, String)> {
    check(text)
        .diagnostics
        .iter()
        .map(|d| (d.code, text[d.span.start..d.span.end].to_string()))
        .collect()
}

/// `n` states each with `on x -> next;`, a terminal state, and an `any` block.
fn machine(n: usize, any: &str) -> String {
    let mut s = String::from("machine M {\n");
    for i in 0..n {
        let initial = if i == 0 { "initial " } else { "" };
        s += &format!(
            "  {initial}state s{i} {{ on x -> s{}; on quit -> done; }}\n",
            (i + 1) % n
        );
    }
    s += &format!("  terminal state done;\n  any {{ {any} }}\n}}\n");
    s
}

#[test]
fn a_large_guarded_any_group_overridden_everywhere() {
    let n = 400;
    let any: String = (0..n)
        .map(|i| format!("on x [g{i}] priority {i} -> done; "))
        .collect();
    let found = codes(&machine(n, &any));
    // Only the priority-0 one is tried after every state's own `on x`.
    assert_eq!(
        found,
        [(
            Code::ShadowedTransition,
            "on x [g0] priority 0 -> done;".to_string()
        )]
    );
}

#[test]
fn many_states_with_many_guarded_candidates() {
    let mut s = String::from("machine M {\n");
    for i in 0..40 {
        let initial = if i == 0 { "initial " } else { "" };
        let body: String = (0..200)
            .map(|j| format!("on x [g{j}] priority {j} -> s{}; ", (i + 1) % 40))
            .collect();
        s += &format!("  {initial}state s{i} {{ {body} on x -> done; }}\n");
    }
    s += "  terminal state done;\n}\n";
    assert_eq!(codes(&s), []);
}

fn contradictions(k: usize) -> String {
    let e: Vec<String> = (0..k).map(|i| format!("v{i} && !v{i}")).collect();
    format!(
        "machine M {{ initial state a {{ on x [{}] -> b; on y -> b; }} terminal state b; }}",
        e.join(" || ")
    )
}

#[test]
fn a_guard_over_sixteen_names_is_decided_exactly() {
    let found = codes(&contradictions(16));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Code::UnsatisfiableGuard);
}

#[test]
fn a_guard_over_more_names_than_the_documented_limit_is_not_analysed() {
    // Documented in docs/diagnostics.md: no diagnostic rather than a guess.
    assert_eq!(codes(&contradictions(17)), []);
}

#[test]
fn independent_guards_are_analysed_whatever_their_number() {
    // 300 distinct names in one group, none connected to another: each
    // component is tiny, so the last candidate is judged exactly.
    let body: String = (0..300)
        .map(|j| format!("on x [g{j}] -> b; on x [!g{j}] -> b; "))
        .collect();
    let text = format!("machine M {{ initial state a {{ {body} }} terminal state b; }}");
    let found = codes(&text);
    // `[g0]` then `[!g0]` cover everything: all later candidates are shadowed.
    assert_eq!(
        found
            .iter()
            .filter(|(c, _)| *c == Code::ShadowedTransition)
            .count(),
        598
    );
}

#[test]
fn a_shadowed_candidate_is_not_also_ambiguous() {
    let text = "machine M { initial state a { on x [p] -> b; on x -> b; on x [q] -> b; } terminal state b; }";
    assert_eq!(
        codes(text),
        [(Code::ShadowedTransition, "on x [q] -> b;".to_string())]
    );
}

#[test]
fn no_path_to_terminal_names_a_few_terminal_states() {
    let mut s = String::from("machine M { initial state a { on x -> b; } state b { on x -> a; }");
    for j in 0..100 {
        s += &format!(" terminal state t{j};");
    }
    s += " }";
    let checked = check(&s);
    let d = checked
        .diagnostics
        .iter()
        .find(|d| d.code == Code::NoPathToTerminal)
        .expect("reported");
    let help = format!("{d:?}");
    assert!(help.contains("97 more terminal states"), "{help}");
    assert!(!help.contains("`t3`"), "{help}");
}

#[test]
fn an_any_transition_of_higher_priority_is_not_overridden() {
    // `a` handles `stop` itself, but the (guarded) `any` one has a higher
    // priority and is tried first: `done` is reachable, nothing is reported.
    let text = "machine M { initial state a { on stop -> a; on go -> a; } terminal state done; any { on stop [urgent] priority 1 -> done; } }";
    assert_eq!(codes(text), []);
    // At equal priority the state's own goes first: `done` is unreachable.
    let text = "machine M { initial state a { on stop -> a; on go -> b; } state b { on go -> a; on stop -> b; } terminal state done; any { on stop -> done; } }";
    let found = codes(text);
    assert!(
        found.contains(&(Code::UnreachableState, "done".to_string())),
        "{found:?}"
    );
}

/// A parallel state of `n` regions, each a composite of two leaves with a
/// transition between them, one out of the parallel state, and an `in(...)`
/// of the next region: a product of regions must never be enumerated.
fn wide_parallel(n: usize) -> String {
    let mut s = String::from(
        "machine W {\n  initial state idle { on go -> p; }\n  parallel state p {\n    done -> idle;\n",
    );
    for i in 0..n {
        s += &format!(
            "    state r{i} {{ initial state a{i} {{ on x{} [in(b{})] -> b{i}; on quit -> idle; }} final state b{i}; }}\n",
            i % 7,
            (i + 1) % n
        );
    }
    s += "  }\n}\n";
    s
}

#[test]
fn a_wide_parallel_state_checks_in_proportion() {
    // Timed by the test's run, not asserted: quadratic work in the number
    // of regions would take minutes here.
    let found = codes(&wide_parallel(3000));
    assert!(
        found.iter().all(|(c, _)| *c == Code::ConflictingRegions),
        "{:?}",
        &found[..found.len().min(5)]
    );
}
