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

use crate::chain::Chain;
use crate::docs::{doc_attrs, doc_line, module_docs};
use crate::idents::{value_ident, Idents};
use crate::machine::{enums, machine_impl, module_lints, module_prelude};
use crate::nested::{dispatch, index, records};
use crate::options::{Options, Spans};
use crate::tables::Tables;
use crate::user_types::rust_type;
use fsm_grammar::model::{Delay, GuardId, Machine, StateId, Symbol, TimerId};
use fsm_grammar::plan::{self, Plan};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

mod fire;
mod machine_type;
mod restore;
mod timers;

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
            .map(|c| options.spans.respan(c.span, rust_type(&c.text, &machine_ident)));
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
            .map(|p| self.spans.respan(p.span, rust_type(&p.text, &self.machine_ident)))
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
                        let delay = self.delay_tokens(self.machine.delay_of(id), &mut named);
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
        // Restoring through the trait builds the clock with `Default`. A
        // machine with timers takes the whole `RestorePolicy` (what becomes
        // of a lost timer too); one without, its `FingerprintPolicy`.
        let (restore_generics, clock_default, policy) = match t.clock_param {
            Some(k) => (
                quote!(<#k: __fsm::Clock + __fsm::Default>),
                quote!(, #k::default()),
                quote!(policy),
            ),
            None => (
                TokenStream::new(),
                TokenStream::new(),
                quote!(__fsm::Into::<__fsm::RestorePolicy>::into(policy).fingerprint),
            ),
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
                            policy: impl __fsm::Into<__fsm::RestorePolicy>,
                        ) -> __fsm::Result<Self, __fsm::RestoreError> {
                            #m::restore_with(snapshot, #policy #clock_default)
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
                            policy: impl __fsm::Into<__fsm::RestorePolicy>,
                        ) -> __fsm::Result<Self, __fsm::RestoreError> {
                            #m::restore_with(snapshot, #policy #clock_default)
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
