//! `no-path-to-terminal`: a reachable state from which the machine can never
//! finish, in a machine that has terminal states.

use super::graph::Graph;
use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::Machine;

/// Terminal states named in the help at most.
const NAMED: usize = 3;

pub(crate) fn check(m: &Machine, graph: &Graph, sink: &mut Sink<'_>) {
    if !graph.has_terminal {
        return;
    }
    // Name a few terminal states, not all: the help is repeated for every
    // state reported, so listing them all would grow as states × terminals.
    let mut terminals: Vec<String> = m
        .states
        .iter()
        .filter(|s| s.is_terminal())
        .take(NAMED + 1)
        .map(|s| format!("`{}`", s.name))
        .collect();
    let total = m.states.iter().filter(|s| s.is_terminal()).count();
    if total > NAMED {
        terminals.truncate(NAMED);
        terminals.push(format!("{} more terminal states", total - NAMED));
    }
    for s in m.state_ids() {
        let i = s.index();
        // A dead end is reported as such; an unreachable state as unreachable.
        if !graph.reachable[i] || graph.reaches_terminal[i] || !graph.has_exit[i] {
            continue;
        }
        let state = m.state(s);
        sink.push(
            Scope::State(s),
            Diagnostic::new(
                Code::NoPathToTerminal,
                state.span,
                format!(
                    "no terminal state can be reached from state `{}`; once there, the machine can never finish",
                    state.name
                ),
                "every path from here loops forever",
                format!(
                    "add a transition from `{}` (or a state it leads to) towards {}",
                    state.name,
                    crate::diagnostic::one_of(&terminals)
                ),
            ),
        );
    }
}
