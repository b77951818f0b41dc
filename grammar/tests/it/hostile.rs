//! Hostile input: names of any length cost bounded time and bounded output.

use fsm_grammar::interchange::from_json;
use fsm_grammar::{check, report, Code, LineIndex};

const TEN_MB: usize = 10_000_000;

/// A machine with one unreachable state whose name is `name`.
fn with_unreachable(name: &str) -> String {
    format!(
        "machine M {{\n    initial state a {{ on go -> b; }}\n    state b {{ on back -> a; }}\n    state {name} {{ on go -> a; }}\n}}\n"
    )
}

#[test]
fn a_ten_megabyte_name_prints_a_bounded_report_with_an_exact_span() {
    let name = "x".repeat(TEN_MB);
    let text = with_unreachable(&name);
    let checked = check(&text);
    assert_eq!(
        checked.diagnostics.len(),
        1,
        "{:?}",
        checked.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>()
    );
    let d = &checked.diagnostics[0];
    assert_eq!(d.code, Code::UnreachableState);
    // The span is the whole name.
    assert_eq!(&text[d.span.start..d.span.end], name);
    // The texts name it shortened.
    assert!(
        d.message.len() < 200 && d.help.len() < 300,
        "{} {}",
        d.message,
        d.help
    );

    let human = report::human("big.fsm", &text, &checked.diagnostics, 100, false);
    assert!(human.len() < 4_000, "human report of {} bytes", human.len());
    assert!(human.contains("big.fsm:4:11"), "{human}");
    let records = report::json("big.fsm", &text, &checked.diagnostics);
    assert_eq!((records[0].line, records[0].column), (4, 11));
    assert_eq!((records[0].end_line, records[0].end_column), (4, 11 + TEN_MB));
    assert!(report::json_array(&records).len() < 2_000);
    assert!(report::github("big.fsm", &text, &checked.diagnostics).len() < 2_000);
}

#[test]
fn a_long_line_next_to_a_diagnostic_is_not_printed() {
    // The error is on line 2; line 3, in its context, is 10 MB long.
    let name = "x".repeat(TEN_MB);
    let text = format!(
        "machine M {{\n    initial state a {{ on go -> nowhere; }}\n    state {name} {{ on back -> a; }}\n}}\n"
    );
    let checked = check(&text);
    let human = report::human("big.fsm", &text, &checked.diagnostics, 100, false);
    assert!(human.len() < 8_000, "human report of {} bytes", human.len());
    assert!(human.contains("on go -> nowhere;"), "{human}");
}

#[test]
fn a_typo_of_a_forty_thousand_character_name_is_not_searched() {
    // A one-letter typo of a 40,000-character state: the edit distance of
    // the two would be a 1.6-billion-cell table.
    let name = "s".repeat(40_000);
    let typo = format!("{}t", &name[1..]);
    let text = format!("machine M {{\n    initial state a {{ on go -> {typo}; }}\n    state {name} {{ on back -> a; }}\n}}\n");
    let checked = check(&text);
    let d = checked
        .diagnostics
        .iter()
        .find(|d| d.code == Code::UnknownState)
        .expect("unknown-state");
    assert!(d.help.starts_with("define it with `state sss"), "{}", d.help);
    assert!(d.help.len() < 300);
    let index = LineIndex::new(&text);
    assert_eq!(index.line_col(&text, d.span.start).line, 2);

    // The same document as JSON.
    let json = format!(
        r#"{{"fsm_id": "m", "initial_state": "a", "states": {{"a": {{"on": {{"go": {{"to": "{typo}"}}}}}}, "{name}": {{}}}}}}"#
    );
    let errors = from_json(&json).expect_err("unknown state");
    let unknown = errors
        .iter()
        .find(|e| e.message.starts_with("unknown state"))
        .expect("unknown state");
    assert_eq!(unknown.help.as_deref(), Some("name one of the keys of `states`"));
    assert!(unknown.message.len() < 200, "{}", unknown.message);
}
