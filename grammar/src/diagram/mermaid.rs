//! Mermaid `stateDiagram-v2`.

use super::view::{EdgeSource, View};
use crate::model::Machine;
use std::collections::HashSet;
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
/// name. [`crate::diagram`] says what is drawn and how.
///
/// ```
/// let model = fsm_grammar::check(
///     "machine M { initial state a { on go [ok] -> b emit done; } terminal state b; }",
/// )
/// .into_model()
/// .unwrap();
/// let text = fsm_grammar::diagram::mermaid(&model.machines[0]);
/// assert!(text.contains("    [*] --> a\n    a --> b : go [ok] / done\n    b --> [*]\n"));
/// ```
pub fn mermaid(machine: &Machine) -> String {
    let view = View::new(machine);
    let ids = Ids::new(&view);
    let mut out = String::new();
    let _ = writeln!(out, "---\ntitle: {}\n---\nstateDiagram-v2", view.name);
    // Declaring a state by its display name keeps the name as the box's
    // title: otherwise Mermaid titles it with its first description line.
    for (state, id) in view.states.iter().zip(&ids.states) {
        if *id != state.name || !state.lines.is_empty() {
            let _ = writeln!(out, "    state \"{}\" as {id}", state.name);
        }
    }
    if let Some(any) = &ids.any {
        let _ = writeln!(out, "    state \"any\" as {any}");
    }
    let _ = writeln!(out, "    [*] --> {}", ids.states[view.initial]);

    // States that appear in some line below; the others are listed alone.
    let mut drawn: HashSet<usize> = HashSet::from([view.initial]);
    drawn.extend((0..view.states.len()).filter(|&i| !view.states[i].lines.is_empty()));
    let sources = (0..view.states.len())
        .map(EdgeSource::State)
        .chain(view.any.is_some().then_some(EdgeSource::Any));
    for source in sources {
        let (id, lines) = match source {
            EdgeSource::State(i) => (&ids.states[i], &view.states[i].lines),
            EdgeSource::Any => match (&ids.any, &view.any) {
                (Some(id), Some(lines)) => (id, lines),
                _ => continue,
            },
        };
        for line in lines {
            let _ = writeln!(out, "    {id} : {line}");
        }
        for edge in view.edges.iter().filter(|e| e.from == source) {
            let _ = writeln!(out, "    {id} --> {} : {}", ids.states[edge.to], edge.label);
            if let EdgeSource::State(i) = source {
                drawn.insert(i);
            }
            drawn.insert(edge.to);
        }
    }
    for (i, state) in view.states.iter().enumerate() {
        if state.terminal {
            let _ = writeln!(out, "    {} --> [*]", ids.states[i]);
        } else if !drawn.contains(&i) {
            // A state nothing leads to or from still appears.
            let _ = writeln!(out, "    {}", ids.states[i]);
        }
    }
    if let Some(any) = &ids.any {
        let _ = writeln!(out, "    classDef anyState stroke-dasharray: 5 5");
        let _ = writeln!(out, "    class {any} anyState");
    }
    out
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

#[cfg(test)]
mod tests {
    use super::mermaid;

    #[test]
    fn keywords_and_taken_ids_get_fresh_aliases() {
        let text = "machine M {
            initial state state { on go -> Note; }
            state state_ { on go -> any_; }
            state Note { on go -> state_; }
            state any_;
            any { on reset -> state; }
        }";
        let model = crate::check(text).model;
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
