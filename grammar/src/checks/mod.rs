//! The semantic checks, one per file. Each reads the model and pushes
//! diagnostics into a [`Sink`], which applies `#[allow(...)]`.

mod ambiguous_priority;
mod completion;
mod constant_property;
mod dead_end;
mod duplicate_transition;
mod graph;
mod name_collision;
mod no_path_to_terminal;
mod regions;
mod shadowed_transition;
mod timer_groups;
mod timer_shadowed;
mod unreachable_state;
mod unsatisfiable_guard;
mod unused_declaration;

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::guard_logic::Budget;
use crate::model::{Machine, Model, Source, StateId};

/// Run every check over every machine of `model`.
pub(crate) fn run(model: &Model, out: &mut Vec<Diagnostic>) {
    // A syntax error can move uses out of the machine that declares them (a
    // stray `}` ends it early), so "never used" is not trusted in that file.
    let syntax_errors = out.iter().any(|d| d.code == Code::Syntax);
    name_collision::check_machines(model, out);
    for machine in &model.machines {
        let mut sink = Sink { machine, out };
        if too_many_states(machine, &mut sink) {
            continue;
        }
        if !machine.incomplete {
            let graph = graph::Graph::new(machine);
            unreachable_state::check(machine, &graph, &mut sink);
            dead_end::check(machine, &graph, &mut sink);
            no_path_to_terminal::check(machine, &graph, &mut sink);
        }
        // One budget for every guard question about this machine.
        let mut budget = Budget::for_machine(machine);
        let duplicates = duplicate_transition::check(machine, &mut sink);
        let never_fires = shadowed_transition::check(machine, &duplicates, &mut budget, &mut sink);
        ambiguous_priority::check(machine, &never_fires, &mut budget, &mut sink);
        unsatisfiable_guard::check(machine, &mut budget, &mut sink);
        let timers_never_fire = timer_groups::check(machine, &mut budget, &mut sink);
        timer_shadowed::check(machine, &timers_never_fire, &mut sink);
        if !syntax_errors {
            unused_declaration::check(machine, &mut sink);
        }
        name_collision::check_names(machine, &mut sink);
        regions::check(machine, &mut sink);
        completion::check(machine, &mut sink);
        constant_property::check(machine, &mut sink);
    }
}

/// `too-many-states`: a machine with more states than the one step holds
/// in a configuration (`fsm_step::MAX_STATES`). Nothing runs it, so no
/// other check is worth its time: true when reported.
fn too_many_states(machine: &Machine, sink: &mut Sink<'_>) -> bool {
    let n = machine.states.len();
    if n <= fsm_step::MAX_STATES {
        return false;
    }
    let d = Diagnostic::new(
        Code::TooManyStates,
        machine.span,
        format!(
            "machine `{}` has {} states, more than the {} a machine may have",
            machine.name,
            completion::thousands(n),
            completion::thousands(fsm_step::MAX_STATES)
        ),
        "too many states",
        "split it into machines that send each other events (a fleet runs many machines as one system)",
    );
    sink.push(Scope::Machine, d);
    true
}

/// Where a diagnostic belongs, for `#[allow(...)]`: the whole machine, or one state.
#[derive(Clone, Copy)]
pub(crate) enum Scope {
    Machine,
    State(StateId),
}

impl From<Source> for Scope {
    fn from(source: Source) -> Self {
        match source {
            Source::State(s) => Scope::State(s),
            Source::Any => Scope::Machine,
        }
    }
}

/// Collects one machine's diagnostics, dropping warnings its `#[allow]`s silence.
pub(crate) struct Sink<'a> {
    machine: &'a Machine,
    out: &'a mut Vec<Diagnostic>,
}

impl Sink<'_> {
    pub(crate) fn push(&mut self, scope: Scope, diagnostic: Diagnostic) {
        if diagnostic.severity == Severity::Warning {
            let code = diagnostic.code;
            let allowed = self.machine.allows.contains(&code)
                || matches!(scope, Scope::State(s) if self.machine.state(s).allows.contains(&code));
            if allowed {
                return;
            }
        }
        self.out.push(diagnostic);
    }
}

#[cfg(test)]
mod tests {
    use crate::Code;

    fn codes(text: &str) -> Vec<(Code, String)> {
        let checked = crate::check(text);
        checked
            .diagnostics
            .iter()
            .map(|d| (d.code, text[d.span.start..d.span.end].to_string()))
            .collect()
    }

    #[test]
    fn a_state_may_override_an_any_transition() {
        let text = "machine M { initial state a { on stop -> b; } state b; any { on stop -> c; } terminal state c; }";
        assert!(
            !codes(text).iter().any(|(c, _)| *c == Code::ShadowedTransition),
            "{:?}",
            codes(text)
        );
    }

    #[test]
    fn an_any_transition_shadowed_everywhere_is_reported() {
        let text =
            "machine M { initial state a { on stop -> b; } state b { on stop -> a; } any { on stop -> a; } }";
        let found = codes(text);
        assert!(
            found.contains(&(Code::ShadowedTransition, "on stop -> a;".into())),
            "{found:?}"
        );
    }

    #[test]
    fn exclusive_guards_are_not_ambiguous_but_cover_later_candidates() {
        let text = "machine M { initial state a { on go [x] -> a; on go [!x] -> b; on go -> c; } state b; state c; }";
        let found = codes(text);
        assert!(
            !found.iter().any(|(c, _)| *c == Code::AmbiguousPriority),
            "{found:?}"
        );
        assert!(
            found.contains(&(Code::ShadowedTransition, "on go -> c;".into())),
            "{found:?}"
        );
    }

    #[test]
    fn a_narrower_later_guard_is_shadowed() {
        let text = "machine M { initial state a { on go [x] -> b; on go [x && y] -> c; } state b; state c; }";
        let found = codes(text);
        assert!(
            found.contains(&(Code::ShadowedTransition, "on go [x && y] -> c;".into())),
            "{found:?}"
        );
    }

    #[test]
    fn priority_decides_before_declaration_order() {
        let text =
            "machine M { initial state a { on go -> b; on go [x] priority 1 -> c; } state b; state c; }";
        assert!(codes(text)
            .iter()
            .all(|(c, _)| !matches!(c, Code::ShadowedTransition | Code::AmbiguousPriority)));
    }

    #[test]
    fn allow_on_a_state_silences_only_that_state() {
        let text = "machine M { initial state a; #[allow(unreachable-state)] state b; state c; }";
        let found: Vec<_> = codes(text)
            .into_iter()
            .filter(|(c, _)| *c == Code::UnreachableState)
            .collect();
        assert_eq!(found, [(Code::UnreachableState, "c".to_string())]);
    }

    #[test]
    fn errors_cannot_be_allowed() {
        let text = "#[allow(unknown-state)] machine M { initial state a { on go -> nowhere; } }";
        let found = codes(text);
        assert!(
            found.contains(&(Code::InvalidAllow, "unknown-state".into())),
            "{found:?}"
        );
        assert!(
            found.contains(&(Code::UnknownState, "nowhere".into())),
            "{found:?}"
        );
    }

    #[test]
    fn a_typo_in_a_target_reports_only_the_typo() {
        let text = "machine M { initial state a { on go -> bb; } state b { on back -> a; } }";
        assert_eq!(codes(text), [(Code::UnknownState, "bb".to_string())]);
    }

    #[test]
    fn a_duplicate_state_body_is_still_resolved() {
        let text = "machine M { action go; initial state a { on go -> a; } state a { on slam -> nowhere; } }";
        let found = codes(text);
        assert!(
            found.contains(&(Code::UndeclaredAction, "slam".into())),
            "{found:?}"
        );
        assert!(
            found.contains(&(Code::UnknownState, "nowhere".into())),
            "{found:?}"
        );
    }

    #[test]
    fn liveness_warnings() {
        let text = "machine M { initial state a { on go -> b; on stop -> done; } state b { on spin -> c; } state c { on spin -> b; } state d; terminal state done; }";
        let found = codes(text);
        assert!(found.contains(&(Code::NoPathToTerminal, "b".into())), "{found:?}");
        assert!(found.contains(&(Code::NoPathToTerminal, "c".into())), "{found:?}");
        assert!(found.contains(&(Code::DeadEnd, "d".into())), "{found:?}");
        assert!(found.contains(&(Code::UnreachableState, "d".into())), "{found:?}");
        assert!(
            !found
                .iter()
                .any(|(c, s)| *c == Code::NoPathToTerminal && s == "d"),
            "{found:?}"
        );
    }

    #[test]
    fn any_targets_make_every_state_live() {
        let text = "machine M { initial state a { on go -> b; } state b { on back -> a; } terminal state done; any { on quit -> done; } }";
        assert_eq!(codes(text), []);
    }

    #[test]
    fn declared_names_must_cover_every_use() {
        let text =
            "machine M { action go; guard ok; initial state a { on go [ok && okk] -> a; on stop -> a; } }";
        let found = codes(text);
        assert!(
            found.contains(&(Code::UndeclaredGuard, "okk".into())),
            "{found:?}"
        );
        assert!(
            found.contains(&(Code::UndeclaredAction, "stop".into())),
            "{found:?}"
        );
    }

    #[test]
    fn collisions_follow_the_generated_identifiers() {
        let text = "machine M { guard hasKey, has_key; initial state a { on go [hasKey || has_key] -> a; } }";
        let found = codes(text);
        assert!(
            found.contains(&(Code::NameCollision, "has_key".into())),
            "{found:?}"
        );
        let text = "machine State { initial state a; } machine state { initial state a; }";
        let found = codes(text);
        // Same module and type (one diagnostic), and both types clash with the generated `State` enum.
        assert_eq!(
            found.iter().filter(|(c, _)| *c == Code::NameCollision).count(),
            3,
            "{found:?}"
        );
    }
}
