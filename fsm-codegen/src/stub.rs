//! A stand-in module for a machine whose definition failed to check.
//!
//! It is emitted next to the `compile_error!`s so that the user's code using
//! the machine still resolves: the error they see is the real one, not a
//! hundred follow-on "cannot find `door`" errors (thiserror's `fallback.rs`
//! does the same). The build fails anyway, so the stub's methods never run.

use crate::docs::doc_attrs_of;
use crate::enums::{symbol_enum, Kind, Variant};
use crate::guards::guards_trait;
use crate::idents::{is_fsm_ident, type_ident, value_ident, Idents};
use crate::machine::{inherent_impl, machine_type, module_lints, module_prelude, unguarded_impl};
use crate::name_conflicts::{ENUM_ITEMS, MODULE_ITEMS};
use crate::options::Options;
use fsm_grammar::model::{Machine, Symbol};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The stub of machine `machine_name`, with the states, actions, outputs and
/// guards of `partial` when the front end got that far. Names that would
/// collide are dropped. Nothing when the name itself cannot be a module.
pub(crate) fn stub_module(machine_name: &str, partial: Option<&Machine>, options: &Options) -> TokenStream {
    if !is_fsm_ident(machine_name) || MODULE_ITEMS.contains(&type_ident(machine_name).to_string().as_str()) {
        return TokenStream::new();
    }
    let (states, initial) = match partial {
        Some(machine) => {
            let states = distinct(
                machine
                    .states
                    .iter()
                    .map(|s| (s.name.as_str(), s.docs.as_slice())),
                type_ident,
            );
            let initial_name = machine
                .states
                .get(machine.initial.index())
                .map(|s| s.name.as_str());
            let initial = states
                .iter()
                .position(|(n, _)| Some(*n) == initial_name)
                .unwrap_or(0);
            (states, initial)
        }
        None => (Vec::new(), 0),
    };
    // The machine type needs a state to hold; a stub without any gets one.
    let states = if states.is_empty() {
        vec![("stub", &[][..])]
    } else {
        states
    };
    let symbols = |pick: fn(&Machine) -> &[Symbol], make: fn(&str) -> Ident| {
        partial
            .map(|m| distinct(pick(m).iter().map(|s| (s.name.as_str(), s.docs.as_slice())), make))
            .unwrap_or_default()
    };
    let actions = symbols(|m| &m.actions, type_ident);
    let outputs = symbols(|m| &m.outputs, type_ident);
    let guards = symbols(|m| &m.guards, value_ident);
    fn names<'a>(list: &[(&'a str, &[String])]) -> Vec<&'a str> {
        list.iter().map(|(n, _)| *n).collect()
    }
    let idents = Idents::from_names(
        machine_name,
        &names(&states),
        &names(&actions),
        &names(&outputs),
        &names(&guards),
    );
    let state_enum = symbol_enum(
        Kind::State,
        machine_name,
        &idents.machine,
        &to_variants(&states, &idents.states),
    );
    let action_enum = symbol_enum(
        Kind::Action,
        machine_name,
        &idents.machine,
        &to_variants(&actions, &idents.actions),
    );
    let output_enum = symbol_enum(
        Kind::Output,
        machine_name,
        &idents.machine,
        &to_variants(&outputs, &idents.outputs),
    );
    let guard_symbols: Vec<Symbol> = guards
        .iter()
        .map(|(name, docs)| Symbol {
            name: name.to_string(),
            payload: None,
            docs: docs.to_vec(),
            declared: None,
            uses: Vec::new(),
        })
        .collect();
    let guards_trait = guards_trait(&guard_symbols, &idents, &options.spans);
    let machine_type = machine_type(machine_name, &[], &idents, 0);
    let inherent = inherent_impl(
        machine_name,
        states[initial].0,
        &idents.states[initial],
        !guards.is_empty(),
        &idents,
        0,
        quote! {
            /// The current state, ready to be stored (a stub).
            pub fn snapshot(&self) -> __fsm::Snapshot {
                __fsm::stub()
            }

            /// The machine in the state of `snapshot` (a stub).
            ///
            /// # Errors
            ///
            /// Never: it does not run.
            pub fn restore(_snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError> {
                __fsm::stub()
            }

            /// The machine in the state of `snapshot` (a stub).
            ///
            /// # Errors
            ///
            /// Never: it does not run.
            pub fn restore_with(
                _snapshot: &__fsm::Snapshot,
                _policy: __fsm::FingerprintPolicy,
            ) -> __fsm::Result<Self, __fsm::RestoreError> {
                __fsm::stub()
            }
        },
    );
    let module = &idents.module;
    let machine_ident = &idents.machine;
    let initial = &idents.states[initial];
    let g = &idents.guards_param;
    let bound = if guards.is_empty() {
        TokenStream::new()
    } else {
        quote!(Guards+)
    };
    let docs = doc_attrs_of(&[format!(
        "A stub of the `{machine_name}` machine, whose definition has errors. Fix them to get the real one."
    )]);
    let unguarded = unguarded_impl(!guards.is_empty(), &idents);
    let lints = module_lints();
    let prelude = module_prelude(options);
    quote! {
        #docs
        #lints
        pub mod #module {
            #prelude
            #state_enum
            #action_enum
            #output_enum
            #guards_trait
            #machine_type
            #inherent

            impl __fsm::Machine for #machine_ident {
                type State = State;
                type Action = Action;
                type Output = Output;
                type Event = Action;
                type Outputs = &'static [Output];
                type Valid = &'static [Action];

                const NAME: &'static str = #machine_name;
                const FINGERPRINT: &'static str = "";
                const INITIAL: State = State::#initial;
                const TERMINAL: &'static [State] = &[];

                fn state(&self) -> State {
                    self.state
                }

                fn action_of(event: &Action) -> Action {
                    *event
                }

                fn valid_actions_in(_state: State) -> &'static [Action] {
                    __fsm::stub()
                }

                fn is_terminal_state(_state: State) -> bool {
                    __fsm::stub()
                }
            }

            impl<#g: #bound ?__fsm::Sized> __fsm::Fire<#g> for #machine_ident {
                fn fire(&mut self, _action: Action, _guards: &#g) -> __fsm::Result<Fired, FireError> {
                    __fsm::stub()
                }

                fn can_fire(&self, _action: &Action, _guards: &#g) -> bool {
                    __fsm::stub()
                }
            }

            impl #machine_ident {
                fn fire_from<#g: #bound ?__fsm::Sized>(
                    _state: State,
                    _action: Action,
                    _guards: &#g,
                ) -> __fsm::Result<Fired, FireError> {
                    __fsm::stub()
                }
            }

            impl __fsm::Timed for #machine_ident {}

            #unguarded
        }
    }
}

/// The entries whose names are identifiers and whose generated identifiers
/// are neither reserved (`ALL`) nor taken by an earlier entry.
fn distinct<'a>(
    entries: impl Iterator<Item = (&'a str, &'a [String])>,
    make: fn(&str) -> Ident,
) -> Vec<(&'a str, &'a [String])> {
    let mut seen: Vec<String> = Vec::new();
    let mut kept = Vec::new();
    for (name, docs) in entries {
        if !is_fsm_ident(name) {
            continue;
        }
        let ident = make(name).to_string();
        if !seen.contains(&ident) && !ENUM_ITEMS.contains(&ident.as_str()) {
            seen.push(ident);
            kept.push((name, docs));
        }
    }
    kept
}

fn to_variants<'a>(entries: &'a [(&'a str, &'a [String])], idents: &'a [Ident]) -> Vec<Variant<'a>> {
    entries
        .iter()
        .zip(idents)
        .map(|((name, docs), ident)| Variant { ident, name, docs })
        .collect()
}
