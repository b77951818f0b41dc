//! A checked machine as an XState v5 machine config, in JSON
//! ([`to_xstate`]), to open in Stately's editor.

use super::json_value::JsonValue;
use super::lossy::{self, Exported, Losses};
use crate::model::{Delay, EventlessKind, HistoryKind, Machine, StateId, Symbol, Transition, Trigger};

/// One machine as an XState v5 machine config (`createMachine`'s argument)
/// in JSON: `id`, `initial`, `states`, `type` (`parallel`, `final`,
/// `history`), `on`, `after` (in milliseconds, or a named delay), `always`,
/// `onDone`, `entry`/`exit`, guards and actions, `description`s.
///
/// Effects are actions named by the effect; outputs are `emit` actions,
/// `{"type": "emit", "params": {"output": "name"}}`. Guards are named by
/// their `.fsm` text. What XState cannot hold (types, declarations,
/// `#[allow]`, guard expressions, priorities across levels) is in
/// [`Exported::warnings`].
///
/// ```
/// let model = fsm_grammar::check("machine Door { initial state closed { on open -> opened; } state opened { on close -> closed; } }")
///     .into_model()
///     .unwrap();
/// let exported = fsm_grammar::interchange::to_xstate(&model.machines[0]);
/// assert!(exported.text.contains(r##""target": "#Door.opened""##));
/// assert!(exported.warnings.is_empty());
/// ```
pub fn to_xstate(machine: &Machine) -> Exported {
    let mut losses = Losses::default();
    lossy::depth_order(machine, "XState", &mut losses);
    lossy::properties(machine, "XState", &mut losses);
    let writer = Writer {
        machine,
        ids: state_ids(machine),
    };
    let mut root = Vec::new();
    root.push(("id".to_string(), JsonValue::string(&machine.name)));
    if !machine.docs.is_empty() {
        root.push(("description".into(), JsonValue::string(machine.docs.join("\n"))));
    }
    root.push((
        "initial".into(),
        JsonValue::string(&machine.state(machine.initial).name),
    ));
    let top: Vec<StateId> = machine
        .state_ids()
        .filter(|&s| machine.state(s).parent.is_none())
        .collect();
    root.push(("states".into(), writer.states(&top, &mut losses)));
    if let Some(on) = writer.on(
        None,
        &lossy::transitions(machine, machine.any_transitions()),
        &mut losses,
    ) {
        root.push(("on".into(), on));
    }
    machine_losses(machine, &mut losses);
    Exported {
        text: JsonValue::Object(root).to_pretty_string(),
        warnings: losses.into_vec(),
    }
}

/// The XState id of every state: the machine's name and the path, with dots.
fn state_ids(machine: &Machine) -> Vec<String> {
    machine
        .state_ids()
        .map(|s| {
            let mut path: Vec<&str> = machine
                .ancestors_or_self(s)
                .map(|a| machine.state(a).name.as_str())
                .collect();
            path.push(&machine.name);
            path.reverse();
            path.join(".")
        })
        .collect()
}

/// What XState's config has no place for, at the machine level.
fn machine_losses(machine: &Machine, losses: &mut Losses) {
    if let Some(context) = &machine.context {
        losses.push(
            context.span,
            format!("the context type `{}` is not exported", context.text),
            "an XState config holds context values, not types; type the machine with `setup({ types })` in TypeScript",
        );
    }
    if !machine.allows.is_empty() {
        losses.push(
            machine.span,
            format!("`#[allow(...)]` on machine `{}` is not exported", machine.name),
            "XState has no lints to silence",
        );
    }
    for state in &machine.states {
        if !state.allows.is_empty() {
            losses.push(
                state.span,
                format!("`#[allow(...)]` on state `{}` is not exported", state.name),
                "XState has no lints to silence",
            );
        }
    }
    let kinds: [(&str, bool, &[Symbol]); 5] = [
        ("action", machine.declares_actions, &machine.actions),
        ("guard", machine.declares_guards, &machine.guards),
        ("output", machine.declares_outputs, &machine.outputs),
        ("effect", machine.declares_effects, &machine.effects),
        ("delay", machine.declares_delays, &machine.delays),
    ];
    for (kind, declares, symbols) in kinds {
        if !declares {
            continue;
        }
        for symbol in symbols.iter().filter(|s| s.declared.is_some()) {
            let span = symbol.span();
            let mut lost = Vec::new();
            if let Some(payload) = &symbol.payload {
                lost.push(format!("payload type `{}`", payload.text));
            }
            if !symbol.docs.is_empty() {
                lost.push("doc comment".to_string());
            }
            let what = if lost.is_empty() {
                "declaration".to_string()
            } else {
                format!("declaration (with its {})", lost.join(" and "))
            };
            losses.push(
                span,
                format!("the {kind} `{}`'s {what} is not exported", symbol.name),
                "an XState config declares no names; events, guards, actions and delays are named where they are used",
            );
        }
    }
}

struct Writer<'m> {
    machine: &'m Machine,
    ids: Vec<String>,
}

impl Writer<'_> {
    fn target(&self, id: StateId) -> String {
        format!("#{}", self.ids[id.index()])
    }

    fn states(&self, ids: &[StateId], losses: &mut Losses) -> JsonValue {
        let m = self.machine;
        let members = ids
            .iter()
            .map(|&id| {
                let state = m.state(id);
                let mut members: Vec<(String, JsonValue)> = Vec::new();
                if !state.docs.is_empty() {
                    members.push(("description".into(), JsonValue::string(state.docs.join("\n"))));
                }
                if state.is_terminal() || state.is_final() {
                    if let (true, Some(parent)) = (state.is_terminal(), state.parent) {
                        losses.push(
                            state.span,
                            format!(
                                "terminal state `{}` is written as a `final` state of `{}`, which XState takes as `{}` being done, not as the machine's end",
                                state.name,
                                m.state(parent).name,
                                m.state(parent).name
                            ),
                            "XState ends a machine only in a `final` state at its top level; move the terminal state there for both to agree",
                        );
                    }
                    members.push(("type".into(), JsonValue::string("final")));
                } else if state.is_parallel() {
                    members.push(("type".into(), JsonValue::string("parallel")));
                }
                for (key, effects, outputs) in [
                    ("entry", &state.enter_effects, &state.enter),
                    ("exit", &state.exit_effects, &state.exit),
                ] {
                    if let Some(actions) = self.actions(effects, outputs) {
                        members.push((key.into(), actions));
                    }
                }
                let own = lossy::transitions(m, m.own_transitions(id));
                if let Some(on) = self.on(Some(id), &own, losses) {
                    members.push(("on".into(), on));
                }
                let timers: Vec<&Transition> = m.timers_of(id).map(|(_, t)| t).collect();
                if !timers.is_empty() {
                    let mut groups: Vec<(Delay, Vec<&Transition>)> = Vec::new();
                    for t in timers {
                        let delay = t.delay().expect("a timer has a delay");
                        match groups.iter_mut().find(|(d, _)| *d == delay) {
                            Some((_, list)) => list.push(t),
                            None => groups.push((delay, vec![t])),
                        }
                    }
                    let after = groups
                        .into_iter()
                        .map(|(delay, list)| {
                            let key = match delay {
                                Delay::Literal(d) => d.as_millis().to_string(),
                                Delay::Named(d) => m.delays[d.index()].name.clone(),
                            };
                            (key, self.candidates(Some(id), &list, losses))
                        })
                        .collect();
                    members.push(("after".into(), JsonValue::Object(after)));
                }
                for (kind, key) in [(EventlessKind::Always, "always"), (EventlessKind::Done, "onDone")] {
                    let list: Vec<&Transition> = m
                        .eventless_of(id)
                        .map(|(_, t)| t)
                        .filter(|t| t.trigger == Trigger::Eventless(kind))
                        .collect();
                    if !list.is_empty() {
                        members.push((key.into(), self.candidates(Some(id), &list, losses)));
                    }
                }
                if state.is_composite() {
                    if !state.is_parallel() {
                        if let Some(child) = m.initial_child(id) {
                            members.push(("initial".into(), JsonValue::string(&m.state(child).name)));
                        }
                    }
                    let JsonValue::Object(mut children) = self.states(&state.children, losses) else {
                        unreachable!("states() returns an object")
                    };
                    for kind in [HistoryKind::Shallow, HistoryKind::Deep] {
                        if self.has_history(id, kind) {
                            let mut node = vec![("type".to_string(), JsonValue::string("history"))];
                            node.push((
                                "history".into(),
                                JsonValue::string(match kind {
                                    HistoryKind::Shallow => "shallow",
                                    HistoryKind::Deep => "deep",
                                }),
                            ));
                            children.push((self.history_key(id, kind), JsonValue::Object(node)));
                        }
                    }
                    members.push(("states".into(), JsonValue::Object(children)));
                }
                (state.name.clone(), JsonValue::Object(members))
            })
            .collect();
        JsonValue::Object(members)
    }

    fn has_history(&self, id: StateId, kind: HistoryKind) -> bool {
        let m = self.machine;
        m.transitions
            .iter()
            .chain(&m.timers)
            .chain(&m.eventless)
            .any(|t| t.target == Some(id) && t.history == Some(kind))
    }

    /// The key of `id`'s history node: `history` or `deep_history`, with
    /// `_` added while a child has that name.
    fn history_key(&self, id: StateId, kind: HistoryKind) -> String {
        let m = self.machine;
        let mut key = kind.keyword().to_string();
        while m.state(id).children.iter().any(|&c| m.state(c).name == key) {
            key.push('_');
        }
        key
    }

    /// The `on` object: each action's candidates, in fsmc's order within the state.
    fn on(&self, source: Option<StateId>, list: &[&Transition], losses: &mut Losses) -> Option<JsonValue> {
        let mut groups: Vec<(usize, Vec<&Transition>)> = Vec::new();
        for &t in list {
            let action = t.action().map_or(0, |a| a.index());
            match groups.iter_mut().find(|(a, _)| *a == action) {
                Some((_, ids)) => ids.push(t),
                None => groups.push((action, vec![t])),
            }
        }
        if groups.is_empty() {
            return None;
        }
        let members = groups
            .into_iter()
            .map(|(action, list)| {
                (
                    self.machine.actions[action].name.clone(),
                    self.candidates(source, &list, losses),
                )
            })
            .collect();
        Some(JsonValue::Object(members))
    }

    /// An array of transition objects in fsmc's order: by descending priority.
    fn candidates(&self, source: Option<StateId>, list: &[&Transition], losses: &mut Losses) -> JsonValue {
        let order = lossy::candidate_order(list, |_| 0, |t| t.priority);
        JsonValue::Array(
            order
                .into_iter()
                .map(|i| self.transition(source, list[i], losses))
                .collect(),
        )
    }

    fn transition(&self, source: Option<StateId>, t: &Transition, losses: &mut Losses) -> JsonValue {
        let m = self.machine;
        let mut members: Vec<(String, JsonValue)> = Vec::new();
        if t.priority != 0 {
            losses.push(
                t.span,
                format!(
                    "the priority of {} is not written: XState has no priorities",
                    lossy::describe(m, t)
                ),
                "the candidates of each state are written in fsmc's order, so the machine behaves the same; read back, it has that order without the numbers",
            );
        }
        if let Some(target) = t.target {
            let text = match t.history {
                Some(kind) => format!("{}.{}", self.target(target), self.history_key(target, kind)),
                None => self.target(target),
            };
            members.push(("target".into(), JsonValue::string(text)));
            // fsmc re-enters the state that declares a transition when it
            // targets it or a state holding it; XState v5 only with `reenter`.
            if t.history.is_none() && source.is_some_and(|s| s == target || m.is_inside(s, target)) {
                members.push(("reenter".into(), JsonValue::Bool(true)));
            }
        }
        if let Some(guard) = &t.guard {
            let text = m.guard_text(&guard.expr);
            if !matches!(guard.expr, crate::model::GuardExpr::Var(_)) {
                losses.push(
                    guard.span,
                    format!("the guard `{text}` is exported as one guard named by its text"),
                    "XState's `and`, `or`, `not` and `stateIn` are functions, which a JSON config cannot hold; implement the guard under that name, or rebuild it with them",
                );
            }
            members.push(("guard".into(), JsonValue::string(text)));
        }
        if let Some(actions) = self.actions(&t.effects, &t.emits) {
            members.push(("actions".into(), actions));
        }
        if !t.docs.is_empty() {
            members.push(("description".into(), JsonValue::string(t.docs.join("\n"))));
        }
        JsonValue::Object(members)
    }

    /// Effects as named actions, then outputs as `emit` actions.
    fn actions(
        &self,
        effects: &[crate::model::EffectId],
        outputs: &[crate::model::OutputId],
    ) -> Option<JsonValue> {
        let m = self.machine;
        let mut actions: Vec<JsonValue> = effects
            .iter()
            .map(|e| JsonValue::string(&m.effects[e.index()].name))
            .collect();
        actions.extend(outputs.iter().map(|o| {
            JsonValue::Object(vec![
                ("type".into(), JsonValue::string("emit")),
                (
                    "params".into(),
                    JsonValue::Object(vec![(
                        "output".into(),
                        JsonValue::string(&m.outputs[o.index()].name),
                    )]),
                ),
            ])
        }));
        (!actions.is_empty()).then_some(JsonValue::Array(actions))
    }
}
