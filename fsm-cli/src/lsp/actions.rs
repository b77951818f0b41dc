//! Quick fixes: the "did you mean" replacement of every diagnostic that has
//! one, "declare `x`" for undeclared names and unknown states, and "remove
//! the shadowed transition".

use super::analysis::Analysis;
use super::diagnostics;
use super::documents::Document;
use fsm_grammar::ast::{MachineAst, MachineItem};
use fsm_grammar::{Code, Diagnostic, Span};
use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, TextEdit, Uri, WorkspaceEdit};
use std::collections::HashMap;

/// The quick fixes for the diagnostics that touch `range`.
pub fn quick_fixes(
    document: &Document,
    analysis: &Analysis,
    uri: &Uri,
    range: Span,
    docs: &diagnostics::DocsPage,
) -> Vec<CodeActionOrCommand> {
    let mut out = Vec::new();
    for diagnostic in &analysis.diagnostics {
        let span = diagnostic.span;
        if span.end < range.start || range.end < span.start {
            continue;
        }
        for (title, edit, preferred) in fixes(document.text(), analysis, diagnostic) {
            let edits = edit
                .into_iter()
                .map(|(span, text)| TextEdit::new(document.range(span), text))
                .collect();
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diagnostics::to_lsp(document, uri, diagnostic, docs)]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(uri.clone(), edits)])),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(preferred),
                ..CodeAction::default()
            }));
        }
    }
    out
}

/// A fix: its title, its edits (span and new text), and whether it is the
/// one to apply without asking.
type Fix = (String, Vec<(Span, String)>, bool);

fn fixes(text: &str, analysis: &Analysis, diagnostic: &Diagnostic) -> Vec<Fix> {
    let mut out = Vec::new();
    let span = diagnostic.span;
    let word = &text[span.start..span.end];
    if let Some(replacement) = &diagnostic.suggestion {
        out.push((
            format!("Replace `{word}` with `{replacement}`"),
            vec![(span, replacement.clone())],
            true,
        ));
    }
    let machine = analysis
        .machine_at(span.start)
        .map(|m| &analysis.checked.file.machines[m]);
    let declared_kind = match diagnostic.code {
        Code::UndeclaredAction => Some("action"),
        Code::UndeclaredGuard => Some("guard"),
        Code::UndeclaredOutput => Some("output"),
        Code::UndeclaredEffect => Some("effect"),
        Code::UndeclaredDelay => Some("delay"),
        _ => None,
    };
    // Where a declaration goes is a lookup among the machine's own items,
    // from the last one back, not a walk over the tree: no `Visit` here.
    match (diagnostic.code, machine) {
        (_, Some(machine)) if declared_kind.is_some() => {
            let keyword = declared_kind.unwrap_or_default();
            let place = machine.items.iter().rev().find_map(|item| match item {
                MachineItem::Decl(d) if d.kind.keyword() == keyword => Some(d.span),
                _ => None,
            });
            let edit = insert_item(text, machine, place, &format!("{keyword} {word};"));
            out.push((format!("Declare {keyword} `{word}`"), vec![edit], false));
        }
        (Code::UnknownState, Some(machine)) => {
            let place = machine.items.iter().rev().find_map(|item| match item {
                MachineItem::State(s) => Some(s.span),
                _ => None,
            });
            let edit = insert_item(text, machine, place, &format!("state {word};"));
            out.push((format!("Declare state `{word}`"), vec![edit], false));
        }
        (Code::ShadowedTransition, _) => {
            out.push((
                "Remove the shadowed transition".to_string(),
                vec![(whole_lines(text, with_docs(text, span)), String::new())],
                false,
            ));
        }
        _ => {}
    }
    out
}

/// An edit adding `item` on a line of its own after `after` (an item of
/// the machine), or first in the machine's body.
fn insert_item(text: &str, machine: &MachineAst, after: Option<Span>, item: &str) -> (Span, String) {
    match after {
        Some(span) => {
            let indent = indentation(text, span.start);
            (Span::new(span.end, span.end), format!("\n{indent}{item}"))
        }
        None => {
            let open = text[machine.name.span.end..machine.span.end]
                .find('{')
                .map_or(machine.span.end, |i| machine.name.span.end + i + 1);
            let indent = format!("{}    ", indentation(text, machine.span.start));
            (Span::new(open, open), format!("\n{indent}{item}"))
        }
    }
}

/// The whitespace at the start of the line holding `offset`.
fn indentation(text: &str, offset: usize) -> &str {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// `span` with the `///` lines right above it.
fn with_docs(text: &str, span: Span) -> Span {
    let mut start = span.start;
    loop {
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        if !text[line_start..start].trim().is_empty() || line_start == 0 {
            return Span::new(start, span.end);
        }
        let prev_start = text[..line_start - 1].rfind('\n').map_or(0, |i| i + 1);
        if !text[prev_start..line_start].trim_start().starts_with("///") {
            return Span::new(start, span.end);
        }
        start = prev_start + (text[prev_start..].len() - text[prev_start..].trim_start().len());
    }
}

/// `span` grown to whole lines (with the line ending) when nothing else is
/// on them, so removing it leaves no blank line.
fn whole_lines(text: &str, span: Span) -> Span {
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let rest = &text[span.end..];
    let line_end = rest.find('\n').map_or(text.len(), |i| span.end + i + 1);
    let alone = text[line_start..span.start].trim().is_empty() && text[span.end..line_end].trim().is_empty();
    if alone {
        Span::new(line_start, line_end)
    } else {
        span
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsm_grammar::LintOptions;

    /// The text after applying the fix titled `title` to the first diagnostic with `code`.
    fn apply(text: &str, code: Code, title: &str) -> String {
        let analysis = Analysis::new(text, &LintOptions::default());
        let diagnostic = analysis
            .diagnostics
            .iter()
            .find(|d| d.code == code)
            .expect("diagnostic");
        let (_, mut edits, _) = fixes(text, &analysis, diagnostic)
            .into_iter()
            .find(|(t, ..)| t == title)
            .unwrap_or_else(|| panic!("no fix `{title}`"));
        edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
        let mut out = text.to_string();
        for (span, new) in edits {
            out.replace_range(span.start..span.end, &new);
        }
        out
    }

    #[test]
    fn did_you_mean_replaces_the_word() {
        let text = "machine M {\n    initial state opened { on go -> opend; }\n}\n";
        assert_eq!(
            apply(text, Code::UnknownState, "Replace `opend` with `opened`"),
            "machine M {\n    initial state opened { on go -> opened; }\n}\n"
        );
    }

    #[test]
    fn declare_adds_a_line_after_the_last_declaration_of_the_kind() {
        let text = "machine M {\n    action go;\n    initial state a { on go -> a; on stop -> a; }\n}\n";
        assert_eq!(
            apply(text, Code::UndeclaredAction, "Declare action `stop`"),
            "machine M {\n    action go;\n    action stop;\n    initial state a { on go -> a; on stop -> a; }\n}\n"
        );
        let text = "machine M {\n    initial state a { on go -> b; }\n}\n";
        assert_eq!(
            apply(text, Code::UnknownState, "Declare state `b`"),
            "machine M {\n    initial state a { on go -> b; }\n    state b;\n}\n"
        );
        let text =
            "machine M {\n    context C;\n    effect f;\n    initial state a { after 1s -> a do e, f; }\n}\n";
        let fixed = apply(text, Code::UndeclaredEffect, "Declare effect `e`");
        assert!(
            fixed.contains("    effect f;\n    effect e;\n    initial"),
            "{fixed}"
        );
    }

    #[test]
    fn removing_a_shadowed_transition_takes_its_lines_and_docs() {
        let text = "machine M {\n    initial state a {\n        on go -> b;\n        /// Never.\n        on go [ok] -> a;\n    }\n    state b { on go -> a; }\n}\n";
        assert_eq!(
            apply(text, Code::ShadowedTransition, "Remove the shadowed transition"),
            "machine M {\n    initial state a {\n        on go -> b;\n    }\n    state b { on go -> a; }\n}\n"
        );
    }
}
