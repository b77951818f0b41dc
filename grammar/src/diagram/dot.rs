//! Graphviz DOT.

use super::view::{EdgeSource, View};
use crate::model::{Machine, StateId};
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
    let nested = machine.is_nested();
    if nested {
        // Edges may end at a cluster's border (`lhead`, `ltail`).
        let _ = writeln!(out, "    compound=true;");
    }
    let _ = writeln!(out, "    node [shape=box, style=rounded];");
    let _ = writeln!(out, "    {} [shape=point, width=0.15, label=\"\"];", quote(START));
    for s in machine.state_ids().filter(|&s| machine.state(s).parent.is_none()) {
        state_node(machine, &view, s, 1, &mut out);
    }
    if let Some(lines) = &view.any {
        let _ = writeln!(
            out,
            "    {} [label={}, style=\"rounded,dashed\"];",
            quote(ANY),
            quote(&lines_label("any", lines))
        );
    }
    // A composite is a cluster, not a node: its edges attach to its initial
    // leaf and are clipped at its border.
    let leaf = |i: usize| {
        let s = StateId(i as u32);
        let leaf = machine.initial_descent(s).last().copied().unwrap_or(s);
        (
            view.states[leaf.index()].name.as_str(),
            machine.state(s).is_composite(),
        )
    };
    let (initial, clipped) = leaf(view.initial);
    let _ = writeln!(
        out,
        "    {} -> {}{};",
        quote(START),
        quote(initial),
        attributes(
            &clipped
                .then(|| format!("lhead={}", quote(&cluster(&view.states[view.initial].name))))
                .into_iter()
                .collect::<Vec<_>>()
        )
    );
    // Each composite's own start marker, inside its cluster, to its
    // initial child.
    for s in machine.state_ids().filter(|&s| machine.state(s).is_composite()) {
        if let Some(child) = machine.initial_child(s) {
            let (to, clipped) = leaf(child.index());
            let _ = writeln!(
                out,
                "    {} -> {}{};",
                quote(&start_of(&view.states[s.index()].name)),
                quote(to),
                attributes(
                    &clipped
                        .then(|| format!("lhead={}", quote(&cluster(&view.states[child.index()].name))))
                        .into_iter()
                        .collect::<Vec<_>>()
                )
            );
        }
    }
    // The leaf an end of an edge is drawn at: the state itself, or a
    // composite's initial leaf (the edge is then clipped at its border).
    let drawn_at = |i: usize| {
        let s = StateId(i as u32);
        machine.initial_descent(s).last().copied().unwrap_or(s)
    };
    // Graphviz cannot clip an edge at a cluster that holds its other end
    // ("head is inside tail cluster"), so such an end is drawn at the leaf.
    let holds = |cluster: usize, leaf: StateId| machine.is_inside(leaf, StateId(cluster as u32));
    for edge in &view.edges {
        let mut attrs = vec![format!("label={}", quote(&edge.label))];
        let head_leaf = drawn_at(edge.to);
        let tail_leaf = match edge.from {
            EdgeSource::State(i) => Some(drawn_at(i)),
            EdgeSource::Any => None,
        };
        let from = match edge.from {
            EdgeSource::State(i) => {
                let (from, clipped) = leaf(i);
                if clipped && !holds(i, head_leaf) {
                    attrs.push(format!("ltail={}", quote(&cluster(&view.states[i].name))));
                }
                from
            }
            EdgeSource::Any => ANY,
        };
        let (to, clipped) = leaf(edge.to);
        if clipped && !tail_leaf.is_some_and(|t| holds(edge.to, t)) {
            attrs.push(format!("lhead={}", quote(&cluster(&view.states[edge.to].name))));
        }
        let _ = writeln!(out, "    {} -> {}{};", quote(from), quote(to), attributes(&attrs));
    }
    out.push_str("}\n");
    out
}

/// A leaf as a node, a composite as a cluster holding its states, at
/// `depth` levels of indentation. Recursion is bounded by the model's depth limit.
fn state_node(machine: &Machine, view: &View, s: StateId, depth: usize, out: &mut String) {
    let indent = "    ".repeat(depth);
    let state = &view.states[s.index()];
    if machine.state(s).is_composite() {
        let _ = writeln!(out, "{indent}subgraph {} {{", quote(&cluster(&state.name)));
        let _ = writeln!(
            out,
            "{indent}    label={}; labeljust=l; style=rounded;",
            quote(&lines_label(&state.name, &state.lines))
        );
        let _ = writeln!(
            out,
            "{indent}    {} [shape=point, width=0.1, label=\"\"];",
            quote(&start_of(&state.name))
        );
        for &child in &machine.state(s).children {
            state_node(machine, view, child, depth + 1, out);
        }
        let _ = writeln!(out, "{indent}}}");
        return;
    }
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
    let _ = writeln!(out, "{indent}{}{};", quote(&state.name), attributes(&attrs));
}

/// The id of a composite state's start marker, inside its cluster (state
/// names cannot hold spaces, so it never clashes with one).
fn start_of(name: &str) -> String {
    format!("[*] {name}")
}

/// The id of a composite state's cluster (Graphviz draws subgraphs named
/// `cluster...` as boxes).
fn cluster(name: &str) -> String {
    format!("cluster_{name}")
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
