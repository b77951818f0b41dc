//! Graphviz DOT.

use super::view::{EdgeSource, View};
use crate::model::Machine;
use std::fmt::Write as _;

/// The id of the initial pseudo-state's point. Not an identifier, so it
/// cannot be a state's name.
const START: &str = "[*]";
/// The id of the `any` pseudo-state.
const ANY: &str = "[any]";

/// The machine as a Graphviz `digraph` that `dot` lays out: states as
/// rounded boxes listing their hooks and internal transitions, terminal
/// states as double circles, the initial state pointed at from a dot, and
/// `any` transitions drawn from a dashed `any` box, as [`crate::diagram`]
/// describes.
///
/// ```
/// let model = fsm_grammar::check("machine M { initial state a { on go -> b; } terminal state b; }")
///     .into_model()
///     .unwrap();
/// let dot = fsm_grammar::diagram::dot(&model.machines[0]);
/// assert!(dot.starts_with("digraph \"M\" {\n"));
/// assert!(dot.contains("    \"a\" -> \"b\" [label=\"go\"];\n"));
/// ```
pub fn dot(machine: &Machine) -> String {
    let view = View::new(machine);
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(&view.name));
    let _ = writeln!(out, "    node [shape=box, style=rounded];");
    let _ = writeln!(out, "    {} [shape=point, width=0.15, label=\"\"];", quote(START));
    for state in &view.states {
        let mut attrs = Vec::new();
        if !state.lines.is_empty() {
            attrs.push(format!(
                "label={}",
                quote(&lines_label(&state.name, &state.lines))
            ));
        }
        if state.terminal {
            attrs.push("shape=doublecircle".to_string());
        }
        let _ = writeln!(out, "    {}{};", quote(&state.name), attributes(&attrs));
    }
    if let Some(lines) = &view.any {
        let _ = writeln!(
            out,
            "    {} [label={}, style=\"rounded,dashed\"];",
            quote(ANY),
            quote(&lines_label("any", lines))
        );
    }
    let _ = writeln!(
        out,
        "    {} -> {};",
        quote(START),
        quote(&view.states[view.initial].name)
    );
    for edge in &view.edges {
        let from = match edge.from {
            EdgeSource::State(i) => view.states[i].name.as_str(),
            EdgeSource::Any => ANY,
        };
        let _ = writeln!(
            out,
            "    {} -> {} [label={}];",
            quote(from),
            quote(&view.states[edge.to].name),
            quote(&edge.label)
        );
    }
    out.push_str("}\n");
    out
}

/// The name, then one line per entry.
fn lines_label(name: &str, lines: &[String]) -> String {
    std::iter::once(name)
        .chain(lines.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

fn attributes(attrs: &[String]) -> String {
    if attrs.is_empty() {
        String::new()
    } else {
        format!(" [{}]", attrs.join(", "))
    }
}

/// A DOT double-quoted string: `"` and `\` escaped, newlines as `\n`.
/// Quoting every id also keeps DOT keywords (`node`, `graph`, ...) usable as
/// state names.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn quoting_escapes_quotes_backslashes_and_newlines() {
        assert_eq!(quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
        assert_eq!(quote("node"), "\"node\"");
    }
}
