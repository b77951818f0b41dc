//! What every diagram shows, computed once from the model: the states with
//! the lines written inside them, the `any` pseudo-state, and the labelled
//! edges. The renderers only decide how to spell it.

use fsm_grammar::model::{
    EffectId, HistoryKind, Machine, OutputId, Source, TimerId, Transition, TransitionId, Trigger,
};
use std::collections::{HashMap, HashSet};

/// The drawable content of one machine.
pub(crate) struct View {
    /// The machine's name.
    pub name: String,
    /// The states, in declaration order.
    pub states: Vec<StateView>,
    /// Index into `states` of the initial state.
    pub initial: usize,
    /// The `any` pseudo-state: present when the machine has `any` transitions.
    pub any: Option<Vec<String>>,
    /// Transitions that change state (or re-enter it), in declaration order,
    /// then timers with a target, then `done` and `always` transitions with
    /// a target, each in declaration order.
    pub edges: Vec<Edge>,
}

/// One state.
pub(crate) struct StateView {
    pub name: String,
    pub terminal: bool,
    /// A `final` state: it completes the state holding it.
    pub final_: bool,
    /// A `parallel` state: its children are regions, side by side.
    pub parallel: bool,
    /// A region: a child of a parallel state.
    pub region: bool,
    /// `enter / ...`, `exit / ...`, then one line per internal transition,
    /// then one per internal timer, then one per internal `done` or
    /// `always`.
    pub lines: Vec<String>,
}

/// Where an edge starts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum EdgeSource {
    /// A state, by index.
    State(usize),
    /// The `any` pseudo-state.
    Any,
}

/// A transition or timer with a target.
pub(crate) struct Edge {
    pub from: EdgeSource,
    /// Index of the target state.
    pub to: usize,
    pub label: String,
    /// What fires it: an action's name, or `after`, `done` or `always`.
    pub trigger: String,
}

impl View {
    pub(crate) fn new(machine: &Machine) -> View {
        let mut states: Vec<StateView> = machine
            .states
            .iter()
            .map(|s| {
                let mut lines = Vec::new();
                let hooks = [
                    ("enter", &s.enter_effects, &s.enter),
                    ("exit", &s.exit_effects, &s.exit),
                ];
                for (hook, effects, outputs) in hooks {
                    if !effects.is_empty() || !outputs.is_empty() {
                        lines.push(format!("{hook}{}", consequences(machine, effects, outputs)));
                    }
                }
                StateView {
                    name: s.name.clone(),
                    terminal: s.is_terminal(),
                    final_: s.is_final(),
                    parallel: s.is_parallel(),
                    region: s.parent.is_some_and(|p| machine.state(p).is_parallel()),
                    lines,
                }
            })
            .collect();
        // Transitions that share their action with another candidate in a
        // state where they apply: only for them does the order matter.
        let competing: HashSet<TransitionId> = machine
            .state_ids()
            .flat_map(|s| machine.candidate_groups(s))
            .filter(|(_, group)| group.len() > 1)
            .flat_map(|(_, group)| group)
            .collect();
        let own = machine
            .state_ids()
            .flat_map(|s| machine.own_transitions(s).iter().copied());
        let on = own
            .chain(machine.any_transitions().iter().copied())
            .map(|id| (machine.transition(id), competing.contains(&id)));
        // Timers with the same delay in one state compete like the
        // candidates of one action.
        let competing_timers: HashSet<TimerId> = machine
            .state_ids()
            .flat_map(|s| {
                let timers: Vec<(TimerId, &Transition)> = machine.timers_of(s).collect();
                timers
                    .iter()
                    .filter(|(_, t)| timers.iter().filter(|(_, u)| u.delay() == t.delay()).count() > 1)
                    .map(|(id, _)| *id)
                    .collect::<Vec<_>>()
            })
            .collect();
        let timers = (machine.timers.iter().enumerate())
            .map(|(i, t)| (t, competing_timers.contains(&TimerId::from_index(i))));
        // `done` and `always` transitions, labelled with their keyword for
        // the action; the priority shows when another one of the same kind
        // is declared in the same state.
        let mut declared: HashMap<_, usize> = HashMap::new();
        for t in &machine.eventless {
            *declared.entry((t.source, t.trigger)).or_default() += 1;
        }
        let eventless = (machine.eventless.iter()).map(|t| (t, declared[&(t.source, t.trigger)] > 1));
        let mut any_lines = Vec::new();
        let mut edges = Vec::new();
        for (t, competes) in on.chain(timers).chain(eventless) {
            let label = label(machine, t, competes) + history_mark(t.history);
            let from = match t.source {
                Source::State(s) => EdgeSource::State(s.index()),
                Source::Any => EdgeSource::Any,
            };
            match (t.target, from) {
                (Some(to), _) => edges.push(Edge {
                    from,
                    to: to.index(),
                    label,
                    trigger: trigger_name(machine, t),
                }),
                (None, EdgeSource::State(s)) => states[s].lines.push(label),
                (None, EdgeSource::Any) => any_lines.push(label),
            }
        }
        View {
            name: machine.name.clone(),
            states,
            initial: machine.initial.index(),
            any: (!machine.any_transitions().is_empty()).then_some(any_lines),
            edges,
        }
    }
}

/// What fires `t`, as the SVG's `data-trigger` names it: the action's
/// name, or `after`, `done` or `always`.
fn trigger_name(machine: &Machine, t: &Transition) -> String {
    match t.trigger {
        Trigger::On(a) => machine.actions[a.index()].name.clone(),
        Trigger::After(_) => "after".to_owned(),
        Trigger::Eventless(kind) => kind.keyword().to_string(),
    }
}

/// `action [guard] (pN) / effects emit outputs` (see [`consequences`]),
/// with `after DELAY`, `done` or `always` for the action. The priority shows
/// only when the transition competes with another: another candidate of the
/// action, another timer of the state with the same delay, or another
/// `done` (`always`) declared beside it.
fn label(machine: &Machine, t: &Transition, competes: bool) -> String {
    let mut label = match t.trigger {
        Trigger::On(a) => machine.actions[a.index()].name.clone(),
        Trigger::After(delay) => format!("after {}", machine.delay_text(delay)),
        Trigger::Eventless(kind) => kind.keyword().to_string(),
    };
    if let Some(guard) = &t.guard {
        label.push_str(&format!(" [{}]", machine.guard_text(&guard.expr)));
    }
    if competes {
        label.push_str(&format!(" (p{})", t.priority));
    }
    label.push_str(&consequences(machine, &t.effects, &t.emits));
    label
}

/// What firing does, after ` / `: the effects, then the outputs, introduced
/// by `emit` when effects come before them (`/ count_step, record emit
/// execute_tool`); outputs alone read as they always have (`/ o1, o2`).
/// Empty when there are neither.
fn consequences(machine: &Machine, effects: &[EffectId], outputs: &[OutputId]) -> String {
    let effect_list = effects
        .iter()
        .map(|e| machine.effects[e.index()].name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    match (effects.is_empty(), outputs.is_empty()) {
        (true, true) => String::new(),
        (true, false) => format!(" / {}", output_list(machine, outputs)),
        (false, true) => format!(" / {effect_list}"),
        (false, false) => format!(" / {effect_list} emit {}", output_list(machine, outputs)),
    }
}

fn output_list(machine: &Machine, outputs: &[OutputId]) -> String {
    outputs
        .iter()
        .map(|o| machine.outputs[o.index()].name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// How an edge's label says its target is entered through its history, as
/// UML draws the history pseudo-states: ` (H)` and ` (H*)`.
fn history_mark(history: Option<HistoryKind>) -> &'static str {
    match history {
        None => "",
        Some(HistoryKind::Shallow) => " (H)",
        Some(HistoryKind::Deep) => " (H*)",
    }
}
