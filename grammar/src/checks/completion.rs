//! Transitions without an action: `done-never-fires` (a warning),
//! `always-at-start` and `completion-cycle` (errors).
//!
//! `completion-cycle` looks for `done` and unguarded `always` transitions
//! that can follow each other forever within one `fire`. An edge from one
//! to the next is counted only where the next is sure to be tried after the
//! first: an `always` of a state the first leaves active (the target, its
//! ancestors, or a state its default entry enters), a `done` of such a state
//! that the first leaves done. So every cycle reported does loop (unless a
//! guarded transition of higher priority happens to be enabled); a guarded
//! cycle is stopped at run time instead (docs/dsl.md, "Transitions without
//! an action"). Time: transitions times depth.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{cycle_order, cycles, EventlessKind, Machine, Transition, Trigger, MAX_MICROSTEPS};

pub(crate) fn check(m: &Machine, sink: &mut Sink<'_>) {
    if m.eventless.is_empty() && !m.states.iter().any(|s| s.is_final()) {
        return;
    }
    done_never_fires(m, sink);
    always_at_start(m, sink);
    let must = completion_cycles(m, sink);
    chain_too_long(m, &must, sink);
    guarded_cycles(m, &must, sink);
}

fn done_never_fires(m: &Machine, sink: &mut Sink<'_>) {
    for e in m
        .eventless
        .iter()
        .filter(|e| e.trigger == Trigger::Eventless(EventlessKind::Done))
    {
        let st = m.state(e.expect_state());
        if m.can_be_done(e.expect_state()) && (st.is_composite() || st.is_parallel()) {
            continue;
        }
        let (label, help) = if !st.is_composite() && !st.is_parallel() {
            (
                format!("`{}` holds no states, so it is never done", st.name),
                "`done` belongs to a state holding states, one of them `final`: move it there".to_string(),
            )
        } else if st.is_parallel() {
            let never = st
                .children
                .iter()
                .find(|&&r| !m.can_be_done(r))
                .map_or("?", |&r| m.state(r).name.as_str());
            (
                format!("its region `{never}` is never done"),
                format!(
                    "a parallel state is done when every region is: mark the state `{never}` ends in as `final`"
                ),
            )
        } else {
            (
                format!("no state inside `{}` is final", st.name),
                format!(
                    "`{}` is done when its active state is `final`: mark the state it ends in as `final state ...;`",
                    st.name
                ),
            )
        };
        sink.push(
            Scope::State(e.expect_state()),
            Diagnostic::new(
                Code::DoneNeverFires,
                e.trigger_span,
                format!("`done` of `{}` never fires", st.name),
                label,
                help,
            ),
        );
    }
}

fn always_at_start(m: &Machine, sink: &mut Sink<'_>) {
    let start = m.initial_configuration();
    let mut active = vec![false; m.states.len()];
    for &s in &start {
        active[s.index()] = true;
    }
    for e in &m.eventless {
        if e.trigger != Trigger::Eventless(EventlessKind::Always) || !active[e.expect_state().index()] {
            continue;
        }
        let name = &m.state(e.expect_state()).name;
        sink.push(
            Scope::State(e.expect_state()),
            Diagnostic::new(
                Code::AlwaysAtStart,
                e.trigger_span,
                format!("`{name}` is active when the machine starts, and has an `always` transition"),
                "would be tried before anything happens",
                format!(
                    "creating a machine runs nothing and emits nothing: start in another state and enter `{name}` with an action, e.g. `initial state idle {{ on start -> {name}; }}`"
                ),
            ),
        );
    }
    for &s in &start {
        let st = m.state(s);
        if !(st.is_composite() && m.starts_done(s)) {
            continue;
        }
        sink.push(
            Scope::State(s),
            Diagnostic::new(
                Code::AlwaysAtStart,
                st.span,
                format!("`{}` is done when the machine starts", st.name),
                "done before anything happens",
                format!(
                    "creating a machine runs nothing, so `{}` would stay done without completing: start it in a state that is not `final`",
                    st.name
                ),
            ),
        );
    }
}

/// True for a transition that fires whenever it is tried: an unguarded
/// `always` or `done`.
fn forcing(e: &Transition) -> bool {
    e.guard.is_none()
}

/// Reports `completion-cycle`, and returns the graph it reads: per
/// transition, the forcing transitions sure to be taken after it.
fn completion_cycles(m: &Machine, sink: &mut Sink<'_>) -> Vec<Vec<usize>> {
    let n = m.eventless.len();
    let forcing_ids: Vec<usize> = (0..n).filter(|&i| forcing(&m.eventless[i])).collect();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    if forcing_ids.is_empty() {
        return succ;
    }
    // Per state: the forcing transitions declared on it.
    let mut on_state: Vec<Vec<usize>> = vec![Vec::new(); m.states.len()];
    // Per state: the forcing transitions declared on a state its default
    // entry enters (itself included).
    let mut in_entry: Vec<Vec<usize>> = vec![Vec::new(); m.states.len()];
    for &i in &forcing_ids {
        let s = m.eventless[i].expect_state();
        on_state[s.index()].push(i);
        let mut x = s;
        in_entry[x.index()].push(i);
        while m.entered_by_default(x) {
            x = m
                .state(x)
                .parent
                .expect("a state entered by default has a parent");
            in_entry[x.index()].push(i);
        }
    }
    for &i in &forcing_ids {
        let e = &m.eventless[i];
        let Some(target) = e.target else {
            // Without a target nothing changes: an `always` is tried again
            // at once; a `done` is tried once.
            if e.trigger == Trigger::Eventless(EventlessKind::Always) {
                succ[i].push(i);
            }
            continue;
        };
        let mut next: Vec<usize> = m
            .ancestors_or_self(target)
            .flat_map(|a| on_state[a.index()].iter().copied())
            .collect();
        if e.history.is_none() {
            next.extend(
                in_entry[target.index()]
                    .iter()
                    .copied()
                    .filter(|&j| m.eventless[j].expect_state() != target),
            );
        }
        for j in next {
            let f = &m.eventless[j];
            let follows = match f.eventless_kind() {
                Some(EventlessKind::Always) => true,
                // Entered or not, a state holding the target that is done
                // after the step was made done by it.
                _ => m.done_after_entering(f.expect_state(), target),
            };
            if follows && !succ[i].contains(&j) {
                succ[i].push(j);
            }
        }
    }
    for cycle in cycles(&succ) {
        let first = &m.eventless[cycle[0]];
        let names: Vec<String> = cycle
            .iter()
            .map(|&i| {
                let e = &m.eventless[i];
                format!(
                    "`{}` of `{}`",
                    e.trigger.keyword(),
                    m.state(e.expect_state()).name
                )
            })
            .collect();
        let mut d = Diagnostic::new(
            Code::CompletionCycle,
            first.trigger_span,
            if cycle.len() == 1 {
                format!(
                    "`{}` of `{}` fires again after itself, forever",
                    first.trigger.keyword(),
                    m.state(first.expect_state()).name
                )
            } else {
                format!("{} follow each other forever", names.join(", "))
            },
            "starts a cycle of transitions without an action",
            "each is tried at once after the one before, within one `fire`: guard one of them, or leave the cycle on an action",
        );
        for &i in &cycle[1..] {
            d = d.with_label(m.eventless[i].trigger_span, "next in the cycle");
        }
        sink.push(Scope::State(first.expect_state()), d);
    }
    succ
}

/// `chain-too-long`: unguarded transitions sure to follow each other (the
/// graph `must`) for more microsteps than one `fire` may take. Not where
/// they cycle: that is `completion-cycle`.
fn chain_too_long(m: &Machine, must: &[Vec<usize>], sink: &mut Sink<'_>) {
    let Some(chain) = m.chain_past_bound(must) else {
        return;
    };
    let first = &m.eventless[chain[0]];
    let last = &m.eventless[*chain.last().expect("a chain past the bound")];
    let name = |e: &Transition| m.state(e.expect_state()).name.clone();
    let d = Diagnostic::new(
        Code::ChainTooLong,
        first.trigger_span,
        format!(
            "a chain of {} unguarded `always` and `done` transitions, from `{}` to `{}`, is longer than the {} \
             microsteps one `fire` may take",
            thousands(chain.len()),
            name(first),
            name(last),
            thousands(MAX_MICROSTEPS)
        ),
        format!("starts a chain of {} steps", thousands(chain.len())),
        format!(
            "every `fire` that reaches it would stop after {} microsteps with a runaway error: \
             leave the chain on an action, or split it with a guard",
            thousands(MAX_MICROSTEPS)
        ),
    )
    .with_label(last.trigger_span, "the chain's last step");
    sink.push(Scope::State(first.expect_state()), d);
}

/// `guarded-cycle`: transitions that may follow each other (the graph of
/// [`Machine::eventless_may_follow`]) in a cycle that is not a
/// `completion-cycle` (one of `must`): it goes on for as long as its guards
/// hold, and a `fire` stops it after [`MAX_MICROSTEPS`].
fn guarded_cycles(m: &Machine, must: &[Vec<usize>], sink: &mut Sink<'_>) {
    let may = m.eventless_may_follow();
    let reported = cycles(must);
    for component in cycles(&may) {
        if reported.iter().any(|c| c.iter().all(|i| component.contains(i))) {
            continue;
        }
        let order = cycle_order(&may, &component);
        let first = &m.eventless[order[0]];
        let mut states: Vec<String> = order
            .iter()
            .map(|&i| format!("`{}`", m.state(m.eventless[i].expect_state()).name))
            .collect();
        states.push(states[0].clone());
        let mut guards: Vec<String> = Vec::new();
        for &i in &order {
            if let Some(g) = &m.eventless[i].guard {
                let text = format!("`{}`", m.guard_text(&g.expr));
                if !guards.contains(&text) {
                    guards.push(text);
                }
            }
        }
        let holding = match guards.len() {
            0 => "whenever it is entered".to_string(),
            1 => format!("while {} holds", guards[0]),
            _ => format!("while {} hold", guards.join(", ")),
        };
        let mut d = Diagnostic::new(
            Code::GuardedCycle,
            first.trigger_span,
            format!(
                "`always` and `done` transitions can cycle {} within one `fire`, {holding}",
                states.join(" -> ")
            ),
            "starts a cycle of transitions without an action",
            format!(
                "a `fire` that keeps going round stops after {} microsteps with a runaway error, where the last \
                 one left the machine: make sure a guard of the cycle turns false, or leave it on an action",
                thousands(MAX_MICROSTEPS)
            ),
        );
        for &i in &order[1..] {
            d = d.with_label(m.eventless[i].trigger_span, "next in the cycle");
        }
        sink.push(Scope::State(first.expect_state()), d);
    }
}

/// `1,100`.
pub(super) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
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

    #[test]
    fn unguarded_always_transitions_that_loop_are_a_cycle_and_guarded_ones_are_not() {
        let text = "machine M { initial state idle { on go -> a; } state a { always -> b; } \
            state b { always -> a; } state c { always [g] -> d; } state d { always -> c; } }";
        let codes = found(text);
        let cycles: Vec<_> = codes
            .iter()
            .filter(|(c, _)| *c == Code::CompletionCycle)
            .collect();
        assert_eq!(cycles.len(), 1, "{codes:?}");
    }

    #[test]
    fn an_always_of_a_composite_into_itself_loops() {
        let text = "machine M { initial state idle { on go -> p; } state p { always -> x; \
            initial state x; state y; } }";
        assert!(
            found(text).iter().any(|(c, _)| *c == Code::CompletionCycle),
            "{:?}",
            found(text)
        );
    }

    #[test]
    fn a_done_that_reenters_a_state_that_starts_done_loops() {
        let text = "machine M { initial state idle { on go -> c; } state c { done -> c; \
            initial state w { on x -> f; } final state f; } }";
        assert!(!found(text).iter().any(|(c, _)| *c == Code::CompletionCycle));
        let text = "machine M { initial state idle { on go -> c; } state c { done -> f; \
            initial state w; final state f; } }";
        assert!(
            found(text).iter().any(|(c, _)| *c == Code::CompletionCycle),
            "{:?}",
            found(text)
        );
    }

    #[test]
    fn always_and_done_at_start_are_errors() {
        let text = "machine M { initial state a { always [g] -> b; } state b; }";
        assert!(found(text).contains(&(Code::AlwaysAtStart, "always".into())));
        let text = "machine M { initial state c { done -> b; initial final state f; } state b; }";
        assert!(
            found(text).contains(&(Code::AlwaysAtStart, "c".into())),
            "{:?}",
            found(text)
        );
    }

    #[test]
    fn done_never_fires_where_nothing_is_final() {
        let text = "machine M { initial state idle { on go -> c; } state c { done -> idle; \
            initial state w; } parallel state p { done -> idle; state r1 { initial state x; final state y; } \
            state r2 { initial state z; } } }";
        let never: Vec<String> = found(text)
            .into_iter()
            .filter(|(c, _)| *c == Code::DoneNeverFires)
            .map(|(_, s)| s)
            .collect();
        assert_eq!(never, ["done", "done"]);
    }

    #[test]
    fn an_unguarded_chain_longer_than_the_bound_is_an_error_with_its_length() {
        let chain = |n: usize| {
            let mut text = String::from("machine M { initial state idle { on go -> s0; } ");
            for i in 0..n {
                text.push_str(&format!("state s{i} {{ always -> s{}; }} ", i + 1));
            }
            text.push_str(&format!("terminal state s{n}; }}"));
            text
        };
        let long = chain(1100);
        let report = crate::check(&long);
        let errors: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::ChainTooLong)
            .collect();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].message.contains("1,100"), "{}", errors[0].message);
        let at = long.find("always").unwrap();
        assert_eq!(errors[0].span.start, at, "on the first `always`");
        assert!(!found(&chain(1000)).iter().any(|(c, _)| *c == Code::ChainTooLong));
    }

    #[test]
    fn a_guarded_cycle_warns_with_its_states_in_order_and_its_guards() {
        let text = "machine M { initial state idle { on go -> a; } state a { always [ready] -> b; } \
            state b { always [ready] -> a; } }";
        let report = crate::check(text);
        let warnings: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::GuardedCycle)
            .collect();
        assert_eq!(warnings.len(), 1, "{:?}", report.diagnostics);
        assert!(
            warnings[0].message.contains("`a` -> `b` -> `a`") && warnings[0].message.contains("`ready`"),
            "{}",
            warnings[0].message
        );
        // A retry that re-enters a parallel state at states that are not
        // final cannot make its `done` fire again in the same `fire`.
        let retry = "machine Retry { initial state idle { on go -> work; } parallel state work { \
            done -> decide; state a { initial state a1 { on x -> a2; } final state a2; } \
            state b { initial state b1 { on y -> b2; } final state b2; } } \
            state decide { always [again] priority 1 -> work; always -> finished; } terminal state finished; }";
        assert!(
            !found(retry).iter().any(|(c, _)| *c == Code::GuardedCycle),
            "{:?}",
            found(retry)
        );
    }
}
