//! Hover: a name's kind, doc comment and payload type; for a state, its
//! transitions out and in; for an action, the states where it is valid; for
//! a guard, the transitions it guards; for an output, effect or delay, the
//! transitions, timers and hooks that use it. All read from the model. The
//! keywords of parallel states (`parallel`, `final`, `done`, `always`, `in`)
//! say what they mean, for the state or transition they are written on.

use super::analysis::Analysis;
use super::documents::Document;
use super::index::{Keyword, KeywordUse, Kind};
use fsm_grammar::ast::{EventlessKind, PropertyKind};
use fsm_grammar::model::{Delay, Machine, Property, Source, State, StateId, Transition, Trigger};
use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};
use std::fmt::Write as _;

/// The hover for the name or keyword under `offset`.
pub fn hover(document: &Document, analysis: &Analysis, offset: usize) -> Option<Hover> {
    let (out, span) = match analysis.index.at(offset) {
        Some((name, occurrence)) => {
            let mut out = format!("{} `{}`", name.kind.word(), name.text);
            if let Some(machine) = analysis.model(name.machine) {
                describe(machine, name.kind, &name.text, &mut out);
            }
            (out, occurrence.span)
        }
        None => {
            let keyword = analysis.index.keyword_at(offset)?;
            let state = &document.text()[keyword.state.start..keyword.state.end];
            (
                explain(analysis.model(keyword.machine), keyword, state),
                keyword.span,
            )
        }
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: out,
        }),
        range: Some(document.range(span)),
    })
}

/// What a keyword of parallel states means, and what it applies to here:
/// `state` is the state it is about ([`KeywordUse::state`]).
fn explain(m: Option<&Machine>, keyword: KeywordUse, state: &str) -> String {
    let mut out = format!("keyword `{}`\n\n", keyword.keyword.word());
    out.push_str(match keyword.keyword {
        Keyword::Parallel => {
            "Every child state of a parallel state is a region, and all of them are active while it is. \
             Entering it enters each region through its initial state, unless the transition's target lies inside that region."
        }
        Keyword::Final => {
            "A final state is a leaf that completes the state holding it: a composite is done when its active child is final, \
             and a parallel state when every region is done."
        }
        Keyword::Eventless(EventlessKind::Done) => {
            "A completion transition: tried once, in the step that leaves its state done (a composite whose active child is final, \
             or a parallel state whose regions are all done), within the same `fire`."
        }
        Keyword::Eventless(EventlessKind::Always) => {
            "An eventless transition: tried after every step that leaves the machine in its state (or inside it), \
             within the same `fire`, until none is enabled."
        }
        Keyword::In => "`in(S)` holds when state `S` is active: in a guard, in the configuration before the step; \
             in a property's formula, in the configuration the machine rests in.",
        Keyword::Property(PropertyKind::Never) => {
            "A property `fsmc verify` checks: no configuration the machine can reach satisfies the formula."
        }
        Keyword::Property(PropertyKind::Reachable) => {
            "A property `fsmc verify` checks: some configuration the machine can reach satisfies the formula."
        }
        Keyword::Property(PropertyKind::Recoverable) => {
            "A property `fsmc verify` checks: from every configuration the machine can reach, some path reaches one \
             satisfying the formula (\"it can always get back\")."
        }
        Keyword::Property(PropertyKind::LeadsTo) => {
            "A property `fsmc verify` checks: on every run, a configuration satisfying the first formula is followed, \
             then or later, by one satisfying the second. Timers whose state stays active fire, and the actions after \
             `assuming` keep coming (each is taken again and again where it keeps being accepted); any other event may \
             never come, so a run may stop and wait for ever."
        }
        Keyword::Property(PropertyKind::Escapable) => {
            "A property `fsmc verify` checks: no loop of death while the formula holds. From every configuration the \
             machine can reach, some path leaves the formula or comes to rest (no timer armed, waiting for an event); \
             a cycle of timer steps that no event and no guard can leave is reported as a lasso."
        }
        Keyword::Terminal => "In a property's formula, `terminal` holds when some active leaf is a terminal state.",
    });
    let Some(m) = m else { return out };
    let id = m.state_by_name(state);
    match keyword.keyword {
        Keyword::Parallel => {
            if let Some(id) = id {
                let _ = write!(
                    out,
                    "\n\n**Regions of `{state}`**: {}",
                    names(m, &m.state(id).children)
                );
            }
        }
        Keyword::Final => {
            if let Some(parent) = id.and_then(|id| m.state(id).parent) {
                let _ = write!(out, "\n\n`{state}` completes `{}`.", m.state(parent).name);
            }
        }
        Keyword::Eventless(_) => {
            if let Some(e) = m.eventless.iter().find(|e| e.trigger_span == keyword.span) {
                let _ = write!(out, "\n\n{}", transition(m, e));
            }
        }
        Keyword::In => {
            if id.is_some() {
                let _ = write!(out, "\n\nTests `{state}`.");
            }
        }
        Keyword::Property(_) | Keyword::Terminal => {
            // `state` is the property's whole text here.
            if let Some(p) = m.properties.iter().find(|p| p.span == keyword.state) {
                property(m, p, &mut out);
            }
        }
    }
    out
}

/// A property's kind and formula as `fsmc verify` reads them, and its docs.
fn property(m: &Machine, p: &Property, out: &mut String) {
    let _ = write!(out, "\n\n`{}`", p.text(m));
    docs(&p.docs, out);
}

/// `` `a`, `b` `` (or "none").
fn names(m: &Machine, ids: &[StateId]) -> String {
    if ids.is_empty() {
        return "none".to_string();
    }
    ids.iter()
        .map(|&s| format!("`{}`", m.state(s).name))
        .collect::<Vec<_>>()
        .join(", ")
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
            let marks: Vec<&str> = [
                (id == m.initial, "initial"),
                (state.is_terminal(), "terminal"),
                (state.is_parallel(), "parallel"),
                (state.is_final(), "final"),
            ]
            .into_iter()
            .filter_map(|(on, word)| on.then_some(word))
            .collect();
            if !marks.is_empty() {
                let _ = write!(out, " ({})", marks.join(", "));
            }
            docs(&state.docs, out);
            if state.is_parallel() {
                let _ = write!(out, "\n\n**Regions**: {}", names(m, &state.children));
            }
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
            outgoing.extend(m.timers_of(id).map(|(_, t)| transition(m, t)));
            outgoing.extend(m.eventless_of(id).map(|(_, e)| transition(m, e)));
            let incoming: Vec<String> = every_transition(m)
                .filter(|t| t.target == Some(id))
                .map(|t| transition(m, t))
                .collect();
            list("Transitions out", &outgoing, out);
            list("Transitions in", &incoming, out);
            let mut tested = Vec::new();
            let properties: Vec<String> = m
                .properties
                .iter()
                .filter(|p| {
                    tested.clear();
                    p.formula.states(&mut tested);
                    if let Some(l) = &p.leads_to {
                        l.formula.states(&mut tested);
                    }
                    tested.contains(&id)
                })
                .map(|p| format!("`{}`", p.label(m)))
                .collect();
            // Only where some property names the state: most name none.
            if !properties.is_empty() {
                list("Properties", &properties, out);
            }
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
            let guarded: Vec<String> = every_transition(m)
                .filter(|t| uses(&t.guard))
                .map(|t| transition(m, t))
                .collect();
            list("Guards", &guarded, out);
        }
        Kind::Output => {
            let Some(i) = symbol(&m.outputs) else { return };
            payload_and_docs(&m.outputs[i], out);
            let users = listed_by(m, |t| &t.emits, |s| (&s.enter, &s.exit), |o| o.index() == i);
            list("Emitted by", &users, out);
        }
        Kind::Effect => {
            let Some(i) = symbol(&m.effects) else { return };
            payload_and_docs(&m.effects[i], out);
            let users = listed_by(
                m,
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
                .filter(|t| t.delay() == Some(Delay::Named(fsm_grammar::model::DelayId(i as u32))))
                .map(|t| transition(m, t))
                .collect();
            list("Timers", &timers, out);
        }
        Kind::Property => {
            if let Some(p) = m.properties.iter().find(|p| p.name.as_deref() == Some(name)) {
                property(m, p, out);
            }
        }
    }
}

/// The transitions, timers, `done` and `always` transitions and hooks whose
/// list (outputs or effects) holds an item that `is` picks, as hover lines.
fn listed_by<I>(
    m: &Machine,
    of_transition: impl Fn(&Transition) -> &[I],
    of_state: impl Fn(&State) -> (&[I], &[I]),
    is: impl Fn(&I) -> bool,
) -> Vec<String> {
    let mut users: Vec<String> = every_transition(m)
        .filter(|t| of_transition(t).iter().any(&is))
        .map(|t| transition(m, t))
        .collect();
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

/// The `on` transitions, then the timers, then the `done` and `always`
/// transitions, each in declaration order.
fn every_transition(m: &Machine) -> impl Iterator<Item = &Transition> {
    m.transitions.iter().chain(&m.timers).chain(&m.eventless)
}

/// `` `idle` on `go` [ready] -> `busy` ``, `` `idle` after `30s` -> `busy` ``,
/// `` `collect` done [`in(a_done)`] → `synthesis` `` (and `always`).
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
    let trigger = match t.trigger {
        Trigger::On(a) => format!("on `{}`", m.actions[a.index()].name),
        Trigger::After(delay) => format!("after `{}`", m.delay_text(delay)),
        Trigger::Eventless(kind) => kind.keyword().to_string(),
    };
    format!("{from} {trigger}{guard} → {}", state_name(m, t.target))
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

    const PARALLEL: &str = "machine M {\n    guard ready;\n    initial state idle { on go -> p; }\n    /// Both at once.\n    \
                            parallel state p {\n        done [in(a2)] -> x emit o;\n        always [ready] -> x;\n        \
                            state a { initial state a1 { on fin -> a2; } final state a2; }\n        \
                            state b { initial state b1; }\n    }\n    terminal state x;\n}\n";

    #[test]
    fn a_parallel_state_lists_its_regions_and_its_done_and_always_transitions() {
        assert_eq!(
            hover_at(PARALLEL, "p {"),
            "state `p` (parallel)\n\nBoth at once.\n\n**Regions**: `a`, `b`\n\n**Transitions out**\n\
             - `p` done [`in(a2)`] → `x`\n- `p` always [`ready`] → `x`\n\n**Transitions in**\n- `idle` on `go` → `p`"
        );
        assert_eq!(
            hover_at(PARALLEL, "a2;"),
            "state `a2` (final)\n\n**Transitions out**: none\n\n**Transitions in**\n- `a1` on `fin` → `a2`"
        );
        assert!(
            hover_at(PARALLEL, "x;").ends_with("- `p` done [`in(a2)`] → `x`\n- `p` always [`ready`] → `x`")
        );
        assert!(hover_at(PARALLEL, "ready;").ends_with("**Guards**\n- `p` always [`ready`] → `x`"));
        assert!(hover_at(PARALLEL, "o;").ends_with("**Emitted by**\n- `p` done [`in(a2)`] → `x`"));
    }

    #[test]
    fn the_keywords_of_parallel_states_say_what_they_mean_here() {
        let parallel = hover_at(PARALLEL, "parallel");
        assert!(
            parallel.starts_with("keyword `parallel`\n\nEvery child state"),
            "{parallel}"
        );
        assert!(
            parallel.ends_with("\n\n**Regions of `p`**: `a`, `b`"),
            "{parallel}"
        );
        let final_ = hover_at(PARALLEL, "final");
        assert!(
            final_.starts_with("keyword `final`\n\nA final state is a leaf"),
            "{final_}"
        );
        assert!(final_.ends_with("\n\n`a2` completes `a`."), "{final_}");
        let done = hover_at(PARALLEL, "done");
        assert!(
            done.starts_with("keyword `done`\n\nA completion transition"),
            "{done}"
        );
        assert!(done.ends_with("\n\n`p` done [`in(a2)`] → `x`"), "{done}");
        let always = hover_at(PARALLEL, "always");
        assert!(
            always.starts_with("keyword `always`\n\nAn eventless transition"),
            "{always}"
        );
        assert!(always.ends_with("\n\n`p` always [`ready`] → `x`"), "{always}");
        let in_ = hover_at(PARALLEL, "in(");
        assert!(
            in_.starts_with("keyword `in`\n\n`in(S)` holds when state `S` is active"),
            "{in_}"
        );
        assert!(in_.ends_with("\n\nTests `a2`."), "{in_}");
        // The state inside `in(...)` is the state.
        assert!(hover_at(PARALLEL, "a2)").starts_with("state `a2` (final)"));
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
