//! Parallel states: `single-region`, `cross-region-transition`,
//! `conflicting-regions` and `in-never-holds`, all warnings.
//!
//! Each looks at one transition, or one transition and its parallel
//! ancestors, so the whole check is linear in transitions times depth.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{ActionId, Guard, Machine, Source, StateId};
use crate::span::Span;
use std::collections::BTreeMap;

/// A transition of any kind, as these checks see it.
struct Written<'m> {
    source: StateId,
    target: Option<StateId>,
    guard: Option<&'m Guard>,
    span: Span,
}

pub(crate) fn check(m: &Machine, sink: &mut Sink<'_>) {
    if !m.has_parallel() && !has_in(m) {
        return;
    }
    single_region(m, sink);
    let written = written(m);
    for w in &written {
        cross_region(m, w, sink);
        // An `in(...)` of an unknown state was reported, and reads as false.
        if !m.incomplete {
            in_never_holds(m, w, sink);
        }
    }
    conflicting_regions(m, sink);
}

fn has_in(m: &Machine) -> bool {
    let guards = m
        .transitions
        .iter()
        .filter_map(|t| t.guard.as_ref())
        .chain(m.timers.iter().filter_map(|t| t.guard.as_ref()))
        .chain(m.eventless.iter().filter_map(|t| t.guard.as_ref()));
    guards.into_iter().any(|g| {
        let mut states = Vec::new();
        g.expr.in_states(&mut states);
        !states.is_empty()
    })
}

/// Every transition, timer and `done`/`always` declared in a state.
fn written(m: &Machine) -> Vec<Written<'_>> {
    let all = m.transitions.iter().chain(&m.timers).chain(&m.eventless);
    all.filter_map(|t| {
        Some(Written {
            source: t.state()?,
            target: t.target,
            guard: t.guard.as_ref(),
            span: t.span,
        })
    })
    .collect()
}

fn single_region(m: &Machine, sink: &mut Sink<'_>) {
    for s in m.state_ids().filter(|&s| m.state(s).is_parallel()) {
        let st = m.state(s);
        let (label, help) = match st.children.as_slice() {
            [] => (
                "a parallel state without regions".to_string(),
                format!("give `{}` two or more states that run at once, or drop `parallel`", st.name),
            ),
            [only] => (
                format!("`{}` is its only region", m.state(*only).name),
                format!(
                    "one region runs alone, as a composite state would: add the regions that run beside `{}`, or drop `parallel`",
                    m.state(*only).name
                ),
            ),
            _ => continue,
        };
        sink.push(
            Scope::State(s),
            Diagnostic::new(
                Code::SingleRegion,
                st.span,
                format!(
                    "parallel state `{}` has {}",
                    st.name,
                    if st.children.is_empty() {
                        "no regions"
                    } else {
                        "one region"
                    }
                ),
                label,
                help,
            ),
        );
    }
}

fn cross_region(m: &Machine, w: &Written<'_>, sink: &mut Sink<'_>) {
    let Some(target) = w.target else { return };
    let Some((parallel, from, to)) = m.regions_apart(w.source, target) else {
        return;
    };
    let name = |s: StateId| m.state(s).name.as_str();
    sink.push(
        Scope::State(w.source),
        Diagnostic::new(
            Code::CrossRegionTransition,
            w.span,
            format!(
                "transition from region `{}` to region `{}` of parallel state `{}`",
                name(from),
                name(to),
                name(parallel)
            ),
            format!("exits and re-enters `{}` and every region", name(parallel)),
            format!(
                "a transition between regions has its domain above `{}`, so every region starts over; to wait for another region, guard with `in({})` instead",
                name(parallel),
                name(target)
            ),
        )
        .with_label(m.state(parallel).span, "parallel state"),
    );
}

fn in_never_holds(m: &Machine, w: &Written<'_>, sink: &mut Sink<'_>) {
    let Some(guard) = w.guard else { return };
    let mut states = Vec::new();
    guard.expr.in_states(&mut states);
    let mut reported = Vec::new();
    for (s, span) in states.into_iter().zip(m.in_spans(guard).iter().copied()) {
        if reported.contains(&s) || m.can_be_active_together(w.source, s) {
            continue;
        }
        reported.push(s);
        sink.push(
            Scope::State(w.source),
            Diagnostic::new(
                Code::InNeverHolds,
                span,
                format!(
                    "`in({})` never holds in `{}`",
                    m.state(s).name,
                    m.state(w.source).name
                ),
                format!(
                    "`{}` is never active while `{}` is",
                    m.state(s).name,
                    m.state(w.source).name
                ),
                "`in(S)` tests a state active at the same time: one holding this one, or in another region of a parallel state holding it",
            )
            .with_label(m.state(s).span, "declared here"),
        );
    }
}

/// Per parallel state, the action transitions declared in (or inside) each
/// region that leave it: two regions with one (action, priority) leave it
/// in one step only by document order.
fn conflicting_regions(m: &Machine, sink: &mut Sink<'_>) {
    // (parallel, action, priority) → the first (region, transition span).
    let mut first: BTreeMap<(StateId, ActionId, i32), (StateId, Span)> = BTreeMap::new();
    for t in &m.transitions {
        let (Source::State(source), Some(target)) = (t.source, t.target) else {
            continue;
        };
        for parallel in m.ancestors(source).filter(|&p| m.state(p).is_parallel()) {
            if m.is_inside(target, parallel) {
                continue;
            }
            let region = m
                .ancestors_or_self(source)
                .find(|&x| m.state(x).parent == Some(parallel))
                .expect("`source` lies inside `parallel`");
            let key = (parallel, t.expect_action(), t.priority);
            match first.get(&key) {
                None => {
                    first.insert(key, (region, t.span));
                }
                Some(&(other, span)) if other != region => {
                    let name = |s: StateId| m.state(s).name.as_str();
                    sink.push(
                        Scope::State(source),
                        Diagnostic::new(
                            Code::ConflictingRegions,
                            t.span,
                            format!(
                                "regions `{}` and `{}` of `{}` both leave it on `{}` at priority {}",
                                name(other),
                                name(region),
                                name(parallel),
                                m.actions[t.expect_action().index()].name,
                                t.priority
                            ),
                            "leaves the parallel state too",
                            format!(
                                "when both can fire, the one written first wins; say which with a priority, e.g. `priority {}`",
                                t.priority + 1
                            ),
                        )
                        .with_label(span, "the one written first"),
                    );
                }
                Some(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Code;

    fn found(text: &str) -> Vec<(Code, String)> {
        crate::check(text)
            .diagnostics
            .iter()
            .map(|d| (d.code, text[d.span.start..d.span.end].to_string()))
            .collect()
    }

    /// The research pipeline: two researchers at once, synthesis when both
    /// are done, told apart by `in(...)`.
    const RESEARCH: &str = "machine Research {
    initial state idle { on start -> collect; }
    parallel state collect {
        on cancel -> cancelled;
        after 10m -> failed emit notify_user;
        done [in(a_done)] priority 1 -> synthesis emit spawn_synthesizer;
        done -> partial_synthesis emit spawn_synthesizer;
        state researcher_a {
            initial state a_running { on a_written -> a_done emit mark_a; on a_failed -> a_gave_up; }
            final state a_done;
            final state a_gave_up;
        }
        state researcher_b {
            initial state b_running { on b_written -> b_done emit mark_b; }
            final state b_done;
        }
    }
    state synthesis { on s_written -> delivered emit deliver; }
    state partial_synthesis { on s_written -> delivered emit deliver, note_partial; }
    terminal state delivered;
    terminal state cancelled;
    terminal state failed;
}";

    #[test]
    fn the_research_pipeline_checks_clean() {
        assert_eq!(found(RESEARCH), []);
    }

    #[test]
    fn regions_warnings() {
        let text = "machine M { initial state idle { on go -> p; } \
            parallel state p { state a { initial state a1 { on x -> b1; on quit -> idle; on y [ready && in(idle)] -> a2; } state a2; } \
            state b { initial state b1 { on quit -> idle; } } } parallel state q { state only; } }";
        let codes: Vec<(Code, String)> = found(text)
            .into_iter()
            .filter(|(c, _)| {
                matches!(
                    c,
                    Code::CrossRegionTransition
                        | Code::ConflictingRegions
                        | Code::SingleRegion
                        | Code::InNeverHolds
                )
            })
            .collect();
        assert_eq!(
            codes,
            [
                (Code::CrossRegionTransition, "on x -> b1;".into()),
                (Code::InNeverHolds, "in(idle)".into()),
                (Code::ConflictingRegions, "on quit -> idle;".into()),
                (Code::SingleRegion, "q".into()),
            ],
            "{:?}",
            found(text)
        );
    }
}
