//! Size limits on guard expressions.
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

/// Every guard (`[ ... ]`, comments skipped) over a limit: its diagnostic, and
/// the span of the whole guard from `[` to `]` (or to the next `;` or `}`, or the
/// end of the text, when it is never closed), for the parser to blank.
pub(crate) fn oversized_guards(text: &str) -> Vec<(Diagnostic, Span)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    // Inside a bracket: (start, paren depth, run of `!`, operators).
    let mut guard: Option<(usize, usize, usize, usize)> = None;
    // The diagnostic of the current guard, once it is over a limit.
    let mut over: Option<Diagnostic> = None;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            i = text[i..].find('\n').map_or(text.len(), |n| i + n);
            continue;
        }
        match (b, guard.as_mut()) {
            (b'[', None) => guard = Some((i, 0, 0, 0)),
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
                over = Some(Diagnostic::new(
                    Code::Syntax,
                    Span::new(start, start + 1),
                    format!("this guard expression is {what}"),
                    "guard too large",
                    "split the condition into named guards; the caller can combine them in Rust",
                ));
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
