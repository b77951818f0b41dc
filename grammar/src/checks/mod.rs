//! The semantic checks, one per file. Each reads the model and pushes
//! diagnostics into a [`Sink`], which applies `#[allow(...)]`.

mod ambiguous_priority;
mod dead_end;
mod duplicate_transition;
mod graph;
mod name_collision;
mod no_path_to_terminal;
mod shadowed_transition;
mod unreachable_state;
mod unsatisfiable_guard;
mod unused_declaration;

use crate::diagnostic::{Diagnostic, Severity};
use crate::model::{Machine, Model, Source, StateId};

/// Run every check over every machine of `model`.
pub(crate) fn run(model: &Model, out: &mut Vec<Diagnostic>) {
    name_collision::check_machines(model, out);
    for machine in &model.machines {
        let mut sink = Sink { machine, out };
        let graph = graph::Graph::new(machine);
        unreachable_state::check(machine, &graph, &mut sink);
        dead_end::check(machine, &graph, &mut sink);
        no_path_to_terminal::check(machine, &graph, &mut sink);
        let duplicates = duplicate_transition::check(machine, &mut sink);
        shadowed_transition::check(machine, &duplicates, &mut sink);
        ambiguous_priority::check(machine, &mut sink);
        unsatisfiable_guard::check(machine, &mut sink);
        unused_declaration::check(machine, &mut sink);
        name_collision::check_names(machine, &mut sink);
    }
}

/// Where a diagnostic belongs, for `#[allow(...)]`: the whole machine, or one state.
#[derive(Clone, Copy)]
pub(crate) enum Scope {
    Machine,
    State(StateId),
}

impl From<Source> for Scope {
    fn from(source: Source) -> Self {
        match source {
            Source::State(s) => Scope::State(s),
            Source::Any => Scope::Machine,
        }
    }
}

/// Collects one machine's diagnostics, dropping warnings its `#[allow]`s silence.
pub(crate) struct Sink<'a> {
    machine: &'a Machine,
    out: &'a mut Vec<Diagnostic>,
}

impl Sink<'_> {
    pub(crate) fn push(&mut self, scope: Scope, diagnostic: Diagnostic) {
        if diagnostic.severity == Severity::Warning {
            let code = diagnostic.code;
            let allowed = self.machine.allows.contains(&code)
                || matches!(scope, Scope::State(s) if self.machine.state(s).allows.contains(&code));
            if allowed {
                return;
            }
        }
        self.out.push(diagnostic);
    }
}
