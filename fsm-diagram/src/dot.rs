//! Graphviz DOT.

use super::view::{EdgeSource, View};
use fsm_grammar::model::{Machine, StateId};
use std::fmt::Write as _;

/// The id of the initial pseudo-state's point. Not an identifier, so it
/// cannot be a state's name.
const START: &str = "[*]";
/// The id of the `any` pseudo-state.
const ANY: &str = "[any]";

/// The machine as a Graphviz `digraph` that `dot` lays out: states as
/// rounded boxes listing their hooks and internal transitions, terminal
/// states as double circles, the initial state pointed at from a dot, and
/// `any` transitions drawn from a dashed `any` box, as [`fsm_diagram`](crate)
/// describes.
///
/// Each transition's label is a plain-text node on its edge (`"[N]"`, the
/// `N`th edge): the edge runs from its source into the label and on to its
/// target, with the arrowhead at the target. `dot` keeps nodes apart and
/// routes edges around them, so no label overprints another, a state or a
/// cluster's border, and no edge strikes through a label, which its edge
/// labels do not promise (`tests/it/graphviz_render.rs` checks the layouts).
///
/// ```
/// let model = fsm_grammar::check("machine M { initial state a { on go -> b; } terminal state b; }")
///     .into_model()
///     .unwrap();
/// let dot = fsm_diagram::dot(&model.machines[0]);
/// assert!(dot.starts_with("digraph \"M\" {\n"));
/// assert!(dot.contains("    \"[0]\" [label=\"go\", shape=plaintext];\n"));
/// assert!(dot.contains("    \"a\" -> \"[0]\" [arrowhead=none];\n    \"[0]\" -> \"b\";\n"));
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
    // Where each edge's label node lives: in the innermost composite that
    // holds both of its ends, outside both, so that it can be clipped at
    // either end's cluster.
    let homes: Vec<Option<StateId>> = view
        .edges
        .iter()
        .map(|edge| match edge.from {
            EdgeSource::State(from) => machine
                .ancestors(StateId(from as u32))
                .find(|&a| machine.is_inside(StateId(edge.to as u32), a)),
            EdgeSource::Any => None,
        })
        .collect();
    for s in machine.state_ids().filter(|&s| machine.state(s).parent.is_none()) {
        state_node(machine, &view, &homes, s, 1, &mut out);
    }
    label_nodes(&view, &homes, None, 1, &mut out);
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
    // initial child; a parallel state has none, each region has its own.
    let marked = |s: StateId| machine.state(s).is_composite() && !machine.state(s).is_parallel();
    for s in machine.state_ids().filter(|&s| marked(s)) {
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
    // Each edge runs through a node of its own that holds its label (see
    // `label_nodes`): no arrowhead into it, one out of it.
    for (i, edge) in view.edges.iter().enumerate() {
        let through = label_node(i);
        let mut tail_attrs = vec!["arrowhead=none".to_string()];
        let mut head_attrs = Vec::new();
        let from = match edge.from {
            EdgeSource::State(i) => {
                let (from, clipped) = leaf(i);
                if clipped {
                    tail_attrs.push(format!("ltail={}", quote(&cluster(&view.states[i].name))));
                }
                from
            }
            EdgeSource::Any => ANY,
        };
        let (to, clipped) = leaf(edge.to);
        if clipped {
            head_attrs.push(format!("lhead={}", quote(&cluster(&view.states[edge.to].name))));
        }
        if edge.from == EdgeSource::State(edge.to) && !clipped {
            // A loop on a leaf: into its label from the left, back out of
            // it from the right, rather than two lines side by side.
            tail_attrs.push("headport=w".to_string());
            head_attrs.push("tailport=e".to_string());
        }
        let _ = writeln!(
            out,
            "    {} -> {}{};",
            quote(from),
            quote(&through),
            attributes(&tail_attrs)
        );
        let _ = writeln!(
            out,
            "    {} -> {}{};",
            quote(&through),
            quote(to),
            attributes(&head_attrs)
        );
    }
    out.push_str("}\n");
    out
}

/// A leaf as a node, a composite as a cluster holding its states, at
/// `depth` levels of indentation. Recursion is bounded by the model's depth limit.
fn state_node(
    machine: &Machine,
    view: &View,
    homes: &[Option<StateId>],
    s: StateId,
    depth: usize,
    out: &mut String,
) {
    let indent = "    ".repeat(depth);
    let state = &view.states[s.index()];
    if machine.state(s).is_composite() {
        let _ = writeln!(out, "{indent}subgraph {} {{", quote(&cluster(&state.name)));
        // A region of a parallel state is a dashed cluster inside the
        // parallel state's, beside the others (they share no edge, so `dot`
        // ranks them alike); the parallel state has no start marker, each
        // region has its own.
        let style = if state.region {
            "\"rounded,dashed\""
        } else {
            "rounded"
        };
        let _ = writeln!(
            out,
            "{indent}    label={}; labeljust=l; style={style};",
            quote(&lines_label(&state.name, &state.lines))
        );
        if !state.parallel {
            let _ = writeln!(
                out,
                "{indent}    {} [shape=point, width=0.1, label=\"\"];",
                quote(&start_of(&state.name))
            );
        }
        for &child in &machine.state(s).children {
            state_node(machine, view, homes, child, depth + 1, out);
        }
        label_nodes(view, homes, Some(s), depth + 1, out);
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
    if state.final_ {
        // UML's final state is a circled dot. A terminal state (the machine
        // ends) is a hollow double circle; a final state (its region or
        // composite is done, and the machine goes on) is the same double
        // circle filled, the dot, with its name in it: `in(...)` and the
        // `done` transitions that test it name it.
        attrs.push("shape=doublecircle, style=filled, fillcolor=\"#333333\", fontcolor=white".to_string());
    } else if state.region {
        attrs.push("style=\"rounded,dashed\"".to_string());
    }
    let _ = writeln!(out, "{indent}{}{};", quote(&state.name), attributes(&attrs));
}

/// The label nodes of the edges whose home is `home` (`None`: the graph
/// itself), at `depth` levels of indentation.
///
/// An edge's label is a node on the edge rather than the edge's `label`:
/// `dot` then keeps it clear of every other node and label, routes other
/// edges around it and keeps it inside or outside each cluster as its home
/// says, where edge labels of its own may overprint each other (two
/// opposite edges between the same ranks, loops on one state) or a
/// cluster's border.
fn label_nodes(
    view: &View,
    homes: &[Option<StateId>],
    home: Option<StateId>,
    depth: usize,
    out: &mut String,
) {
    let indent = "    ".repeat(depth);
    for (i, edge) in view.edges.iter().enumerate().filter(|&(i, _)| homes[i] == home) {
        let _ = writeln!(
            out,
            "{indent}{} [label={}, shape=plaintext];",
            quote(&label_node(i)),
            quote(&edge.label)
        );
    }
}

/// The id of the node holding the label of the `i`th edge. Not an
/// identifier, so it cannot be a state's name.
fn label_node(i: usize) -> String {
    format!("[{i}]")
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
