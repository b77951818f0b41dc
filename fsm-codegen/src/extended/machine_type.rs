//! The machine type: its struct (the state, the context, the clock and the
//! deadlines, the history memory), its constructors, its inherent methods
//! and its `Debug` and `Clone` impls; the snapshot and restore methods
//! ([`super::restore`]), the timer methods ([`super::timers`]) and `fire`
//! ([`super::fire`]) are rendered beside it.

use super::Gen;
use crate::docs::{doc_attrs, doc_line};
use crate::nested::index;
use crate::tables::Tables;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// What the machine type holds besides its state, as the struct's fields,
/// the constructors' parameters and the arguments `new` passes on, and the
/// initialisers: the context, the clock and the deadlines (with timers) and
/// the history memory (with history targets). Empty when it holds none.
#[derive(Default)]
struct Held {
    ctx_field: TokenStream,
    ctx_param: TokenStream,
    ctx_arg: TokenStream,
    ctx_init: TokenStream,
    ty_default: TokenStream,
    clock_field: TokenStream,
    clock_param: TokenStream,
    clock_arg: TokenStream,
    clock_init: TokenStream,
    memory_field: TokenStream,
    memory_init: TokenStream,
}

/// `,` between two lists when both are nonempty.
fn comma_if(a: &TokenStream, b: &TokenStream) -> TokenStream {
    if a.is_empty() || b.is_empty() {
        TokenStream::new()
    } else {
        quote!(,)
    }
}

impl Gen<'_> {
    /// The machine type, its impls and the runtime's traits for it. Renders
    /// `fire` and `can_fire` before the timer methods: both add to `tables`.
    pub(super) fn machine_type(&self, tables: &mut Tables) -> TokenStream {
        let m = &self.machine_ident;
        let (generics, params) = self.type_generics();
        let held = self.held();
        let structure = self.machine_struct(&held);
        let (new_impl, default_impl) = self.constructors(&held);
        let with_clock = self.with_clock(&held);
        let ctx_accessors = self.context_accessors();
        let tree_methods = self.tree_methods();
        let fire = self.fire_methods(tables);
        let timer_methods = self.timer_methods(tables);
        let armed_timers = self.armed_timers(&generics, &params);
        let debug = self.debug_impl(&generics, &params);
        let clone = self.clone_impl(&params);
        let snapshots = self.snapshots(&generics, &params);
        let driven = self.trait_impls(&generics, &params);
        quote! {
            #structure

            #new_impl

            #default_impl

            impl #generics #m #params {
                #with_clock

                /// The current state.
                pub fn state(&self) -> State {
                    self.state
                }

                #ctx_accessors
                #tree_methods

                /// The actions that have a transition in the current state.
                pub fn valid_actions(&self) -> &'static [Action] {
                    <Self as __fsm::Machine>::valid_actions_in(self.state)
                }

                /// True when the current state is terminal.
                pub fn is_terminal(&self) -> bool {
                    <Self as __fsm::Machine>::is_terminal_state(self.state)
                }

                #fire

                #timer_methods
            }

            #armed_timers
            #debug
            #clone
            #snapshots
            #driven
        }
    }

    /// The fields, parameters and initialisers of what the machine holds
    /// besides its state.
    fn held(&self) -> Held {
        let mut held = Held::default();
        if let Some(ctx) = &self.context {
            held.ctx_field = quote!(context: #ctx,);
            held.ctx_param = quote!(context: #ctx);
            held.ctx_arg = quote!(context);
            held.ctx_init = quote!(context,);
        }
        if self.max_timers > 0 {
            let k = &self.clock_param;
            let n = Literal::usize_unsuffixed(self.deadline_slots);
            held.ty_default = quote!(<#k = __fsm::DefaultClock>);
            held.clock_field = quote!(clock: #k, deadlines: [__fsm::Option<__fsm::Timestamp>; #n],);
            held.clock_param = quote!(clock: #k);
            held.clock_arg = quote!(__fsm::SystemClock);
            held.clock_init = quote!(clock, deadlines: [__fsm::None; #n],);
        }
        if !self.memory.is_empty() {
            let memory_n = index(self.memory.len());
            held.memory_field = quote!(last_active: [__fsm::Option<State>; #memory_n],);
            held.memory_init = quote!(last_active: [__fsm::None; #memory_n],);
        }
        held
    }

    /// The struct, with its docs and derives.
    fn machine_struct(&self, held: &Held) -> TokenStream {
        let m = &self.machine_ident;
        let name = &self.machine.name;
        let docs = doc_attrs(&self.machine.docs, &format!("The `{name}` state machine."));
        let (struct_doc, derives) = match (&self.context, self.max_timers > 0) {
            (Some(_), _) => (
                quote! {
                    ///
                    /// It owns its context, which its guards read and its effects
                    /// update.
                },
                TokenStream::new(),
            ),
            (None, true) => (
                quote! {
                    ///
                    /// It holds its current state and the deadlines of its armed
                    /// timers, which it reads the time for from its clock.
                },
                quote!(#[derive(__fsm::Clone)]),
            ),
            (None, false) => (
                quote! {
                    ///
                    /// It holds only its current state.
                },
                quote!(#[derive(__fsm::Clone, __fsm::Copy, __fsm::PartialEq, __fsm::Eq, __fsm::Hash)]),
            ),
        };
        let Held {
            ty_default,
            ctx_field,
            clock_field,
            memory_field,
            ..
        } = held;
        quote! {
            #docs
            #struct_doc
            #derives
            pub struct #m #ty_default {
                state: State,
                #ctx_field
                #clock_field
                #memory_field
            }
        }
    }

    /// Items on the system clock, with timers, exist only with `std`.
    pub(super) fn if_std_with_timers(&self, items: TokenStream) -> TokenStream {
        if self.max_timers > 0 {
            quote!(__fsm::if_std! { #items })
        } else {
            items
        }
    }

    /// `new` (on the system clock, with timers) and, without a context,
    /// `Default`.
    fn constructors(&self, held: &Held) -> (TokenStream, TokenStream) {
        let m = &self.machine_ident;
        let initial = &self.idents.states[self.machine.initial_leaf().index()];
        let timers = self.max_timers > 0;
        let default_impl = if self.context.is_none() {
            self.if_std_with_timers(quote! {
                impl __fsm::Default for #m {
                    /// The machine in its initial state.
                    fn default() -> Self {
                        Self::new()
                    }
                }
            })
        } else {
            TokenStream::new()
        };
        let new_doc = doc_line(match (&self.context, timers) {
            (Some(_), true) => {
                "The machine in its initial state, owning `context`, timed by the system clock."
            }
            (Some(_), false) => "The machine in its initial state, owning `context`.",
            (None, true) => "The machine in its initial state, timed by the system clock.",
            (None, false) => "The machine in its initial state.",
        });
        let Held {
            ctx_param,
            ctx_arg,
            ctx_init,
            clock_arg,
            memory_init,
            ..
        } = held;
        let arg_sep = comma_if(ctx_arg, clock_arg);
        let new_body = if timers {
            quote!(Self::with_clock(#ctx_arg #arg_sep #clock_arg))
        } else {
            quote!(Self { state: State::#initial, #ctx_init #memory_init })
        };
        let new_impl = self.if_std_with_timers(quote! {
            impl #m {
                #new_doc
                pub fn new(#ctx_param) -> Self {
                    #new_body
                }
            }
        });
        (new_impl, default_impl)
    }

    /// `with_clock`, with timers: a new machine timed by the clock given,
    /// its initial state's timers armed.
    fn with_clock(&self, held: &Held) -> TokenStream {
        if self.max_timers == 0 {
            return TokenStream::new();
        }
        let initial = &self.idents.states[self.machine.initial_leaf().index()];
        let doc = doc_line(if self.context.is_some() {
            "The machine in its initial state, owning `context`, timed by `clock`."
        } else {
            "The machine in its initial state, timed by `clock`."
        });
        let Held {
            ctx_param,
            ctx_init,
            clock_param,
            clock_init,
            memory_init,
            ..
        } = held;
        let new_sep = comma_if(ctx_param, clock_param);
        quote! {
            #doc
            pub fn with_clock(#ctx_param #new_sep #clock_param) -> Self {
                let mut machine = Self { state: State::#initial, #ctx_init #clock_init #memory_init };
                machine.arm_timers();
                machine
            }
        }
    }

    /// `context`, `context_mut` and `into_context`, with a context.
    fn context_accessors(&self) -> TokenStream {
        let Some(ctx) = &self.context else {
            return TokenStream::new();
        };
        quote! {
            /// The context.
            pub fn context(&self) -> &#ctx {
                &self.context
            }

            /// The context, to change outside any transition.
            pub fn context_mut(&mut self) -> &mut #ctx {
                &mut self.context
            }

            /// The machine's context, giving the machine up.
            pub fn into_context(self) -> #ctx {
                self.context
            }
        }
    }

    /// `is_in` and the history memory's methods, with nested states.
    fn tree_methods(&self) -> TokenStream {
        if !self.nested {
            return TokenStream::new();
        }
        let memory = crate::machine::memory_items(self.machine, &self.idents, quote!(self.last_active));
        quote! {
            /// True when the machine is inside `composite`: when its state
            /// lies in it, at any depth.
            pub fn is_in(&self, composite: Composite) -> bool {
                self.state.is_in(composite)
            }

            #memory
        }
    }

    /// `Debug`: the state, the context, the deadlines and the memory.
    fn debug_impl(&self, generics: &TokenStream, params: &TokenStream) -> TokenStream {
        let m = &self.machine_ident;
        let name = &self.machine.name;
        let context = self
            .context
            .as_ref()
            .map(|_| quote!(.field("context", &self.context)));
        let deadlines = (self.max_timers > 0).then(|| quote!(.field("deadlines", &self.deadlines)));
        let memory = (!self.memory.is_empty()).then(|| quote!(.field("last_active", &self.last_active)));
        let debug_fields = quote!(f.debug_struct(#name).field("state", &self.state) #context #deadlines #memory .finish_non_exhaustive());
        let debug_bound = match &self.context {
            Some(ctx) => quote!(where for<'a> #ctx: __fsm::Debug),
            None => TokenStream::new(),
        };
        quote! {
            /// The state, the context and the deadlines of the armed timers
            /// (not the clock).
            impl #generics __fsm::Debug for #m #params #debug_bound {
                fn fmt(&self, f: &mut __fsm::fmt::Formatter<'_>) -> __fsm::fmt::Result {
                    #debug_fields
                }
            }
        }
    }

    /// A machine with a context is `Clone` when its context (and clock)
    /// is: a copy to try a change on, kept only if it saves. (Without a
    /// context the struct derives it.)
    fn clone_impl(&self, params: &TokenStream) -> TokenStream {
        let Some(ctx) = &self.context else {
            return TokenStream::new();
        };
        let m = &self.machine_ident;
        let (clone_generics, clock) = if self.max_timers > 0 {
            let k = &self.clock_param;
            (
                quote!(<#k: __fsm::Clock + __fsm::Clone>),
                quote!(clock: __fsm::Clone::clone(&self.clock), deadlines: self.deadlines,),
            )
        } else {
            (TokenStream::new(), TokenStream::new())
        };
        let memory = if self.memory.is_empty() {
            TokenStream::new()
        } else {
            quote!(last_active: self.last_active,)
        };
        quote! {
            /// A copy: the state, a clone of the context, the clock and the
            /// deadlines.
            impl #clone_generics __fsm::Clone for #m #params
            where
                for<'a> #ctx: __fsm::Clone,
            {
                fn clone(&self) -> Self {
                    Self {
                        state: self.state,
                        context: __fsm::Clone::clone(&self.context),
                        #clock
                        #memory
                    }
                }
            }
        }
    }
}
