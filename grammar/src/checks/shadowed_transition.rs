//! `shadowed-transition`: a transition that can never fire, because whenever
//! its guard holds an earlier candidate (in firing order) fires instead.
//!
//! Exactly: candidate `i` is shadowed when no guard input makes its guard true
//! and every earlier candidate's guard false. An unguarded earlier candidate
//! shadows everything after it; `[a]` then `[!a]` shadow everything after them.
//! A transition of an `any` block is only reported when it is shadowed in
//! every state it applies to: a state overriding one `any` transition with its
//! own is the point of `any`.
//!
//! Cost: the `any` candidates of an action are judged once, in one pass. A
//! state's own candidates are combined with that pass where it suffices (the
//! `any` candidates tried before the state's first own one are summarised by
//! whether they can all fail at once), and judged together with the `any`
//! candidates otherwise. Every guard question is charged to the machine's
//! [`Budget`], proportional to its size; past it, remaining candidates are not
//! judged (no diagnostic rather than a guess).

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::guard_logic::{self, Budget, Solver};
use crate::model::{ActionId, Machine, Source, TransitionId};
use std::cmp::Reverse;
use std::collections::BTreeMap;

/// Whether one candidate can fire.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Verdict {
    Fires,
    /// Never fires; the earlier candidate to blame.
    Shadowed(TransitionId),
    Unknown,
}

/// A group judged in firing order: each candidate's verdict, and before each
/// position (and after the last) whether every candidate so far can fail at once.
struct Judged {
    verdicts: Vec<Verdict>,
    /// `Fires`: yes, all can fail. `Shadowed(b)`: no, `b` to blame.
    open: Vec<Verdict>,
}

/// A state's own candidates on an action the `any` block handles too.
struct Override {
    /// The state's own candidates on the action, in firing order.
    own: Vec<TransitionId>,
    /// Highest priority of the state's own candidates.
    top: i32,
    /// The highest-priority unguarded own candidate and its priority.
    unguarded: Option<(i32, TransitionId)>,
}

/// Reports shadowed transitions and returns, per transition, whether it can
/// never fire (own transitions in their state; `any` ones in every state).
pub(crate) fn check(
    m: &Machine,
    is_duplicate: &[bool],
    budget: &mut Budget,
    sink: &mut Sink<'_>,
) -> Vec<bool> {
    if m.is_nested() {
        return check_nested(m, is_duplicate, budget, sink);
    }
    let mut never = vec![false; m.transitions.len()];
    // Guards that cannot hold at all are `unsatisfiable-guard`, not shadowing.
    let holds: Vec<bool> = m
        .transitions
        .iter()
        .map(|t| {
            t.guard
                .as_ref()
                .is_none_or(|g| guard_logic::can_hold(&g.expr, budget))
        })
        .collect();
    let by_priority = |list: &mut Vec<TransitionId>| list.sort_by_key(|&t| Reverse(m.transition(t).priority));
    let mut any_groups: BTreeMap<ActionId, Vec<TransitionId>> = BTreeMap::new();
    for &t in m.any_transitions() {
        any_groups
            .entry(m.transition(t).expect_action())
            .or_default()
            .push(t);
    }
    any_groups.values_mut().for_each(by_priority);
    let any_judged: BTreeMap<ActionId, Judged> = any_groups
        .iter()
        .map(|(&a, group)| (a, judge(m, group, &holds, budget)))
        .collect();
    let live_states = m.states.iter().filter(|s| !s.is_terminal()).count();
    let mut overrides: BTreeMap<ActionId, Vec<Override>> = BTreeMap::new();

    for s in m.state_ids().filter(|&s| !m.state(s).is_terminal()) {
        let mut own: BTreeMap<ActionId, Vec<TransitionId>> = BTreeMap::new();
        for &t in m.own_transitions(s) {
            own.entry(m.transition(t).expect_action()).or_default().push(t);
        }
        for (action, mut group) in own {
            by_priority(&mut group);
            let verdicts = judge_own(
                m,
                &group,
                any_groups.get(&action),
                any_judged.get(&action),
                &holds,
                budget,
            );
            for (&t, v) in group.iter().zip(verdicts) {
                if let Verdict::Shadowed(by) = v {
                    never[t.index()] = true;
                    if !is_duplicate[t.index()] {
                        report(m, t, by, None, sink);
                    }
                }
            }
            if any_groups.contains_key(&action) {
                let top = m.transition(group[0]).priority;
                let unguarded = group
                    .iter()
                    .find(|&&t| m.transition(t).guard.is_none())
                    .map(|&t| (m.transition(t).priority, t));
                overrides.entry(action).or_default().push(Override {
                    own: group,
                    top,
                    unguarded,
                });
            }
        }
    }

    for (action, group) in &any_groups {
        let judged = &any_judged[action];
        let overriders = overrides.get(action).map(Vec::as_slice).unwrap_or_default();
        for (i, &t) in group.iter().enumerate() {
            let by = match judged.verdicts[i] {
                Verdict::Shadowed(by) => Some(by),
                Verdict::Unknown => None,
                // It fires in some state that does not override the action.
                Verdict::Fires if overriders.len() < live_states => None,
                Verdict::Fires => shadowed_in_all(m, group, i, overriders, &holds, budget),
            };
            if let (Some(by), true) = (by, live_states > 0) {
                never[t.index()] = true;
                if !is_duplicate[t.index()] {
                    report(m, t, by, Some(live_states), sink);
                }
            }
        }
    }
    never
}

/// With composite states: every live leaf's candidates on each action,
/// across levels, are judged in firing order; a transition is reported when
/// it can fire in none of the leaves it applies to. So a child's override of
/// its parent's transition is not reported (the parent's still fires in its
/// other children), and a parent's transition that every child overrides is.
fn check_nested(m: &Machine, is_duplicate: &[bool], budget: &mut Budget, sink: &mut Sink<'_>) -> Vec<bool> {
    let n = m.transitions.len();
    let holds: Vec<bool> = m
        .transitions
        .iter()
        .map(|t| {
            t.guard
                .as_ref()
                .is_none_or(|g| guard_logic::can_hold(&g.expr, budget))
        })
        .collect();
    let mut applies = vec![0usize; n];
    let mut fires = vec![false; n];
    let mut blame: Vec<Option<TransitionId>> = vec![None; n];
    for leaf in m.leaves().filter(|&l| !m.state(l).is_terminal()) {
        for (_, group) in m.candidate_groups(leaf) {
            let judged = judge(m, &group, &holds, budget);
            for (&t, v) in group.iter().zip(judged.verdicts) {
                applies[t.index()] += 1;
                match v {
                    Verdict::Shadowed(by) => {
                        blame[t.index()].get_or_insert(by);
                    }
                    Verdict::Fires | Verdict::Unknown => fires[t.index()] = true,
                }
            }
        }
    }
    let mut never = vec![false; n];
    for t in (0..n).map(TransitionId::from_index) {
        let (Some(by), false) = (blame[t.index()], fires[t.index()]) else {
            continue;
        };
        never[t.index()] = true;
        if !is_duplicate[t.index()] {
            report(m, t, by, Some(applies[t.index()]), sink);
        }
    }
    never
}

/// Judge `group`, in firing order, from scratch.
fn judge(m: &Machine, group: &[TransitionId], holds: &[bool], budget: &mut Budget) -> Judged {
    let mut solver = Solver::default();
    let mut unguarded: Option<TransitionId> = None;
    let mut verdicts = Vec::with_capacity(group.len());
    let mut open = Vec::with_capacity(group.len() + 1);
    let open_at =
        |solver: &Solver, unguarded: Option<TransitionId>, i: usize| match (unguarded, solver.can_hold()) {
            (Some(u), _) => Verdict::Shadowed(u),
            (None, Some(true)) => Verdict::Fires,
            (None, Some(false)) => Verdict::Shadowed(group[i - 1]),
            (None, None) => Verdict::Unknown,
        };
    for (i, &t) in group.iter().enumerate() {
        let before = open_at(&solver, unguarded, i);
        open.push(before);
        let guard = m.transition(t).guard.as_ref();
        let verdict = match (before, guard) {
            (Verdict::Shadowed(by), _) => Verdict::Shadowed(by),
            (_, None) => before,
            (_, Some(_)) if !holds[t.index()] || budget.is_spent() => Verdict::Unknown,
            (_, Some(g)) => match solver.can_also_hold(&g.expr, true, budget) {
                Some(true) => Verdict::Fires,
                Some(false) => Verdict::Shadowed(group[i - 1]),
                None => Verdict::Unknown,
            },
        };
        verdicts.push(verdict);
        match guard {
            None => {
                unguarded.get_or_insert(t);
            }
            Some(g) if unguarded.is_none() => solver.require(&g.expr, false, budget),
            Some(_) => {}
        }
    }
    open.push(open_at(&solver, unguarded, group.len()));
    Judged { verdicts, open }
}

/// Verdicts for a state's own candidates on one action (`own`, in firing
/// order), given the `any` candidates on it and how they were judged alone.
fn judge_own(
    m: &Machine,
    own: &[TransitionId],
    any: Option<&Vec<TransitionId>>,
    any_judged: Option<&Judged>,
    holds: &[bool],
    budget: &mut Budget,
) -> Vec<Verdict> {
    let (Some(any), Some(any_judged)) = (any, any_judged) else {
        return judge(m, own, holds, budget).verdicts;
    };
    let priority = |t: TransitionId| m.transition(t).priority;
    // The `any` candidates tried before every own one (own go first on ties).
    let k = any.partition_point(|&t| priority(t) > priority(own[0]));
    let first_unguarded = m.transition(own[0]).guard.is_none();
    match any_judged.open[k] {
        Verdict::Shadowed(by) => return vec![Verdict::Shadowed(by); own.len()],
        first if first_unguarded => {
            let mut verdicts = vec![Verdict::Shadowed(own[0]); own.len()];
            verdicts[0] = first;
            return verdicts;
        }
        _ => {}
    }
    // Judge the own candidates together with the `any` ones tried before the last of them.
    let end = any.partition_point(|&t| priority(t) > priority(own[own.len() - 1]));
    let mut merged: Vec<TransitionId> = own.iter().chain(&any[..end]).copied().collect();
    merged.sort_by_key(|&t| Reverse(priority(t)));
    let judged = judge(m, &merged, holds, budget);
    merged
        .iter()
        .zip(judged.verdicts)
        .filter(|(t, _)| matches!(m.transition(**t).source, Source::State(_)))
        .map(|(_, v)| v)
        .collect()
}

/// For the `any` candidate `group[i]`, which can fire where the `any` block
/// alone applies, when every live state overrides its action: the earlier
/// candidate to blame if it can fire in none of them.
fn shadowed_in_all(
    m: &Machine,
    group: &[TransitionId],
    i: usize,
    overriders: &[Override],
    holds: &[bool],
    budget: &mut Budget,
) -> Option<TransitionId> {
    let priority = |t: TransitionId| m.transition(t).priority;
    let t = group[i];
    let p = priority(t);
    let mut first_by = None;
    for o in overriders {
        if budget.is_spent() || !budget.charge(1) || !holds[t.index()] {
            return None;
        }
        // Own candidates after `t` do not matter; with none before it, it fires.
        if o.top < p {
            return None;
        }
        if let Some((q, u)) = o.unguarded {
            if q >= p {
                first_by.get_or_insert(u);
                continue;
            }
        }
        let before_own: Vec<TransitionId> = o.own.iter().copied().filter(|&u| priority(u) >= p).collect();
        let mut solver = Solver::default();
        for &u in group[..i].iter().chain(&before_own) {
            if let Some(g) = &m.transition(u).guard {
                solver.require(&g.expr, false, budget);
            }
        }
        let fires = match &m.transition(t).guard {
            Some(g) => solver.can_also_hold(&g.expr, true, budget),
            None => solver.can_hold(),
        };
        if fires != Some(false) {
            return None;
        }
        let own_last = *before_own
            .last()
            .expect("the state has own candidates before `t`");
        let by = match i {
            0 => own_last,
            _ if priority(own_last) < priority(group[i - 1]) => own_last,
            _ => group[i - 1],
        };
        first_by.get_or_insert(by);
    }
    first_by
}

fn report(m: &Machine, t: TransitionId, by: TransitionId, any_states: Option<usize>, sink: &mut Sink<'_>) {
    let tr = m.transition(t);
    let blocker = m.transition(by);
    let action = &m.actions[tr.expect_action().index()].name;
    let place = match (tr.source, any_states) {
        (Source::State(s), _) if m.state(s).is_composite() => {
            format!("in any state inside `{}`", m.state(s).name)
        }
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
                "candidates are tried by priority, then {}in order of declaration; {why}. Raise this transition's priority, narrow the earlier guard, or remove it",
                if m.is_nested() { "innermost state first, then " } else { "" }
            ),
        )
        .with_label(blocker.span, label),
    );
}
