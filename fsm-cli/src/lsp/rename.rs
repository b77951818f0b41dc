//! Rename a name across every occurrence in its machine. A new name must be
//! an identifier, must not name another thing of the same kind, and must not
//! make the file worse: the renamed text is checked, and an error it has
//! that the old text did not (two names that become one Rust identifier, a
//! reserved guard name) refuses the rename with that error's message.

use super::analysis::Analysis;
use super::documents::Document;
use super::index::Kind;
use fsm_grammar::Span;
use lsp_types::{PrepareRenameResponse, TextEdit, Uri, WorkspaceEdit};
use std::collections::HashMap;

/// The range of the name under `offset` and the name itself, or why there
/// is nothing to rename there.
pub fn prepare(
    document: &Document,
    analysis: &Analysis,
    offset: usize,
) -> Result<PrepareRenameResponse, String> {
    let (name, occurrence) = analysis.index.at(offset).ok_or(
        "only the names of machines, states, actions, guards, outputs, effects and delays can be renamed",
    )?;
    Ok(PrepareRenameResponse::RangeWithPlaceholder {
        range: document.range(occurrence.span),
        placeholder: name.text.clone(),
    })
}

/// The edits renaming the name under `offset` to `new_name`, or why not.
pub fn rename(
    document: &Document,
    analysis: &Analysis,
    uri: &Uri,
    offset: usize,
    new_name: &str,
) -> Result<WorkspaceEdit, String> {
    let (name, _) = analysis.index.at(offset).ok_or(
        "only the names of machines, states, actions, guards, outputs, effects and delays can be renamed",
    )?;
    if !is_identifier(new_name) {
        return Err(format!(
            "`{new_name}` is not a name: names start with a letter or `_` and go on with letters, digits and `_`"
        ));
    }
    if new_name == name.text {
        return Ok(WorkspaceEdit::default());
    }
    let taken = match name.kind {
        Kind::Machine => analysis
            .index
            .names
            .iter()
            .any(|n| n.kind == Kind::Machine && n.text == new_name),
        kind => analysis.index.find(name.machine, kind, new_name).is_some(),
    };
    if taken {
        return Err(format!(
            "this machine already has a {} named `{new_name}`",
            name.kind.word()
        ));
    }
    let mut spans: Vec<Span> = name.occurrences().collect();
    spans.sort();
    // The renamed text must have no error the current one lacks.
    let text = document.text();
    let mut renamed = String::with_capacity(text.len());
    let mut at = 0;
    for span in &spans {
        renamed.push_str(&text[at..span.start]);
        renamed.push_str(new_name);
        at = span.end;
    }
    renamed.push_str(&text[at..]);
    let before: Vec<_> = analysis
        .checked
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect();
    let after = fsm_grammar::check(&renamed).diagnostics;
    let mut counts: HashMap<_, isize> = HashMap::new();
    for code in before {
        *counts.entry(code).or_default() += 1;
    }
    for d in after.iter().filter(|d| d.is_error()) {
        let count = counts.entry(d.code).or_default();
        *count -= 1;
        if *count < 0 {
            return Err(format!(
                "renaming to `{new_name}` would break the machine: {}",
                d.message
            ));
        }
    }
    let edits = spans
        .into_iter()
        .map(|span| TextEdit::new(document.range(span), new_name.to_string()))
        .collect();
    Ok(WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..WorkspaceEdit::default()
    })
}

/// A name as the grammar reads one: `[A-Za-z_][A-Za-z0-9_]*`.
fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::super::documents::Encoding;
    use super::*;
    use fsm_grammar::LintOptions;

    fn try_rename(text: &str, at: &str, new_name: &str) -> Result<usize, String> {
        let document = Document::new(text.into(), 1, Encoding::Utf16);
        let analysis = Analysis::new(text, &LintOptions::default());
        let uri: Uri = "file:///m.fsm".parse().unwrap();
        let edit = rename(&document, &analysis, &uri, text.find(at).unwrap(), new_name)?;
        Ok(edit.changes.map_or(0, |c| c[&uri].len()))
    }

    const TEXT: &str = "machine M { guard ready; initial state idle { on go [ready] -> busy; } state busy { on go -> idle; } }";

    #[test]
    fn renames_every_occurrence_of_the_name_in_its_kind() {
        assert_eq!(try_rename(TEXT, "idle", "waiting"), Ok(2));
        assert_eq!(try_rename(TEXT, "go", "start"), Ok(2));
        assert_eq!(try_rename(TEXT, "ready", "set"), Ok(2));
    }

    #[test]
    fn renaming_a_state_rewrites_its_in_tests() {
        let text = "machine M { initial parallel state p { done [in(a2) && !in ( a2 )] -> x; \
                    state a { initial state a1 { always [in(a2)] -> a2; } final state a2; } } state x; }";
        let document = Document::new(text.into(), 1, Encoding::Utf16);
        let analysis = Analysis::new(text, &LintOptions::default());
        let uri: Uri = "file:///m.fsm".parse().unwrap();
        // From the state inside `in(...)`, as from its declaration.
        for at in [text.find("a2)").unwrap(), text.rfind("a2;").unwrap()] {
            let edit = rename(&document, &analysis, &uri, at, "a_done").unwrap();
            let mut edits = edit.changes.unwrap()[&uri].clone();
            edits.sort_by_key(|e| (e.range.start.line, e.range.start.character));
            let mut renamed = text.to_string();
            for e in edits.iter().rev() {
                let (start, end) = (e.range.start.character as usize, e.range.end.character as usize);
                renamed.replace_range(start..end, &e.new_text);
            }
            assert_eq!(
                renamed,
                text.replace("a2", "a_done"),
                "every `in(a2)`, the target and the declaration"
            );
        }
        // `in` is a keyword there, not a name.
        assert!(prepare(&document, &analysis, text.find("in(").unwrap()).is_err());
    }

    #[test]
    fn refuses_non_names_collisions_and_new_errors() {
        assert!(try_rename(TEXT, "idle", "2x")
            .unwrap_err()
            .contains("is not a name"));
        assert!(try_rename(TEXT, "idle", "a b")
            .unwrap_err()
            .contains("is not a name"));
        assert_eq!(
            try_rename(TEXT, "idle", "busy"),
            Err("this machine already has a state named `busy`".into())
        );
        // `Busy` and `busy` are one Rust variant.
        assert!(try_rename(TEXT, "idle", "Busy")
            .unwrap_err()
            .contains("would break the machine"));
        assert!(try_rename(TEXT, "ready", "true")
            .unwrap_err()
            .contains("would break the machine"));
        assert!(try_rename(TEXT, "{", "x").is_err());
    }
}
