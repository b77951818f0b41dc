//! The module of one machine: the machine type, its inherent API and its
//! `Machine` and `Fire` impls, assembled with the enums, the `Guards` trait
//! and the tables.

use crate::docs::module_docs;
use crate::enums::{symbol_enum, Kind, Variant};
use crate::guards::guards_trait;
use crate::idents::Idents;
use crate::options::Options;
use crate::snapshot::snapshot_methods;
use crate::tables::Tables;
use crate::transitions::transition_body;
use fsm_grammar::model::{Machine, Symbol};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// `pub mod <snake_name> { ... }` for a checked machine.
pub(crate) fn machine_module(machine: &Machine, options: &Options) -> TokenStream {
    let idents = Idents::new(machine);
    let mut tables = Tables::default();
    let module = &idents.module;
    let docs = module_docs(machine);
    let prelude = module_prelude(options);
    let enums = enums(machine, &idents);
    let guards = guards_trait(&machine.guards, &idents);
    let machine_type = machine_type(&machine.name, &machine.docs, &idents);
    let inherent = inherent_impl(
        &machine.name,
        &machine.state(machine.initial).name,
        &idents.states[machine.initial.index()],
        !machine.guards.is_empty(),
        &idents,
    );
    let machine_impl = machine_impl(machine, &idents, &mut tables);
    let fire_impl = fire_impl(machine, &idents, &mut tables);
    let statics = tables.statics(&idents);
    let lints = module_lints();
    quote! {
        #docs
        #lints
        pub mod #module {
            #prelude
            #enums
            #guards
            #machine_type
            #inherent
            #machine_impl
            #fire_impl
            #statics
        }
    }
}

/// Lints generated code can trigger which the user cannot fix there.
///
/// rustc's `dead_code`: a module included into a private one (the way
/// `include_fsm!` is used) whose API is only partly used, say without
/// `restore_with`, would otherwise warn, and fail crates built with
/// `#![deny(warnings)]`. rustc's `unreachable_pub`, for the same placement:
/// the generated items are `pub` for whoever can reach the module.
///
/// Clippy's, from the `.fsm` names or guards: `waiting_a`, `waiting_b` as
/// `WaitingA`, `WaitingB`; two guarded candidates with the same target; a
/// guard the checker already warned is unsatisfiable.
pub(crate) fn module_lints() -> TokenStream {
    quote! {
        #[allow(
            dead_code,
            unreachable_pub,
            clippy::enum_variant_names,
            clippy::upper_case_acronyms,
            clippy::if_same_then_else,
            clippy::nonminimal_bool,
            clippy::overly_complex_bool_expr
        )]
    }
}

/// The runtime alias, and the `include_str!` that makes cargo rebuild when the
/// `.fsm` file changes.
pub(crate) fn module_prelude(options: &Options) -> TokenStream {
    let runtime = &options.runtime_path;
    let tracking = options.source_file.as_ref().map(|path| {
        quote!(
            const _: &str = __fsm::include_str!(#path);
        )
    });
    quote! {
        use #runtime as __fsm;
        #tracking
    }
}

/// The three enums.
pub(crate) fn enums(machine: &Machine, idents: &Idents) -> TokenStream {
    let states: Vec<Variant> = machine
        .states
        .iter()
        .zip(&idents.states)
        .map(|(state, ident)| Variant {
            ident,
            name: &state.name,
            docs: &state.docs,
        })
        .collect();
    let actions = symbol_variants(&machine.actions, &idents.actions);
    let outputs = symbol_variants(&machine.outputs, &idents.outputs);
    let name = &machine.name;
    let state_enum = symbol_enum(Kind::State, name, &idents.machine, &states);
    let action_enum = symbol_enum(Kind::Action, name, &idents.machine, &actions);
    let output_enum = symbol_enum(Kind::Output, name, &idents.machine, &outputs);
    quote!(#state_enum #action_enum #output_enum)
}

fn symbol_variants<'a>(symbols: &'a [Symbol], variant_idents: &'a [Ident]) -> Vec<Variant<'a>> {
    symbols
        .iter()
        .zip(variant_idents)
        .map(|(symbol, ident)| Variant {
            ident,
            name: &symbol.name,
            docs: &symbol.docs,
        })
        .collect()
}

/// The machine struct, its `Default`, and the `Fired` and `FireError`
/// aliases.
pub(crate) fn machine_type(name: &str, docs: &[String], idents: &Idents) -> TokenStream {
    let machine_ident = &idents.machine;
    let docs = crate::docs::doc_attrs(docs, &format!("The `{name}` state machine."));
    let fired_doc = crate::docs::doc_line(&format!("What a successful [`{machine_ident}::fire`] reports."));
    let error_doc = crate::docs::doc_line(&format!("Why [`{machine_ident}::fire`] did not fire."));
    quote! {
        #docs
        ///
        /// It holds only its current state: the caller fires actions, performs
        /// the outputs each transition returns, and feeds results back as
        /// further actions.
        #[derive(__fsm::Clone, __fsm::Debug, __fsm::PartialEq, __fsm::Eq, __fsm::Hash)]
        pub struct #machine_ident {
            state: State,
        }

        impl __fsm::Default for #machine_ident {
            /// The machine in its initial state.
            fn default() -> Self {
                Self::new()
            }
        }

        #fired_doc
        pub type Fired = __fsm::Fired<#machine_ident>;

        #error_doc
        pub type FireError = __fsm::FireError<#machine_ident>;
    }
}

/// The guards parameter of the inherent methods, and how they pass it on.
struct GuardsArgument {
    /// `<G: Guards + ?__fsm::Sized>`, or nothing.
    generics: TokenStream,
    /// `, guards: &G`, or nothing.
    param: TokenStream,
    /// `guards`, or `&__fsm::NoGuards`.
    argument: TokenStream,
    /// `G`, or `__fsm::NoGuards`.
    ty: TokenStream,
}

fn guards_argument(has_guards: bool, idents: &Idents) -> GuardsArgument {
    if !has_guards {
        return GuardsArgument {
            generics: TokenStream::new(),
            param: TokenStream::new(),
            argument: quote!(&__fsm::NoGuards),
            ty: quote!(__fsm::NoGuards),
        };
    }
    let g = &idents.guards_param;
    GuardsArgument {
        generics: quote!(<#g: Guards + ?__fsm::Sized>),
        param: quote!(, guards: &#g),
        argument: quote!(guards),
        ty: quote!(#g),
    }
}

/// `new`, `state`, `fire`, `can_fire`, `transition`, `valid_actions`,
/// `is_terminal`, `snapshot` and the restore constructors. All but the first
/// three delegate to the `Machine` and `Fire` impls.
pub(crate) fn inherent_impl(
    name: &str,
    initial_name: &str,
    initial: &Ident,
    has_guards: bool,
    idents: &Idents,
) -> TokenStream {
    let machine_ident = &idents.machine;
    let new_doc = crate::docs::doc_line(&format!(
        "A `{name}` machine in its initial state, `{initial_name}`."
    ));
    let GuardsArgument {
        generics,
        param,
        argument,
        ty,
    } = guards_argument(has_guards, idents);
    let guards_doc = if !has_guards {
        TokenStream::new()
    } else {
        quote! {
            ///
            /// Guards are evaluated lazily, in the order the candidates are
            /// tried, each at most once.
        }
    };
    let snapshot = snapshot_methods();
    quote! {
        impl #machine_ident {
            #new_doc
            pub const fn new() -> Self {
                Self { state: State::#initial }
            }

            /// A machine in `state`.
            pub const fn from_state(state: State) -> Self {
                Self { state }
            }

            /// The current state.
            pub const fn state(&self) -> State {
                self.state
            }

            /// Fire `action`: on success the machine moves to the new state
            /// and returns the outputs for the caller to perform; on error it
            /// stays where it is. Neither allocates.
            #guards_doc
            #[inline]
            pub fn fire #generics(&mut self, action: Action #param) -> __fsm::Result<Fired, FireError> {
                __fsm::Fire::fire(self, action, #argument)
            }

            /// True when firing `action` now would succeed. Changes nothing.
            #guards_doc
            #[inline]
            pub fn can_fire #generics(&self, action: Action #param) -> bool {
                __fsm::Fire::can_fire(self, action, #argument)
            }

            /// What firing `action` in `state` would do, without a machine.
            #guards_doc
            #[inline]
            pub fn transition #generics(state: State, action: Action #param) -> __fsm::Result<Fired, FireError> {
                <Self as __fsm::Fire<#ty>>::transition(state, action, #argument)
            }

            /// The actions that have a transition in the current state, in
            /// declaration order (whether or not their guards hold).
            pub fn valid_actions(&self) -> &'static [Action] {
                <Self as __fsm::Machine>::valid_actions_in(self.state)
            }

            /// True when the current state is terminal.
            pub fn is_terminal(&self) -> bool {
                <Self as __fsm::Machine>::is_terminal_state(self.state)
            }

            #snapshot
        }
    }
}

/// `impl Machine`: names, fingerprint, and the per-state tables.
pub(crate) fn machine_impl(machine: &Machine, idents: &Idents, tables: &mut Tables) -> TokenStream {
    let machine_ident = &idents.machine;
    let name = &machine.name;
    let fingerprint = machine.fingerprint();
    let initial = &idents.states[machine.initial.index()];
    let valid_arms = machine.state_ids().map(|state| {
        let variant = &idents.states[state.index()];
        let actions = machine
            .candidate_groups(state)
            .into_iter()
            .map(|(a, _)| a)
            .collect();
        let table = tables.valid_actions(actions);
        quote!(State::#variant => #table,)
    });
    let valid_arms: Vec<TokenStream> = valid_arms.collect();
    let terminal: Vec<&Ident> = machine
        .state_ids()
        .filter(|&s| machine.state(s).is_terminal())
        .map(|s| &idents.states[s.index()])
        .collect();
    let is_terminal = if terminal.is_empty() {
        quote! {
            fn is_terminal_state(_state: State) -> bool {
                false
            }
        }
    } else {
        quote! {
            fn is_terminal_state(state: State) -> bool {
                __fsm::matches!(state, #(State::#terminal)|*)
            }
        }
    };
    quote! {
        impl __fsm::Machine for #machine_ident {
            type State = State;
            type Action = Action;
            type Output = Output;

            const NAME: &'static str = #name;
            const FINGERPRINT: &'static str = #fingerprint;
            const INITIAL: State = State::#initial;

            fn from_state(state: State) -> Self {
                Self { state }
            }

            fn state(&self) -> State {
                self.state
            }

            fn valid_actions_in(state: State) -> &'static [Action] {
                match state {
                    #(#valid_arms)*
                }
            }

            #is_terminal
        }
    }
}

/// `impl Fire<G>`: the transition function.
fn fire_impl(machine: &Machine, idents: &Idents, tables: &mut Tables) -> TokenStream {
    let machine_ident = &idents.machine;
    let g = &idents.guards_param;
    let bound = if machine.guards.is_empty() {
        TokenStream::new()
    } else {
        quote!(Guards+)
    };
    let (params, body) = transition_body(machine, idents, tables);
    let state = &params.state;
    let guards = &params.guards;
    quote! {
        impl<#g: #bound ?__fsm::Sized> __fsm::Fire<#g> for #machine_ident {
            // Inlined into the caller's loop this `match` costs what a
            // hand-written one does (see bench/README.md).
            #[inline]
            fn transition(#state: State, action: Action, #guards: &#g) -> __fsm::Result<Fired, FireError> {
                #body
            }
        }
    }
}
