//! Machine names that cannot become Rust: a machine type that would collide
//! with an item of its own module, or two machines sharing one module name.
//!
//! The front end's `name-collision` check reports both with spans, so a
//! checked model never has them; code generation still refuses them with a
//! `compile_error!` rather than emit code that fails in confusing ways when
//! handed an unchecked model.

use crate::idents::{type_ident, value_ident};
use fsm_grammar::model::Machine;
use fsm_grammar::Model;

/// The items generated modules define besides the machine type; the front
/// end reserves the same names, from the same list, and a test holds the
/// list to what code generation writes (`tests/it/module_items.rs`).
pub(crate) use fsm_grammar::naming::MODULE_ITEMS;

/// Why `machine`'s type cannot be generated, if it cannot.
pub(crate) fn module_item_conflict(machine: &Machine) -> Option<String> {
    let ty = type_ident(&machine.name).to_string();
    MODULE_ITEMS.contains(&ty.as_str()).then(|| {
        format!(
            "machine `{}` would generate a type `{ty}`, a name reserved for the items of its module",
            machine.name
        )
    })
}

/// The associated items of every generated enum, which no variant may be
/// named like; the front end reserves the same names, from the same list.
pub(crate) use fsm_grammar::naming::ENUM_ITEMS;

/// Why one of `machine`'s enums cannot be generated, if one cannot: a state,
/// action or output whose variant would be named like an associated item of
/// its enum (`State::ALL`).
pub(crate) fn enum_item_conflict(machine: &Machine) -> Option<String> {
    let states = machine.states.iter().map(|s| ("state", "State", s.name.as_str()));
    let actions = machine
        .actions
        .iter()
        .map(|a| ("action", "Action", a.name.as_str()));
    let outputs = machine
        .outputs
        .iter()
        .map(|o| ("output", "Output", o.name.as_str()));
    states.chain(actions).chain(outputs).find_map(|(kind, ty, name)| {
        let variant = type_ident(name).to_string();
        ENUM_ITEMS.contains(&variant.as_str()).then(|| {
            format!(
                "{kind} `{name}` of machine `{}` would generate the variant `{ty}::{variant}`, \
                 which its enum already defines as a constant",
                machine.name
            )
        })
    })
}

/// Why `model.machines[index]` cannot be generated next to an earlier machine
/// with the same module name, if it cannot.
pub(crate) fn module_conflict(model: &Model, index: usize) -> Option<String> {
    let machine = &model.machines[index];
    let module = value_ident(&machine.name).to_string();
    model.machines[..index]
        .iter()
        .find(|m| value_ident(&m.name) == module)
        .map(|first| {
            format!(
                "machines `{}` and `{}` would both generate the module `{module}`",
                first.name, machine.name
            )
        })
}
