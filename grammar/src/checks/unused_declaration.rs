//! `unused-declaration`: a declared action, guard or output nothing uses.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{Machine, Symbol};

pub(crate) fn check(m: &Machine, sink: &mut Sink<'_>) {
    let kinds: [(&str, &[Symbol]); 3] = [
        ("action", &m.actions),
        ("guard", &m.guards),
        ("output", &m.outputs),
    ];
    for (kind, symbols) in kinds {
        for sym in symbols.iter().filter(|s| s.uses.is_empty()) {
            let Some(span) = sym.declared else { continue };
            let hint = match kind {
                "action" => "add a transition `on {name} ...`",
                "guard" => "use it in a transition guard `[{name}]`",
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
