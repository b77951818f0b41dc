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
use crate::guard_logic::{self, Budget, Term};
use crate::model::{ActionId, Machine, Source, TransitionId};
use std::cmp::Reverse;
use std::collections::BTreeMap;

/// Term evaluations one candidate group may cost in all; past that, its
/// remaining candidates are not judged (no diagnostic rather than a guess).
const GROUP_BUDGET: usize = 1 << 20;

pub(crate) fn check(m: &Machine, is_duplicate: &[bool], sink: &mut Sink<'_>) {
    let by_priority = |list: &mut Vec<TransitionId>| list.sort_by_key(|&t| Reverse(m.transition(t).priority));
    // The `any` candidates per action. In a state without transitions of its
    // own on that action they are the whole group, identical in every such
    // state: judged once, counted for all of them.
    let mut any_groups: BTreeMap<ActionId, Vec<TransitionId>> = BTreeMap::new();
    for &t in m.any_transitions() {
        any_groups.entry(m.transition(t).action).or_default().push(t);
    }
    any_groups.values_mut().for_each(by_priority);
    // Per action of the `any` block: how many live states write their own
    // transitions on it (the rest see the `any` group alone).
    let mut overriding_states: BTreeMap<ActionId, usize> = BTreeMap::new();
    let live_states = m.states.iter().filter(|s| !s.is_terminal()).count();
    // For `any` transitions: in how many states each applies, in how many it
    // is shadowed, and one transition that shadows it.
    let mut any_applies = vec![0usize; m.transitions.len()];
    let mut any_shadowed: Vec<(usize, Option<TransitionId>)> = vec![(0, None); m.transitions.len()];
    let mut note_any = |t: TransitionId, states: usize, by: Option<TransitionId>| {
        any_applies[t.index()] += states;
        if let Some(by) = by {
            let entry = &mut any_shadowed[t.index()];
            entry.0 += states;
            entry.1.get_or_insert(by);
        }
    };

    for s in m.state_ids().filter(|&s| !m.state(s).is_terminal()) {
        let mut own: BTreeMap<ActionId, Vec<TransitionId>> = BTreeMap::new();
        for &t in m.own_transitions(s) {
            own.entry(m.transition(t).action).or_default().push(t);
        }
        for action in own.keys().filter(|a| any_groups.contains_key(a)) {
            *overriding_states.entry(*action).or_default() += 1;
        }
        for (action, mut group) in own {
            // Own before `any` on equal priority: the sort is stable.
            group.extend(any_groups.get(&action).into_iter().flatten());
            by_priority(&mut group);
            for (t, by) in judge(m, &group) {
                match m.transition(t).source {
                    Source::Any => note_any(t, 1, by),
                    Source::State(_) => {
                        if let (Some(by), false) = (by, is_duplicate[t.index()]) {
                            report(m, t, by, None, sink);
                        }
                    }
                }
            }
        }
    }
    for (action, group) in &any_groups {
        let states = live_states - overriding_states.get(action).copied().unwrap_or(0);
        if states > 0 {
            for (t, by) in judge(m, group) {
                note_any(t, states, by);
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

/// Each candidate of `group` (in firing order) with the earlier candidate to
/// blame if it can never fire: the first unguarded one, or else the last
/// guarded one before it.
fn judge(m: &Machine, group: &[TransitionId]) -> Vec<(TransitionId, Option<TransitionId>)> {
    let mut budget = Budget::new(GROUP_BUDGET);
    let mut unguarded: Option<TransitionId> = None;
    let mut earlier: Vec<Term<'_>> = Vec::new();
    let mut out = Vec::with_capacity(group.len());
    for (i, &t) in group.iter().enumerate() {
        let guard = m.transition(t).guard.as_ref();
        let by = match (unguarded, guard) {
            (Some(u), _) => Some(u),
            (None, _) if i == 0 => None,
            // Past the group's budget, candidates are not judged.
            (None, _) if budget.is_spent() => None,
            // A guard that can never hold is `unsatisfiable-guard`, not shadowing.
            (None, Some(g)) if !guard_logic::can_hold(&g.expr) => None,
            // Can its guard (or, unguarded, anything) hold while every earlier guard fails?
            (None, guard) => {
                let mut terms = Vec::with_capacity(earlier.len() + 1);
                terms.extend(guard.map(|g| (&g.expr, true)));
                terms.extend_from_slice(&earlier);
                match guard_logic::satisfiable_within(&terms, &mut budget) {
                    Some(false) => Some(group[i - 1]),
                    _ => None,
                }
            }
        };
        out.push((t, by));
        match guard {
            None if unguarded.is_none() => unguarded = Some(t),
            Some(g) => earlier.push((&g.expr, false)),
            None => {}
        }
    }
    out
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
