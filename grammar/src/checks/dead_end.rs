//! `dead-end`: a non-terminal state the machine can never leave.

use super::graph::Graph;
use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::Machine;

pub(crate) fn check(m: &Machine, graph: &Graph, sink: &mut Sink<'_>) {
    for s in m.state_ids() {
        let state = m.state(s);
        // A top-level `final` state is already the `final-at-top-level`
        // error, which says what to write.
        if state.is_terminal() || graph.has_exit[s.index()] || state.is_final() && state.parent.is_none() {
            continue;
        }
        sink.push(
            Scope::State(s),
            Diagnostic::new(
                Code::DeadEnd,
                state.span,
                format!("state `{}` has no transition to another state", state.name),
                "no way out",
                format!(
                    "add a transition out of `{0}`, or mark it `terminal state {0}` if the machine is meant to end here",
                    state.name
                ),
            ),
        );
    }
}
