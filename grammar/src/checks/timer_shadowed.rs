//! `timer-shadowed`: a timer that can never fire, because a timer of its own
//! state or of a state holding it always leaves first.
//!
//! A state's timers with one delay are a group, tried together when it comes
//! due: by priority, then declaration order, the first whose guard holds
//! fires. A group *always leaves* its state `A` when it has an unguarded
//! timer and every timer tried up to that one has a target outside `A`, or
//! `A` itself (its transition exits `A`): whichever fires, `A` is exited,
//! with every timer of `A` and of the states inside it. A local timer (to a
//! state inside `A`) or an internal one does not exit `A`; it is disarmed
//! once it fired, and `A`'s other timers keep running.
//!
//! A timer `T` of state `S`, with literal delay `d`, never fires when a group
//! of `A`, `S` itself or a state holding it, with literal delay `e`, always
//! leaves `A` and
//!
//! - `e < d`. `A`'s group was armed when `A` was last entered, at or before
//!   `S`'s entry (`S` is inside `A`), and stays armed until it is tried, which
//!   exits `A` and so `S`. Its deadline comes strictly before `T`'s, and due
//!   timers fire earliest first, so it is tried, and leaves, before `T` comes
//!   up; when `S` is entered again, so is `T`, under the same argument.
//! - or `e == d`, `A` holds `S`, and the group's highest priority is above
//!   that of every timer of `T`'s group. The deadlines tie when `A` and `S`
//!   were entered together; ties go by the trial order (priority, then the
//!   innermost level), which then tries `A`'s group first. At equal priority
//!   `S`'s timers go first, and `T` may fire.
//!
//! The argument reads deadlines off one clock that does not run backwards
//! between `A`'s entry and `S`'s: a clock set back in between can make the
//! inner timer due first. Named delays are computed at run time and never
//! compared. Timers that never fire within their own group (a duplicate, or
//! shadowed by the timers of the same delay) are reported as such, not here.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{Delay, Machine, Source, StateId, Transition};
use core::time::Duration;
use std::cmp::Reverse;

/// A group of one state's timers that always leaves the state.
struct Leaves<'m> {
    delay: Duration,
    /// The highest priority in the group: the trial order tries the group
    /// by its first timer.
    priority: i32,
    /// The first unguarded timer, which fires when no timer before it does.
    by: &'m Transition,
}

/// `never_fires`: per timer, whether it is already reported as never firing.
pub(crate) fn check(m: &Machine, never_fires: &[bool], sink: &mut Sink<'_>) {
    let leaving: Vec<Vec<Leaves<'_>>> = m.state_ids().map(|s| leaving_groups(m, s)).collect();
    for (id, t) in m.state_ids().flat_map(|s| m.timers_of(s)) {
        let Some(Delay::Literal(d)) = t.delay() else {
            continue;
        };
        if never_fires[id.index()] {
            continue;
        }
        let s = t.expect_state();
        // The highest priority among the timers of `t`'s group.
        let own_priority = m
            .timers_of(s)
            .filter(|(_, other)| other.delay() == t.delay())
            .map(|(_, other)| other.priority)
            .max()
            .unwrap_or(t.priority);
        // The innermost level that pre-empts `t`, and there its shortest delay.
        let blocker = m.ancestors_or_self(s).find_map(|a| {
            leaving[a.index()]
                .iter()
                .filter(|g| g.delay < d || (a != s && g.delay == d && g.priority > own_priority))
                .min_by_key(|g| g.delay)
                .map(|g| (a, g))
        });
        let Some((a, by)) = blocker else { continue };
        let by = by.by;
        let state = &m.state(s).name;
        let (message, label) = if a == s {
            (
                format!(
                    "this timer of state `{state}` never fires: the timer after {} always leaves first",
                    m.delay_text(by.expect_delay())
                ),
                "this timer leaves the state first".to_string(),
            )
        } else {
            let holder = &m.state(a).name;
            (
                format!(
                    "this timer of state `{state}` never fires: the timer after {} of `{holder}`, which holds it, always leaves first",
                    m.delay_text(by.expect_delay())
                ),
                format!("this timer of `{holder}` leaves first"),
            )
        };
        sink.push(
            Scope::State(s),
            Diagnostic::new(
                Code::TimerShadowed,
                t.trigger_span,
                message,
                "never fires",
                "shorten this timer, guard the earlier one, or remove this one",
            )
            .with_label(by.trigger_span, label),
        );
    }
}

/// The groups of `state`'s timers with a literal delay that always leave
/// `state` (see the module documentation).
fn leaving_groups(m: &Machine, state: StateId) -> Vec<Leaves<'_>> {
    let mut groups: Vec<(Duration, Vec<&Transition>)> = Vec::new();
    for (_, t) in m.timers_of(state) {
        let Some(Delay::Literal(d)) = t.delay() else {
            continue;
        };
        match groups.iter_mut().find(|(delay, _)| *delay == d) {
            Some((_, members)) => members.push(t),
            None => groups.push((d, vec![t])),
        }
    }
    let exits = |t: &Transition| {
        t.target
            .is_some_and(|target| m.domain(Source::State(state), target, t.history) != Some(state))
    };
    groups
        .into_iter()
        .filter_map(|(delay, mut members)| {
            // The order the group is tried in; stable, so ties keep declaration order.
            members.sort_by_key(|t| Reverse(t.priority));
            let priority = members[0].priority;
            for t in members {
                if !exits(t) {
                    return None;
                }
                if t.guard.is_none() {
                    return Some(Leaves {
                        delay,
                        priority,
                        by: t,
                    });
                }
            }
            None
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::Code;

    /// Each `timer-shadowed` warning: the text it underlines, and the text
    /// its label underlines.
    fn shadowed(text: &str) -> Vec<(&str, &str)> {
        crate::check(text)
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::TimerShadowed)
            .map(|d| {
                let [label] = &d.secondary[..] else {
                    panic!("one label: {d:?}")
                };
                (
                    &text[d.span.start..d.span.end],
                    &text[label.span.start..label.span.end],
                )
            })
            .collect()
    }

    /// `p` holds `a` and `b`; `P` and `A` are the timers of `p` and `a`.
    fn nested(p: &str, a: &str) -> String {
        format!(
            "machine M {{ initial state p {{ {p} initial state a {{ on go -> b; {a} }} state b {{ on back -> a; }} }} state q {{ on again -> p; }} terminal state out; any {{ on quit -> out; }} }}"
        )
    }

    #[test]
    fn a_shorter_timer_of_a_state_holding_it_leaves_first() {
        let text = nested("after 5s -> out;", "after 10s -> q;");
        assert_eq!(shadowed(&text), [("10s", "5s")]);
        let d = crate::check(&text);
        let d = d
            .diagnostics
            .iter()
            .find(|d| d.code == Code::TimerShadowed)
            .unwrap();
        assert_eq!(
            d.message,
            "this timer of state `a` never fires: the timer after 5s of `p`, which holds it, always leaves first"
        );
        // Two levels up, and a timer of a composite, pre-empted from above.
        let text = "machine M { initial state top { after 1m -> out; initial state mid { after 2m -> out; initial state leaf { after 90s -> out; } } } terminal state out; }";
        assert_eq!(shadowed(text), [("2m", "1m"), ("90s", "1m")]);
        // A self transition exits the state too, and so does one to a state holding it.
        assert_eq!(
            shadowed(&nested("after 5s -> p;", "after 10s -> q;")),
            [("10s", "5s")]
        );
        let text = "machine M { initial state top { on stop -> out; initial state p { after 1s -> top; initial state a { after 2s -> out; } } } terminal state out; }";
        assert_eq!(shadowed(text), [("2s", "1s")]);
    }

    #[test]
    fn equal_delays_across_levels_need_a_higher_priority() {
        // Entered together, the inner timer is tried first at equal priority.
        assert_eq!(shadowed(&nested("after 5s -> out;", "after 5s -> q;")), []);
        assert_eq!(
            shadowed(&nested("after 5s priority 1 -> out;", "after 5s -> q;")),
            [("5s", "5s")]
        );
        // The inner group is tried from its highest priority.
        assert_eq!(
            shadowed(&nested(
                "after 5s priority 1 -> out;",
                "after 5s -> q; after 5s [ok] priority 1 -> b;"
            )),
            []
        );
        assert_eq!(
            shadowed(&nested(
                "after 5s priority 2 -> out;",
                "after 5s [ok] priority 1 -> b;"
            )),
            [("5s", "5s")]
        );
    }

    #[test]
    fn a_timer_that_does_not_exit_its_state_pre_empts_nothing() {
        // Local: `p` stays, its timer has fired for this entry, and `a`
        // entered again afterwards runs its timer out.
        assert_eq!(shadowed(&nested("after 5s -> b;", "after 10s -> q;")), []);
        assert_eq!(shadowed(&nested("after 5s -> p.history;", "after 10s -> q;")), []);
        // Nor on `p`'s own timers.
        assert_eq!(shadowed(&nested("after 5s -> b; after 10s -> q;", "")), []);
        assert_eq!(
            shadowed(&nested("after 5s -> q; after 10s -> q;", "")),
            [("10s", "5s")]
        );
        // Internal, guarded, or a named delay.
        assert_eq!(shadowed(&nested("after 5s emit tick;", "after 10s -> q;")), []);
        assert_eq!(shadowed(&nested("after 5s [ok] -> out;", "after 10s -> q;")), []);
        let text = nested("after wait -> out;", "after 10s -> q;")
            .replace("machine M {", "machine M { context C; delay wait;");
        assert_eq!(shadowed(&text), []);
    }

    #[test]
    fn a_group_leaves_only_when_every_timer_tried_before_its_unguarded_one_does() {
        // `[ok]` is tried first and, when it holds, fires without leaving.
        let text = "machine M { initial state s { on go -> t; after 5s [ok] priority 1 emit tick; after 5s -> t; after 10s -> t; } terminal state t; }";
        assert_eq!(shadowed(text), []);
        // Leaving either way: the label points at the unguarded one.
        let text = "machine M { initial state s { on go -> t; after 5s [ok] priority 1 -> s; after 5s -> t; after 10s -> t; } terminal state t; }";
        assert_eq!(shadowed(text), [("10s", "5s")]);
        let found = crate::check(text);
        let d = found
            .diagnostics
            .iter()
            .find(|d| d.code == Code::TimerShadowed)
            .unwrap();
        let unguarded = text.find("after 5s -> t;").unwrap() + "after ".len();
        assert_eq!(d.secondary[0].span.start, unguarded);
        // Timers after the unguarded one are never tried.
        let text = "machine M { initial state p { after 5s -> out; after 5s emit tick; initial state a { after 10s -> out; } } terminal state out; }";
        assert_eq!(shadowed(text), [("10s", "5s")]);
    }
}
