//! `name-collision`: two different names that generate the same Rust
//! identifier (`waiting_input` and `waiting__input` both become
//! `WaitingInput`), or a machine whose type name clashes with an item
//! generated next to it. Uses the same mapping as code generation.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{Machine, Model};
use crate::naming::{
    escape, escape_owned, module_item_kind, snake, upper_camel, CONFIGURATION_METHODS, ENUM_ITEMS,
    MODULE_ITEMS,
};
use crate::span::Span;
use std::collections::HashMap;

/// Collisions between machines of one file, and reserved machine names.
pub(crate) fn check_machines(model: &Model, out: &mut Vec<Diagnostic>) {
    let mut modules = Seen::default();
    let mut types = Seen::default();
    for m in &model.machines {
        let module = escape(&snake(&m.name));
        let ty = escape(&upper_camel(&m.name));
        let module_clash = modules.insert(&module, &m.name, m.span);
        let type_clash = types.insert(&ty, &m.name, m.span);
        // One diagnostic when both names clash with the same machine.
        match (module_clash, type_clash) {
            (Some(a), Some(b)) if a == b => out.push(collision(
                "machine",
                "module and type",
                &format!("{module}`/`{ty}"),
                (&m.name, m.span),
                a,
            )),
            (a, b) => {
                out.extend(a.map(|first| collision("machine", "module", &module, (&m.name, m.span), first)));
                out.extend(b.map(|first| collision("machine", "type", &ty, (&m.name, m.span), first)));
            }
        }
        if MODULE_ITEMS.contains(&ty.as_str()) {
            let clash = format!(
                "which clashes with the `{ty}` {} generated beside it",
                module_item_kind(&ty)
            );
            out.push(Diagnostic::new(
                Code::NameCollision,
                m.span,
                format!("machine `{}` would generate a type `{ty}`, {clash}", m.name),
                "reserved name",
                format!(
                    "rename the machine; {} are reserved for the items generated in its module",
                    all_quoted(MODULE_ITEMS)
                ),
            ));
        }
    }
}

/// Collisions among one machine's states, actions, outputs and guards.
pub(crate) fn check_names(m: &Machine, sink: &mut Sink<'_>) {
    let groups: [NameGroup<'_>; 4] = [
        (
            "state",
            m.states.iter().map(|s| (s.name.as_str(), s.span)).collect(),
            upper_camel,
        ),
        (
            "action",
            m.actions.iter().map(|s| (s.name.as_str(), s.span())).collect(),
            upper_camel,
        ),
        (
            "output",
            m.outputs.iter().map(|s| (s.name.as_str(), s.span())).collect(),
            upper_camel,
        ),
        (
            "guard",
            m.guards.iter().map(|s| (s.name.as_str(), s.span())).collect(),
            snake,
        ),
    ];
    for (kind, names, map) in groups {
        let mut seen = Seen::default();
        for (name, span) in names {
            let ident = escape_owned(map(name));
            if let Some(first) = seen.insert(&ident, name, span) {
                let what = if kind == "guard" { "method" } else { "variant" };
                sink.push(Scope::Machine, collision(kind, what, &ident, (name, span), first));
            } else if kind != "guard" && ENUM_ITEMS.contains(&ident.as_str()) {
                // Once per name: a second spelling is a collision already.
                sink.push(Scope::Machine, reserved_variant(kind, &ident, (name, span)));
            }
        }
    }
    // Each region of a parallel state becomes a method of the generated
    // `Configuration`, and a type of its own.
    for state in &m.states {
        if !state.parent.is_some_and(|p| m.state(p).is_parallel()) {
            continue;
        }
        let method = escape_owned(snake(&state.name));
        if CONFIGURATION_METHODS.contains(&method.as_str()) || upper_camel(&state.name) == "Top" {
            sink.push(Scope::Machine, reserved_region(&state.name, &method, state.span));
        }
    }
}

/// A region whose method on the generated `Configuration` would be named
/// like one of its own methods.
fn reserved_region(name: &str, method: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        Code::NameCollision,
        span,
        format!(
            "region `{name}` would generate the method `Configuration::{method}`, which clashes with \
             a method every generated `Configuration` has"
        ),
        "reserved name",
        format!(
            "rename the region (`{name}_region`, say): {} are the methods of `Configuration`, \
             and `top` is also the slot outside every parallel state",
            all_quoted(CONFIGURATION_METHODS)
        ),
    )
}

/// A state, action or output that would become a variant named like an
/// associated item of its enum (`State::ALL`).
fn reserved_variant(kind: &str, ident: &str, (name, span): (&str, Span)) -> Diagnostic {
    let ty = match kind {
        "state" => "State",
        "action" => "Action",
        _ => "Output",
    };
    let becomes = if name == ident {
        format!("{kind} `{name}` would generate the variant `{ty}::{ident}`")
    } else {
        format!("{kind} `{name}` would become the variant `{ty}::{ident}`")
    };
    Diagnostic::new(
        Code::NameCollision,
        span,
        format!("{becomes}, which clashes with the constant `{ty}::{ident}` listing every {kind}"),
        "reserved name",
        format!(
            "rename the {kind} (`{}` instead of `{name}`, say): every generated `State`, `Action` and \
             `Output` enum has an associated constant `{ident}`, so no variant may be named that",
            suggestion(name),
        ),
    )
}

/// A name close to `name` that does not become a reserved variant: `ALL` →
/// `all`, which becomes `All`.
fn suggestion(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// A kind of name, its names with spans, and how each becomes a Rust identifier.
type NameGroup<'a> = (&'static str, Vec<(&'a str, Span)>, fn(&str) -> String);

#[derive(Default)]
struct Seen {
    first: HashMap<String, (String, Span)>,
}

impl Seen {
    /// Record `ident` for `name`; if a different name already produced it, return that one.
    fn insert(&mut self, ident: &str, name: &str, span: Span) -> Option<(String, Span)> {
        match self.first.get(ident) {
            Some((first, first_span)) if first != name => Some((first.clone(), *first_span)),
            Some(_) => None,
            None => {
                self.first.insert(ident.to_string(), (name.to_string(), span));
                None
            }
        }
    }
}

fn collision(
    kind: &str,
    what: &str,
    ident: &str,
    (name, span): (&str, Span),
    (first, first_span): (String, Span),
) -> Diagnostic {
    Diagnostic::new(
        Code::NameCollision,
        span,
        format!("{kind}s `{first}` and `{name}` both become the Rust {what} `{ident}`"),
        format!("also becomes `{ident}`"),
        format!("rename one of them; generated code needs a distinct identifier for each {kind}"),
    )
    .with_label(
        first_span,
        if first == ident {
            format!("`{first}` is already `{ident}`")
        } else {
            format!("`{first}` becomes `{ident}` here")
        },
    )
}

fn all_quoted(names: &[&str]) -> String {
    crate::diagnostic::all_of(&names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>())
}
