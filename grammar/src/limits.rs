//! Size limits on guard expressions and on the nesting of states.
//!
//! Guards are trees, and the parser, lowering, evaluation and printing all
//! recurse over them. A hostile or generated text such as `[!!!!…]` or
//! `[a && a && …]` thousands deep would overflow the stack, so a linear scan
//! refuses it up front with a `syntax` diagnostic, and the parser blanks it
//! and carries on with the rest of the file. The limits are far beyond
//! anything a person writes.

use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;

/// Deepest nesting of parentheses and `!` in one guard.
pub const MAX_GUARD_DEPTH: usize = 64;
/// Most `&&`/`||`/`!` operators in one guard.
pub const MAX_GUARD_OPERATORS: usize = 256;
/// Deepest nesting of states: a top-level state is at depth 1, its children
/// at depth 2. The parser, lowering, the formatter, the JSON reader and
/// writer and the diagrams recurse over the state tree; this bound keeps
/// every one of them far from the stack's end, whatever the input.
pub const MAX_STATE_DEPTH: usize = 32;

/// The diagnostic for a state nested deeper than [`MAX_STATE_DEPTH`], on its
/// name (or on what stands for it, in a text that is not a machine).
pub(crate) fn too_deep(span: Span, name: &str) -> Diagnostic {
    Diagnostic::new(
        Code::NestingTooDeep,
        span,
        format!("state `{name}` is nested more than {MAX_STATE_DEPTH} levels deep"),
        "nested too deep",
        format!(
            "states may nest at most {MAX_STATE_DEPTH} levels; flatten the hierarchy (an `any` block or a shared parent higher up often says the same)"
        ),
    )
}

/// Every block (`{ ... }`, comments skipped) opened deeper than a machine
/// body and [`MAX_STATE_DEPTH`] levels of states: its diagnostic, and the
/// span from its `{` to the matching `}` (or the end of the text), for the
/// parser to replace with `;` and spaces, so that `state x { ... }` reads
/// `state x ;` and the rest of the file is still parsed. A linear scan: the
/// text is never recursed into.
pub(crate) fn oversized_nesting(text: &str) -> Vec<(Diagnostic, Span)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    // The block over the limit: its `{`, the depth outside it, and its diagnostic.
    let mut over: Option<(usize, usize, Diagnostic)> = None;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(text.len(), |n| i + n);
                continue;
            }
            b'{' => {
                if over.is_none() && depth > MAX_STATE_DEPTH {
                    let before = text[..i].trim_end();
                    let name_len = before
                        .bytes()
                        .rev()
                        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                        .count();
                    let span = match name_len {
                        0 => Span::new(i, i + 1),
                        n => Span::new(before.len() - n, before.len()),
                    };
                    let name = &text[span.start..span.end];
                    over = Some((i, depth, too_deep(span, name)));
                }
                depth += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                if let Some((_, outside, _)) = &over {
                    if depth == *outside {
                        let (open, _, d) = over.take().expect("checked");
                        found.push((d, Span::new(open, i + 1)));
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    if let Some((open, _, d)) = over {
        found.push((d, Span::new(open, text.len())));
    }
    found
}

/// Every guard (`[ ... ]`, comments skipped) over a limit: its diagnostic, and
/// the span of the whole guard from `[` to `]` (or to the next `;` or `}`, or the
/// end of the text, when it is never closed), for the parser to blank.
///
/// A property's formulas (`never ...;`, `reachable ...;`, `recoverable ...;`,
/// `escapable ...;`, `property NAME: ... leads to ...;`) are held to the
/// same limits: from `property` or the kind's keyword to its `;` (or the next
/// `{`, `}` or `[`), blanked with the `;`.
pub(crate) fn oversized_guards(text: &str) -> Vec<(Diagnostic, Span)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    // Inside a bracket: (start, paren depth, run of `!`, operators).
    let mut guard: Option<(usize, usize, usize, usize)> = None;
    // Whether that region is a property's formula rather than a bracket.
    let mut formula = false;
    // The diagnostic of the current guard, once it is over a limit.
    let mut over: Option<Diagnostic> = None;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            i = text[i..].find('\n').map_or(text.len(), |n| i + n);
            continue;
        }
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        if guard.is_none() && b.is_ascii_alphabetic() && (i == 0 || !word(bytes[i - 1])) {
            let len = bytes[i..].iter().take_while(|&&c| word(c)).count();
            if matches!(
                &text[i..i + len],
                "property" | "never" | "reachable" | "recoverable" | "escapable"
            ) {
                guard = Some((i, 0, 0, 0));
                formula = true;
                i += len;
                continue;
            }
        }
        match (b, guard.as_mut()) {
            (b'[', None) => guard = Some((i, 0, 0, 0)),
            (b';', Some(g)) if formula => {
                if let Some(d) = over.take() {
                    found.push((d, Span::new(g.0, i + 1)));
                }
                guard = None;
                formula = false;
            }
            (b'{' | b'}' | b'[', Some(g)) if formula => {
                if let Some(d) = over.take() {
                    found.push((d, Span::new(g.0, i)));
                }
                formula = false;
                guard = (b == b'[').then_some((i, 0, 0, 0));
            }
            (b']', Some(g)) => {
                if let Some(d) = over.take() {
                    found.push((d, Span::new(g.0, i + 1)));
                }
                guard = None;
            }
            (b';' | b'}', Some(g)) if over.is_some() => {
                // Never closed: the guard ends with its statement.
                found.push((over.take().expect("checked"), Span::new(g.0, i)));
                guard = None;
            }
            (b'(', Some(g)) => g.1 += 1,
            (b')', Some(g)) => {
                g.1 = g.1.saturating_sub(1);
                g.2 = 0;
            }
            (b'!', Some(g)) => {
                g.2 += 1;
                g.3 += 1;
            }
            (b'&' | b'|', Some(g)) if bytes.get(i + 1) == Some(&b) => {
                g.3 += 1;
                g.2 = 0;
                i += 1;
            }
            (c, Some(g)) if !c.is_ascii_whitespace() => g.2 = 0,
            _ => {}
        }
        if let (Some((start, depth, nots, ops)), None) = (guard, &over) {
            if depth + nots > MAX_GUARD_DEPTH || ops > MAX_GUARD_OPERATORS {
                let what = if ops > MAX_GUARD_OPERATORS {
                    format!("more than {MAX_GUARD_OPERATORS} operators")
                } else {
                    format!("nested more than {MAX_GUARD_DEPTH} levels deep")
                };
                over = Some(if formula {
                    let keyword = bytes[start..].iter().take_while(|&&c| word(c)).count();
                    Diagnostic::new(
                        Code::Syntax,
                        Span::new(start, start + keyword),
                        format!("this property's formula is {what}"),
                        "formula too large",
                        "split it into several properties, each with a smaller formula",
                    )
                } else {
                    Diagnostic::new(
                        Code::Syntax,
                        Span::new(start, start + 1),
                        format!("this guard expression is {what}"),
                        "guard too large",
                        "split the condition into named guards; the caller can combine them in Rust",
                    )
                });
            }
        }
        i += 1;
    }
    if let (Some(d), Some(g)) = (over, guard) {
        found.push((d, Span::new(g.0, text.len())));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_guards_pass() {
        assert!(oversized_guards(
            "machine M { initial state a { on x [!(a && b) || !!c] -> a; } } #[allow(dead-end)]"
        )
        .is_empty());
    }

    #[test]
    fn deep_or_long_formulas_are_refused_not_overflowed() {
        for formula in [
            format!("{}in(a){}", "(".repeat(5000), ")".repeat(5000)),
            format!("{}terminal", "!".repeat(100_000)),
            format!("in(a){}", " || in(a)".repeat(100_000)),
        ] {
            let text = format!("machine M {{ initial state a; never {formula}; }}");
            let checked = crate::check(&text);
            assert_eq!(checked.diagnostics.len(), 1, "{:?}", checked.diagnostics);
            let d = &checked.diagnostics[0];
            assert_eq!(d.code, Code::Syntax);
            assert_eq!(&text[d.span.start..d.span.end], "never");
            assert!(crate::format::format(&text).is_err());
        }
        // A formula within the limits, and words that only look like properties.
        let text = format!(
            "machine M {{ initial state never {{ on never [{}g] -> never; }} never {}in(never); }}",
            "!".repeat(60),
            "!".repeat(60)
        );
        assert!(oversized_guards(&text).is_empty());
    }

    #[test]
    fn deep_or_long_guards_are_refused_not_overflowed() {
        let deep = format!(
            "machine M {{ initial state a {{ on x [{}a{}] -> a; }} }}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        let nots = format!(
            "machine M {{ initial state a {{ on x [{}a] -> a; }} }}",
            "!".repeat(100_000)
        );
        let long = format!(
            "machine M {{ initial state a {{ on x [a{}] -> a; }} }}",
            " && a".repeat(100_000)
        );
        for text in [deep, nots, long] {
            let checked = crate::check(&text);
            assert_eq!(checked.diagnostics.len(), 1, "{:?}", checked.diagnostics);
            assert_eq!(checked.diagnostics[0].code, Code::Syntax);
            assert!(crate::format::format(&text).is_err());
        }
    }

    fn nested(depth: usize) -> String {
        let mut text = String::from("machine M {\n");
        for i in 0..depth {
            text.push_str(&format!("initial state s{i} {{ on go{i} -> s0;\n"));
        }
        text.push_str(&"}\n".repeat(depth));
        text.push_str("}\n");
        text
    }

    #[test]
    fn states_nested_to_the_limit_pass() {
        let text = nested(MAX_STATE_DEPTH);
        assert!(oversized_nesting(&text).is_empty());
        let checked = crate::check(&text);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    }

    #[test]
    fn states_nested_too_deep_are_refused_not_overflowed() {
        for depth in [MAX_STATE_DEPTH + 1, 100_000] {
            let text = nested(depth);
            let checked = crate::check(&text);
            assert_eq!(checked.diagnostics.len(), 1, "{:?}", checked.diagnostics);
            let d = &checked.diagnostics[0];
            assert_eq!(d.code, Code::NestingTooDeep);
            assert_eq!(&text[d.span.start..d.span.end], format!("s{MAX_STATE_DEPTH}"));
            assert!(checked.model.machines.is_empty());
            assert!(crate::format::format(&text).is_err());
        }
        // Braces alone, unbalanced: still one error, no overflow.
        let text = format!("machine M {{ {}", "{".repeat(100_000));
        let checked = crate::check(&text);
        assert!(checked.diagnostics.iter().any(|d| d.code == Code::NestingTooDeep));
    }

    #[test]
    fn an_oversized_guard_does_not_hide_other_diagnostics() {
        let text = format!(
            "machine M {{ initial state a {{ on x [a{}] -> a; on y -> nowhere; }} }}\n\
             machine N {{ initial state b {{ on z -> gone; }} }}\n\
             machine P {{ initial state c {{ on w [{}c] -> c; }} stat d; }}",
            " && a".repeat(300),
            "!".repeat(100),
        );
        let checked = crate::check(&text);
        let codes: Vec<(Code, &str)> = checked
            .diagnostics
            .iter()
            .map(|d| (d.code, &text[d.span.start..d.span.end]))
            .collect();
        assert_eq!(
            codes,
            [
                (Code::Syntax, "["),
                (Code::UnknownState, "gone"),
                (Code::Syntax, "["),
                (Code::Syntax, "stat"),
            ],
            "{:?}",
            checked.diagnostics
        );
    }
}
