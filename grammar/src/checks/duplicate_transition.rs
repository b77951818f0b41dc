//! `duplicate-transition`: the same (state, action, guard, priority) written
//! twice in one state, or twice in the `any` blocks.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{Machine, Source};
use std::collections::HashMap;

/// Reports duplicates and returns, per transition, whether it is one (the
/// shadowing check skips those, which would otherwise be reported twice).
pub(crate) fn check(m: &Machine, sink: &mut Sink<'_>) -> Vec<bool> {
    let mut is_duplicate = vec![false; m.transitions.len()];
    let mut first: HashMap<(Source, usize, Option<String>, i32), usize> = HashMap::new();
    for (i, t) in m.transitions.iter().enumerate() {
        let guard = t.guard.as_ref().map(|g| m.guard_text(&g.expr));
        let key = (t.source, t.expect_action().index(), guard.clone(), t.priority);
        let Some(&j) = first.get(&key) else {
            first.insert(key, i);
            continue;
        };
        is_duplicate[i] = true;
        let earlier = &m.transitions[j];
        let place = match t.source {
            Source::State(s) => format!("state `{}`", m.state(s).name),
            Source::Any => "the `any` block".to_string(),
        };
        let guard = guard.map(|g| format!(" [{g}]")).unwrap_or_default();
        sink.push(
            Scope::from(t.source),
            Diagnostic::new(
                Code::DuplicateTransition,
                t.span,
                format!(
                    "{place} has two transitions on `{}`{guard} at priority {}",
                    m.actions[t.expect_action().index()].name,
                    t.priority
                ),
                "duplicate transition",
                "only the first can ever fire; remove this one, or give it a different guard or priority",
            )
            .with_label(earlier.span, "first written here"),
        );
    }
    is_duplicate
}
