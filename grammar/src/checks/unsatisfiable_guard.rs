//! `unsatisfiable-guard`: a guard expression that no input can make true.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::guard_logic::{self, Budget};
use crate::model::Machine;

pub(crate) fn check(m: &Machine, budget: &mut Budget, sink: &mut Sink<'_>) {
    for t in &m.transitions {
        let Some(g) = &t.guard else { continue };
        if guard_logic::satisfiable_within(&[(&g.expr, true)], budget) != Some(false) {
            continue;
        }
        sink.push(
            Scope::from(t.source),
            Diagnostic::new(
                Code::UnsatisfiableGuard,
                g.span,
                format!(
                    "guard `{}` can never hold, so this transition on `{}` never fires",
                    m.guard_text(&g.expr),
                    m.actions[t.expect_action().index()].name
                ),
                "always false",
                "the expression contradicts itself (like `a && !a`); fix the expression or remove the transition",
            ),
        );
    }
}
