//! The model as JSON, in the shape of the `execution_fsm_v1.json` format,
//! in which an execution runtime declares its machines.
//!
//! Every member is written in declaration order, so the output is
//! deterministic and reads like the `.fsm` it came from. Optional members
//! are left out when they would be empty or hold the default
//! (`description`, `allow`, `enter`, `exit`, `on`, `guard`, `priority` 0,
//! `to` for internal transitions, `emit`, `effects`, `context`, `after`,
//! payloads, the declaration lists of kinds the machine does not declare,
//! `any`, `done`, `always`, `final` and `parallel`), so a machine without
//! parallel states, final states and transitions without an action exports
//! as it did before they existed. See `docs/json.md` for every field.

use super::json_value::JsonValue;
use super::FORMAT_VERSION;
use crate::diagnostic::Code;
use crate::model::{
    ActionId, EffectId, EventlessKind, HistoryKind, Machine, OutputId, StateId, StateKind, Symbol,
    Transition, TransitionId, Trigger,
};
use crate::Model;

/// One machine as a pretty-printed JSON document (two-space indentation,
/// ending with a newline).
///
/// The machine should come from a text without errors (`fsmc export`
/// refuses others); the output for a machine with errors is well-formed but
/// describes only what the model kept.
///
/// ```
/// let model = fsm_grammar::check("machine M { initial state a { on go -> b; } terminal state b; }")
///     .into_model()
///     .unwrap();
/// let json = fsm_grammar::interchange::to_json(&model.machines[0]);
/// assert!(json.starts_with("{\n  \"fsm_id\": \"M\",\n  \"version\": \"1.0\",\n"));
/// ```
pub fn to_json(machine: &Machine) -> String {
    machine_value(machine).to_pretty_string()
}

/// Every machine of a model: the machine's document when there is exactly
/// one, else an array of them in source order (an empty array for none).
/// [`super::from_json`] reads both forms.
pub fn model_to_json(model: &Model) -> String {
    match model.machines.as_slice() {
        [machine] => to_json(machine),
        machines => JsonValue::Array(machines.iter().map(machine_value).collect()).to_pretty_string(),
    }
}

/// Builds an object member by member, leaving out optional members that are absent.
#[derive(Default)]
struct ObjectBuilder(Vec<(String, JsonValue)>);

impl ObjectBuilder {
    fn put(&mut self, key: &str, value: JsonValue) {
        self.0.push((key.to_string(), value));
    }

    fn put_some(&mut self, key: &str, value: Option<JsonValue>) {
        if let Some(value) = value {
            self.put(key, value);
        }
    }

    fn into_value(self) -> JsonValue {
        JsonValue::Object(self.0)
    }
}

fn machine_value(machine: &Machine) -> JsonValue {
    let mut doc = ObjectBuilder::default();
    doc.put("fsm_id", JsonValue::string(&machine.name));
    doc.put("version", JsonValue::string(FORMAT_VERSION));
    doc.put_some("description", description(&machine.docs));
    doc.put_some("allow", allow(&machine.allows));
    doc.put(
        "initial_state",
        JsonValue::string(&machine.state(machine.initial).name),
    );
    doc.put(
        "terminal_states",
        JsonValue::strings(
            machine
                .states
                .iter()
                .filter(|s| s.is_terminal())
                .map(|s| s.name.as_str()),
        ),
    );
    doc.put_some(
        "context",
        machine.context.as_ref().map(|c| JsonValue::string(&c.text)),
    );
    let kinds = [
        ("actions", machine.declares_actions, &machine.actions),
        ("guards", machine.declares_guards, &machine.guards),
        ("outputs", machine.declares_outputs, &machine.outputs),
        ("effects", machine.declares_effects, &machine.effects),
        ("delays", machine.declares_delays, &machine.delays),
    ];
    for (key, declares, symbols) in kinds {
        if declares {
            doc.put(key, declarations(symbols));
        }
    }
    let top: Vec<StateId> = machine
        .state_ids()
        .filter(|&s| machine.state(s).parent.is_none())
        .collect();
    doc.put("states", states(machine, &top));
    doc.put_some("any", on(machine, machine.any_transitions()));
    if !machine.properties.is_empty() {
        let properties = machine
            .properties
            .iter()
            .map(|p| {
                let mut members = ObjectBuilder::default();
                members.put_some("name", p.name.as_ref().map(JsonValue::string));
                members.put_some("description", description(&p.docs));
                members.put("kind", JsonValue::string(p.kind.keyword()));
                members.put(
                    "formula",
                    JsonValue::string(p.formula.display(machine).to_string()),
                );
                if let Some(l) = &p.leads_to {
                    members.put(
                        "target",
                        JsonValue::string(l.formula.display(machine).to_string()),
                    );
                    if !l.assuming.is_empty() {
                        let names = l
                            .assuming
                            .iter()
                            .map(|&(a, _)| JsonValue::string(&machine.actions[a.index()].name))
                            .collect();
                        members.put("assuming", JsonValue::Array(names));
                    }
                }
                members.into_value()
            })
            .collect();
        doc.put("properties", JsonValue::Array(properties));
    }
    doc.into_value()
}

/// The `states` object of `ids`, with the states inside each, as XState's
/// machine config nests them. Recursion is bounded by the model's depth
/// limit ([`crate::MAX_STATE_DEPTH`]).
fn states(machine: &Machine, ids: &[StateId]) -> JsonValue {
    let states = ids
        .iter()
        .map(|&id| {
            let state = machine.state(id);
            let mut members = ObjectBuilder::default();
            members.put_some("description", description(&state.docs));
            members.put_some("allow", allow(&state.allows));
            members.put_some("enter", outputs(machine, &state.enter));
            members.put_some("exit", outputs(machine, &state.exit));
            members.put_some("enter_effects", effects(machine, &state.enter_effects));
            members.put_some("exit_effects", effects(machine, &state.exit_effects));
            members.put_some("on", on(machine, machine.own_transitions(id)));
            let timers: Vec<JsonValue> = machine
                .timers_of(id)
                .map(|(_, t)| transition(machine, t))
                .collect();
            if !timers.is_empty() {
                members.put("after", JsonValue::Array(timers));
            }
            for kind in [EventlessKind::Done, EventlessKind::Always] {
                let list: Vec<JsonValue> = machine
                    .eventless
                    .iter()
                    .filter(|t| t.state() == Some(id) && t.trigger == Trigger::Eventless(kind))
                    .map(|t| transition(machine, t))
                    .collect();
                if !list.is_empty() {
                    members.put(kind.keyword(), JsonValue::Array(list));
                }
            }
            // What kind of state it is comes last, beside its `states`: a
            // parallel state has regions and no `initial`.
            match state.kind {
                StateKind::Plain => {}
                StateKind::Final => members.put("final", JsonValue::Bool(true)),
                StateKind::Parallel => members.put("parallel", JsonValue::Bool(true)),
            }
            if state.is_parallel() {
                if state.is_composite() {
                    members.put("states", states(machine, &state.children));
                }
            } else if let Some(child) = machine.initial_child(id) {
                members.put("initial", JsonValue::string(&machine.state(child).name));
                members.put("states", states(machine, &state.children));
            }
            (state.name.clone(), members.into_value())
        })
        .collect();
    JsonValue::Object(states)
}

/// Doc lines joined with `\n`; `None` when there are none.
fn description(docs: &[String]) -> Option<JsonValue> {
    (!docs.is_empty()).then(|| JsonValue::string(docs.join("\n")))
}

fn allow(codes: &[Code]) -> Option<JsonValue> {
    (!codes.is_empty()).then(|| JsonValue::strings(codes.iter().map(|c| c.name())))
}

fn outputs(machine: &Machine, ids: &[OutputId]) -> Option<JsonValue> {
    (!ids.is_empty())
        .then(|| JsonValue::strings(ids.iter().map(|o| machine.outputs[o.index()].name.as_str())))
}

fn effects(machine: &Machine, ids: &[EffectId]) -> Option<JsonValue> {
    (!ids.is_empty())
        .then(|| JsonValue::strings(ids.iter().map(|e| machine.effects[e.index()].name.as_str())))
}

/// `{"name": {"description": ..., "payload": ...}}` for every declared symbol, in declaration order.
fn declarations(symbols: &[Symbol]) -> JsonValue {
    JsonValue::Object(
        symbols
            .iter()
            .filter(|s| s.declared.is_some())
            .map(|s| {
                let mut members = ObjectBuilder::default();
                members.put_some("description", description(&s.docs));
                members.put_some("payload", s.payload.as_ref().map(|p| JsonValue::string(&p.text)));
                (s.name.clone(), members.into_value())
            })
            .collect(),
    )
}

/// The `on` object of a list of transitions: one member per action, in order
/// of first appearance; a single candidate as an object, several as an
/// array in declaration order. `None` when there are no transitions.
fn on(machine: &Machine, transitions: &[TransitionId]) -> Option<JsonValue> {
    let mut groups: Vec<(ActionId, Vec<TransitionId>)> = Vec::new();
    for &id in transitions {
        let action = machine.action_of(id);
        match groups.iter_mut().find(|(a, _)| *a == action) {
            Some((_, ids)) => ids.push(id),
            None => groups.push((action, vec![id])),
        }
    }
    if groups.is_empty() {
        return None;
    }
    let members = groups
        .into_iter()
        .map(|(action, ids)| {
            let value = match ids.as_slice() {
                [one] => candidate(machine, *one),
                many => JsonValue::Array(many.iter().map(|&id| candidate(machine, id)).collect()),
            };
            (machine.actions[action.index()].name.clone(), value)
        })
        .collect();
    Some(JsonValue::Object(members))
}

fn candidate(machine: &Machine, id: TransitionId) -> JsonValue {
    transition(machine, machine.transition(id))
}

/// `"shallow"` or `"deep"`.
fn history(kind: HistoryKind) -> JsonValue {
    JsonValue::string(match kind {
        HistoryKind::Shallow => "shallow",
        HistoryKind::Deep => "deep",
    })
}

/// A transition object; a timer's has its `delay` first.
fn transition(machine: &Machine, t: &Transition) -> JsonValue {
    let mut members = ObjectBuilder::default();
    if let Some(delay) = t.delay() {
        members.put("delay", JsonValue::string(machine.delay_text(delay)));
    }
    members.put_some("description", description(&t.docs));
    members.put_some(
        "guard",
        t.guard
            .as_ref()
            .map(|g| JsonValue::string(machine.guard_text(&g.expr))),
    );
    if t.priority != 0 {
        members.put("priority", JsonValue::Number(t.priority.into()));
    }
    members.put_some("to", t.target.map(|s| JsonValue::string(&machine.state(s).name)));
    members.put_some("history", t.history.map(history));
    members.put_some("effects", effects(machine, &t.effects));
    members.put_some("emit", outputs(machine, &t.emits));
    members.into_value()
}
