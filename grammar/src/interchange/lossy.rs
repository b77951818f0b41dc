//! What an export to another tool's format reports: the constructs the
//! format cannot hold, or that the other tool would run differently, each
//! at its place in the `.fsm` source.

use crate::model::{Machine, StateId, Transition, TransitionId, Trigger};
use crate::span::Span;
use std::collections::{BTreeSet, HashMap};
use std::fmt;

/// A document written for another tool, and what it does not carry over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    /// The document.
    pub text: String,
    /// One warning per construct the format cannot hold or the other tool
    /// would run differently, in source order.
    pub warnings: Vec<ExportWarning>,
}

/// A construct an export cannot carry over as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportWarning {
    /// Where the construct is in the `.fsm` source.
    pub span: Span,
    /// One sentence naming the construct and what becomes of it.
    pub message: String,
    /// What it means for the user, or what to do.
    pub help: String,
}

impl fmt::Display for ExportWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Collects warnings and hands them back in source order.
#[derive(Default)]
pub(super) struct Losses(Vec<ExportWarning>);

impl Losses {
    pub(super) fn push(&mut self, span: Span, message: String, help: impl Into<String>) {
        self.0.push(ExportWarning {
            span,
            message: crate::elide::elide(message),
            help: help.into(),
        });
    }

    pub(super) fn into_vec(mut self) -> Vec<ExportWarning> {
        self.0.sort_by_key(|w| (w.span.start, w.span.end));
        self.0
    }
}

/// How a transition is named in a warning: `` `on abort priority 1` in `connected` ``.
pub(super) fn describe(machine: &Machine, t: &Transition) -> String {
    let trigger = match t.trigger {
        Trigger::On(action) => format!("on {}", machine.actions[action.index()].name),
        Trigger::After(delay) => format!("after {}", machine.delay_text(delay)),
        Trigger::Eventless(kind) => kind.keyword().to_string(),
    };
    let place = match t.state() {
        Some(state) => format!("in `{}`", machine.state(state).name),
        None => "in `any`".to_string(),
    };
    format!("`{trigger} priority {}` {place}", t.priority)
}

/// Where fsmc's candidate order (priority, then innermost, then declaration)
/// and a tool that orders by depth alone (SCXML, XState) disagree: a
/// transition of an outer level (a state holding another, or `any`) with a
/// higher priority than a candidate on the same trigger in a state inside
/// it. fsmc tries the outer one first; the other tool tries the inner one
/// first. Within one state, the exporters write candidates in fsmc's order,
/// so no priority is lost there.
pub(super) fn depth_order(machine: &Machine, tool: &str, losses: &mut Losses) {
    // The highest priority of each level's candidates, by trigger key:
    // `on` transitions by action, `always` transitions together.
    #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    enum Key {
        On(usize),
        Always,
    }
    let key = |t: &Transition| match t.trigger {
        Trigger::On(action) => Some(Key::On(action.index())),
        Trigger::Eventless(crate::model::EventlessKind::Always) => Some(Key::Always),
        _ => None,
    };
    // Level `None` is `any`.
    let mut by_level: HashMap<(Option<StateId>, Key), Vec<&Transition>> = HashMap::new();
    let own = machine.state_ids().flat_map(|s| {
        machine
            .own_transitions(s)
            .iter()
            .map(|&id| machine.transition(id))
    });
    let any = machine.any_transitions().iter().map(|&id| machine.transition(id));
    let always = machine
        .eventless
        .iter()
        .filter(|t| t.trigger == Trigger::Eventless(crate::model::EventlessKind::Always));
    for t in own.chain(any).chain(always) {
        if let Some(k) = key(t) {
            by_level.entry((t.state(), k)).or_default().push(t);
        }
    }
    let mut flagged: BTreeSet<(usize, usize)> = BTreeSet::new();
    for ((state, k), inner) in &by_level {
        let Some(state) = *state else { continue };
        let lowest = inner.iter().map(|t| t.priority).min().unwrap_or(0);
        let outer_levels = machine
            .ancestors(state)
            .map(Some)
            .chain((*k != Key::Always).then_some(None));
        for level in outer_levels {
            for t in by_level.get(&(level, *k)).into_iter().flatten() {
                if t.priority > lowest {
                    flagged.insert((t.span.start, t.span.end));
                }
            }
        }
    }
    for t in own_and_eventless(machine) {
        if flagged.contains(&(t.span.start, t.span.end)) {
            losses.push(
                t.span,
                format!(
                    "{} is tried before the candidates of the states inside it in fsmc, but {tool} tries the innermost state's first",
                    describe(machine, t)
                ),
                format!("the document keeps the priority, but {tool} orders candidates by depth alone; drop the priority, or move the transition into the inner states, for both to agree"),
            );
        }
    }
}

/// The machine's properties: no other format holds them. Each is reported,
/// never dropped silently.
pub(super) fn properties(machine: &Machine, tool: &str, losses: &mut Losses) {
    for p in &machine.properties {
        losses.push(
            p.span,
            format!(
                "property `{}` is not written: {tool} has no properties",
                p.label(machine)
            ),
            "it is no part of the machine's behaviour; `fsmc verify` checks it on the .fsm file, and `fsmc export --format json` keeps it",
        );
    }
}

/// Every `on` transition (state bodies and `any`) and every `done` and `always` transition.
fn own_and_eventless(machine: &Machine) -> impl Iterator<Item = &Transition> {
    machine.transitions.iter().chain(&machine.eventless)
}

/// The candidates of one list in fsmc's order within one state: stably by
/// descending priority among those of the same `group`. Returns the indices
/// into `list`.
pub(super) fn candidate_order<T>(
    list: &[T],
    group: impl Fn(&T) -> usize,
    priority: impl Fn(&T) -> i32,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..list.len()).collect();
    // Groups keep the position of their first member; inside a group the
    // highest priority comes first, declaration order breaking ties.
    let mut first: HashMap<usize, usize> = HashMap::new();
    for (i, t) in list.iter().enumerate() {
        first.entry(group(t)).or_insert(i);
    }
    order.sort_by_key(|&i| (first[&group(&list[i])], std::cmp::Reverse(priority(&list[i]))));
    order
}

/// The transitions of `ids`.
pub(super) fn transitions<'m>(machine: &'m Machine, ids: &[TransitionId]) -> Vec<&'m Transition> {
    ids.iter().map(|&id| machine.transition(id)).collect()
}
