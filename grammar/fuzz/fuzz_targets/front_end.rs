//! Fuzz the whole front end: `check` (parse, lower, every check) and `format`.
//!
//! Crashes on a panic, on a diagnostic or label span outside the input or
//! inside a character, on unsorted diagnostics, and, for inputs without
//! syntax errors, on a formatter that fails, changes a machine's meaning,
//! loses a comment or is not idempotent.
//!
//! ```text
//! cargo +nightly fuzz run front_end -- -dict=fuzz/front_end.dict   # from grammar/
//! ```

#![no_main]

use fsm_grammar::{check, Checked, Code, Span};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The front end takes `&str`; the CLI rejects invalid UTF-8 before it.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let checked = check(text);
    assert_well_formed(text, &checked);
    if !checked.diagnostics.iter().any(|d| d.code == Code::Syntax) {
        assert_format_round_trips(text, &checked);
    }
});

fn assert_span(text: &str, span: Span, what: &str) {
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "{what}: span {span:?} is outside the input of {} bytes",
        text.len()
    );
    assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "{what}: span {span:?} splits a character"
    );
}

fn assert_well_formed(text: &str, checked: &Checked) {
    for d in &checked.diagnostics {
        assert_span(text, d.span, &format!("{} diagnostic `{}`", d.code, d.message));
        assert!(
            !d.help.is_empty(),
            "{} diagnostic `{}` has no help line",
            d.code,
            d.message
        );
        for label in &d.secondary {
            assert_span(
                text,
                label.span,
                &format!("label `{}` of {} diagnostic", label.message, d.code),
            );
        }
    }
    assert!(
        checked
            .diagnostics
            .windows(2)
            .all(|w| w[0].span.start <= w[1].span.start),
        "diagnostics are not sorted by position"
    );
}

fn canonical(checked: &Checked) -> Vec<String> {
    checked.model.machines.iter().map(|m| m.canonical()).collect()
}

fn codes(checked: &Checked) -> Vec<Code> {
    let mut codes: Vec<Code> = checked.diagnostics.iter().map(|d| d.code).collect();
    codes.sort();
    codes
}

fn comments(text: &str) -> Vec<(bool, String)> {
    fsm_grammar::parse(text).file.comments
        .into_iter()
        .map(|c| (c.doc, c.text))
        .collect()
}

fn assert_format_round_trips(text: &str, checked: &Checked) {
    let formatted = fsm_grammar::format::format(text)
        .unwrap_or_else(|e| panic!("format failed on an input without syntax errors: {e:?}"));
    let again = check(&formatted);
    assert_well_formed(&formatted, &again);
    assert_eq!(
        canonical(&again),
        canonical(checked),
        "format changed a machine:\n{formatted}"
    );
    assert_eq!(
        codes(&again),
        codes(checked),
        "format changed the diagnostics:\n{formatted}"
    );
    assert_eq!(
        comments(&formatted),
        comments(text),
        "format lost or changed a comment:\n{formatted}"
    );
    let twice = fsm_grammar::format::format(&formatted)
        .unwrap_or_else(|e| panic!("format failed on its own output: {e:?}"));
    assert_eq!(twice, formatted, "format is not idempotent");
}
