//! Hover: a name's kind, doc comment and payload type; for a state, its
//! transitions out and in; for an action, the states where it is valid; for
//! a guard, the transitions it guards; for an output, effect or delay, the
//! transitions, timers and hooks that use it. All read from the model.

use super::analysis::Analysis;
use super::documents::Document;
use super::index::Kind;
use fsm_grammar::model::{Delay, Machine, Source, State, StateId, Timer, Transition};
use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};
use std::fmt::Write as _;

/// The hover for the name under `offset`.
pub fn hover(document: &Document, analysis: &Analysis, offset: usize) -> Option<Hover> {
    let (name, occurrence) = analysis.index.at(offset)?;
    let mut out = format!("{} `{}`", name.kind.word(), name.text);
    if let Some(machine) = analysis.model(name.machine) {
        describe(machine, name.kind, &name.text, &mut out);
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: out,
        }),
        range: Some(document.range(occurrence.span)),
    })
}

fn describe(m: &Machine, kind: Kind, name: &str, out: &mut String) {
    let symbol = |list: &[fsm_grammar::model::Symbol]| list.iter().position(|s| s.name == name);
    match kind {
        Kind::Machine => {
            let _ = write!(
                out,
                " ({} states, {} transitions)",
                m.states.len(),
                m.transitions.len()
            );
            docs(&m.docs, out);
        }
        Kind::State => {
            let Some(id) = m.state_by_name(name) else { return };
            let state = m.state(id);
            let marks: Vec<&str> = [(id == m.initial, "initial"), (state.is_terminal(), "terminal")]
                .into_iter()
                .filter_map(|(on, word)| on.then_some(word))
                .collect();
            if !marks.is_empty() {
                let _ = write!(out, " ({})", marks.join(", "));
            }
            docs(&state.docs, out);
            let mut outgoing: Vec<String> = m
                .own_transitions(id)
                .iter()
                .map(|&t| transition(m, m.transition(t)))
                .collect();
            if !state.is_terminal() {
                outgoing.extend(
                    m.any_transitions()
                        .iter()
                        .map(|&t| transition(m, m.transition(t))),
                );
            }
            outgoing.extend(m.timers_of(id).map(|(_, t)| timer(m, t)));
            let mut incoming: Vec<String> = m
                .transitions
                .iter()
                .filter(|t| t.target == Some(id))
                .map(|t| transition(m, t))
                .collect();
            incoming.extend(
                m.timers
                    .iter()
                    .filter(|t| t.target == Some(id))
                    .map(|t| timer(m, t)),
            );
            list("Transitions out", &outgoing, out);
            list("Transitions in", &incoming, out);
        }
        Kind::Action => {
            let Some(i) = symbol(&m.actions) else { return };
            payload_and_docs(&m.actions[i], out);
            let states: Vec<String> = m
                .state_ids()
                .filter(|&s| m.candidate_groups(s).iter().any(|(a, _)| a.index() == i))
                .map(|s| format!("`{}`", m.state(s).name))
                .collect();
            list_inline("Valid in", &states, out);
        }
        Kind::Guard => {
            let Some(i) = symbol(&m.guards) else { return };
            payload_and_docs(&m.guards[i], out);
            let uses = |g: &Option<fsm_grammar::model::Guard>| {
                let mut vars = Vec::new();
                if let Some(g) = g {
                    g.expr.vars(&mut vars);
                }
                vars.iter().any(|v| v.index() == i)
            };
            let mut guarded: Vec<String> = m
                .transitions
                .iter()
                .filter(|t| uses(&t.guard))
                .map(|t| transition(m, t))
                .collect();
            guarded.extend(m.timers.iter().filter(|t| uses(&t.guard)).map(|t| timer(m, t)));
            list("Guards", &guarded, out);
        }
        Kind::Output => {
            let Some(i) = symbol(&m.outputs) else { return };
            payload_and_docs(&m.outputs[i], out);
            let users = listed_by(
                m,
                |t| &t.emits,
                |t| &t.emits,
                |s| (&s.enter, &s.exit),
                |o| o.index() == i,
            );
            list("Emitted by", &users, out);
        }
        Kind::Effect => {
            let Some(i) = symbol(&m.effects) else { return };
            payload_and_docs(&m.effects[i], out);
            let users = listed_by(
                m,
                |t| &t.effects,
                |t| &t.effects,
                |s| (&s.enter_effects, &s.exit_effects),
                |e| e.index() == i,
            );
            list("Run by", &users, out);
        }
        Kind::Delay => {
            let Some(i) = symbol(&m.delays) else { return };
            payload_and_docs(&m.delays[i], out);
            let timers: Vec<String> = m
                .timers
                .iter()
                .filter(|t| t.delay == Delay::Named(fsm_grammar::model::DelayId(i as u32)))
                .map(|t| timer(m, t))
                .collect();
            list("Timers", &timers, out);
        }
    }
}

/// The transitions, timers and hooks whose list (outputs or effects) holds
/// an item that `is` picks, as hover lines.
fn listed_by<I>(
    m: &Machine,
    of_transition: impl Fn(&Transition) -> &[I],
    of_timer: impl Fn(&Timer) -> &[I],
    of_state: impl Fn(&State) -> (&[I], &[I]),
    is: impl Fn(&I) -> bool,
) -> Vec<String> {
    let mut users: Vec<String> = m
        .transitions
        .iter()
        .filter(|t| of_transition(t).iter().any(&is))
        .map(|t| transition(m, t))
        .collect();
    users.extend(
        m.timers
            .iter()
            .filter(|t| of_timer(t).iter().any(&is))
            .map(|t| timer(m, t)),
    );
    for s in &m.states {
        let (enter, exit) = of_state(s);
        if enter.iter().any(&is) {
            users.push(format!("entering `{}`", s.name));
        }
        if exit.iter().any(&is) {
            users.push(format!("leaving `{}`", s.name));
        }
    }
    users
}

fn payload_and_docs(symbol: &fsm_grammar::model::Symbol, out: &mut String) {
    if let Some(payload) = &symbol.payload {
        let _ = write!(out, "(`{}`)", payload.text);
    }
    if symbol.declared.is_none() {
        out.push_str(" (not declared)");
    }
    docs(&symbol.docs, out);
}

fn docs(lines: &[String], out: &mut String) {
    if !lines.is_empty() {
        out.push_str("\n\n");
        out.push_str(&lines.join("\n"));
    }
}

fn list(title: &str, items: &[String], out: &mut String) {
    let _ = write!(out, "\n\n**{title}**");
    if items.is_empty() {
        out.push_str(": none");
    }
    for item in items {
        let _ = write!(out, "\n- {item}");
    }
}

fn list_inline(title: &str, items: &[String], out: &mut String) {
    let _ = write!(
        out,
        "\n\n**{title}**: {}",
        if items.is_empty() {
            "no state".to_string()
        } else {
            items.join(", ")
        }
    );
}

fn state_name(m: &Machine, id: Option<StateId>) -> String {
    id.map_or("(stays)".to_string(), |s| format!("`{}`", m.state(s).name))
}

/// `` `idle` on `go` [ready] -> `busy` ``.
fn transition(m: &Machine, t: &Transition) -> String {
    let from = match t.source {
        Source::State(s) => format!("`{}`", m.state(s).name),
        Source::Any => "any state".to_string(),
    };
    let guard = t
        .guard
        .as_ref()
        .map(|g| format!(" [`{}`]", m.guard_text(&g.expr)))
        .unwrap_or_default();
    format!(
        "{from} on `{}`{guard} → {}",
        m.actions[t.action.index()].name,
        state_name(m, t.target)
    )
}

/// `` `idle` after `30s` -> `busy` ``.
fn timer(m: &Machine, t: &Timer) -> String {
    let guard = t
        .guard
        .as_ref()
        .map(|g| format!(" [`{}`]", m.guard_text(&g.expr)))
        .unwrap_or_default();
    format!(
        "`{}` after `{}`{guard} → {}",
        m.state(t.state).name,
        m.delay_text(t.delay),
        state_name(m, t.target)
    )
}

#[cfg(test)]
mod tests {
    use super::super::documents::Encoding;
    use super::*;
    use fsm_grammar::LintOptions;

    fn hover_at(text: &str, at: &str) -> String {
        let document = Document::new(text.into(), 1, Encoding::Utf16);
        let analysis = Analysis::new(text, &LintOptions::default());
        match hover(&document, &analysis, text.find(at).unwrap())
            .unwrap()
            .contents
        {
            HoverContents::Markup(m) => m.value,
            other => panic!("{other:?}"),
        }
    }

    const TEXT: &str = "machine M {\n    /// Ready to go.\n    guard ready;\n    /// The door is shut.\n    initial state idle { on go [ready] -> busy; }\n    state busy { on stop -> idle; }\n}\n";

    #[test]
    fn a_state_shows_its_docs_and_transitions_in_and_out() {
        assert_eq!(
            hover_at(TEXT, "idle"),
            "state `idle` (initial)\n\nThe door is shut.\n\n**Transitions out**\n- `idle` on `go` [`ready`] → `busy`\n\n**Transitions in**\n- `busy` on `stop` → `idle`"
        );
    }

    #[test]
    fn an_action_shows_where_it_is_valid_and_a_guard_what_it_guards() {
        assert!(hover_at(TEXT, "stop").ends_with("**Valid in**: `busy`"));
        let guard = hover_at(TEXT, "ready");
        assert!(guard.starts_with("guard `ready`\n\nReady to go."), "{guard}");
        assert!(
            guard.ends_with("**Guards**\n- `idle` on `go` [`ready`] → `busy`"),
            "{guard}"
        );
    }
}
