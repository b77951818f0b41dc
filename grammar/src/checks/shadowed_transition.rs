//! `shadowed-transition`: a transition that can never fire, because whenever
//! its guard holds an earlier candidate (in firing order) fires instead.
//!
//! Exactly: candidate `i` is shadowed when no guard input makes its guard true
//! and every earlier candidate's guard false. An unguarded earlier candidate
//! shadows everything after it; `[a]` then `[!a]` shadow everything after them.
//! A transition of an `any` block is only reported when it is shadowed in
//! every state it applies to: a state overriding one `any` transition with its
//! own is the point of `any`.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::guard_logic::{self, Term};
use crate::model::{Machine, Source, TransitionId};

pub(crate) fn check(m: &Machine, is_duplicate: &[bool], sink: &mut Sink<'_>) {
    // For `any` transitions: in how many states each applies, in how many it
    // is shadowed, and one transition that shadows it.
    let mut any_applies = vec![0usize; m.transitions.len()];
    let mut any_shadowed: Vec<(usize, Option<TransitionId>)> = vec![(0, None); m.transitions.len()];

    for s in m.state_ids() {
        for (_, group) in m.candidate_groups(s) {
            for (i, &t) in group.iter().enumerate() {
                let tr = m.transition(t);
                let shadower = shadowed_by(m, &group[..i], t);
                match tr.source {
                    Source::Any => {
                        any_applies[t.index()] += 1;
                        if let Some(by) = shadower {
                            let entry = &mut any_shadowed[t.index()];
                            entry.0 += 1;
                            entry.1.get_or_insert(by);
                        }
                    }
                    Source::State(_) => {
                        if let (Some(by), false) = (shadower, is_duplicate[t.index()]) {
                            report(m, t, by, None, sink);
                        }
                    }
                }
            }
        }
    }
    for &t in m.any_transitions() {
        let (count, by) = any_shadowed[t.index()];
        if count > 0 && count == any_applies[t.index()] && !is_duplicate[t.index()] {
            if let Some(by) = by {
                report(m, t, by, Some(count), sink);
            }
        }
    }
}

/// If `t` can never fire after `earlier`, the earlier candidate to blame: the
/// first unguarded one, or else the last guarded one.
fn shadowed_by(m: &Machine, earlier: &[TransitionId], t: TransitionId) -> Option<TransitionId> {
    if earlier.is_empty() {
        return None;
    }
    if let Some(&u) = earlier.iter().find(|&&e| m.transition(e).guard.is_none()) {
        return Some(u);
    }
    let own = m.transition(t).guard.as_ref();
    // A guard that can never hold is `unsatisfiable-guard`, not shadowing.
    if own.is_some_and(|g| !guard_logic::can_hold(&g.expr)) {
        return None;
    }
    let mut terms: Vec<Term<'_>> = Vec::with_capacity(earlier.len() + 1);
    terms.extend(own.map(|g| (&g.expr, true)));
    terms.extend(
        earlier
            .iter()
            .filter_map(|&e| m.transition(e).guard.as_ref())
            .map(|g| (&g.expr, false)),
    );
    match guard_logic::satisfiable(&terms) {
        Some(false) => earlier.last().copied(),
        _ => None,
    }
}

fn report(m: &Machine, t: TransitionId, by: TransitionId, any_states: Option<usize>, sink: &mut Sink<'_>) {
    let tr = m.transition(t);
    let blocker = m.transition(by);
    let action = &m.actions[tr.action.index()].name;
    let place = match (tr.source, any_states) {
        (Source::State(s), _) => format!("in state `{}`", m.state(s).name),
        (Source::Any, Some(1)) => "in the one state the `any` block applies to".to_string(),
        (Source::Any, _) => "in any state".to_string(),
    };
    let (label, why) = match &blocker.guard {
        None => (
            "this unguarded transition always fires first",
            "the earlier transition has no guard, so it always fires".to_string(),
        ),
        Some(_) => (
            "together with the candidates before it, this always fires first",
            "the guards before it cover every case in which its own guard holds".to_string(),
        ),
    };
    sink.push(
        Scope::from(tr.source),
        Diagnostic::new(
            Code::ShadowedTransition,
            tr.span,
            format!("this transition on `{action}` can never fire {place}: an earlier candidate always fires instead"),
            "never fires",
            format!(
                "candidates are tried by priority, then in order of declaration; {why}. Raise this transition's priority, narrow the earlier guard, or remove it"
            ),
        )
        .with_label(blocker.span, label),
    );
}
