//! `unreachable-state`: a state no sequence of actions leads to.

use super::graph::Graph;
use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{Machine, StateId};

pub(crate) fn check(m: &Machine, graph: &Graph, sink: &mut Sink<'_>) {
    // Only the outermost unreachable state of a subtree: its states are unreachable with it.
    let parent_reachable = |s: StateId| m.state(s).parent.is_none_or(|p| graph.reachable[p.index()]);
    for s in m
        .state_ids()
        .filter(|&s| !graph.reachable[s.index()] && parent_reachable(s))
    {
        let state = m.state(s);
        sink.push(
            Scope::State(s),
            Diagnostic::new(
                Code::UnreachableState,
                state.span,
                format!(
                    "state `{}` cannot be reached from the initial state `{}`",
                    state.name,
                    m.state(m.initial).name
                ),
                "unreachable",
                format!(
                    "add a transition that targets `{}`, remove the state, or silence this with `#[allow(unreachable-state)]`",
                    state.name
                ),
            )
            .with_label(m.state(m.initial).span, "the machine starts here"),
        );
    }
}
