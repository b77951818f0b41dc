//! The module of one machine: the machine type, its inherent API and its
//! `Machine`, `Fire`, (without guards) `FireEvent`, `Timed`, `Persist` and
//! `Restore` impls, assembled with
//! the enums, the `Guards` trait and the tables.

use crate::docs::module_docs;
use crate::enums::{symbol_enum, Kind, Variant};
use crate::guards::guards_trait;
use crate::idents::Idents;
use crate::nested::memory_slots;
use crate::options::Options;
use crate::snapshot::snapshot_methods;
use crate::tables::Tables;
use crate::transitions::transition_body;
use fsm_grammar::model::{Machine, Symbol};
use fsm_grammar::plan::Plan;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// `pub mod <snake_name> { ... }` for a checked machine.
pub(crate) fn machine_module(machine: &Machine, options: &Options) -> TokenStream {
    let idents = Idents::new(machine);
    let plan = Plan::new(machine);
    let mut tables = Tables::default();
    let module = &idents.module;
    let docs = module_docs(machine, options);
    let prelude = module_prelude(options);
    let enums = enums(machine, &idents);
    let guards = guards_trait(&machine.guards, &idents, &options.spans);
    let memory = memory_slots(machine).len();
    let machine_type = machine_type(&machine.name, &machine.docs, &idents, memory);
    let initial = machine.initial_leaf();
    let inherent = inherent_impl(
        &machine.name,
        &machine.state(initial).name,
        &idents.states[initial.index()],
        !machine.guards.is_empty(),
        &idents,
        memory,
        snapshot_methods(machine),
    );
    let tree = tree_impl(machine, &idents);
    let machine_ident = &idents.machine;
    let machine_impl = machine_impl(
        machine,
        &plan,
        &idents,
        &mut tables,
        &quote!(impl __fsm::Machine for #machine_ident),
        &quote!(Action),
        &quote!(*event),
    );
    let fire_impl = fire_impl(machine, &plan, &idents, &mut tables);
    let unguarded_impl = unguarded_impl(!machine.guards.is_empty(), &idents);
    let persist_impl = quote! {
        // A machine without timers reads the system clock for `Timed::now`;
        // without `std` it has none, and drives nothing.
        __fsm::if_std! {
            impl __fsm::Timed for #machine_ident {}
        }

        __fsm::if_alloc! {
            impl __fsm::Persist for #machine_ident {
                fn snapshot(&self) -> __fsm::Result<__fsm::Snapshot, __fsm::SnapshotError> {
                    __fsm::Ok(#machine_ident::snapshot(self))
                }
            }

            impl __fsm::Restore for #machine_ident {
                fn restore_with(
                    snapshot: &__fsm::Snapshot,
                    policy: impl __fsm::Into<__fsm::RestorePolicy>,
                ) -> __fsm::Result<Self, __fsm::RestoreError> {
                    // Without timers, only the fingerprint policy applies.
                    #machine_ident::restore_with(snapshot, __fsm::Into::<__fsm::RestorePolicy>::into(policy).fingerprint)
                }
            }
        }
    };
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
            #tree
            #machine_impl
            #fire_impl
            #unguarded_impl
            #persist_impl
            #statics
        }
    }
}

/// `is_in` and, with history memory, `last_active` on a machine with nested
/// states; the composites whose memory the machine keeps.
fn tree_impl(machine: &Machine, idents: &Idents) -> TokenStream {
    if !machine.is_nested() {
        return TokenStream::new();
    }
    let machine_ident = &idents.machine;
    let memory = memory_items(machine, idents, quote!(self.last_active));
    let composites = if memory.is_empty() {
        TokenStream::new()
    } else {
        memory_composites(machine, idents)
    };
    quote! {
        impl #machine_ident {
            /// True when the machine is inside `composite`: when its state
            /// lies in it, at any depth.
            pub const fn is_in(&self, composite: Composite) -> bool {
                self.state.is_in(composite)
            }

            #memory
        }

        #composites
    }
}

/// With history memory: `last_active(composite)`, reading `memory` (an
/// expression of the array). Nothing without memory.
pub(crate) fn memory_items(machine: &Machine, idents: &Idents, memory: TokenStream) -> TokenStream {
    let slots = memory_slots(machine);
    if slots.is_empty() {
        return TokenStream::new();
    }
    let arms = slots.iter().enumerate().map(|(i, &s)| {
        let variant = &idents.states[s.index()];
        let i = crate::nested::index(i);
        quote!(Composite::#variant => #memory[#i],)
    });
    let names = slots
        .iter()
        .map(|&s| format!("`{}`", machine.state(s).name))
        .collect::<Vec<_>>()
        .join(", ");
    let doc = crate::docs::doc_line(&format!(
        "The leaf last active inside `composite` when the machine last left it, which `-> composite.history` \
         and `-> composite.deep_history` go back to; `None` before it first left it, and for a composite no \
         transition enters through its history (the machine remembers only {names})."
    ));
    quote! {
        #doc
        pub const fn last_active(&self, composite: Composite) -> __fsm::Option<State> {
            #[allow(unreachable_patterns)]
            match composite {
                #(#arms)*
                _ => __fsm::None,
            }
        }
    }
}

/// `const LAST_ACTIVE_COMPOSITES`: the composite of each memory slot.
pub(crate) fn memory_composites(machine: &Machine, idents: &Idents) -> TokenStream {
    let slots = memory_slots(machine);
    let n = crate::nested::index(slots.len());
    let variants = slots.iter().map(|s| &idents.states[s.index()]);
    quote! {
        /// The composite state each slot of the history memory is for.
        const LAST_ACTIVE_COMPOSITES: [Composite; #n] = [#(Composite::#variants),*];
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
            clippy::overly_complex_bool_expr,
            clippy::result_large_err
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
    // The leaves: every state of a flat machine.
    let states: Vec<Variant> = machine
        .leaves()
        .map(|s| Variant {
            ident: &idents.states[s.index()],
            name: &machine.state(s).name,
            docs: &machine.state(s).docs,
        })
        .collect();
    let actions = symbol_variants(&machine.actions, &idents.actions);
    let outputs = symbol_variants(&machine.outputs, &idents.outputs);
    let name = &machine.name;
    let kind = if machine.is_nested() {
        Kind::Leaf
    } else {
        Kind::State
    };
    let state_enum = symbol_enum(kind, name, &idents.machine, &states);
    let tree = crate::nested::tree_items(machine, idents);
    let action_enum = symbol_enum(Kind::Action, name, &idents.machine, &actions);
    let output_enum = symbol_enum(Kind::Output, name, &idents.machine, &outputs);
    quote!(#state_enum #tree #action_enum #output_enum)
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
pub(crate) fn machine_type(name: &str, docs: &[String], idents: &Idents, memory: usize) -> TokenStream {
    let machine_ident = &idents.machine;
    let (holds, memory_field) = if memory == 0 {
        (
            quote! {
                /// It holds only its current state: the caller fires actions, performs
                /// the outputs each transition returns, and feeds results back as
                /// further actions.
            },
            TokenStream::new(),
        )
    } else {
        let n = crate::nested::index(memory);
        (
            quote! {
                /// It holds its current state and, for each composite entered through its
                /// history, the leaf last active inside it: the caller fires actions,
                /// performs the outputs each transition returns, and feeds results back
                /// as further actions.
            },
            quote!(last_active: [__fsm::Option<State>; #n],),
        )
    };
    let docs = crate::docs::doc_attrs(docs, &format!("The `{name}` state machine."));
    let fired_doc = crate::docs::doc_line(&format!("What a successful [`{machine_ident}::fire`] reports."));
    let error_doc = crate::docs::doc_line(&format!("Why [`{machine_ident}::fire`] did not fire."));
    quote! {
        #docs
        ///
        #holds
        #[derive(__fsm::Clone, __fsm::Copy, __fsm::Debug, __fsm::PartialEq, __fsm::Eq, __fsm::Hash)]
        pub struct #machine_ident {
            state: State,
            #memory_field
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
    memory: usize,
    snapshot: TokenStream,
) -> TokenStream {
    let machine_ident = &idents.machine;
    let empty_memory = if memory == 0 {
        TokenStream::new()
    } else {
        let n = crate::nested::index(memory);
        quote!(, &mut [__fsm::None; #n])
    };
    let (memory_init, from_state_doc, transition_doc) = if memory == 0 {
        (
            TokenStream::new(),
            quote! {
                /// A machine in `state`.
            },
            quote! {
                /// What firing `action` in `state` would do, without a machine.
            },
        )
    } else {
        let n = crate::nested::index(memory);
        (
            quote!(, last_active: [__fsm::None; #n]),
            quote! {
                /// A machine in `state`, remembering no composite's last active leaf.
            },
            quote! {
                /// What firing `action` in `state` would do, without a machine: from
                /// a machine in `state` that remembers nothing, so a history target
                /// enters its composite's initial states.
            },
        )
    };
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
    quote! {
        impl #machine_ident {
            #new_doc
            pub const fn new() -> Self {
                Self { state: State::#initial #memory_init }
            }

            #from_state_doc
            pub const fn from_state(state: State) -> Self {
                Self { state #memory_init }
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
                <Self as __fsm::Fire<#ty>>::fire(self, action, #argument)
            }

            /// True when firing `action` now would succeed. Changes nothing.
            #guards_doc
            #[inline]
            pub fn can_fire #generics(&self, action: Action #param) -> bool {
                <Self as __fsm::Fire<#ty>>::can_fire(self, &action, #argument)
            }

            #transition_doc
            #guards_doc
            #[inline]
            pub fn transition #generics(state: State, action: Action #param) -> __fsm::Result<Fired, FireError> {
                Self::fire_from(state #empty_memory, action, #argument)
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

        }

        __fsm::if_alloc! {
            impl #machine_ident {
                #snapshot
            }
        }
    }
}

/// `impl Machine` (`header` names the type, with its generics): names,
/// fingerprint, the event type and how to get its action, and the per-state
/// tables.
pub(crate) fn machine_impl(
    machine: &Machine,
    plan: &Plan,
    idents: &Idents,
    tables: &mut Tables,
    header: &TokenStream,
    event: &TokenStream,
    action_of: &TokenStream,
) -> TokenStream {
    let name = &machine.name;
    let fingerprint = machine.fingerprint();
    let initial = &idents.states[machine.initial_leaf().index()];
    let valid_arms = machine.leaves().map(|state| {
        let variant = &idents.states[state.index()];
        let actions = plan.leaf(state).actions.iter().map(|row| row.action).collect();
        let table = tables.valid_actions(actions);
        quote!(State::#variant => #table,)
    });
    let valid_arms: Vec<TokenStream> = valid_arms.collect();
    let terminal: Vec<&Ident> = machine
        .leaves()
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
        #header {
            type State = State;
            type Action = Action;
            type Output = Output;
            type Event = #event;
            type Outputs = &'static [Output];
            type Valid = &'static [Action];

            const NAME: &'static str = #name;
            const FINGERPRINT: &'static str = #fingerprint;
            const INITIAL: State = State::#initial;
            const TERMINAL: &'static [State] = &[#(State::#terminal),*];

            #[inline]
            fn state(&self) -> State {
                self.state
            }

            #[inline]
            fn action_of(event: &#event) -> Action {
                #action_of
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

/// `impl FireEvent` for a machine without guards: `Fire<NoGuards>` with the
/// guards left out, for generic code that fires as the inherent methods do.
/// Nothing for a machine with guards, which takes them per call.
pub(crate) fn unguarded_impl(has_guards: bool, idents: &Idents) -> TokenStream {
    if has_guards {
        return TokenStream::new();
    }
    let machine_ident = &idents.machine;
    quote! {
        impl __fsm::FireEvent for #machine_ident {
            #[inline]
            fn fire(&mut self, action: Action) -> __fsm::Result<Fired, FireError> {
                __fsm::Fire::fire(self, action, &__fsm::NoGuards)
            }

            #[inline]
            fn can_fire(&self, action: &Action) -> bool {
                __fsm::Fire::can_fire(self, action, &__fsm::NoGuards)
            }
        }
    }
}

/// `impl Fire<G>`, and the transition function `fire_from` it and
/// `transition` share. With history memory, `fire` reads and updates the
/// machine's memory, and `transition` starts from an empty one.
fn fire_impl(machine: &Machine, plan: &Plan, idents: &Idents, tables: &mut Tables) -> TokenStream {
    let machine_ident = &idents.machine;
    let g = &idents.guards_param;
    let bound = if machine.guards.is_empty() {
        TokenStream::new()
    } else {
        quote!(Guards+)
    };
    let memory = memory_slots(machine).len();
    let (params, body) = transition_body(machine, plan, idents, tables);
    let state = &params.state;
    let guards = &params.guards;
    let (memory_param, memory_arg, empty_memory, doc) = if memory == 0 {
        (
            TokenStream::new(),
            TokenStream::new(),
            TokenStream::new(),
            quote!(#[doc = " What firing `action` does from `state`."]),
        )
    } else {
        let n = crate::nested::index(memory);
        let last_active = &params.last_active;
        (
            quote!(#last_active: &mut [__fsm::Option<State>; #n],),
            quote!(&mut self.last_active,),
            quote!(&mut [__fsm::None; #n],),
            quote! {
                /// What firing `action` does from `state` with history memory
                /// `last_active`, which it updates when the action fires.
            },
        )
    };
    quote! {
        impl<#g: #bound ?__fsm::Sized> __fsm::Fire<#g> for #machine_ident {
            #[inline]
            fn fire(&mut self, action: Action, guards: &#g) -> __fsm::Result<Fired, FireError> {
                let result = Self::fire_from(self.state, #memory_arg action, guards);
                __fsm::Traced::trace(&result);
                if let __fsm::Ok(fired) = &result {
                    self.state = fired.to;
                }
                result
            }

            #[inline]
            fn can_fire(&self, action: &Action, guards: &#g) -> bool {
                Self::fire_from(self.state, #empty_memory *action, guards).is_ok()
            }
        }

        impl #machine_ident {
            #doc
            // Always inlined (into `fire` and `transition`, and with them
            // into the caller's loop): as an out-of-line call the state went
            // through memory, the `Result` back from the stack, and LLVM's
            // inliner refused it as too large (bench/README.md, "Nested
            // states: ns per event"). Inlined into the caller's loop, a flat
            // machine's `match` costs what a hand-written one does.
            #[inline(always)]
            fn fire_from<#g: #bound ?__fsm::Sized>(
                #state: State,
                #memory_param
                action: Action,
                #guards: &#g,
            ) -> __fsm::Result<Fired, FireError> {
                #body
            }
        }
    }
}
