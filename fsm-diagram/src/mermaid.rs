//! Mermaid `stateDiagram-v2`.

use super::view::{EdgeSource, View};
use fsm_grammar::model::{Machine, StateId};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// Words that Mermaid's state-diagram lexer takes as keywords (it ignores
/// case). A state with one of these names, or with the name of the start
/// and end pseudo-states, is drawn under an alias.
const RESERVED: &[&str] = &[
    "accdescr",
    "acctitle",
    "class",
    "classdef",
    "click",
    "default",
    "hide",
    "href",
    "note",
    "root_end",
    "root_start",
    "scale",
    "state",
    "statediagram",
    "style",
];

/// The machine as a Mermaid `stateDiagram-v2`, titled with the machine's
/// name. [`fsm_diagram`](crate) says what is drawn and how.
///
/// ```
/// let model = fsm_grammar::check(
///     "machine M { initial state a { on go [ok] -> b emit done; } terminal state b; }",
/// )
/// .into_model()
/// .unwrap();
/// let text = fsm_diagram::mermaid(&model.machines[0]);
/// assert!(text.contains("    [*] --> a\n    a --> b : go [ok] / done\n    b --> [*]\n"));
/// ```
pub fn mermaid(machine: &Machine) -> String {
    let view = View::new(machine);
    let ids = Ids::new(&view);
    let mut out = String::new();
    let _ = writeln!(out, "---\ntitle: {}\n---\nstateDiagram-v2", view.name);
    let tops = machine.state_ids().filter(|&s| machine.state(s).parent.is_none());
    declare(machine, &view, &ids, tops, "    ", &mut out);
    if let Some(any) = &ids.any {
        let _ = writeln!(out, "    state \"any\" as {any}");
    }
    let _ = writeln!(out, "    [*] --> {}", ids.states[view.initial]);
    // Each edge is written in the innermost block holding both its ends
    // (Mermaid places a state in the block it first meets it in).
    let mut scoped: Vec<Vec<usize>> = vec![Vec::new(); view.states.len() + 1];
    for (e, edge) in view.edges.iter().enumerate() {
        let scope = match edge.from {
            EdgeSource::State(i) => {
                common_block(machine, StateId::from_index(i), StateId::from_index(edge.to))
            }
            EdgeSource::Any => None,
        };
        scoped[scope.map_or(0, |s| s.index() + 1)].push(e);
    }
    let blocks = Blocks {
        machine,
        view: &view,
        ids: &ids,
        scoped,
    };
    blocks.body(None, 1, &mut out);
    if let Some(any) = &ids.any {
        let _ = writeln!(out, "    classDef anyState stroke-dasharray: 5 5");
        let _ = writeln!(out, "    class {any} anyState");
    }
    out
}

/// `state "name" as id` for the states among `states` that need it:
/// declaring a state by its display name keeps the name as the box's title,
/// where Mermaid would title it with its first description line. Written in
/// the block that holds them, which is where Mermaid then places them.
fn declare(
    machine: &Machine,
    view: &View,
    ids: &Ids,
    states: impl Iterator<Item = StateId>,
    indent: &str,
    out: &mut String,
) {
    for s in states {
        let (state, id) = (&view.states[s.index()], &ids.states[s.index()]);
        // A composite's lines go in a note (Mermaid refuses descriptions
        // on a state that holds states), so only its name can need this.
        let titled_by_line = !state.lines.is_empty() && !machine.state(s).is_composite();
        if *id != state.name || titled_by_line {
            let _ = writeln!(out, "{indent}state \"{}\" as {id}", state.name);
        }
    }
}

/// The innermost composite state holding both `a` and `b` strictly inside
/// it; `None` for the machine itself.
fn common_block(machine: &Machine, a: StateId, b: StateId) -> Option<StateId> {
    machine.ancestors(a).find(|&c| machine.is_inside(b, c))
}

/// What the blocks of a diagram hold.
struct Blocks<'a> {
    machine: &'a Machine,
    view: &'a View,
    ids: &'a Ids,
    /// The edges (indices into `view.edges`) written in each block: the
    /// machine's at 0, composite `s`'s at `s.index() + 1`.
    scoped: Vec<Vec<usize>>,
}

impl Blocks<'_> {
    /// The states, lines and edges of `scope` (the machine itself for
    /// `None`), with composite states as `state id { [*] --> initial ... }`
    /// blocks, at `depth` levels of indentation. Recursion is bounded by the
    /// model's depth limit.
    fn body(&self, scope: Option<StateId>, depth: usize, out: &mut String) {
        let (machine, view, ids) = (self.machine, self.view, self.ids);
        let indent = "    ".repeat(depth);
        let members: Vec<usize> = match scope {
            Some(s) => machine.state(s).children.iter().map(|c| c.index()).collect(),
            None => machine
                .state_ids()
                .filter(|&s| machine.state(s).parent.is_none())
                .map(|s| s.index())
                .collect(),
        };
        // A parallel state's regions are the concurrent sections of its
        // block, `--` between them (`stateDiagram-v2`'s concurrency): each
        // section holds its region, as a block or, for a leaf, alone.
        let parallel = scope.is_some_and(|s| machine.state(s).is_parallel());
        for (k, &m) in members.iter().enumerate() {
            let s = StateId::from_index(m);
            if parallel && k > 0 {
                let _ = writeln!(out, "{indent}--");
            }
            if machine.state(s).is_composite() {
                let _ = writeln!(out, "{indent}state {} {{", ids.states[m]);
                declare(
                    machine,
                    view,
                    ids,
                    machine.state(s).children.iter().copied(),
                    &format!("{indent}    "),
                    out,
                );
                if let Some(initial) = machine
                    .initial_child(s)
                    .filter(|_| !machine.state(s).is_parallel())
                {
                    let _ = writeln!(out, "{indent}    [*] --> {}", ids.states[initial.index()]);
                }
                self.body(Some(s), depth + 1, out);
                let _ = writeln!(out, "{indent}}}");
                // A region's note goes in its own section: after the last
                // `--`, Mermaid takes a note on an earlier region for one
                // on the divider, and refuses the diagram.
                if parallel {
                    write_note(&view.states[m].lines, &ids.states[m], &indent, out);
                }
            } else if parallel {
                // A leaf region: its lines, or its name alone, in its section.
                for line in &view.states[m].lines {
                    let _ = writeln!(out, "{indent}{} : {line}", ids.states[m]);
                }
                if view.states[m].lines.is_empty() {
                    let _ = writeln!(out, "{indent}{}", ids.states[m]);
                }
            }
        }
        let leaf_region = |m: usize| parallel && !machine.state(StateId::from_index(m)).is_composite();
        // Members that appear in some line below; the others are listed
        // alone. A block's initial state and composites already appear.
        let mut drawn: HashSet<usize> = members
            .iter()
            .copied()
            .filter(|&m| {
                machine.state(StateId::from_index(m)).is_composite()
                    || !view.states[m].lines.is_empty()
                    || scope.is_some_and(|s| machine.initial_child(s) == Some(StateId::from_index(m)))
            })
            .collect();
        if scope.is_none() {
            drawn.insert(view.initial);
        }
        let edges = &self.scoped[scope.map_or(0, |s| s.index() + 1)];
        // This block's edges by source state, in order: one pass over the
        // states then costs the block's edges, not states times edges.
        let mut from: HashMap<usize, Vec<usize>> = HashMap::new();
        for &e in edges {
            if let EdgeSource::State(i) = view.edges[e].from {
                from.entry(i).or_default().push(e);
            }
        }
        // Only the states with something to write here: this block's
        // members, and the sources of its edges.
        let mut writers: Vec<usize> = members.clone();
        writers.extend(from.keys().copied());
        writers.sort_unstable();
        writers.dedup();
        for i in writers {
            let state = &view.states[i];
            let here = machine.state(StateId::from_index(i)).parent == scope;
            if here && machine.state(StateId::from_index(i)).is_composite() {
                // Mermaid refuses descriptions on a state that holds
                // states ("Group nodes can only have label"): a note (a
                // region's is in its section, above).
                if !parallel {
                    write_note(&state.lines, &ids.states[i], &indent, out);
                }
            } else if !leaf_region(i) {
                for line in state.lines.iter().filter(|_| here) {
                    let _ = writeln!(out, "{indent}{} : {line}", ids.states[i]);
                }
            }
            for edge in from.get(&i).into_iter().flatten().map(|&e| &view.edges[e]) {
                let _ = writeln!(
                    out,
                    "{indent}{} --> {} : {}",
                    ids.states[i], ids.states[edge.to], edge.label
                );
                drawn.insert(i);
                drawn.insert(edge.to);
            }
        }
        if let (Some(any), Some(lines)) = (&ids.any, &view.any) {
            if scope.is_none() {
                for line in lines {
                    let _ = writeln!(out, "{indent}{any} : {line}");
                }
                for edge in edges.iter().map(|&e| &view.edges[e]) {
                    if edge.from == EdgeSource::Any {
                        let _ = writeln!(out, "{indent}{any} --> {} : {}", ids.states[edge.to], edge.label);
                        drawn.insert(edge.to);
                    }
                }
            }
        }
        for &m in &members {
            // A final state leads to its block's end marker, as a terminal
            // state leads to the machine's: Mermaid draws it as UML's final
            // state, a circled dot, inside the composite it completes.
            if view.states[m].terminal || view.states[m].final_ {
                let _ = writeln!(out, "{indent}{} --> [*]", ids.states[m]);
            } else if !drawn.contains(&m) && !leaf_region(m) {
                // A state nothing leads to or from still appears.
                let _ = writeln!(out, "{indent}{}", ids.states[m]);
            }
        }
    }
}

/// The Mermaid id of every state, and of the `any` pseudo-state.
struct Ids {
    states: Vec<String>,
    any: Option<String>,
}

impl Ids {
    fn new(view: &View) -> Ids {
        let names: HashSet<&str> = view.states.iter().map(|s| s.name.as_str()).collect();
        let mut taken: HashSet<String> = names.iter().map(|n| n.to_string()).collect();
        // Appending `_` never yields a keyword, and is repeated until the id
        // is unused.
        let mut fresh = |base: &str| {
            let mut id = format!("{base}_");
            while taken.contains(&id) {
                id.push('_');
            }
            taken.insert(id.clone());
            id
        };
        let states = view
            .states
            .iter()
            .map(|s| {
                if RESERVED.contains(&s.name.to_ascii_lowercase().as_str()) {
                    fresh(&s.name)
                } else {
                    s.name.clone()
                }
            })
            .collect();
        let any = view.any.as_ref().map(|_| fresh("any"));
        Ids { states, any }
    }
}

/// `note right of id` holding `lines`; nothing without lines.
fn write_note(lines: &[String], id: &str, indent: &str, out: &mut String) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "{indent}note right of {id}");
    for line in lines {
        let _ = writeln!(out, "{indent}    {line}");
    }
    let _ = writeln!(out, "{indent}end note");
}

#[cfg(test)]
mod tests {
    use super::mermaid;

    /// Mermaid refuses a description line on a state that holds states
    /// ("Group nodes can only have label"), so a composite's hooks and
    /// internal transitions are a note beside it, and it is declared by
    /// name only when its id is an alias.
    #[test]
    fn a_composite_state_has_its_lines_in_a_note() {
        let text = "machine M {
            initial state up {
                enter emit a;
                on tick;
                initial state one { enter emit b; on go -> two; }
                state two;
            }
        }";
        let model = fsm_grammar::check(text).model;
        let diagram = mermaid(&model.machines[0]);
        assert!(!diagram.contains("up : "), "{diagram}");
        assert!(!diagram.contains("state \"up\""), "{diagram}");
        assert!(
            diagram.contains("    note right of up\n        enter / a\n        tick\n    end note\n"),
            "{diagram}"
        );
        // A leaf keeps its description lines.
        assert!(diagram.contains("        one : enter / b\n"), "{diagram}");
    }

    /// A region's note is in the region's own section, before the `--`:
    /// after it, Mermaid reads it as a note on the divider and refuses the
    /// whole diagram ("No such shape: divider").
    #[test]
    fn a_region_s_note_is_in_its_own_section() {
        let text = "machine M {
            initial parallel state p {
                state r { after 3s emit tick; initial state a { on go -> b; } state b; }
                state s { initial state c { on stop -> d; } state d; }
            }
        }";
        let model = fsm_grammar::check(text).model;
        let diagram = mermaid(&model.machines[0]);
        assert!(
            diagram.contains("        }\n        note right of r\n            after 3s / tick\n        end note\n        --\n"),
            "{diagram}"
        );
    }

    #[test]
    fn keywords_and_taken_ids_get_fresh_aliases() {
        let text = "machine M {
            initial state state { on go -> Note; }
            state state_ { on go -> any_; }
            state Note { on go -> state_; }
            state any_;
            any { on reset -> state; }
        }";
        let model = fsm_grammar::check(text).model;
        let diagram = mermaid(&model.machines[0]);
        let expected = [
            "    state \"state\" as state__",
            "    state \"Note\" as Note_",
            "    state \"any\" as any__",
            "    [*] --> state__",
            "    state__ --> Note_ : go",
            "    state_ --> any_ : go",
            "    Note_ --> state_ : go",
            "    any__ --> state__ : reset",
            "    class any__ anyState",
        ];
        for line in expected {
            assert!(
                diagram.lines().any(|l| l == line),
                "missing {line:?} in\n{diagram}"
            );
        }
    }
}
