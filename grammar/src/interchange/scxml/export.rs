//! A checked machine as an SCXML document ([`to_scxml`]).

use super::xml::XmlWriter;
use super::{ANY_ID, FSM_NS, SCXML_NS, TIMER_EVENT};
use crate::interchange::lossy::{self, Exported, Losses};
use crate::model::{Delay, EventlessKind, HistoryKind, Machine, StateId, Symbol, Transition, Trigger};
use std::collections::BTreeSet;

/// One machine as a W3C SCXML 1.0 document, with what SCXML cannot say in
/// the `fsm:` namespace (see `docs/export-import.md` for the mapping), and
/// a warning for each transition an SCXML tool would try in another order
/// than fsmc.
///
/// ```
/// let model = fsm_grammar::check("machine Door { initial state closed { on open -> opened; } state opened { on close -> closed; } }")
///     .into_model()
///     .unwrap();
/// let exported = fsm_grammar::interchange::to_scxml(&model.machines[0]);
/// assert!(exported.text.contains(r#"<transition event="open" target="opened"/>"#));
/// assert!(exported.warnings.is_empty());
/// ```
pub fn to_scxml(machine: &Machine) -> Exported {
    let mut losses = Losses::default();
    lossy::depth_order(machine, "SCXML", &mut losses);
    lossy::properties(machine, "SCXML", &mut losses);
    for state in machine
        .states
        .iter()
        .filter(|s| s.is_terminal() && s.parent.is_some())
    {
        losses.push(
            state.span,
            format!("terminal state `{}` is not at the top level, and only a top-level <final> ends an SCXML machine", state.name),
            "it is written as a <state> marked `fsm:terminal`: fsmc reads it back as terminal, other SCXML tools see a state that is never left",
        );
    }
    let mut writer = Writer {
        machine,
        xml: XmlWriter::new(),
        history: history_targets(machine),
    };
    writer.document();
    Exported {
        text: writer.xml.finish(),
        warnings: losses.into_vec(),
    }
}

/// For each composite, the kinds of history some transition enters it through.
fn history_targets(machine: &Machine) -> Vec<BTreeSet<HistoryKind>> {
    let mut kinds = vec![BTreeSet::new(); machine.states.len()];
    for t in machine
        .transitions
        .iter()
        .chain(&machine.timers)
        .chain(&machine.eventless)
    {
        if let (Some(target), Some(kind)) = (t.target, t.history) {
            kinds[target.index()].insert(kind);
        }
    }
    kinds
}

/// The id of `state`'s history pseudo-state of `kind`: `connected.history`,
/// `connected.deep_history`. State names have no dots, so it is unique.
pub(super) fn history_id(name: &str, kind: HistoryKind) -> String {
    format!("{name}.{}", kind.keyword())
}

struct Writer<'m> {
    machine: &'m Machine,
    xml: XmlWriter,
    history: Vec<BTreeSet<HistoryKind>>,
}

impl Writer<'_> {
    fn document(&mut self) {
        let m = self.machine;
        self.xml.comment(&format!(
            "Machine `{}`, exported by fsmc. The fsm: attributes and elements hold what SCXML cannot say; SCXML tools ignore them, `fsmc import` reads them.",
            m.name
        ));
        self.xml.open("scxml");
        self.xml.attr("xmlns", SCXML_NS);
        self.xml.attr("xmlns:fsm", FSM_NS);
        self.xml.attr("version", "1.0");
        self.xml.attr("name", &m.name);
        let top: Vec<StateId> = m.state_ids().filter(|&s| m.state(s).parent.is_none()).collect();
        let wrap = !m.any_transitions().is_empty();
        let initial = if wrap && !m.state(m.initial).is_terminal() {
            ANY_ID
        } else {
            &m.state(m.initial).name
        };
        self.xml.attr("initial", initial);
        self.docs_and_allows(&m.docs, &m.allows);
        self.xml
            .attr_some("fsm:context", m.context.as_ref().map(|c| c.text.as_str()));
        let kinds = [
            ("action", m.declares_actions, &m.actions),
            ("guard", m.declares_guards, &m.guards),
            ("output", m.declares_outputs, &m.outputs),
            ("effect", m.declares_effects, &m.effects),
            ("delay", m.declares_delays, &m.delays),
        ];
        let declared: Vec<&str> = kinds.iter().filter(|k| k.1).map(|k| k.0).collect();
        if !declared.is_empty() {
            self.xml.attr("fsm:declares", &declared.join(" "));
        }
        // With `any` transitions, the non-terminal top-level states move into
        // the wrapper, the terminal ones stay after it: the declaration order
        // is then written down when it differs.
        let (inside, outside): (Vec<StateId>, Vec<StateId>) = if wrap {
            top.iter().partition(|&&s| !m.state(s).is_terminal())
        } else {
            (Vec::new(), top.clone())
        };
        let document_order: Vec<StateId> = inside.iter().chain(&outside).copied().collect();
        if document_order != top {
            let names: Vec<&str> = top.iter().map(|&s| m.state(s).name.as_str()).collect();
            self.xml.attr("fsm:order", &names.join(" "));
        }
        for (keyword, declares, symbols) in kinds {
            if declares {
                self.declarations(keyword, symbols);
            }
        }
        if wrap {
            self.xml.open("state");
            self.xml.attr("id", ANY_ID);
            self.xml.attr("initial", &m.state(m.initial).name);
            self.xml.attr("fsm:any", "true");
            let any = lossy::transitions(m, m.any_transitions());
            self.candidates(None, &any, |t| t.action().map_or(0, |a| a.index()));
            for &s in &inside {
                self.state(s);
            }
            self.xml.close();
        }
        for &s in &outside {
            self.state(s);
        }
        self.xml.close();
    }

    fn docs_and_allows(&mut self, docs: &[String], allows: &[crate::Code]) {
        if !docs.is_empty() {
            self.xml.attr("fsm:description", &docs.join("\n"));
        }
        if !allows.is_empty() {
            let codes: Vec<&str> = allows.iter().map(|c| c.name()).collect();
            self.xml.attr("fsm:allow", &codes.join(" "));
        }
    }

    fn declarations(&mut self, keyword: &'static str, symbols: &[Symbol]) {
        let element = match keyword {
            "action" => "fsm:action",
            "guard" => "fsm:guard",
            "output" => "fsm:output",
            "effect" => "fsm:effect",
            _ => "fsm:delay",
        };
        for symbol in symbols.iter().filter(|s| s.declared.is_some()) {
            self.xml.open(element);
            self.xml.attr("name", &symbol.name);
            self.xml
                .attr_some("payload", symbol.payload.as_ref().map(|p| p.text.as_str()));
            if !symbol.docs.is_empty() {
                self.xml.attr("description", &symbol.docs.join("\n"));
            }
            self.xml.close();
        }
    }

    fn state(&mut self, id: StateId) {
        let m = self.machine;
        let state = m.state(id);
        // A terminal state ends the machine: at the top level, that is what
        // SCXML's `<final>` does; inside another state, SCXML has no such
        // state, so it is a plain one marked `fsm:terminal` (reported).
        let nested_terminal = state.is_terminal() && state.parent.is_some();
        let element = if (state.is_terminal() && !nested_terminal) || state.is_final() {
            "final"
        } else if state.is_parallel() {
            "parallel"
        } else {
            "state"
        };
        self.xml.open(element);
        self.xml.attr("id", &state.name);
        if !state.is_parallel() {
            if let Some(child) = m.initial_child(id) {
                self.xml.attr("initial", &m.state(child).name);
            }
        }
        if nested_terminal {
            self.xml.attr("fsm:terminal", "true");
        }
        self.docs_and_allows(&state.docs, &state.allows);

        // Timers: one delayed `<send>` per group (the state's timers with
        // one delay), sent on entry and cancelled on exit; the group's
        // timers are the transitions on its event.
        let timers: Vec<&Transition> = m.timers_of(id).map(|(_, t)| t).collect();
        let mut groups: Vec<Delay> = Vec::new();
        for t in &timers {
            let delay = t.delay().expect("a timer has a delay");
            if !groups.contains(&delay) {
                groups.push(delay);
            }
        }
        let group_of = |t: &Transition| {
            let delay = t.delay().expect("a timer has a delay");
            groups.iter().position(|&d| d == delay).unwrap_or(0)
        };
        let event = |group: usize| format!("{TIMER_EVENT}.{}.{group}", state.name);

        if !state.enter_effects.is_empty() || !state.enter.is_empty() || !groups.is_empty() {
            self.xml.open("onentry");
            self.effects_and_outputs(&state.enter_effects, &state.enter);
            for (group, &delay) in groups.iter().enumerate() {
                let event = event(group);
                self.xml.open("send");
                self.xml.attr("event", &event);
                self.xml.attr("id", &event);
                match delay {
                    Delay::Literal(d) => {
                        let ms = d.as_millis();
                        let text = if ms.is_multiple_of(1000) {
                            format!("{}s", ms / 1000)
                        } else {
                            format!("{ms}ms")
                        };
                        self.xml.attr("delay", &text);
                    }
                    // A named delay is computed when the state is entered:
                    // an expression of the data model, the delay's name.
                    Delay::Named(d) => self.xml.attr("delayexpr", &m.delays[d.index()].name),
                }
                self.xml.close();
            }
            self.xml.close();
        }
        if !state.exit_effects.is_empty() || !state.exit.is_empty() || !groups.is_empty() {
            self.xml.open("onexit");
            self.effects_and_outputs(&state.exit_effects, &state.exit);
            for group in 0..groups.len() {
                self.xml.open("cancel");
                self.xml.attr("sendid", &event(group));
                self.xml.close();
            }
            self.xml.close();
        }

        let on = lossy::transitions(m, m.own_transitions(id));
        self.candidates(Some(id), &on, |t| t.action().map_or(0, |a| a.index()));
        self.candidates(Some(id), &timers, group_of);
        for kind in [EventlessKind::Done, EventlessKind::Always] {
            let list: Vec<&Transition> = m
                .eventless_of(id)
                .map(|(_, t)| t)
                .filter(|t| t.trigger == Trigger::Eventless(kind))
                .collect();
            self.candidates(Some(id), &list, |_| 0);
        }

        for kind in self.history[id.index()].clone() {
            self.xml.open("history");
            self.xml.attr("id", &history_id(&state.name, kind));
            self.xml.attr(
                "type",
                match kind {
                    HistoryKind::Shallow => "shallow",
                    HistoryKind::Deep => "deep",
                },
            );
            // Without memory, fsmc enters the state's initial states: the
            // initial child, or every region of a parallel state.
            let default: Vec<&str> = if state.is_parallel() {
                state.children.iter().map(|&c| m.state(c).name.as_str()).collect()
            } else {
                m.initial_child(id)
                    .map(|c| m.state(c).name.as_str())
                    .into_iter()
                    .collect()
            };
            self.xml.open("transition");
            self.xml.attr("target", &default.join(" "));
            self.xml.close();
            self.xml.close();
        }
        for &child in &state.children {
            self.state(child);
        }
        self.xml.close();
    }

    /// One list of candidates of a state (or of `any` when `source` is
    /// `None`), in fsmc's order: by descending priority within each group
    /// (an action's transitions, a delay's timers). When that is not the
    /// declaration order, each carries its place in it (`fsm:declared`).
    fn candidates(
        &mut self,
        source: Option<StateId>,
        list: &[&Transition],
        group: impl Fn(&Transition) -> usize,
    ) {
        let order = lossy::candidate_order(list, |t| group(t), |t| t.priority);
        let reordered = order.iter().enumerate().any(|(i, &j)| i != j);
        for i in order {
            self.transition(source, list[i], reordered.then_some(i), &group);
        }
    }

    fn transition(
        &mut self,
        source: Option<StateId>,
        t: &Transition,
        declared: Option<usize>,
        group: &impl Fn(&Transition) -> usize,
    ) {
        let m = self.machine;
        self.xml.open("transition");
        match t.trigger {
            Trigger::On(action) => self.xml.attr("event", &m.actions[action.index()].name),
            Trigger::After(_) => {
                let state = &m.state(source.expect("timers are in states")).name;
                self.xml
                    .attr("event", &format!("{TIMER_EVENT}.{state}.{}", group(t)));
            }
            Trigger::Eventless(EventlessKind::Done) => {
                let state = &m.state(source.expect("done is in a state")).name;
                self.xml.attr("event", &format!("done.state.{state}"));
            }
            Trigger::Eventless(EventlessKind::Always) => {}
        }
        if let Some(guard) = &t.guard {
            self.xml.attr("cond", &cond(&m.guard_text(&guard.expr)));
        }
        if let Some(target) = t.target {
            let name = &m.state(target).name;
            match t.history {
                Some(kind) => self.xml.attr("target", &history_id(name, kind)),
                None => self.xml.attr("target", name),
            }
            // fsmc's transitions from a state to a point strictly inside it
            // are local: SCXML's `type="internal"`. A history pseudo-state
            // lies inside its state.
            let inside = match source {
                Some(source) => m.is_inside(target, source) || (t.history.is_some() && target == source),
                None => !m.state(target).is_terminal(),
            };
            if inside {
                self.xml.attr("type", "internal");
            }
        }
        if t.priority != 0 {
            self.xml.attr("fsm:priority", &t.priority.to_string());
        }
        if let Some(i) = declared {
            self.xml.attr("fsm:declared", &i.to_string());
        }
        if !t.docs.is_empty() {
            self.xml.attr("fsm:description", &t.docs.join("\n"));
        }
        self.effects_and_outputs(&t.effects, &t.emits);
        self.xml.close();
    }

    /// Effects as `<fsm:do effect="..."/>`, then outputs as events sent to
    /// whoever runs the machine: `<send event="..." target="#_parent"/>`.
    fn effects_and_outputs(
        &mut self,
        effects: &[crate::model::EffectId],
        outputs: &[crate::model::OutputId],
    ) {
        for e in effects {
            self.xml.open("fsm:do");
            self.xml.attr("effect", &self.machine.effects[e.index()].name);
            self.xml.close();
        }
        for o in outputs {
            self.xml.open("send");
            self.xml.attr("event", &self.machine.outputs[o.index()].name);
            self.xml.attr("target", "#_parent");
            self.xml.close();
        }
    }
}

/// An `.fsm` guard as an SCXML condition: the same operators, guard names
/// as data model variables, and `in(s)` as SCXML's `In('s')`.
pub(super) fn cond(guard: &str) -> String {
    let mut out = String::with_capacity(guard.len() + 8);
    let mut rest = guard;
    while let Some(at) = rest.find("in(") {
        let starts_token = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        match (starts_token, after.find(')')) {
            (true, Some(close)) => {
                out.push_str("In('");
                out.push_str(after[..close].trim());
                out.push_str("')");
                rest = &after[close + 1..];
            }
            _ => {
                out.push_str("in(");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::cond;

    #[test]
    fn in_calls_become_scxml_in() {
        assert_eq!(cond("a && !in(done)"), "a && !In('done')");
        assert_eq!(cond("login && in(x) || join"), "login && In('x') || join");
        assert_eq!(cond("(a || b) && c"), "(a || b) && c");
    }
}
