//! Writing machine specifications as `.fsm` text, remembering which JSON
//! path each piece of text came from so that the checks' diagnostics can be
//! reported at JSON paths.
//!
//! The layout is plain (one item per line); the importer runs the result
//! through the formatter afterwards.

use super::names::Name;
use super::path::JsonPath;
use super::read::{ActionSpec, CandidateSpec, Code, DelaySpec, MachineSpec, StateSpec};
use crate::span::Span;

/// `.fsm` text and where each part of it came from.
pub(super) struct Written {
    pub text: String,
    /// Spans of the text and the JSON path each came from, in order of
    /// their start; an outer span comes before the spans inside it.
    origins: Vec<(Span, JsonPath)>,
}

impl Written {
    /// The JSON path of the innermost recorded span that contains `span`;
    /// `$` when none does.
    pub(super) fn origin(&self, span: Span) -> JsonPath {
        // Spans are recorded in order of their start, an outer span before
        // the spans inside it. Of the spans starting at or before `span`, the
        // last one that also ends at or after it is the innermost.
        let end = self.origins.partition_point(|(s, _)| s.start <= span.start);
        self.origins[..end]
            .iter()
            .rev()
            .find(|(s, _)| span.end <= s.end)
            .map(|(_, path)| path.clone())
            .unwrap_or_default()
    }
}

/// Write every machine.
pub(super) fn machines(specs: &[MachineSpec]) -> Written {
    let mut writer = Writer {
        text: String::new(),
        origins: Vec::new(),
    };
    for spec in specs {
        writer.machine(spec);
    }
    Written {
        text: writer.text,
        origins: writer.origins,
    }
}

struct Writer {
    text: String,
    origins: Vec<(Span, JsonPath)>,
}

impl Writer {
    fn push(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// Write `text` and record that it came from `path`.
    fn push_from(&mut self, text: &str, path: &JsonPath) {
        let start = self.text.len();
        self.text.push_str(text);
        self.origins
            .push((Span::new(start, self.text.len()), path.clone()));
    }

    fn name(&mut self, name: &Name) {
        self.push_from(&name.ident, &name.path);
    }

    fn names(&mut self, names: &[Name]) {
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.name(name);
        }
    }

    /// Record that everything written by `body` came from `path`.
    fn from(&mut self, path: &JsonPath, body: impl FnOnce(&mut Self)) {
        let start = self.text.len();
        let index = self.origins.len();
        self.origins
            .insert(index, (Span::new(start, start), path.clone()));
        body(self);
        self.origins[index].0.end = self.text.len();
    }

    fn docs(&mut self, indent: &str, docs: &[String]) {
        for line in docs {
            self.push(indent);
            self.push("///");
            if !line.is_empty() {
                self.push(" ");
                self.push(line);
            }
            self.push("\n");
        }
    }

    fn allow(&mut self, indent: &str, codes: &[Code]) {
        if codes.is_empty() {
            return;
        }
        self.push(indent);
        self.push("#[allow(");
        for (i, code) in codes.iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.push_from(&code.name, &code.path);
        }
        self.push(")]\n");
    }

    fn machine(&mut self, spec: &MachineSpec) {
        self.from(&spec.path, |w| {
            w.docs("", &spec.docs);
            w.allow("", &spec.allow);
            w.push("machine ");
            match &spec.name {
                Some(name) => w.name(name),
                // Only reached when the reader reported the missing name.
                None => w.push("_"),
            }
            w.push(" {\n");
            // A blank line between the groups of items, as the examples are
            // laid out; the formatter keeps single blank lines.
            let mut first_item = true;
            let mut separate = |w: &mut Self| {
                if !std::mem::take(&mut first_item) {
                    w.push("\n");
                }
            };
            if let Some((ty, path)) = &spec.context {
                separate(w);
                w.push("    context ");
                w.push_from(ty, path);
                w.push(";\n");
            }
            for declarations in &spec.declarations {
                separate(w);
                // Consecutive names with the same docs share one declaration,
                // as they were most likely written.
                for group in declarations.symbols.chunk_by(|a, b| a.docs == b.docs) {
                    w.docs("    ", &group[0].docs);
                    w.push("    ");
                    w.push(declarations.keyword);
                    w.push(" ");
                    for (i, symbol) in group.iter().enumerate() {
                        if i > 0 {
                            w.push(", ");
                        }
                        w.name(&symbol.name);
                        if let Some((ty, path)) = &symbol.payload {
                            w.push("(");
                            w.push_from(ty, path);
                            w.push(")");
                        }
                    }
                    w.push(";\n");
                }
            }
            for state in &spec.states {
                separate(w);
                w.state(state);
            }
            if !spec.any.is_empty() {
                separate(w);
                w.push("    any {\n");
                w.transitions(&spec.any);
                w.push("    }\n");
            }
            if !spec.properties.is_empty() {
                separate(w);
            }
            for property in &spec.properties {
                w.from(&property.path, |w| {
                    w.docs("    ", &property.docs);
                    w.push("    ");
                    if let Some((name, path)) = &property.name {
                        w.push("property ");
                        w.push_from(name, path);
                        w.push(": ");
                    }
                    match &property.leads_to {
                        None => {
                            w.push(property.kind);
                            w.push(" ");
                            w.push_from(&property.formula.0, &property.formula.1);
                        }
                        Some((target, assuming)) => {
                            w.push_from(&property.formula.0, &property.formula.1);
                            w.push(" leads to ");
                            w.push_from(&target.0, &target.1);
                            for (i, (name, path)) in assuming.iter().enumerate() {
                                w.push(if i == 0 { " assuming " } else { ", " });
                                w.push_from(name, path);
                            }
                        }
                    }
                    w.push(";\n");
                });
            }
            w.push("}\n");
        });
        self.push("\n");
    }

    fn state(&mut self, state: &StateSpec) {
        self.from(&state.name.path, |w| {
            w.docs("    ", &state.docs);
            w.allow("    ", &state.allow);
            w.push("    ");
            // The keywords come from the members that mark the state, so a
            // check on one (`composite-terminal`) points at that member.
            if let Some(path) = &state.initial {
                w.push_from("initial", path);
                w.push(" ");
            }
            if let Some(path) = &state.terminal {
                w.push_from("terminal", path);
                w.push(" ");
            }
            // `parallel` comes last, just before `state`.
            let more = state.statechart.as_deref();
            let marks = more.map(|m| [("final", &m.final_), ("parallel", &m.parallel)]);
            for (keyword, mark) in marks.into_iter().flatten() {
                if let Some(path) = mark {
                    w.push_from(keyword, path);
                    w.push(" ");
                }
            }
            w.push("state ");
            w.name(&state.name);
            w.push(" {\n");
            let hooks = [
                ("enter", &state.enter_effects, &state.enter),
                ("exit", &state.exit_effects, &state.exit),
            ];
            for (keyword, effects, outputs) in hooks {
                if !effects.is_empty() || !outputs.is_empty() {
                    w.push("        ");
                    w.push(keyword);
                    w.effects_and_emits(effects, outputs);
                    w.push(";\n");
                }
            }
            w.transitions(&state.on);
            for timer in &state.after {
                let c = &timer.body;
                w.docs("        ", &c.docs);
                w.push("        ");
                w.from(&c.path, |w| {
                    w.push("after ");
                    match &timer.delay {
                        Some(DelaySpec::Literal(text, path)) => w.push_from(text, path),
                        Some(DelaySpec::Name(name)) => w.name(name),
                        // Only reached when the reader reported the missing delay.
                        None => w.push("1s"),
                    }
                    w.rest(c);
                });
                w.push("\n");
            }
            let lists = more.map(|m| [("done", &m.done), ("always", &m.always)]);
            for (keyword, list) in lists.into_iter().flatten() {
                for c in list {
                    w.docs("        ", &c.docs);
                    w.push("        ");
                    w.from(&c.path, |w| {
                        w.push_from(keyword, &c.path);
                        w.rest(c);
                    });
                    w.push("\n");
                }
            }
            // The reader bounds the depth of this recursion.
            for child in &state.children {
                w.state(child);
            }
            w.push("    }\n");
        });
    }

    fn transitions(&mut self, actions: &[ActionSpec]) {
        for action in actions {
            for candidate in &action.candidates {
                self.docs("        ", &candidate.docs);
                self.push("        ");
                self.from(&candidate.path, |w| {
                    w.push("on ");
                    w.push_from(&action.name.ident, &candidate.path);
                    w.rest(candidate);
                });
                self.push("\n");
            }
        }
    }

    /// What follows the action or delay: guard, priority, target, effects,
    /// outputs and the `;`.
    fn rest(&mut self, candidate: &CandidateSpec) {
        if let Some((guard, path)) = &candidate.guard {
            self.push(" [");
            self.push_from(guard, path);
            self.push("]");
        }
        if let Some((priority, path)) = &candidate.priority {
            self.push(" priority ");
            self.push_from(&priority.to_string(), path);
        }
        if let Some(to) = &candidate.to {
            self.push(" -> ");
            self.name(to);
            if let Some((kind, path)) = &candidate.history {
                self.push(".");
                self.push_from(kind.keyword(), path);
            }
        }
        self.effects_and_emits(&candidate.effects, &candidate.emit);
        self.push(";");
    }

    /// ` do e, f emit o, p`, each part only when it has names.
    fn effects_and_emits(&mut self, effects: &[Name], outputs: &[Name]) {
        if !effects.is_empty() {
            self.push(" do ");
            self.names(effects);
        }
        if !outputs.is_empty() {
            self.push(" emit ");
            self.names(outputs);
        }
    }
}
