//! The Rust identifiers of one machine, made once so every generator names
//! things the same way.

use fsm_grammar::model::{Machine, Symbol};
use fsm_grammar::naming::{escape, snake, upper_camel};
use proc_macro2::{Ident, Span};

/// Every identifier generated for a machine.
pub(crate) struct Idents {
    /// The module: `door`.
    pub module: Ident,
    /// The machine type: `Door`.
    pub machine: Ident,
    /// The type parameter of the guards: `G`, unless the machine is called `G`.
    pub guards_param: Ident,
    /// `State` variants, by state index.
    pub states: Vec<Ident>,
    /// `Action` variants, by action index.
    pub actions: Vec<Ident>,
    /// `Output` variants, by output index.
    pub outputs: Vec<Ident>,
    /// `Guards` methods, by guard index.
    pub guards: Vec<Ident>,
    /// Locals caching a guard's value within one `fire`, by guard index.
    pub guard_caches: Vec<Ident>,
}

impl Idents {
    /// The identifiers of `machine`.
    pub fn new(machine: &Machine) -> Self {
        fn names(symbols: &[Symbol]) -> Vec<&str> {
            symbols.iter().map(|s| s.name.as_str()).collect()
        }
        let states: Vec<&str> = machine.states.iter().map(|s| s.name.as_str()).collect();
        Idents::from_names(
            &machine.name,
            &states,
            &names(&machine.actions),
            &names(&machine.outputs),
            &names(&machine.guards),
        )
    }

    /// The identifiers of a machine with these names, each list in index
    /// order. The names must satisfy [`is_fsm_ident`].
    pub fn from_names(
        machine: &str,
        states: &[&str],
        actions: &[&str],
        outputs: &[&str],
        guards: &[&str],
    ) -> Self {
        let types = |names: &[&str]| names.iter().map(|n| type_ident(n)).collect();
        let machine_ident = type_ident(machine);
        let guards_param = if machine_ident == "G" { "G2" } else { "G" };
        Idents {
            module: value_ident(machine),
            guards_param: Ident::new(guards_param, Span::call_site()),
            machine: machine_ident,
            states: types(states),
            actions: types(actions),
            outputs: types(outputs),
            guards: guards.iter().map(|g| value_ident(g)).collect(),
            guard_caches: guards
                .iter()
                .map(|g| Ident::new(&format!("cached_{}", snake(g)), Span::call_site()))
                .collect(),
        }
    }
}

/// `waiting_input` → `WaitingInput`, `self` → `Self_`.
pub(crate) fn type_ident(name: &str) -> Ident {
    ident(&escape(&upper_camel(name)))
}

/// `hasKey` → `has_key`, `match` → `r#match`, `self` → `self_`.
pub(crate) fn value_ident(name: &str) -> Ident {
    ident(&escape(&snake(name)))
}

/// An identifier from text produced by `naming::escape`.
fn ident(escaped: &str) -> Ident {
    match escaped.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(escaped, Span::call_site()),
    }
}

/// True when `name` can be a `.fsm` identifier, so that [`type_ident`] and
/// [`value_ident`] accept it. The model only holds such names; this guards the
/// stub, which takes names from text that failed to check.
pub(crate) fn is_fsm_ident(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
