//! The module of a machine with a context: the `Event` enum (actions with
//! their payloads), the `Context` trait (guards, effects and delays), the
//! runtime's result types for it, and the machine type, which owns the
//! context, a clock and the deadlines of its armed timers and implements
//! the runtime's traits as every machine does.
//!
//! Every rule of a step (which candidates are tried, what a step runs,
//! emits, arms and disarms) comes from the plan ([`fsm_grammar::plan`]);
//! this module renders it. An action's guards read the context as it was
//! before the firing, and the guards of the `always` and `done` steps after
//! it read it as the steps before them left it ([`Chain`]); only the chosen
//! transitions' effects run; a rejected event runs nothing and is handed
//! back.

use crate::chain::{trials, Chain};
use crate::docs::{doc_attrs, doc_line, module_docs};
use crate::guards::{condition_with, decided};
use crate::idents::{value_ident, Idents};
use crate::machine::{enums, machine_impl, module_lints, module_prelude};
use crate::nested::{dispatch, index, records};
use crate::options::{Options, Spans};
use crate::tables::Tables;
use fsm_grammar::model::{Delay, GuardId, Machine, StateId, Symbol, TimerId};
use fsm_grammar::plan::{self, Plan};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeSet;
use std::str::FromStr;

/// A Rust type written in the `.fsm` text, as tokens.
fn rust_type(text: &str) -> TokenStream {
    TokenStream::from_str(text).unwrap_or_else(|_| {
        let message = format!("`{text}` is not a Rust type");
        quote!(::core::compile_error!(#message))
    })
}

/// Where the time a step arms its timers from comes from: the clock is
/// read once per `fire` (and once per `fire_due` or `fire_next_due`), and
/// every timer armed during it counts from that reading (docs/dsl.md, "How
/// a step runs").
#[derive(Clone, Copy)]
enum Time {
    /// In `fire`: read the clock, once, when a microstep first arms a timer.
    Read,
    /// In `fire_due_at`: the `now` it was given, in scope.
    Given,
}

/// What every generator of the module needs.
pub(crate) struct Gen<'a> {
    machine: &'a Machine,
    /// What each step does: the one statement of the rules, rendered here.
    plan: Plan,
    pub(crate) idents: Idents,
    /// The machine type: `Router`.
    machine_ident: Ident,
    /// The context type; `None` for a machine with payloads or timers but
    /// no context, whose guards the caller passes to `fire` as today.
    pub(crate) context: Option<TokenStream>,
    /// Whether `fire` takes an `Event` (a context or a payload) rather than
    /// an `Action`.
    pub(crate) events: bool,
    /// Whether the guards are a `Guards` value the caller passes (no context,
    /// some guards).
    guards_arg: bool,
    pub(crate) effects: Vec<Ident>,
    pub(crate) delays: Vec<Ident>,
    /// Most timers any state has (nonzero when the machine has timers).
    max_timers: usize,
    /// The length of the deadlines array: the plan's slots, the most timers
    /// armed at once.
    deadline_slots: usize,
    /// Whether the machine has nested states.
    nested: bool,
    /// The composite states whose last active leaf the machine keeps.
    memory: Vec<StateId>,
    /// The clock's type parameter: `K`, or `K2` for a machine named `K`.
    clock_param: Ident,
    /// Where the declarations are in the user's source.
    spans: Spans,
}

/// Whether `machine` needs this module rather than the plain one: a context,
/// a payload or a timer.
pub(crate) fn is_extended(machine: &Machine) -> bool {
    machine.has_data_or_timers()
}

impl<'a> Gen<'a> {
    /// What the generators of a machine with a context, payloads or timers
    /// share; the parallel module uses its `Event` enum and `Context` trait.
    pub(crate) fn new(machine: &'a Machine, options: &Options) -> Gen<'a> {
        let idents = Idents::new(machine);
        let machine_ident = idents.machine.clone();
        // Spanning the declaration: rustc's errors about the type (it does not
        // resolve, it lacks a trait a bound asks for) point there.
        let context = machine
            .context
            .as_ref()
            .map(|c| options.spans.respan(c.span, rust_type(&c.text)));
        let max_timers = machine
            .state_ids()
            .map(|s| machine.timers_of(s).count())
            .max()
            .unwrap_or(0);
        let events = context.is_some() || machine.actions.iter().any(|a| a.payload.is_some());
        let clock_param = if machine_ident == "K" { "K2" } else { "K" };
        let nested = machine.is_nested();
        let plan = Plan::new(machine);
        Gen {
            deadline_slots: plan.deadline_slots,
            nested,
            memory: crate::nested::memory_slots(machine),
            plan,
            machine,
            effects: machine.effects.iter().map(|e| value_ident(&e.name)).collect(),
            delays: machine.delays.iter().map(|d| value_ident(&d.name)).collect(),
            guards_arg: context.is_none() && !machine.guards.is_empty(),
            idents,
            machine_ident,
            context,
            events,
            max_timers,
            clock_param: Ident::new(clock_param, Span::call_site()),
            spans: options.spans.clone(),
        }
    }
}

/// `pub mod <snake_name> { ... }` for a checked machine with a context, a
/// payload or a timer.
pub(crate) fn extended_module(machine: &Machine, options: &Options) -> TokenStream {
    let gen = Gen::new(machine, options);
    let enums = enums(machine, &gen.idents);
    let mut tables = Tables::default();
    let module = &gen.idents.module;
    let docs = module_docs(machine, options);
    let prelude = module_prelude(options);
    let lints = module_lints();
    let event = if gen.events {
        gen.event_enum()
    } else {
        TokenStream::new()
    };
    let trait_ = gen.context_trait();
    let core = gen.result_types();
    let (generics, params) = gen.type_generics();
    let event_ty = if gen.events { quote!(Event) } else { quote!(Action) };
    let action_of = if gen.events {
        quote!(event.action())
    } else {
        quote!(*event)
    };
    let core_impl = machine_impl(
        machine,
        &gen.plan,
        &gen.idents,
        &mut tables,
        &{
            let m = &gen.machine_ident;
            quote!(impl #generics __fsm::Machine for #m #params)
        },
        &event_ty,
        &action_of,
    );
    let machine_type = gen.machine_type(&mut tables);
    let composites = if gen.memory.is_empty() {
        TokenStream::new()
    } else {
        crate::machine::memory_composites(machine, &gen.idents)
    };
    let statics = tables.statics(&gen.idents);
    quote! {
        #docs
        #lints
        // The context and payload types are the user's, often private to
        // the module that generates the machine, whose items are `pub`.
        #[allow(private_interfaces, private_bounds)]
        pub mod #module {
            #prelude
            // Type paths in the `.fsm` text resolve where the machine is
            // generated; the module's own items shadow glob imports.
            #[allow(unused_imports)]
            use super::*;
            #enums
            #event
            #trait_
            #core
            #core_impl
            #machine_type
            #composites
            #statics
        }
    }
}

impl Gen<'_> {
    pub(crate) fn payload(&self, symbol: &Symbol) -> Option<TokenStream> {
        symbol
            .payload
            .as_ref()
            .map(|p| self.spans.respan(p.span, rust_type(&p.text)))
    }

    pub(crate) fn event_enum(&self) -> TokenStream {
        let m = &self.machine_ident;
        let variants = self
            .machine
            .actions
            .iter()
            .zip(&self.idents.actions)
            .map(|(a, v)| {
                let docs = doc_attrs(&a.docs, &format!("The action `{}`.", a.name));
                match self.payload(a) {
                    Some(ty) => quote!(#docs #v(#ty),),
                    None => quote!(#docs #v,),
                }
            });
        let arms: Vec<TokenStream> = self
            .machine
            .actions
            .iter()
            .zip(&self.idents.actions)
            .map(|(a, v)| {
                if a.payload.is_some() {
                    quote!(Event::#v(..) => Action::#v,)
                } else {
                    quote!(Event::#v => Action::#v,)
                }
            })
            .collect();
        let doc = doc_line(&format!(
            "The events [`{m}`] accepts: its actions, each with its payload."
        ));
        let traits = self.event_traits();
        // Without payloads the traits hold unconditionally: derived.
        let derives = if self.payload_types().is_empty() {
            quote! {
                #[derive(__fsm::Clone, __fsm::Copy, __fsm::PartialEq, __fsm::Eq, __fsm::Hash)]
            }
        } else {
            TokenStream::new()
        };
        quote! {
            #doc
            ///
            /// `Debug` shows a payload whose type is `Debug`, and `..` for one
            /// whose type is not. `Clone`, `Copy`, `PartialEq`, `Eq`, `Hash`
            /// and, with `fsm-runtime`'s `serde` feature, `Serialize` and
            /// `Deserialize` are implemented when every payload type has
            /// them, as `#[derive]` would for type parameters; a payload type
            /// without one leaves `Event` without it. Serialized, an event is
            /// its action's name (`"open"`), or the name and the payload
            /// (`{"user_input": "hello"}` in JSON).
            #derives
            pub enum Event {
                #(#variants)*
            }

            impl Event {
                /// The action of the event.
                pub const fn action(&self) -> Action {
                    match *self {
                        #(#arms)*
                    }
                }
            }

            #traits
        }
    }

    /// The payload types of the actions, each once: the bounds of the
    /// traits `Event` has when its payloads do.
    fn payload_types(&self) -> Vec<TokenStream> {
        let mut types: Vec<TokenStream> = Vec::new();
        for action in &self.machine.actions {
            if let Some(ty) = self.payload(action) {
                if !types.iter().any(|t| t.to_string() == ty.to_string()) {
                    types.push(ty);
                }
            }
        }
        types
    }

    /// `Debug`, always (a payload shown as `..` when its type is not
    /// `Debug`), and `Clone`, `Copy`, `PartialEq`, `Eq`, `Hash`, `Serialize`
    /// and `Deserialize` with a bound on every payload type.
    ///
    /// A bound on a concrete type that does not hold (`NotClone: Clone`) is
    /// an error on stable Rust unless it is higher-ranked: hence
    /// `for<'a> NotClone: Clone`, under which the impl exists and never
    /// applies, as a derive's on a generic enum whose parameter lacks the
    /// trait.
    fn event_traits(&self) -> TokenStream {
        let types = self.payload_types();
        let debug = self.event_debug();
        let serde = self.event_serde();
        if types.is_empty() {
            // Derived on the enum.
            return quote!(#debug #serde);
        }
        // Some action has a payload: the enum has variants.
        let bound = |bound: TokenStream| quote!(where #(for<'a> #types: #bound,)*);
        let clone_bound = bound(quote!(__fsm::Clone));
        let copy_bound = bound(quote!(__fsm::Copy));
        let eq_bound = bound(quote!(__fsm::PartialEq));
        let total_bound = bound(quote!(__fsm::Eq));
        let hash_bound = bound(quote!(__fsm::Hash));
        let actions = self.machine.actions.iter().zip(&self.idents.actions);
        let mut clones = Vec::new();
        let mut eqs = Vec::new();
        let mut hashes = Vec::new();
        for (action, v) in actions {
            if action.payload.is_some() {
                clones.push(quote!(Event::#v(payload) => Event::#v(__fsm::Clone::clone(payload)),));
                eqs.push(quote!((Event::#v(a), Event::#v(b)) => __fsm::PartialEq::eq(a, b),));
                hashes.push(quote!(Event::#v(payload) => __fsm::Hash::hash(payload, state),));
            } else {
                clones.push(quote!(Event::#v => Event::#v,));
                eqs.push(quote!((Event::#v, Event::#v) => true,));
                hashes.push(quote!(Event::#v => {}));
            }
        }
        let other_eq = if self.machine.actions.len() > 1 {
            quote!(_ => false,)
        } else {
            TokenStream::new()
        };
        quote! {
            #debug

            // Clippy would have `*self` where `Event` is `Copy`, which it is
            // only for some payload types.
            #[allow(clippy::non_canonical_clone_impl, clippy::expl_impl_clone_on_copy)]
            impl __fsm::Clone for Event #clone_bound {
                fn clone(&self) -> Self {
                    match self { #(#clones)* }
                }
            }

            impl __fsm::Copy for Event #copy_bound {}

            impl __fsm::PartialEq for Event #eq_bound {
                fn eq(&self, other: &Self) -> bool {
                    match (self, other) { #(#eqs)* #other_eq }
                }
            }

            impl __fsm::Eq for Event #total_bound {}

            impl __fsm::Hash for Event #hash_bound {
                fn hash<H: __fsm::Hasher>(&self, state: &mut H) {
                    __fsm::Hash::hash(&self.action(), state);
                    match self { #(#hashes)* }
                }
            }

            #serde
        }
    }

    /// `Debug`: the variant, and its payload when the payload's type is
    /// `Debug` (`..` otherwise), chosen on the concrete payload type by
    /// method resolution (see `fsm_runtime::__private::DebugPayload`).
    fn event_debug(&self) -> TokenStream {
        let names: Vec<TokenStream> = self
            .machine
            .actions
            .iter()
            .zip(&self.idents.actions)
            .map(|(a, v)| {
                let name = v.to_string();
                if a.payload.is_some() {
                    // A reference, as the method of `PayloadDebug` takes
                    // it: `PayloadOpaque`'s takes one more.
                    quote! {
                        Event::#v(payload) => {
                            let payload = &__fsm::DebugPayload(payload);
                            f.debug_tuple(#name).field(payload.fsm_payload_debug()).finish()
                        }
                    }
                } else {
                    quote!(Event::#v => f.write_str(#name),)
                }
            })
            .collect();
        let uses = if self.machine.actions.iter().any(|a| a.payload.is_some()) {
            quote! {
                // One of the two is used, depending on the payload types.
                #[allow(unused_imports)]
                use __fsm::{PayloadDebug as _, PayloadOpaque as _};
            }
        } else {
            TokenStream::new()
        };
        let body = if self.machine.actions.is_empty() {
            quote!(match *self {})
        } else {
            quote!(match self { #(#names)* })
        };
        quote! {
            /// The variant and its payload; a payload whose type is not
            /// `Debug` shows as `..`.
            impl __fsm::fmt::Debug for Event {
                fn fmt(&self, f: &mut __fsm::fmt::Formatter<'_>) -> __fsm::fmt::Result {
                    #uses
                    #body
                }
            }
        }
    }

    /// `Serialize` and `Deserialize` as serde's derive writes an externally
    /// tagged enum, with the actions' `.fsm` names, under the runtime's
    /// `serde` feature.
    fn event_serde(&self) -> TokenStream {
        let types = self.payload_types();
        let serialize_bound = if types.is_empty() {
            TokenStream::new()
        } else {
            quote!(where #(for<'a> #types: __fsm::Serialize,)*)
        };
        // The lifetime `'de` makes these bounds generic: no `for<'a>`.
        let deserialize_bound = if types.is_empty() {
            TokenStream::new()
        } else {
            quote!(where #(#types: __fsm::serde::Deserialize<'de>,)*)
        };
        let mut writes = Vec::new();
        let mut reads = Vec::new();
        for (i, (action, v)) in self.machine.actions.iter().zip(&self.idents.actions).enumerate() {
            let name = action.name.as_str();
            let i = Literal::u32_unsuffixed(i as u32);
            if action.payload.is_some() {
                writes.push(quote! {
                    Event::#v(payload) => __fsm::serde::Serializer::serialize_newtype_variant(serializer, "Event", #i, #name, payload),
                });
                reads.push(quote! {
                    Action::#v => __fsm::serde::de::VariantAccess::newtype_variant(variant).map(Event::#v),
                });
            } else {
                writes.push(quote! {
                    Event::#v => __fsm::serde::Serializer::serialize_unit_variant(serializer, "Event", #i, #name),
                });
                reads.push(quote! {
                    Action::#v => __fsm::serde::de::VariantAccess::unit_variant(variant).map(|()| Event::#v),
                });
            }
        }
        let allow_unused = if self.machine.actions.is_empty() {
            quote!(#[allow(unused_variables)])
        } else {
            TokenStream::new()
        };
        let (write, read) = if self.machine.actions.is_empty() {
            (quote!(match *self {}), quote!(match action {}))
        } else {
            (
                quote!(match self { #(#writes)* }),
                quote!(match action { #(#reads)* }),
            )
        };
        quote! {
            __fsm::if_serde! {
                impl __fsm::Serialize for Event #serialize_bound {
                    #allow_unused
                    fn serialize<S: __fsm::serde::Serializer>(&self, serializer: S) -> __fsm::Result<S::Ok, S::Error> {
                        #write
                    }
                }

                impl<'de> __fsm::serde::Deserialize<'de> for Event #deserialize_bound {
                    fn deserialize<D: __fsm::serde::Deserializer<'de>>(deserializer: D) -> __fsm::Result<Self, D::Error> {
                        __fsm::deserialize_event(deserializer)
                    }
                }

                impl<'de> __fsm::EventVariants<'de> for Event #deserialize_bound {
                    type Action = Action;

                    #allow_unused
                    fn variant<V: __fsm::serde::de::VariantAccess<'de>>(action: Action, variant: V) -> __fsm::Result<Self, V::Error> {
                        #read
                    }
                }
            }
        }
    }

    pub(crate) fn context_trait(&self) -> TokenStream {
        use crate::user_trait::{impl_section, method, Kind};
        let m = &self.machine_ident;
        let guards = self
            .machine
            .guards
            .iter()
            .zip(&self.idents.guards)
            .map(|(g, ident)| {
                let fallback = format!("Whether the guard `{}` holds.", g.name);
                method(&self.spans, g, ident, Kind::Guard, self.payload(g), &fallback)
            });
        let guards: Vec<_> = guards.collect();
        if self.context.is_none() {
            if self.machine.guards.is_empty() {
                return TokenStream::new();
            }
            let doc = doc_line(&format!(
                "The conditions [`{m}`] asks about when an event has guarded transitions or timers."
            ));
            let section = impl_section("Guards", "YourGuards", &guards);
            let guards = guards.iter().map(|g| &g.tokens);
            return quote! {
                #doc
                /// The caller implements them over whatever state it carries;
                /// a guard declared with a payload type also reads the
                /// payload of the event.
                ///
                /// Each guard is evaluated only when a candidate transition
                /// needs it, and at most once per `fire`.
                #section
                // The payload types are the user's, as written (`&String`).
                #[allow(clippy::ptr_arg)]
                pub trait Guards {
                    #(#guards)*
                }
            };
        }
        let effects = self.machine.effects.iter().zip(&self.effects).map(|(e, ident)| {
            let fallback = format!("The effect `{}`.", e.name);
            method(&self.spans, e, ident, Kind::Effect, self.payload(e), &fallback)
        });
        let delays = self.machine.delays.iter().zip(&self.delays).map(|(d, ident)| {
            let fallback = format!("The delay `{}`.", d.name);
            method(&self.spans, d, ident, Kind::Delay, None, &fallback)
        });
        let methods: Vec<_> = guards.into_iter().chain(effects).chain(delays).collect();
        let context = self.machine.context.as_ref().map_or("", |c| c.text.as_str());
        let section = impl_section("Context", context, &methods);
        let methods = methods.iter().map(|m| &m.tokens);
        let doc = doc_line(&format!(
            "What [`{m}`]'s context does: its guards (`&self`), effects (`&mut self`) and delays."
        ));
        quote! {
            #doc
            ///
            /// Guards read the context as it was before the event; only the
            /// chosen transition's effects run, in the order of its outputs
            /// (exit hook, the transition's `do`, enter hook). A delay is read
            /// when its state is entered, after the effects.
            #section
            // The payload types are the user's, as written (`&String`).
            #[allow(clippy::ptr_arg)]
            pub trait Context {
                #(#methods)*
            }
        }
    }

    /// `<K: Clock>` and `<K>` for a machine with timers, generic over its
    /// clock; nothing otherwise.
    fn type_generics(&self) -> (TokenStream, TokenStream) {
        if self.max_timers > 0 {
            let k = &self.clock_param;
            (quote!(<#k: __fsm::Clock>), quote!(<#k>))
        } else {
            (TokenStream::new(), TokenStream::new())
        }
    }

    /// The runtime's result types for this machine, by their short names:
    /// generic over the clock (the system clock by default) with timers.
    fn result_types(&self) -> TokenStream {
        let m = &self.machine_ident;
        let (with_default, machine) = if self.max_timers > 0 {
            let k = &self.clock_param;
            (quote!(<#k = __fsm::DefaultClock>), quote!(#m<#k>))
        } else {
            (TokenStream::new(), quote!(#m))
        };
        let fired_doc = doc_line(&format!("What a successful [`{m}::fire`] reports."));
        let error_doc = if self.events {
            doc_line(&format!(
                "Why [`{m}::fire`] did not fire, with the event handed back (`event`, `into_event`)."
            ))
        } else {
            doc_line(&format!("Why [`{m}::fire`] did not fire."))
        };
        let timers = if self.max_timers > 0 {
            quote! {
                /// A timer that fired.
                pub type TimerFired #with_default = __fsm::TimerFired<#machine>;

                /// Timers that came due while none of their guards held.
                pub type TimerRejected #with_default = __fsm::TimerRejected<#machine>;
            }
        } else {
            TokenStream::new()
        };
        quote! {
            #fired_doc
            pub type Fired #with_default = __fsm::Fired<#machine>;

            #error_doc
            pub type FireError #with_default = __fsm::FireError<#machine>;

            #timers
        }
    }

    /// `<G: Guards + ?Sized>` on the methods that take the caller's guards.
    fn guards_generics(&self) -> TokenStream {
        if self.guards_arg {
            let g = &self.idents.guards_param;
            quote!(<#g: Guards + ?__fsm::Sized>)
        } else {
            TokenStream::new()
        }
    }

    /// `, guards: &G`, the caller's guards.
    fn guards_param(&self) -> TokenStream {
        if self.guards_arg {
            let g = &self.idents.guards_param;
            quote!(, guards: &#g)
        } else {
            TokenStream::new()
        }
    }

    /// `#[allow(unused_variables)]` for a method that takes the caller's
    /// guards when none of `guards` needs them.
    fn allow_unused_guards(&self, guards: impl IntoIterator<Item = bool>) -> TokenStream {
        let mut guards = guards.into_iter();
        if self.guards_arg && !guards.any(|guarded| guarded) {
            quote!(#[allow(unused_variables)])
        } else {
            TokenStream::new()
        }
    }

    /// `, guards`, passing the caller's guards on.
    fn guards_pass(&self) -> TokenStream {
        if self.guards_arg {
            quote!(, guards)
        } else {
            TokenStream::new()
        }
    }

    /// The effects of a step, in order. `payload`: the payload is bound,
    /// for the calls the plan gives it to (a transition's own `do` with an
    /// effect that declares one).
    fn effect_calls(&self, effects: &[plan::EffectCall], payload: bool) -> TokenStream {
        effects
            .iter()
            .map(|call| {
                let e = call.effect;
                let method = &self.effects[e.index()];
                if payload && call.payload && self.machine.effects[e.index()].payload.is_some() {
                    quote!(Context::#method(&mut self.context, payload);)
                } else {
                    quote!(Context::#method(&mut self.context);)
                }
            })
            .collect()
    }

    /// Run `step` from leaf `from` (effects, state change, timers, history
    /// memory) and give its `to` and outputs table. With a history target,
    /// one case per path the memory selects.
    fn take(
        &self,
        tables: &mut Tables,
        from: StateId,
        step: &plan::Step,
        payload: bool,
        time: Time,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let now = match time {
            Time::Read => Some(quote!(__fsm::Clock::now(&self.clock))),
            Time::Given => None,
        };
        let slot = |i: usize| {
            let i = index(i);
            quote!(self.last_active[#i])
        };
        let record = records(step, from, &self.idents, &slot);
        let mut case_code = |case: &plan::Case| {
            let mv = &case.mv;
            let effects = self.effect_calls(&mv.effects, payload);
            let outputs = tables.outputs(mv.outputs.clone());
            let Some(to) = mv.to else {
                return (effects, quote!(state), outputs);
            };
            let variant = &self.idents.states[to.index()];
            let disarm = self.disarm(&mv.disarm);
            let arm = self.arm(&mv.arm, now.as_ref());
            let timers = quote!(#disarm #arm);
            (
                quote!(#effects self.state = State::#variant; #timers),
                quote!(State::#variant),
                outputs,
            )
        };
        if step.read.is_none() {
            let (run, to, outputs) = case_code(step.default_case());
            return (quote!(#run #record), to, outputs);
        }
        let chosen = dispatch(step, &self.idents, &slot, &mut |case| {
            let (run, to, outputs) = case_code(case);
            quote!({ #run (#to, #outputs) })
        });
        let run = quote! {
            let (entered, table): (State, &'static [Output]) = #chosen;
            #record
        };
        (run, quote!(entered), quote!(table))
    }

    /// [`take`](Self::take) for a machine with `always` or `done`
    /// transitions: `step` and the steps that follow it in the same `fire`,
    /// as an expression of the leaf it ends in, the outputs of the whole
    /// chain and whether it stayed internal ([`Chain`]).
    ///
    /// Every timer the chain arms counts from one time: `now`, in scope,
    /// when a timer fired ([`Time::Given`]), or the clock read when the
    /// first microstep arms one, in `fire` ([`Time::Read`]).
    fn chain(
        &self,
        tables: &mut Tables,
        from: StateId,
        step: &plan::Step,
        payload: bool,
        time: Time,
    ) -> TokenStream {
        let now = match time {
            Time::Read => Some(quote!(
                *clock_read.get_or_insert_with(|| __fsm::Clock::now(&self.clock))
            )),
            Time::Given => None,
        };
        let slot = |i: usize| {
            let i = index(i);
            quote!(self.last_active[#i])
        };
        let run_move = |mv: &plan::Move, payload: bool| {
            let effects = self.effect_calls(&mv.effects, payload);
            let Some(to) = mv.to else {
                return effects;
            };
            let variant = &self.idents.states[to.index()];
            let disarm = self.disarm(&mv.disarm);
            let arm = self.arm(&mv.arm, now.as_ref());
            quote!(#effects self.state = State::#variant; #disarm #arm)
        };
        let call = self.guard_call(false);
        let chain = Chain {
            machine: self.machine,
            plan: &self.plan,
            idents: &self.idents,
            run_move: &run_move,
            slot: &slot,
            call: &call,
        };
        let chained = chain.step(tables, from, step, payload, &[], true);
        match time {
            Time::Read => quote!({
                // The time every timer of this `fire` counts from, read once.
                #[allow(unused_mut, unused_variables)]
                let mut clock_read: __fsm::Option<__fsm::Timestamp> = __fsm::None;
                #chained
            }),
            Time::Given => chained,
        }
    }

    /// The timers of the timer groups `groups`, state by state in the order
    /// given, each state's in declaration order (slot order).
    fn group_timers(&self, groups: &[usize]) -> Vec<(StateId, Vec<TimerId>)> {
        let mut states: Vec<(StateId, Vec<TimerId>)> = Vec::new();
        for &g in groups {
            let group = &self.plan.timer_groups[g];
            let timers = group.timers.iter().map(|&(id, _)| id);
            match states.last_mut() {
                Some((state, list)) if *state == group.state => list.extend(timers),
                _ => states.push((group.state, timers.collect())),
            }
        }
        for (_, timers) in &mut states {
            timers.sort();
        }
        states
    }

    /// Disarm the timers of the groups `groups`, each in its slot.
    fn disarm(&self, groups: &[usize]) -> TokenStream {
        self.group_timers(groups)
            .into_iter()
            .flat_map(|(_, timers)| timers)
            .map(|id| {
                let slot = index(self.plan.timer_slots[id.index()]);
                quote!(self.deadlines[#slot] = __fsm::None;)
            })
            .collect()
    }

    /// Arm the timers of the groups `groups`, entered in this order, from
    /// `now` (an expression of the time; `None`: the local `now` in scope);
    /// each state's named delays are read once.
    fn arm(&self, groups: &[usize], now: Option<&TokenStream>) -> TokenStream {
        let blocks: Vec<TokenStream> = self
            .group_timers(groups)
            .into_iter()
            .map(|(_, timers)| {
                let mut named: Vec<usize> = Vec::new();
                let sets: Vec<TokenStream> = timers
                    .iter()
                    .map(|&id| {
                        let slot = index(self.plan.timer_slots[id.index()]);
                        let delay = self.delay_tokens(self.machine.timers[id.index()].delay, &mut named);
                        quote!(self.deadlines[#slot] = __fsm::Some(__fsm::deadline(now, #delay));)
                    })
                    .collect();
                let locals = self.delay_locals(&named);
                quote!({ #locals #(#sets)* })
            })
            .collect();
        if blocks.is_empty() {
            return TokenStream::new();
        }
        match now {
            Some(now) => quote! {
                let now = #now;
                #(#blocks)*
            },
            None => quote!(#(#blocks)*),
        }
    }

    /// A timer's delay as an expression: a literal, or the local holding a
    /// named delay (added to `named`).
    fn delay_tokens(&self, delay: Delay, named: &mut Vec<usize>) -> TokenStream {
        match delay {
            Delay::Literal(d) => {
                let millis = Literal::u64_unsuffixed(d.as_millis() as u64);
                quote!(__fsm::Duration::from_millis(#millis))
            }
            Delay::Named(d) => {
                if !named.contains(&d.index()) {
                    named.push(d.index());
                }
                let local = format_ident!("delay_{}", d.index());
                quote!(#local)
            }
        }
    }

    /// `let delay_N = Context::name(&self.context);` for each named delay.
    fn delay_locals(&self, named: &[usize]) -> TokenStream {
        named
            .iter()
            .map(|&d| {
                let local = format_ident!("delay_{d}");
                let method = &self.delays[d];
                quote!(let #local = Context::#method(&self.context);)
            })
            .collect()
    }

    fn guard_call(&self, payload: bool) -> impl Fn(GuardId) -> TokenStream + '_ {
        move |g: GuardId| {
            let method = &self.idents.guards[g.index()];
            let (owner, receiver) = if self.context.is_some() {
                (quote!(Context), quote!(&self.context))
            } else {
                (quote!(Guards), quote!(guards))
            };
            if payload && self.machine.guards[g.index()].payload.is_some() {
                quote!(#owner::#method(#receiver, payload))
            } else {
                quote!(#owner::#method(#receiver))
            }
        }
    }

    /// Whether the guards of `candidates` read the payload.
    fn guards_use_payload(&self, candidates: &[plan::Candidate]) -> bool {
        candidates.iter().any(|c| {
            let mut vars = Vec::new();
            if let Some(g) = &self.machine.transition(c.transition).guard {
                g.expr.vars(&mut vars);
            }
            vars.iter()
                .any(|g| self.machine.guards[g.index()].payload.is_some())
        })
    }

    fn uses_payload(&self, candidates: &[plan::Candidate]) -> bool {
        candidates.iter().any(|c| {
            let transition = self.machine.transition(c.transition);
            let mut vars = Vec::new();
            if let Some(g) = &transition.guard {
                g.expr.vars(&mut vars);
            }
            vars.iter()
                .any(|g| self.machine.guards[g.index()].payload.is_some())
                || transition
                    .effects
                    .iter()
                    .any(|e| self.machine.effects[e.index()].payload.is_some())
        })
    }

    /// The body of `fire` or, with `check`, of `can_fire`: the same choice
    /// of candidate, which in `can_fire` runs no effect and builds no result.
    fn fire_body(&self, tables: &mut Tables, check: bool) -> TokenStream {
        let (input, kind) = if self.events {
            (quote!(event), quote!(Event))
        } else {
            (quote!(action), quote!(Action))
        };
        if self.machine.actions.is_empty() {
            return if check && self.events {
                quote!(match *event {})
            } else {
                quote!(match #input {})
            };
        }
        // What a rejection returns: the error, with the event handed back.
        let reject = |error: TokenStream| {
            if check {
                quote!(false)
            } else {
                quote!(__fsm::Err(#error))
            }
        };
        let mut arms = Vec::new();
        for state in self.machine.leaves() {
            let rows = &self.plan.leaf(state).actions;
            let state_variant = &self.idents.states[state.index()];
            for row in rows {
                let candidates = &row.candidates;
                let action_variant = &self.idents.actions[row.action.index()];
                let has_payload = self.machine.actions[row.action.index()].payload.is_some();
                let unguarded = candidates.iter().any(|c| {
                    self.machine
                        .transition(c.transition)
                        .guard
                        .as_ref()
                        .is_none_or(|g| decided(self.machine, state, &g.expr) == Err(true))
                });
                // `can_fire` binds the payload only for the guards, which it
                // does not evaluate when an unguarded candidate takes it.
                let payload = has_payload
                    && if check {
                        !unguarded && self.guards_use_payload(candidates)
                    } else {
                        self.uses_payload(candidates)
                    };
                let pattern = match (has_payload, payload) {
                    (true, true) => quote!(#kind::#action_variant(payload)),
                    (true, false) => quote!(#kind::#action_variant(_)),
                    _ => quote!(#kind::#action_variant),
                };
                let cached: BTreeSet<GuardId> = row.cached_guards.iter().copied().collect();
                let call = self.guard_call(payload);
                let mut branches = Vec::new();
                let mut conditions = Vec::new();
                let mut fallback = None;
                let trials = trials(
                    self.machine,
                    state,
                    candidates.iter().map(|c| {
                        (
                            c,
                            self.machine
                                .transition(c.transition)
                                .guard
                                .as_ref()
                                .map(|g| &g.expr),
                        )
                    }),
                );
                for (candidate, guard) in &trials {
                    let fired = if check {
                        quote!(true)
                    } else if self.machine.eventless.is_empty() {
                        let (run, to, outputs) =
                            self.take(tables, state, &candidate.step, payload, Time::Read);
                        let internal = candidate.step.default_case().mv.is_internal();
                        quote!({
                            #run
                            __fsm::Ok(__fsm::Fired::<Self> {
                                from: state,
                                to: #to,
                                action: Action::#action_variant,
                                outputs: #outputs,
                                internal: #internal,
                            })
                        })
                    } else {
                        let chosen = self.chain(tables, state, &candidate.step, payload, Time::Read);
                        quote!({
                            let (to, outputs, internal): (State, &'static [Output], bool) = #chosen;
                            __fsm::Ok(__fsm::Fired::<Self> { from: state, to, action: Action::#action_variant, outputs, internal })
                        })
                    };
                    match guard {
                        Some(expr) => {
                            let condition = condition_with(expr, &cached, &self.idents, &call);
                            branches.push(quote!(if #condition #fired));
                            conditions.push(condition);
                        }
                        None => fallback = Some(fired),
                    }
                }
                let fallback = fallback.unwrap_or_else(|| {
                    if check {
                        return quote!(false);
                    }
                    let rejected = tables.rejected(
                        candidates
                            .iter()
                            .map(|c| {
                                let transition = self.machine.transition(c.transition);
                                let guard = transition
                                    .guard
                                    .as_ref()
                                    .map(|g| self.machine.guard_text(&g.expr));
                                let target = transition.target.map(|s| self.machine.state(s).name.clone());
                                (guard.unwrap_or_default(), target)
                            })
                            .collect(),
                    );
                    reject(quote!(__fsm::FireError::rejected(state, #input, #rejected)))
                });
                let caches = cached.iter().map(|g| {
                    let cache = &self.idents.guard_caches[g.index()];
                    quote!(let mut #cache: __fsm::Option<bool> = __fsm::None;)
                });
                let body = if branches.is_empty() {
                    fallback
                } else if check {
                    // Some guard holds, or an unguarded candidate takes it.
                    if unguarded {
                        quote!(true)
                    } else {
                        quote!({ #(#caches)* #(#conditions)||* })
                    }
                } else {
                    quote!({ #(#caches)* #(#branches)else* else { #fallback } })
                };
                arms.push(quote!((State::#state_variant, #pattern) => #body,));
            }
            if rows.len() < self.machine.actions.len() {
                let body = if check {
                    quote!(false)
                } else {
                    let valid = tables.valid_actions(rows.iter().map(|row| row.action).collect());
                    let terminal = self.machine.state(state).is_terminal();
                    reject(quote!(__fsm::FireError::invalid(state, #input, #valid, #terminal)))
                };
                arms.push(quote!((State::#state_variant, _) => #body,));
            }
        }
        if check || !self.events {
            quote!(match (state, #input) { #(#arms)* })
        } else {
            quote!(match (state, &event) { #(#arms)* })
        }
    }

    /// `arm_timers`: the deadlines of the timers of the current leaf and of
    /// every composite around it, entered outermost first, from now. For a
    /// machine just created.
    fn arm_timers(&self) -> TokenStream {
        let n = index(self.deadline_slots);
        let arms = self.machine.leaves().filter_map(|leaf| {
            let mut path: Vec<StateId> = self.machine.ancestors_or_self(leaf).collect();
            path.reverse();
            let groups: Vec<usize> = path
                .iter()
                .flat_map(|s| self.plan.state_timer_groups[s.index()].clone())
                .collect();
            let arm = self.arm(&groups, Some(&quote!(__fsm::Clock::now(&self.clock))));
            if arm.is_empty() {
                return None;
            }
            let variant = &self.idents.states[leaf.index()];
            Some(quote!(State::#variant => { #arm }))
        });
        let arms: Vec<TokenStream> = arms.collect();
        quote! {
            /// Disarm every timer, and arm those of the current state and of
            /// the composite states around it.
            fn arm_timers(&mut self) {
                self.deadlines = [__fsm::None; #n];
                // Every leaf may have an arm of its own.
                #[allow(clippy::match_single_binding, clippy::single_match, unreachable_patterns)]
                match self.state {
                    #(#arms)*
                    _ => {}
                }
            }
        }
    }

    /// What firing the timer group `group` does when it comes due in leaf
    /// `from`: the first of its candidates (the plan's) whose guard holds
    /// fires; when none does, the group is rejected.
    fn timer_group_body(
        &self,
        tables: &mut Tables,
        from: StateId,
        group: &plan::LeafTimerGroup,
    ) -> TokenStream {
        let declared = &self.plan.timer_groups[group.group];
        let declared_in = &self.machine.state(declared.state).name;
        let first = Literal::u32_unsuffixed(declared.timers[0].1);
        let label = declared.label.as_str();
        let cached: BTreeSet<GuardId> = group.cached_guards.iter().copied().collect();
        let call = self.guard_call(false);
        let mut branches = Vec::new();
        let mut fallback = None;
        let trials = trials(
            self.machine,
            from,
            group.candidates.iter().map(|c| {
                let timer = &self.machine.timers[c.timer.index()];
                (c, timer.guard.as_ref().map(|g| &g.expr))
            }),
        );
        for (candidate, guard) in &trials {
            let within = Literal::u32_unsuffixed(candidate.index);
            let fired = if self.machine.eventless.is_empty() {
                let (run, to, outputs) = self.take(tables, from, &candidate.step, false, Time::Given);
                let internal = candidate.step.default_case().mv.is_internal();
                quote!({
                    #run
                    __fsm::Some(__fsm::Ok(__fsm::TimerFired::<Self> { from: state, to: #to, declared_in: #declared_in, timer: #within, due, outputs: #outputs, internal: #internal, label: #label }))
                })
            } else {
                let chosen = self.chain(tables, from, &candidate.step, false, Time::Given);
                quote!({
                    let (to, outputs, internal): (State, &'static [Output], bool) = #chosen;
                    __fsm::Some(__fsm::Ok(__fsm::TimerFired::<Self> { from: state, to, declared_in: #declared_in, timer: #within, due, outputs, internal, label: #label }))
                })
            };
            match guard {
                Some(expr) => {
                    let condition = condition_with(expr, &cached, &self.idents, &call);
                    branches.push(quote!(if #condition #fired));
                }
                None => fallback = Some(fired),
            }
        }
        let fallback = fallback.unwrap_or_else(
            || quote!(__fsm::Some(__fsm::Err(__fsm::TimerRejected::<Self> { state, declared_in: #declared_in, timer: #first, due }))),
        );
        if branches.is_empty() {
            return fallback;
        }
        let caches = cached.iter().map(|g| {
            let cache = &self.idents.guard_caches[g.index()];
            quote!(let mut #cache: __fsm::Option<bool> = __fsm::None;)
        });
        quote!({ #(#caches)* #(#branches)else* else { #fallback } })
    }

    /// `timer_order`, `timers_in` and `fire_due_at`. The armed timers are
    /// the leaf's and its composites'; `timer_order` gives their slots
    /// group by group, in the order the plan tries the leaf's groups.
    fn fire_due_at(&self, tables: &mut Tables) -> TokenStream {
        let mut order_arms = Vec::new();
        let mut timers_in_arms = Vec::new();
        let mut arms = Vec::new();
        for leaf in self.machine.leaves() {
            let planned = self.plan.leaf(leaf);
            if planned.timer_groups.is_empty() {
                continue;
            }
            let variant = &self.idents.states[leaf.index()];
            let members = |g: &plan::LeafTimerGroup| -> Vec<Literal> {
                let timers = &self.plan.timer_groups[g.group].timers;
                timers
                    .iter()
                    .map(|&(id, _)| Literal::u32_unsuffixed(self.plan.timer_slots[id.index()] as u32))
                    .collect()
            };
            let slots = planned.timer_groups.iter().flat_map(members);
            order_arms.push(quote!(State::#variant => &[#(#slots),*],));
            let listed = planned.armed.iter().map(|armed| {
                let name = &self.machine.state(armed.state).name;
                let within = Literal::u32_unsuffixed(armed.index);
                let slot = index(self.plan.timer_slots[armed.timer.index()]);
                quote!((#name, #within, #slot))
            });
            timers_in_arms.push(quote!(State::#variant => &[#(#listed),*],));
            for group in &planned.timer_groups {
                let patterns = members(group);
                let disarm = patterns
                    .iter()
                    .map(|slot| quote!(self.deadlines[#slot] = __fsm::None;));
                let body = self.timer_group_body(tables, leaf, group);
                arms.push(quote!((State::#variant, #(#patterns)|*) => { #(#disarm)* #body }));
            }
        }
        let generics = self.guards_generics();
        let param = self.guards_param();
        let allow_unused = self.allow_unused_guards(self.machine.timers.iter().map(|t| t.guard.is_some()));
        quote! {
            /// The slots of the timers armed in `state` (its own and its
            /// composites'), group by group in the order groups are tried.
            fn timer_order(state: State) -> &'static [u32] {
                #[allow(clippy::match_single_binding, unreachable_patterns)]
                match state {
                    #(#order_arms)*
                    _ => &[],
                }
            }

            /// The timers armed in `state`, as snapshots list them: the
            /// declaring state's name, the timer's index among its timers,
            /// and its slot; innermost level first.
            fn timers_in(state: State) -> &'static [(&'static str, u32, usize)] {
                #[allow(clippy::match_single_binding, unreachable_patterns)]
                match state {
                    #(#timers_in_arms)*
                    _ => &[],
                }
            }

            /// Fire the earliest timer due at `now`.
            #allow_unused
            fn fire_due_at #generics(&mut self, now: __fsm::Timestamp #param) -> __fsm::Option<__fsm::Result<__fsm::TimerFired<Self>, __fsm::TimerRejected<Self>>> {
                let state = self.state;
                let order = Self::timer_order(state).iter().copied();
                let (index, due) = __fsm::chart::first_due(order, &self.deadlines, __fsm::Some(now))?;
                match (state, index) {
                    #(#arms)*
                    _ => {
                        self.deadlines[index as usize] = __fsm::None;
                        __fsm::None
                    }
                }
            }
        }
    }

    fn machine_type(&self, tables: &mut Tables) -> TokenStream {
        let m = &self.machine_ident;
        let name = &self.machine.name;
        let initial = &self.idents.states[self.machine.initial_leaf().index()];
        let docs = doc_attrs(&self.machine.docs, &format!("The `{name}` state machine."));
        let fire_body = self.fire_body(tables, false);
        let check_body = self.fire_body(tables, true);
        // A machine with timers but no action has an empty `Action`: its
        // `fire` matches on nothing, and what follows is unreachable.
        let allow_unreachable = if self.machine.actions.is_empty() {
            quote!(#[allow(unreachable_code)])
        } else {
            TokenStream::new()
        };
        let timers = self.max_timers > 0;
        let k = &self.clock_param;
        let n = Literal::usize_unsuffixed(self.deadline_slots);
        let g_generics = self.guards_generics();
        let g_param = self.guards_param();
        let g_pass = self.guards_pass();
        let allow_unused =
            self.allow_unused_guards(self.machine.transitions.iter().map(|t| t.guard.is_some()));
        // `can_fire` evaluates no guard for an action whose reachable
        // candidates include an unguarded one.
        let allow_unused_check = self.allow_unused_guards(self.machine.leaves().flat_map(|state| {
            self.plan.leaf(state).actions.iter().map(|row| {
                row.candidates
                    .iter()
                    .all(|c| self.machine.transition(c.transition).guard.is_some())
            })
        }));

        // The context: a field, a constructor argument, accessors.
        let (ctx_field, ctx_param, ctx_arg, ctx_init, ctx_accessors) = match &self.context {
            Some(ctx) => (
                quote!(context: #ctx,),
                quote!(context: #ctx),
                quote!(context),
                quote!(context,),
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
                },
            ),
            None => Default::default(),
        };
        let comma_if = |a: &TokenStream, b: &TokenStream| {
            if a.is_empty() || b.is_empty() {
                TokenStream::new()
            } else {
                quote!(,)
            }
        };

        // The clock and the deadlines, with timers.
        let (generics, params, ty_default, clock_field, clock_param, clock_arg, clock_init) = if timers {
            (
                quote!(<#k: __fsm::Clock>),
                quote!(<#k>),
                quote!(<#k = __fsm::DefaultClock>),
                quote!(clock: #k, deadlines: [__fsm::Option<__fsm::Timestamp>; #n],),
                quote!(clock: #k),
                quote!(__fsm::SystemClock),
                quote!(clock, deadlines: [__fsm::None; #n],),
            )
        } else {
            Default::default()
        };
        // The history memory, with history targets.
        let memory_n = index(self.memory.len());
        let (memory_field, memory_init) = if self.memory.is_empty() {
            Default::default()
        } else {
            (
                quote!(last_active: [__fsm::Option<State>; #memory_n],),
                quote!(last_active: [__fsm::None; #memory_n],),
            )
        };
        let new_sep = comma_if(&ctx_param, &clock_param);
        let arg_sep = comma_if(&ctx_arg, &clock_arg);

        let (input, input_ty, input_ref) = if self.events {
            (quote!(event), quote!(Event), quote!(&Event))
        } else {
            (quote!(action), quote!(Action), quote!(Action))
        };
        let fire_doc = match (&self.context, self.events) {
            (Some(_), _) => quote! {
                /// Fire `event`. Guards read the context as it was before;
                /// then the chosen transition's effects run (exit hook, its
                /// `do`, enter hook) and the machine moves, arming the new
                /// state's timers. On error nothing ran and the event is
                /// handed back in the error (`into_event`). Neither allocates.
            },
            (None, true) => quote! {
                /// Fire `event`: on success the machine moves (arming the new
                /// state's timers) and returns the outputs for the caller to
                /// perform; on error it stays where it is and the event is
                /// handed back in the error (`into_event`). Guards with a
                /// payload type read the event's payload. Neither allocates.
            },
            (None, false) => quote! {
                /// Fire `action`: on success the machine moves (arming the new
                /// state's timers) and returns the outputs for the caller to
                /// perform; on error it stays where it is. Neither allocates.
            },
        };
        let can_fire_doc = if self.context.is_some() {
            quote! {
                /// True when firing `event` now would succeed: the guards it
                /// needs are evaluated as [`Self::fire`] would, but no effect
                /// runs and nothing changes.
            }
        } else {
            quote! {
                /// True when firing it now would succeed: the guards it needs
                /// are evaluated as [`Self::fire`] would, but nothing changes.
            }
        };

        let tree_methods = if self.nested {
            let memory = crate::machine::memory_items(self.machine, &self.idents, quote!(self.last_active));
            quote! {
                /// True when the machine is inside `composite`: when its state
                /// lies in it, at any depth.
                pub fn is_in(&self, composite: Composite) -> bool {
                    self.state.is_in(composite)
                }

                #memory
            }
        } else {
            TokenStream::new()
        };
        let armed_timers = quote! {
            /// The timers armed now, with their deadlines, as a snapshot
            /// stores them: those of the current state, then those of each
            /// composite state around it, outwards, each named by the state
            /// that declares it.
            pub fn armed_timers(&self) -> impl __fsm::Iterator<Item = __fsm::ArmedTimer> + '_ {
                Self::timers_in(self.state)
                    .iter()
                    .filter_map(move |&(state, timer, slot)| self.deadlines[slot].map(|due| __fsm::ArmedTimer::new(state, timer, due)))
            }
        };
        let timer_methods = if timers {
            let arm = self.arm_timers();
            let due = self.fire_due_at(tables);
            quote! {
                #arm
                #due

                /// When the next armed timer is due; `None` when none is armed.
                pub fn next_deadline(&self) -> __fsm::Option<__fsm::Timestamp> {
                    self.deadlines.iter().flatten().min().copied()
                }

                /// Fire the earliest timer whose deadline has passed (by the
                /// clock, read once), if any: `Ok` with what it did, or `Err`
                /// when its group's guards all failed (the group is then
                /// disarmed). Each armed timer fires at most once per entry
                /// into its state; an internal timer (no target) is disarmed
                /// once it fired. Does not allocate.
                pub fn fire_next_due #g_generics(&mut self #g_param) -> __fsm::Option<__fsm::Result<__fsm::TimerFired<Self>, __fsm::TimerRejected<Self>>> {
                    let now = __fsm::Clock::now(&self.clock);
                    let result = self.fire_due_at(now #g_pass);
                    __fsm::Traced::trace(&result);
                    result
                }

                /// Fire every timer whose deadline has passed, earliest first,
                /// each exactly once, handing each result to `each`, and return
                /// how many there were. The clock is read once: timers armed
                /// by these firings are due later.
                pub fn fire_due #g_generics(&mut self #g_param, mut each: impl __fsm::FnMut(__fsm::Result<__fsm::TimerFired<Self>, __fsm::TimerRejected<Self>>)) -> usize {
                    let now = __fsm::Clock::now(&self.clock);
                    let mut count = 0;
                    while let __fsm::Some(result) = self.fire_due_at(now #g_pass) {
                        __fsm::Traced::trace(&__fsm::Some(result));
                        count += 1;
                        each(result);
                    }
                    count
                }

                /// The clock.
                pub fn clock(&self) -> &#k {
                    &self.clock
                }
            }
        } else {
            TokenStream::new()
        };
        // `ArmedTimer` names its state as a snapshot does: with `alloc`.
        let armed_timers = if timers {
            quote! {
                __fsm::if_alloc! {
                    impl #generics #m #params {
                        #armed_timers
                    }
                }
            }
        } else {
            TokenStream::new()
        };
        let restore_deadlines = {
            let mut slot_arms = Vec::new();
            let mut count_arms = Vec::new();
            for s in self.machine.state_ids() {
                let timers: Vec<TimerId> = self.machine.timers_of(s).map(|(id, _)| id).collect();
                if timers.is_empty() {
                    continue;
                }
                let name = &self.machine.state(s).name;
                let count = Literal::u32_unsuffixed(timers.len() as u32);
                count_arms.push(quote!(#name => #count,));
            }
            for leaf in self.machine.leaves() {
                let variant = &self.idents.states[leaf.index()];
                for a in self.machine.ancestors_or_self(leaf) {
                    let name = &self.machine.state(a).name;
                    for (within, (id, _)) in self.machine.timers_of(a).enumerate() {
                        let within = Literal::u32_unsuffixed(within as u32);
                        let slot = index(self.plan.timer_slots[id.index()]);
                        slot_arms.push(quote!((State::#variant, #name, #within) => __fsm::Some(#slot),));
                    }
                }
            }
            // Where a timer of the state `name` may be armed: in the
            // current state, or (with nested states) a composite around it.
            let here = if self.nested {
                quote!(state.name() == name || state.ancestors().iter().any(|r| r.name() == name))
            } else {
                quote!(state.name() == name)
            };
            quote! {
                let deadlines = snapshot.deadlines_in::<#n>(
                    |name, timer| match (state, name, timer) {
                        #(#slot_arms)*
                        _ => __fsm::None,
                    },
                    |name| {
                        let here = #here;
                        here.then_some(match name {
                            #(#count_arms)*
                            _ => 0,
                        })
                    },
                )?;
            }
        };
        let (restore_memory, with_memory) = if !self.nested {
            Default::default()
        } else if self.memory.is_empty() {
            (
                quote! {
                    // The machine remembers nothing: any `last_active` is wrong.
                    snapshot.last_active_of::<Self, 0>(&[], |_, _| false)?;
                },
                TokenStream::new(),
            )
        } else {
            let names = self.memory.iter().map(|&s| self.machine.state(s).name.as_str());
            (
                quote! {
                    let last_active = snapshot.last_active_of::<Self, #memory_n>(&[#(#names),*], |slot, leaf| {
                        leaf.is_in(LAST_ACTIVE_COMPOSITES[slot])
                    })?;
                },
                quote! {
                    .with_last_active(
                        LAST_ACTIVE_COMPOSITES
                            .iter()
                            .zip(self.last_active)
                            .filter_map(|(composite, leaf)| leaf.map(|leaf| (composite.name(), leaf.name()))),
                    )
                },
            )
        };
        let memory_restored = if self.memory.is_empty() {
            TokenStream::new()
        } else {
            quote!(last_active,)
        };
        let (arm_new, restore_deadlines, deadlines_init, with_timers) = if timers {
            (
                quote!(machine.arm_timers();),
                restore_deadlines,
                quote!(clock, deadlines,),
                quote!(.with_timers(self.armed_timers())),
            )
        } else {
            Default::default()
        };
        let restore_doc = if timers {
            quote! {
                ///
                /// Armed timers keep the deadlines the snapshot gives them,
                /// however long ago it was taken; the timers of the state it
                /// does not list stay disarmed.
            }
        } else {
            TokenStream::new()
        };
        let debug_fields = {
            let context = self
                .context
                .as_ref()
                .map(|_| quote!(.field("context", &self.context)));
            let deadlines = timers.then(|| quote!(.field("deadlines", &self.deadlines)));
            let memory = (!self.memory.is_empty()).then(|| quote!(.field("last_active", &self.last_active)));
            quote!(f.debug_struct(#name).field("state", &self.state) #context #deadlines #memory .finish_non_exhaustive())
        };
        let debug_bound = match &self.context {
            Some(ctx) => quote!(where for<'a> #ctx: __fsm::Debug),
            None => TokenStream::new(),
        };
        let debug = quote! {
            /// The state, the context and the deadlines of the armed timers
            /// (not the clock).
            impl #generics __fsm::Debug for #m #params #debug_bound {
                fn fmt(&self, f: &mut __fsm::fmt::Formatter<'_>) -> __fsm::fmt::Result {
                    #debug_fields
                }
            }
        };
        // A machine with a context is `Clone` when its context (and clock)
        // is: a copy to try a change on, kept only if it saves.
        let clone = match &self.context {
            Some(ctx) => {
                let (clone_generics, clock) = if timers {
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
            None => TokenStream::new(),
        };
        let driven = self.trait_impls(&generics, &params);

        let (struct_doc, derives) = match (&self.context, timers) {
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
        // On the system clock, with timers: only with `std`.
        let if_std_with_timers = |items: TokenStream| {
            if timers {
                quote!(__fsm::if_std! { #items })
            } else {
                items
            }
        };
        let default_impl = if self.context.is_none() {
            if_std_with_timers(quote! {
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
        let new_doc = match (&self.context, timers) {
            (Some(_), true) => {
                "The machine in its initial state, owning `context`, timed by the system clock."
            }
            (Some(_), false) => "The machine in its initial state, owning `context`.",
            (None, true) => "The machine in its initial state, timed by the system clock.",
            (None, false) => "The machine in its initial state.",
        };
        let new_doc = doc_line(new_doc);
        let with_clock = if timers {
            let doc = doc_line(if self.context.is_some() {
                "The machine in its initial state, owning `context`, timed by `clock`."
            } else {
                "The machine in its initial state, timed by `clock`."
            });
            quote! {
                #doc
                pub fn with_clock(#ctx_param #new_sep #clock_param) -> Self {
                    let mut machine = Self { state: State::#initial, #ctx_init #clock_init #memory_init };
                    #arm_new
                    machine
                }
            }
        } else {
            TokenStream::new()
        };
        let new_body = if timers {
            quote!(Self::with_clock(#ctx_arg #arg_sep #clock_arg))
        } else {
            quote!(Self { state: State::#initial, #ctx_init #memory_init })
        };
        let new_impl = if_std_with_timers(quote! {
            impl #m {
                #new_doc
                pub fn new(#ctx_param) -> Self {
                    #new_body
                }
            }
        });
        let restore_clock_param = if timers {
            quote!(, #clock_param)
        } else {
            TokenStream::new()
        };
        let restore_clock_arg = if timers {
            quote!(, #clock_arg)
        } else {
            TokenStream::new()
        };
        let restore_clock_pass = if timers {
            quote!(, clock)
        } else {
            TokenStream::new()
        };

        // The bound of the stubs without the `serde` feature, spanning the
        // `context` declaration, where rustc's "required by this bound" points.
        let needs_serde = match &self.machine.context {
            Some(c) => self.spans.respan(c.span, quote!(__fsm::NeedsSerdeFeature)),
            None => TokenStream::new(),
        };
        let restore_from_snapshot_alone = if_std_with_timers(quote! {
            impl #m {
                /// The machine in the state of `snapshot`, which must come
                /// from this exact definition.
                ///
                /// # Errors
                ///
                /// As [`Self::restore_with`].
                pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError> {
                    Self::restore_with(snapshot, __fsm::FingerprintPolicy::Strict #restore_clock_arg)
                }
            }
        });
        let snapshots = match &self.context {
            Some(ctx) => quote! {
                __fsm::if_alloc! {
                impl #generics #m #params {
                    /// The machine in the state of `snapshot`, owning `context`
                    /// (whatever context the snapshot carries); `policy` decides
                    /// whether a snapshot of a different definition is accepted.
                    #restore_doc
                    ///
                    /// # Errors
                    ///
                    /// When the snapshot is of another machine or definition,
                    /// names a state this machine does not have, or arms a timer
                    /// it does not have.
                    pub fn restore_with_context(
                        snapshot: &__fsm::Snapshot,
                        policy: __fsm::FingerprintPolicy,
                        context: #ctx
                        #restore_clock_param
                    ) -> __fsm::Result<Self, __fsm::RestoreError> {
                        let state = snapshot.state_of::<Self>(policy)?;
                        #restore_deadlines
                        #restore_memory
                        __fsm::Ok(Self { state, context, #deadlines_init #memory_restored })
                    }
                }
                }

                __fsm::if_serde! {
                    impl #generics #m #params {
                        /// The current state, context and armed timers, with the
                        /// machine's name and fingerprint, ready to be stored.
                        /// Needs `fsm-runtime`'s `serde` feature (the snapshot
                        /// carries the context as JSON).
                        ///
                        /// # Errors
                        ///
                        /// When the context does not serialize.
                        pub fn snapshot(&self) -> __fsm::Result<__fsm::Snapshot, __fsm::SnapshotError>
                        where
                            for<'a> #ctx: __fsm::Serialize,
                        {
                            __fsm::Snapshot::new(#name, <Self as __fsm::Machine>::FINGERPRINT, self.state.name())
                                #with_timers
                                #with_memory
                                .with_context_of(&self.context)
                        }

                        /// The machine in the state, context and timers of
                        /// `snapshot`; `policy` decides whether a snapshot of a
                        /// different definition is accepted.
                        /// Needs `fsm-runtime`'s `serde` feature.
                        ///
                        /// # Errors
                        ///
                        /// As [`Self::restore_with_context`], and when the snapshot
                        /// carries no context or one that does not deserialize
                        /// (the error names the field).
                        pub fn restore_with(
                            snapshot: &__fsm::Snapshot,
                            policy: __fsm::FingerprintPolicy
                            #restore_clock_param
                        ) -> __fsm::Result<Self, __fsm::RestoreError>
                        where
                            for<'a> #ctx: __fsm::DeserializeOwned,
                        {
                            snapshot.state_of::<Self>(policy)?;
                            let context = snapshot.context_as::<#ctx>()?;
                            Self::restore_with_context(snapshot, policy, context #restore_clock_pass)
                        }
                    }

                    impl #m {
                        /// The machine in the state, context and timers of
                        /// `snapshot`, which must come from this exact definition,
                        /// timed by the system clock.
                        /// Needs `fsm-runtime`'s `serde` feature.
                        ///
                        /// # Errors
                        ///
                        /// As [`Self::restore_with`].
                        pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError>
                        where
                            for<'a> #ctx: __fsm::DeserializeOwned,
                        {
                            Self::restore_with(snapshot, __fsm::FingerprintPolicy::Strict #restore_clock_arg)
                        }
                    }
                }

                // Without the feature, stubs that no call compiles to: a
                // call fails on the bound, whose message names the feature
                // (rather than "no method named `snapshot`", with the advice
                // to implement `Persist`).
                __fsm::without_serde! {
                    impl #generics #m #params {
                        /// Needs `fsm-runtime`'s `serde` feature, which is off:
                        /// the snapshot of a machine with a context carries the
                        /// context as JSON. A call does not compile, and says so.
                        pub fn snapshot(&self) -> __fsm::Result<__fsm::Snapshot, __fsm::SnapshotError>
                        where
                            for<'a> #ctx: #needs_serde,
                        {
                            __fsm::stub()
                        }

                        /// Needs `fsm-runtime`'s `serde` feature, which is off;
                        /// without it, [`Self::restore_with_context`] restores
                        /// a snapshot with a context the caller gives. A call
                        /// does not compile, and says so.
                        #[allow(unused_variables)]
                        pub fn restore_with(
                            snapshot: &__fsm::Snapshot,
                            policy: __fsm::FingerprintPolicy
                            #restore_clock_param
                        ) -> __fsm::Result<Self, __fsm::RestoreError>
                        where
                            for<'a> #ctx: #needs_serde,
                        {
                            __fsm::stub()
                        }
                    }

                    impl #m {
                        /// Needs `fsm-runtime`'s `serde` feature, which is off;
                        /// without it, [`Self::restore_with_context`] restores
                        /// a snapshot with a context the caller gives. A call
                        /// does not compile, and says so.
                        #[allow(unused_variables)]
                        pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError>
                        where
                            for<'a> #ctx: #needs_serde,
                        {
                            __fsm::stub()
                        }
                    }
                }
            },
            None => quote! {
                __fsm::if_alloc! {
                impl #generics #m #params {
                    /// The current state and armed timers, with the machine's
                    /// name and fingerprint, ready to be stored.
                    pub fn snapshot(&self) -> __fsm::Snapshot {
                        __fsm::Snapshot::new(#name, <Self as __fsm::Machine>::FINGERPRINT, self.state.name())
                            #with_timers
                            #with_memory
                    }

                    /// The machine in the state of `snapshot`; `policy` decides
                    /// whether a snapshot of a different definition is accepted.
                    #restore_doc
                    ///
                    /// # Errors
                    ///
                    /// When the snapshot is of another machine or definition,
                    /// names a state this machine does not have, or arms a timer
                    /// it does not have.
                    pub fn restore_with(
                        snapshot: &__fsm::Snapshot,
                        policy: __fsm::FingerprintPolicy
                        #restore_clock_param
                    ) -> __fsm::Result<Self, __fsm::RestoreError> {
                        let state = snapshot.state_of::<Self>(policy)?;
                        #restore_deadlines
                        #restore_memory
                        __fsm::Ok(Self { state, #deadlines_init #memory_restored })
                    }
                }

                #restore_from_snapshot_alone
                }
            },
        };

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

                #fire_doc
                #allow_unused
                // Always inlined into the caller's loop, as the guards-only
                // `fire_from` is: with `#[inline]` alone LLVM kept this body
                // (every arm with its effects) out of line, a call per event
                // whose `Result` came back through memory; inlined, the call
                // and that round trip go (bench/README.md, "The generated
                // code and `#[inline]`" and "The peer benchmark").
                #[inline(always)]
                #allow_unreachable
                pub fn fire #g_generics(&mut self, #input: #input_ty #g_param) -> __fsm::Result<__fsm::Fired<Self>, __fsm::FireError<Self>> {
                    let state = self.state;
                    let result: __fsm::Result<__fsm::Fired<Self>, __fsm::FireError<Self>> = #fire_body;
                    __fsm::Traced::trace(&result);
                    result
                }

                #can_fire_doc
                #allow_unused_check
                #[inline]
                pub fn can_fire #g_generics(&self, #input: #input_ref #g_param) -> bool {
                    let state = self.state;
                    #check_body
                }

                #timer_methods
            }

            #armed_timers
            #debug
            #clone
            #snapshots
            #driven
        }
    }

    /// The runtime's traits: `Fire<G>` (with `G` the caller's guards, or
    /// `NoGuards`); `FireEvent` for a machine whose `fire` takes the event
    /// alone; `Timed` except for a machine with timers that takes its guards
    /// per call; `Persist` and `Restore` (with a context, under the `serde`
    /// feature; `Restore` with a `Default` clock).
    fn trait_impls(&self, generics: &TokenStream, params: &TokenStream) -> TokenStream {
        trait_impls(&Traits {
            machine: &self.machine_ident,
            generics,
            params,
            events: self.events,
            guards_param: self.guards_arg.then_some(&self.idents.guards_param),
            clock_param: (self.max_timers > 0).then_some(&self.clock_param),
            context: self.context.as_ref(),
        })
    }
}

/// What the machine traits' impls depend on, for every generated machine
/// type with a context, payloads, timers, nested or parallel states: each
/// forwards to the inherent method of the same name, which has the same
/// shape whatever the machine holds.
pub(crate) struct Traits<'a> {
    /// The machine type's name.
    pub machine: &'a Ident,
    /// The impl's generics (`<K: __fsm::Clock>` with timers) and the type's
    /// parameters (`<K>`).
    pub generics: &'a TokenStream,
    pub params: &'a TokenStream,
    /// `fire` takes an `Event` (a context or payloads), not an `Action`.
    pub events: bool,
    /// The guards' type parameter, when the guards are passed per call.
    pub guards_param: Option<&'a Ident>,
    /// The clock's type parameter, with timers.
    pub clock_param: Option<&'a Ident>,
    /// The context type.
    pub context: Option<&'a TokenStream>,
}

/// `Machine`'s siblings for a machine: `Fire` (and `FireEvent` unless the
/// guards are passed per call), `Timed` (`TimedWith<G>` for a machine with
/// timers whose guards are passed per call), `Persist` and `Restore`.
pub(crate) fn trait_impls(t: &Traits) -> TokenStream {
    let (m, generics, params) = (t.machine, t.generics, t.params);
    {
        let input_ty = if t.events { quote!(Event) } else { quote!(Action) };
        let by_ref = if t.events { quote!(event) } else { quote!(*event) };
        let fire_with = if let Some(g) = t.guards_param {
            // Generic over the clock and over the guards.
            let all_generics = match t.clock_param {
                Some(k) => quote!(<#k: __fsm::Clock, #g: Guards + ?__fsm::Sized>),
                None => quote!(<#g: Guards + ?__fsm::Sized>),
            };
            Some(quote! {
                impl #all_generics __fsm::Fire<#g> for #m #params {
                    #[inline]
                    fn fire(&mut self, event: #input_ty, guards: &#g) -> __fsm::Result<__fsm::Fired<Self>, __fsm::FireError<Self>> {
                        #m::fire(self, event, guards)
                    }

                    #[inline]
                    fn can_fire(&self, event: &#input_ty, guards: &#g) -> bool {
                        #m::can_fire(self, #by_ref, guards)
                    }
                }
            })
        } else {
            None
        };
        let timers = if t.clock_param.is_some() {
            quote! {
                impl #generics __fsm::Timed for #m #params {
                    fn next_deadline(&self) -> __fsm::Option<__fsm::Timestamp> {
                        #m::next_deadline(self)
                    }

                    fn now(&self) -> __fsm::Timestamp {
                        __fsm::Clock::now(&self.clock)
                    }

                    fn fire_next_due(&mut self) -> __fsm::Option<__fsm::Result<__fsm::TimerFired<Self>, __fsm::TimerRejected<Self>>> {
                        #m::fire_next_due(self)
                    }
                }
            }
        } else {
            // Without timers `Timed::now` reads the system clock.
            quote!(__fsm::if_std! { impl #generics __fsm::Timed for #m #params {} })
        };
        // Restoring through the trait builds the clock with `Default`.
        let (restore_generics, clock_default) = match t.clock_param {
            Some(k) => (
                quote!(<#k: __fsm::Clock + __fsm::Default>),
                quote!(, #k::default()),
            ),
            None => (TokenStream::new(), TokenStream::new()),
        };
        let persist = match t.context {
            Some(ctx) => quote! {
                __fsm::if_serde! {
                    impl #generics __fsm::Persist for #m #params
                    where
                        for<'a> #ctx: __fsm::Serialize,
                    {
                        fn snapshot(&self) -> __fsm::Result<__fsm::Snapshot, __fsm::SnapshotError> {
                            #m::snapshot(self)
                        }
                    }

                    impl #restore_generics __fsm::Restore for #m #params
                    where
                        for<'a> #ctx: __fsm::Serialize + __fsm::DeserializeOwned,
                    {
                        fn restore_with(
                            snapshot: &__fsm::Snapshot,
                            policy: __fsm::FingerprintPolicy,
                        ) -> __fsm::Result<Self, __fsm::RestoreError> {
                            #m::restore_with(snapshot, policy #clock_default)
                        }
                    }
                }
            },
            None => quote! {
                __fsm::if_alloc! {
                    impl #generics __fsm::Persist for #m #params {
                        fn snapshot(&self) -> __fsm::Result<__fsm::Snapshot, __fsm::SnapshotError> {
                            __fsm::Ok(#m::snapshot(self))
                        }
                    }

                    impl #restore_generics __fsm::Restore for #m #params {
                        fn restore_with(
                            snapshot: &__fsm::Snapshot,
                            policy: __fsm::FingerprintPolicy,
                        ) -> __fsm::Result<Self, __fsm::RestoreError> {
                            #m::restore_with(snapshot, policy #clock_default)
                        }
                    }
                }
            },
        };
        if let Some(fire_with) = fire_with {
            // A machine that takes its guards per call fires its timers
            // with them too: `TimedWith<G>`, not `Timed` (its
            // `fire_next_due` takes them). Without timers it keeps `Timed`'s
            // defaults, and `TimedWith<G>` through the runtime's blanket impl.
            let timers = match (t.clock_param, t.guards_param) {
                (Some(k), Some(g)) => quote! {
                    impl<#k: __fsm::Clock, #g: Guards + ?__fsm::Sized> __fsm::TimedWith<#g> for #m #params {
                        fn next_deadline(&self) -> __fsm::Option<__fsm::Timestamp> {
                            #m::next_deadline(self)
                        }

                        fn now(&self) -> __fsm::Timestamp {
                            __fsm::Clock::now(&self.clock)
                        }

                        fn fire_next_due_with(&mut self, guards: &#g) -> __fsm::Option<__fsm::Result<__fsm::TimerFired<Self>, __fsm::TimerRejected<Self>>> {
                            #m::fire_next_due(self, guards)
                        }
                    }
                },
                _ => timers,
            };
            return quote! {
                #fire_with
                #timers
                #persist
            };
        }
        quote! {
            impl #generics __fsm::Fire for #m #params {
                #[inline]
                fn fire(&mut self, event: #input_ty, _guards: &__fsm::NoGuards) -> __fsm::Result<__fsm::Fired<Self>, __fsm::FireError<Self>> {
                    #m::fire(self, event)
                }

                #[inline]
                fn can_fire(&self, event: &#input_ty, _guards: &__fsm::NoGuards) -> bool {
                    #m::can_fire(self, #by_ref)
                }
            }

            impl #generics __fsm::FireEvent for #m #params {
                #[inline]
                fn fire(&mut self, event: #input_ty) -> __fsm::Result<__fsm::Fired<Self>, __fsm::FireError<Self>> {
                    #m::fire(self, event)
                }

                #[inline]
                fn can_fire(&self, event: &#input_ty) -> bool {
                    #m::can_fire(self, #by_ref)
                }
            }

            #timers
            #persist
        }
    }
}
