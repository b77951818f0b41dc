//! JSON names as `.fsm` identifiers.
//!
//! A name in the JSON may be any string, but `.fsm` names match
//! `[A-Za-z_][A-Za-z0-9_]*`. [`identifier`] maps one to the other: every
//! character outside that set becomes `_`, and a name that would start with
//! a digit (or be empty) gets a `_` in front. An `execution_fsm_v1.json`
//! output named `fsm.transition` becomes `fsm_transition`. The rule is a pure function, so every use of a
//! name maps the same way; two different names that map to one identifier
//! are an error, since merging them would change the machine.

use super::diagnostics::Sink;
use super::path::JsonPath;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// What a name names; each kind is its own namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Kind {
    Machine,
    State,
    Action,
    Guard,
    Output,
    Effect,
    Delay,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Machine => "machine",
            Kind::State => "state",
            Kind::Action => "action",
            Kind::Guard => "guard",
            Kind::Output => "output",
            Kind::Effect => "effect",
            Kind::Delay => "delay",
        }
    }
}

/// `name` as a `.fsm` identifier.
pub(crate) fn identifier(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

/// A name resolved to its identifier, with the place it was read.
///
/// A name is used many times in a document; every use shares one copy of
/// its text (and of its identifier, the same text unless it was rewritten).
#[derive(Clone, Debug)]
pub(super) struct Name {
    /// The name as written in the JSON.
    pub text: Arc<str>,
    /// The `.fsm` identifier.
    pub ident: Arc<str>,
    /// Where the name was written.
    pub path: JsonPath,
}

/// The JSON name that took an identifier, and the identifier's shared text.
type Owner = (Arc<str>, Arc<str>);

/// The identifiers handed out for one namespace scope (a machine, or the
/// document for machine names), remembering which JSON name each came from.
#[derive(Default)]
pub(super) struct Names {
    /// Per kind and identifier, the JSON name that took it, and the
    /// identifier's shared text.
    owners: HashMap<Kind, HashMap<Arc<str>, Owner>>,
    /// Names already reported as colliding, so each is reported once.
    collided: HashSet<(Kind, String)>,
}

impl Names {
    /// The identifier for `name` of `kind`, read at `path`. The first time a
    /// name is renamed, a warning says so; a second JSON name taking an
    /// identifier already taken is an error.
    pub(super) fn resolve(&mut self, kind: Kind, name: &str, path: &JsonPath, sink: &mut Sink) -> Name {
        let ident = identifier(name);
        let owners = self.owners.entry(kind).or_default();
        let (text, ident) = match owners.get(ident.as_str()) {
            Some((owner, shared)) if &**owner == name => (owner.clone(), shared.clone()),
            Some((owner, shared)) => {
                if self.collided.insert((kind, name.to_string())) {
                    sink.error(
                        path,
                        format!(
                            "{} `{name}` and {} `{owner}` both become the identifier `{ident}`",
                            kind.word(),
                            kind.word()
                        ),
                        "rename one of them; names outside `[A-Za-z0-9_]` are rewritten with `_` (see docs/json.md)",
                    );
                }
                (Arc::from(name), shared.clone())
            }
            None => {
                let text: Arc<str> = Arc::from(name);
                let shared = if ident == name {
                    text.clone()
                } else {
                    sink.warning(
                        path,
                        format!(
                            "{} `{name}` is not a valid .fsm name; it is imported as `{ident}`",
                            kind.word()
                        ),
                        "names match `[A-Za-z_][A-Za-z0-9_]*`; other characters become `_`",
                    );
                    Arc::from(ident)
                };
                owners.insert(shared.clone(), (text.clone(), shared.clone()));
                (text, shared)
            }
        };
        Name {
            text,
            ident,
            path: path.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_characters_become_underscores() {
        assert_eq!(identifier("fsm.transition"), "fsm_transition");
        assert_eq!(identifier("idle"), "idle");
        assert_eq!(identifier("état"), "_tat");
        assert_eq!(identifier("1st"), "_1st");
        assert_eq!(identifier(""), "_");
        assert_eq!(identifier("on-error"), "on_error");
    }

    #[test]
    fn renames_warn_once_and_collisions_are_errors() {
        let mut names = Names::default();
        let mut sink = Sink::default();
        let root = JsonPath::root();
        let a = names.resolve(Kind::Output, "fsm.transition", &root.key("a"), &mut sink);
        let b = names.resolve(Kind::Output, "fsm.transition", &root.key("b"), &mut sink);
        assert_eq!((&*a.ident, &*b.ident), ("fsm_transition", "fsm_transition"));
        assert_eq!(sink.len(), 1);
        names.resolve(Kind::Output, "fsm_transition", &root.key("c"), &mut sink);
        names.resolve(Kind::Output, "fsm_transition", &root.key("again"), &mut sink);
        names.resolve(Kind::State, "fsm_transition", &root.key("d"), &mut sink);
        let messages: Vec<String> = sink.into_vec().iter().map(|d| d.to_string()).collect();
        assert_eq!(
            messages,
            [
                "$.a: output `fsm.transition` is not a valid .fsm name; it is imported as `fsm_transition`",
                "$.c: output `fsm_transition` and output `fsm.transition` both become the identifier `fsm_transition`",
            ]
        );
    }
}
