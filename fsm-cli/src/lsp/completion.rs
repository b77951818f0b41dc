//! Completion: state names after `->` and in a guard's `in(`, the declared
//! names of the kind each position takes (actions after `on`, guards in
//! `[...]`, outputs after `emit`, effects after `do`, delays after `after`),
//! warning codes in
//! `#[allow(...)]`, and keywords and snippets where an item or clause may
//! start.
//!
//! The text being typed rarely parses, so the position is read from the
//! tokens before the cursor, and the names come from the last version of
//! the machine that parsed.

use super::analysis::KnownNames;
use super::index::Kind;
use fsm_grammar::{Code, Severity};
use lsp_types::{CompletionItem, CompletionItemKind, InsertTextFormat};

/// The completions at `offset` of `text`.
pub fn complete(text: &str, offset: usize, known: &KnownNames, snippets: bool) -> Vec<CompletionItem> {
    let offset = floor_boundary(text, offset.min(text.len()));
    let context = Context::read(&text[..offset]);
    let names = |kind: Kind| -> Vec<CompletionItem> {
        let Some(machine) = &context.machine else {
            return Vec::new();
        };
        known
            .get(machine)
            .and_then(|kinds| kinds.get(&kind))
            .into_iter()
            .flatten()
            .map(|name| CompletionItem {
                label: name.clone(),
                kind: Some(item_kind(kind)),
                detail: Some(kind.word().to_string()),
                ..CompletionItem::default()
            })
            .collect()
    };
    match context.position {
        Position::Name(kind) => names(kind),
        Position::Code => Code::ALL
            .iter()
            .filter(|c| c.default_severity() == Severity::Warning)
            .map(|c| CompletionItem {
                label: c.name().to_string(),
                kind: Some(CompletionItemKind::CONSTANT),
                ..CompletionItem::default()
            })
            .collect(),
        Position::Keywords(words) => words.iter().map(|&word| keyword(word, snippets)).collect(),
    }
}

/// What may be typed at the cursor.
#[derive(Debug, PartialEq, Eq)]
enum Position {
    /// A name of this kind.
    Name(Kind),
    /// A warning code, in `#[allow(...)]`.
    Code,
    /// One of these keywords.
    Keywords(&'static [&'static str]),
}

/// The cursor's machine and position, read from the tokens before it.
struct Context {
    machine: Option<String>,
    position: Position,
}

impl Context {
    fn read(before: &str) -> Context {
        // The word being typed is not part of the context.
        let before = before.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
        let mut depth = 0usize;
        let mut machine = None;
        // The tokens of the statement being written, since the last `{`, `}` or `;`.
        let mut statement: Vec<&str> = Vec::new();
        for token in tokens(before) {
            match token {
                "{" => {
                    if depth == 0 {
                        machine = statement
                            .iter()
                            .position(|&t| t == "machine")
                            .and_then(|i| statement.get(i + 1))
                            .map(|name| name.to_string());
                    }
                    depth += 1;
                    statement.clear();
                }
                "}" => {
                    depth = depth.saturating_sub(1);
                    statement.clear();
                }
                ";" => statement.clear(),
                // An attribute ends where the item it is on begins.
                "]" if statement.first() == Some(&"#") => statement.clear(),
                _ => statement.push(token),
            }
        }
        if depth == 0 {
            machine = None;
        }
        Context {
            machine,
            position: position(depth, &statement),
        }
    }
}

/// The position after `statement`, at brace depth `depth`.
fn position(depth: usize, statement: &[&str]) -> Position {
    const TOP: &[&str] = &["machine"];
    const MACHINE: &[&str] = &[
        "state", "initial", "terminal", "parallel", "action", "guard", "output", "effect", "delay",
        "context", "any",
    ];
    // A state body holds clauses, and states: a composite's children or a
    // parallel state's regions.
    const STATE: &[&str] = &[
        "on", "after", "done", "always", "enter", "exit", "state", "initial", "final", "parallel",
    ];
    const CLAUSES: &[&str] = &["priority", "->", "do", "emit"];
    const HOOK: &[&str] = &["do", "emit"];
    let Some(&first) = statement.first() else {
        return Position::Keywords(match depth {
            0 => TOP,
            1 => MACHINE,
            _ => STATE,
        });
    };
    let last = statement.last().copied().unwrap_or_default();
    if first == "#" {
        return match last {
            "(" | "," => Position::Code,
            _ => Position::Keywords(&[]),
        };
    }
    let open_guard = statement.iter().rposition(|&t| t == "[") > statement.iter().rposition(|&t| t == "]");
    // The list a `,` continues: the last of `do` and `emit`.
    let list = statement
        .iter()
        .rev()
        .find(|&&t| matches!(t, "do" | "emit" | "->" | "priority" | "["));
    // `in(`: a state's name.
    let in_call = last == "(" && statement.len() >= 2 && statement[statement.len() - 2] == "in";
    match (first, last) {
        // `parallel` comes after the other modifiers.
        (_, "parallel") => Position::Keywords(&["state"]),
        ("initial" | "terminal" | "final", _) => {
            Position::Keywords(&["state", "parallel", "initial", "terminal", "final"])
        }
        (_, "->") => Position::Name(Kind::State),
        _ if open_guard && in_call => Position::Name(Kind::State),
        ("never" | "reachable" | "recoverable" | "escapable" | "property", _) if in_call => {
            Position::Name(Kind::State)
        }
        _ if open_guard && matches!(last, "[" | "!" | "&&" | "||" | "(") => Position::Name(Kind::Guard),
        _ if open_guard => Position::Keywords(&[]),
        ("on", "on") => Position::Name(Kind::Action),
        ("after", "after") => Position::Name(Kind::Delay),
        (_, "do") => Position::Name(Kind::Effect),
        (_, "emit") => Position::Name(Kind::Output),
        (_, ",") if list == Some(&"do") => Position::Name(Kind::Effect),
        (_, ",") if list == Some(&"emit") => Position::Name(Kind::Output),
        ("on" | "after" | "done" | "always", _) => Position::Keywords(CLAUSES),
        ("enter" | "exit", _) => Position::Keywords(HOOK),
        _ => Position::Keywords(&[]),
    }
}

/// The tokens of `text`: words, `->`, `&&`, `||` and single characters;
/// comments and whitespace skipped.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || loop {
        let &b = bytes.get(i)?;
        let start = i;
        if b.is_ascii_whitespace() || !b.is_ascii() {
            i += 1;
            continue;
        }
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(text.len(), |n| i + n);
            continue;
        }
        if b.is_ascii_alphanumeric() || b == b'_' {
            while bytes
                .get(i)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                i += 1;
            }
        } else if ["->", "&&", "||"].iter().any(|p| text[i..].starts_with(p)) {
            i += 2;
        } else {
            i += 1;
        }
        return Some(&text[start..i]);
    })
}

fn keyword(word: &str, snippets: bool) -> CompletionItem {
    let snippet = match word {
        "machine" => Some("machine ${1:Name} {\n\tinitial state ${2:idle} {\n\t\t$0\n\t}\n}"),
        "state" => Some("state ${1:name} {\n\t$0\n}"),
        "on" => Some("on ${1:action} -> ${2:target};"),
        _ => None,
    };
    match snippet.filter(|_| snippets) {
        Some(body) => CompletionItem {
            label: word.to_string(),
            kind: Some(CompletionItemKind::SNIPPET),
            detail: Some(
                match word {
                    "machine" => "machine Name { initial state … }",
                    "state" => "state name { … }",
                    _ => "on action -> target;",
                }
                .to_string(),
            ),
            insert_text: Some(body.to_string()),
            insert_text_format: Some(InsertTextFormat::SNIPPET),
            ..CompletionItem::default()
        },
        None => CompletionItem {
            label: word.to_string(),
            kind: Some(CompletionItemKind::KEYWORD),
            ..CompletionItem::default()
        },
    }
}

fn item_kind(kind: Kind) -> CompletionItemKind {
    match kind {
        Kind::Machine => CompletionItemKind::CLASS,
        Kind::State => CompletionItemKind::ENUM_MEMBER,
        Kind::Action => CompletionItemKind::EVENT,
        Kind::Guard => CompletionItemKind::FUNCTION,
        Kind::Output => CompletionItemKind::PROPERTY,
        Kind::Effect => CompletionItemKind::METHOD,
        Kind::Delay => CompletionItemKind::VARIABLE,
        Kind::Property => CompletionItemKind::INTERFACE,
    }
}

fn floor_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Position {
        Context::read(text).position
    }

    #[test]
    fn the_position_follows_the_tokens_before_the_cursor() {
        let m = "machine M {\n  initial state a {\n    ";
        assert_eq!(at(""), Position::Keywords(&["machine"]));
        assert!(matches!(at("machine M { "), Position::Keywords(k) if k.contains(&"state")));
        assert!(matches!(at(m), Position::Keywords(k) if k.contains(&"on")));
        assert_eq!(at(&format!("{m}on ")), Position::Name(Kind::Action));
        assert_eq!(at(&format!("{m}on go -> ")), Position::Name(Kind::State));
        assert_eq!(
            at(&format!("{m}on go -> b")),
            Position::Name(Kind::State),
            "a word being typed"
        );
        assert_eq!(at(&format!("{m}on go [a && !")), Position::Name(Kind::Guard));
        assert_eq!(
            at(&format!("{m}on go [a] -> b do e, ")),
            Position::Name(Kind::Effect)
        );
        assert_eq!(
            at(&format!("{m}on go -> b emit o, ")),
            Position::Name(Kind::Output)
        );
        assert_eq!(at(&format!("{m}after ")), Position::Name(Kind::Delay));
        assert_eq!(at(&format!("{m}enter do ")), Position::Name(Kind::Effect));
        assert!(matches!(at(&format!("{m}on go ")), Position::Keywords(k) if k.contains(&"->")));
        assert_eq!(at("#[allow(dead-end, "), Position::Code);
        assert_eq!(at("// on go ->\n"), Position::Keywords(&["machine"]));
    }

    #[test]
    fn in_takes_a_state_and_done_and_always_take_clauses() {
        let m = "machine M {\n  parallel state p {\n    ";
        assert!(matches!(at("machine M { "), Position::Keywords(k) if k.contains(&"parallel")));
        assert!(
            matches!(at(m), Position::Keywords(k) if ["done", "always", "state", "final", "parallel"].iter().all(|w| k.contains(w)))
        );
        assert!(matches!(at(&format!("{m}initial ")), Position::Keywords(k) if k.contains(&"parallel")));
        assert_eq!(
            at(&format!("{m}initial parallel ")),
            Position::Keywords(&["state"])
        );
        assert!(matches!(at(&format!("{m}done ")), Position::Keywords(k) if k.contains(&"->")));
        assert!(matches!(at(&format!("{m}always [g] ")), Position::Keywords(k) if k.contains(&"priority")));
        assert_eq!(at(&format!("{m}done -> ")), Position::Name(Kind::State));
        assert_eq!(at(&format!("{m}done [in(")), Position::Name(Kind::State));
        assert_eq!(at(&format!("{m}on go [a && !in(")), Position::Name(Kind::State));
        assert_eq!(
            at(&format!("{m}always [in ( a_")),
            Position::Name(Kind::State),
            "a word being typed"
        );
        // A parenthesis that follows no `in` opens a guard expression.
        assert_eq!(at(&format!("{m}on go [!(")), Position::Name(Kind::Guard));
        assert_eq!(at(&format!("{m}done [in(a) || ")), Position::Name(Kind::Guard));
        assert_eq!(at(&format!("{m}done emit ")), Position::Name(Kind::Output));
    }

    #[test]
    fn names_come_from_the_cursors_machine() {
        let mut known = KnownNames::new();
        known
            .entry("M".into())
            .or_default()
            .entry(Kind::State)
            .or_default()
            .insert("idle".into());
        known
            .entry("N".into())
            .or_default()
            .entry(Kind::State)
            .or_default()
            .insert("other".into());
        // The machine does not parse yet; its names are the last known ones.
        let text = "machine M { initial state idle { on go -> ";
        let items = complete(text, text.len(), &known, true);
        let labels: Vec<_> = items.iter().map(|i| i.label.as_str()).collect();
        assert_eq!(labels, ["idle"]);
        // `in(` offers the machine's states too.
        let text = "machine M { initial state idle { on go [in(";
        let items = complete(text, text.len(), &known, true);
        let labels: Vec<_> = items.iter().map(|i| i.label.as_str()).collect();
        assert_eq!(labels, ["idle"]);
        let snippet = &complete("", 0, &known, true)[0];
        assert_eq!(snippet.insert_text_format, Some(InsertTextFormat::SNIPPET));
        assert_eq!(complete("", 0, &known, false)[0].insert_text, None);
    }
}
