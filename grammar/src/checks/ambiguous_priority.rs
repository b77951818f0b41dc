//! `ambiguous-priority`: two guarded candidates for one action, written in the
//! same place and at the same priority, whose guards can hold together. The
//! declaration order then silently decides; an explicit priority or exclusive
//! guards (`[a]` / `[!a]`) say what was meant.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::guard_logic::{self, Budget};
use crate::model::{Machine, Source, TransitionId};
use std::collections::BTreeMap;

/// `never_fires`: per transition, whether it is shadowed (or a duplicate);
/// those are reported as such and never as ambiguous.
pub(crate) fn check(m: &Machine, never_fires: &[bool], budget: &mut Budget, sink: &mut Sink<'_>) {
    for s in m.state_ids() {
        check_list(m, m.own_transitions(s), never_fires, budget, sink);
    }
    check_list(m, m.any_transitions(), never_fires, budget, sink);
}

/// Transitions written in one place, grouped by (action, priority).
fn check_list(
    m: &Machine,
    list: &[TransitionId],
    never_fires: &[bool],
    budget: &mut Budget,
    sink: &mut Sink<'_>,
) {
    let mut groups: BTreeMap<(usize, i32), Vec<TransitionId>> = BTreeMap::new();
    for &t in list {
        let tr = m.transition(t);
        if tr.guard.is_some() && !never_fires[t.index()] {
            groups
                .entry((tr.expect_action().index(), tr.priority))
                .or_default()
                .push(t);
        }
    }
    // The machine's budget bounds the pairwise questions on a huge group; past
    // it, the remaining pairs are not judged.
    for group in groups.values().filter(|g| g.len() > 1) {
        for (j, &later) in group.iter().enumerate().skip(1) {
            if budget.is_spent() {
                return;
            }
            let b = m.transition(later);
            let gb = &b.guard.as_ref().expect("grouped transitions are guarded").expr;
            let overlap = group[..j].iter().copied().find(|&earlier| {
                let ga = &m
                    .transition(earlier)
                    .guard
                    .as_ref()
                    .expect("grouped transitions are guarded")
                    .expr;
                // Only warn when both can fire: if `later` can never fire, that
                // is shadowing (an error) and reported there.
                guard_logic::satisfiable_within(&[(ga, true), (gb, true)], budget) == Some(true)
                    && guard_logic::satisfiable_within(&[(gb, true), (ga, false)], budget) == Some(true)
            });
            if let Some(earlier) = overlap {
                report(m, earlier, later, sink);
            }
        }
    }
}

fn report(m: &Machine, earlier: TransitionId, later: TransitionId, sink: &mut Sink<'_>) {
    let (a, b) = (m.transition(earlier), m.transition(later));
    let text = |t: &crate::model::Transition| m.guard_text(&t.guard.as_ref().expect("guarded").expr);
    let place = match b.source {
        Source::State(s) => format!("state `{}`", m.state(s).name),
        Source::Any => "the `any` block".to_string(),
    };
    sink.push(
        Scope::from(b.source),
        Diagnostic::new(
            Code::AmbiguousPriority,
            b.guard.as_ref().expect("guarded").span,
            format!(
                "in {place}, guards `{}` and `{}` on `{}` can both hold at priority {}; declaration order decides",
                text(a),
                text(b),
                m.actions[b.expect_action().index()].name,
                b.priority
            ),
            "can hold together with the earlier guard",
            "give the transition that should win a higher `priority`, or make the guards exclusive (e.g. `[a]` and `[!a]`)",
        )
        .with_label(a.guard.as_ref().expect("guarded").span, "this guard is tried first"),
    );
}
