//! The checks of candidates, for timers: a state's timers with the same
//! delay (the same literal duration, or the same named delay) are one
//! trigger, like the transitions of one action, and are tried the same way
//! when it fires: by priority, highest first, ties in declaration order.
//!
//! - `duplicate-transition`: the same delay, guard and priority twice in one
//!   state;
//! - `shadowed-transition`: a timer whose guard never holds when every
//!   earlier timer of its group fails;
//! - `ambiguous-priority`: two guarded timers of one group at one priority
//!   whose guards can both hold.
//!
//! Timers of different literal delays are `timer-shadowed`'s concern; this
//! module says which timers never fire so that it does not report them twice.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::guard_logic::{self, Budget, Term};
use crate::model::{Delay, Machine, TimerId, Transition};
use std::cmp::Reverse;
use std::collections::HashMap;

/// Reports the three checks on every state's timer groups, and returns, per
/// timer, whether it never fires (a duplicate or shadowed).
pub(crate) fn check(m: &Machine, budget: &mut Budget, sink: &mut Sink<'_>) -> Vec<bool> {
    let mut never = vec![false; m.timers.len()];
    for s in m.state_ids().filter(|&s| !m.state(s).is_terminal()) {
        // Groups in order of their first timer, each in declaration order.
        let mut groups: Vec<(Delay, Vec<TimerId>)> = Vec::new();
        for (id, t) in m.timers_of(s) {
            match groups.iter_mut().find(|(d, _)| Some(*d) == t.delay()) {
                Some((_, ids)) => ids.push(id),
                None => groups.push((m.delay_of(id), vec![id])),
            }
        }
        for (_, group) in groups {
            duplicates(m, &group, &mut never, sink);
            let mut order = group;
            // Stable: ties keep declaration order.
            order.sort_by_key(|&t| Reverse(m.timer(t).priority));
            shadowed(m, &order, &mut never, budget, sink);
            ambiguous(m, &order, &never, budget, sink);
        }
    }
    never
}

/// `after 30s [g] priority 1` as written canonically.
fn trigger(m: &Machine, t: &Transition) -> String {
    let guard = t
        .guard
        .as_ref()
        .map(|g| format!(" [{}]", m.guard_text(&g.expr)))
        .unwrap_or_default();
    format!("after {}{guard}", m.delay_text(t.expect_delay()))
}

fn duplicates(m: &Machine, group: &[TimerId], never: &mut [bool], sink: &mut Sink<'_>) {
    let mut first: HashMap<(Option<String>, i32), TimerId> = HashMap::new();
    for &id in group {
        let t = m.timer(id);
        let key = (t.guard.as_ref().map(|g| m.guard_text(&g.expr)), t.priority);
        let Some(&earlier) = first.get(&key) else {
            first.insert(key, id);
            continue;
        };
        never[id.index()] = true;
        sink.push(
            Scope::State(t.expect_state()),
            Diagnostic::new(
                Code::DuplicateTransition,
                t.span,
                format!(
                    "state `{}` has two timers `{}` at priority {}",
                    m.state(t.expect_state()).name,
                    trigger(m, t),
                    t.priority
                ),
                "duplicate timer",
                "only the first can ever fire; remove this one, or give it a different guard or priority",
            )
            .with_label(m.timer(earlier).span, "first written here"),
        );
    }
}

/// `order`: one group in firing order.
fn shadowed(m: &Machine, order: &[TimerId], never: &mut [bool], budget: &mut Budget, sink: &mut Sink<'_>) {
    for (i, &id) in order.iter().enumerate() {
        if never[id.index()] || budget.is_spent() {
            continue;
        }
        let t = m.timer(id);
        // Guards that cannot hold at all are `unsatisfiable-guard`'s.
        if t.guard
            .as_ref()
            .is_some_and(|g| !guard_logic::can_hold(&g.expr, budget))
        {
            continue;
        }
        // The first earlier timer that, with those before it, covers every
        // case in which this one's guard holds.
        let mut terms: Vec<Term<'_>> = t.guard.iter().map(|g| (&g.expr, true)).collect();
        let mut blame = None;
        for &earlier in &order[..i] {
            let e = m.timer(earlier);
            match &e.guard {
                None => {
                    blame = Some(earlier);
                    break;
                }
                Some(g) => terms.push((&g.expr, false)),
            }
            if guard_logic::satisfiable_within(&terms, budget) == Some(false) {
                blame = Some(earlier);
                break;
            }
        }
        let Some(by) = blame else { continue };
        never[id.index()] = true;
        let blocker = m.timer(by);
        let (label, why) = match &blocker.guard {
            None => (
                "this unguarded timer always fires first",
                "the earlier timer has no guard, so it always fires",
            ),
            Some(_) => (
                "together with the timers before it, this always fires first",
                "the guards before it cover every case in which its own guard holds",
            ),
        };
        sink.push(
            Scope::State(t.expect_state()),
            Diagnostic::new(
                Code::ShadowedTransition,
                t.span,
                format!(
                    "this timer `{}` can never fire in state `{}`: an earlier timer with the same delay always fires instead",
                    trigger(m, t),
                    m.state(t.expect_state()).name
                ),
                "never fires",
                format!(
                    "timers with the same delay are tried by priority, then in order of declaration; {why}. Raise this timer's priority, narrow the earlier guard, or remove it"
                ),
            )
            .with_label(blocker.span, label),
        );
    }
}

fn ambiguous(m: &Machine, order: &[TimerId], never: &[bool], budget: &mut Budget, sink: &mut Sink<'_>) {
    let guarded: Vec<TimerId> = order
        .iter()
        .copied()
        .filter(|&t| m.timer(t).guard.is_some() && !never[t.index()])
        .collect();
    for (j, &later) in guarded.iter().enumerate() {
        let b = m.timer(later);
        let gb = &b.guard.as_ref().expect("guarded").expr;
        let overlap = guarded[..j].iter().copied().find(|&earlier| {
            let a = m.timer(earlier);
            let ga = &a.guard.as_ref().expect("guarded").expr;
            a.priority == b.priority
                && guard_logic::satisfiable_within(&[(ga, true), (gb, true)], budget) == Some(true)
                && guard_logic::satisfiable_within(&[(gb, true), (ga, false)], budget) == Some(true)
        });
        let Some(earlier) = overlap else { continue };
        let a = m.timer(earlier);
        let text = |t: &Transition| m.guard_text(&t.guard.as_ref().expect("guarded").expr);
        sink.push(
            Scope::State(b.expect_state()),
            Diagnostic::new(
                Code::AmbiguousPriority,
                b.guard.as_ref().expect("guarded").span,
                format!(
                    "in state `{}`, guards `{}` and `{}` of the timers after {} can both hold at priority {}; declaration order decides",
                    m.state(b.expect_state()).name,
                    text(a),
                    text(b),
                    m.delay_text(m.delay_of(later)),
                    b.priority
                ),
                "can hold together with the earlier guard",
                "give the timer that should win a higher `priority`, or make the guards exclusive (e.g. `[a]` and `[!a]`)",
            )
            .with_label(a.guard.as_ref().expect("guarded").span, "this guard is tried first"),
        );
    }
}
