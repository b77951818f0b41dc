//! `unused-declaration`: a declared action, guard, output, effect or delay nothing uses.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{Machine, Symbol};

pub(crate) fn check(m: &Machine, sink: &mut Sink<'_>) {
    let kinds: [(&str, &[Symbol]); 5] = [
        ("action", &m.actions),
        ("guard", &m.guards),
        ("output", &m.outputs),
        ("effect", &m.effects),
        ("delay", &m.delays),
    ];
    for (kind, symbols) in kinds {
        for sym in symbols.iter().filter(|s| s.uses.is_empty()) {
            let Some(span) = sym.declared else { continue };
            let hint = match kind {
                "action" => "add a transition `on {name} ...`",
                "guard" => "use it in a transition guard `[{name}]`",
                "effect" => "run it from a transition or hook with `do {name}`",
                "delay" => "use it in a timer `after {name} -> ...;`",
                _ => "emit it from a transition or an `enter`/`exit` hook",
            };
            sink.push(
                Scope::Machine,
                Diagnostic::new(
                    Code::UnusedDeclaration,
                    span,
                    format!("{kind} `{}` is declared but never used", sym.name),
                    "declared here, used nowhere",
                    format!("remove the declaration, or {}", hint.replace("{name}", &sym.name)),
                ),
            );
        }
    }
}
