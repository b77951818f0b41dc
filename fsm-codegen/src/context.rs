//! The module of a machine with a context: the `Event` enum (actions with
//! their payloads), the `Context` trait (guards, effects and delays), the
//! state-only `Core` the runtime's `Fired` and `FireError` are generic over,
//! and the machine type, which owns the context, a clock and the deadlines
//! of its armed timers.
//!
//! Semantics: the candidates of an event are tried as for any machine, their
//! guards read the context as it was before the firing; only the chosen
//! transition's effects run, in the order of the outputs (the exit hook of
//! the state left, the transition's `do`, the enter hook of the state
//! entered); a rejected event runs nothing and is handed back.

use crate::docs::{doc_attrs, doc_line, module_docs};
use crate::guards::{condition_with, repeated_guards};
use crate::idents::{value_ident, Idents};
use crate::machine::{enums, machine_impl, module_lints, module_prelude};
use crate::options::Options;
use crate::tables::Tables;
use fsm_grammar::model::{
    Delay, EffectId, GuardExpr, GuardId, Machine, OutputId, StateId, Symbol, TimerId, TransitionId,
};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use std::str::FromStr;

/// A Rust type written in the `.fsm` text, as tokens.
fn rust_type(text: &str) -> TokenStream {
    TokenStream::from_str(text).unwrap_or_else(|_| {
        let message = format!("`{text}` is not a Rust type");
        quote!(::core::compile_error!(#message))
    })
}

/// What every generator of the module needs.
struct Gen<'a> {
    machine: &'a Machine,
    idents: Idents,
    /// The machine type: `Router`.
    machine_ident: Ident,
    context: TokenStream,
    effects: Vec<Ident>,
    delays: Vec<Ident>,
    /// Most timers any state has: the length of the deadlines array.
    max_timers: usize,
}

/// `pub mod <snake_name> { ... }` for a checked machine with a context.
pub(crate) fn context_module(machine: &Machine, options: &Options) -> TokenStream {
    let mut idents = Idents::new(machine);
    let enums = enums(machine, &idents);
    let machine_ident = idents.machine.clone();
    idents.machine = Ident::new("Core", Span::call_site());
    let context = rust_type(&machine.context.as_ref().expect("a context").text);
    let max_timers = machine
        .state_ids()
        .map(|s| machine.timers_of(s).count())
        .max()
        .unwrap_or(0);
    let gen = Gen {
        machine,
        effects: machine.effects.iter().map(|e| value_ident(&e.name)).collect(),
        delays: machine.delays.iter().map(|d| value_ident(&d.name)).collect(),
        idents,
        machine_ident,
        context,
        max_timers,
    };
    let mut tables = Tables::default();
    let module = &gen.idents.module;
    let docs = module_docs(machine);
    let prelude = module_prelude(options);
    let lints = module_lints();
    let event = gen.event_enum();
    let trait_ = gen.context_trait();
    let core = gen.core_type();
    let core_impl = machine_impl(machine, &gen.idents, &mut tables);
    let machine_type = gen.machine_type(&mut tables);
    let statics = tables.statics(&gen.idents);
    quote! {
        #docs
        #lints
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
            #statics
        }
    }
}

impl Gen<'_> {
    fn payload(&self, symbol: &Symbol) -> Option<TokenStream> {
        symbol.payload.as_ref().map(|p| rust_type(&p.text))
    }

    fn event_enum(&self) -> TokenStream {
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
        let names: Vec<TokenStream> = self
            .machine
            .actions
            .iter()
            .zip(&self.idents.actions)
            .map(|(a, v)| {
                let name = v.to_string();
                if a.payload.is_some() {
                    quote!(Event::#v(..) => f.debug_tuple(#name).finish_non_exhaustive(),)
                } else {
                    quote!(Event::#v => f.write_str(#name),)
                }
            })
            .collect();
        let doc = doc_line(&format!(
            "The events [`{m}`] accepts: its actions, each with its payload."
        ));
        quote! {
            #doc
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

            /// The variant, without its payload (which need not be `Debug`).
            impl __fsm::fmt::Debug for Event {
                fn fmt(&self, f: &mut __fsm::fmt::Formatter<'_>) -> __fsm::fmt::Result {
                    match *self {
                        #(#names)*
                    }
                }
            }
        }
    }

    fn context_trait(&self) -> TokenStream {
        let m = &self.machine_ident;
        let guards = self
            .machine
            .guards
            .iter()
            .zip(&self.idents.guards)
            .map(|(g, method)| {
                let docs = doc_attrs(&g.docs, &format!("Whether the guard `{}` holds.", g.name));
                match self.payload(g) {
                    Some(ty) => quote!(#docs fn #method(&self, payload: &#ty) -> bool;),
                    None => quote!(#docs fn #method(&self) -> bool;),
                }
            });
        let effects = self.machine.effects.iter().zip(&self.effects).map(|(e, method)| {
            let docs = doc_attrs(&e.docs, &format!("The effect `{}`.", e.name));
            match self.payload(e) {
                Some(ty) => quote!(#docs fn #method(&mut self, payload: &#ty);),
                None => quote!(#docs fn #method(&mut self);),
            }
        });
        let delays = self.machine.delays.iter().zip(&self.delays).map(|(d, method)| {
            let docs = doc_attrs(&d.docs, &format!("The delay `{}`.", d.name));
            quote!(#docs fn #method(&self) -> __fsm::Duration;)
        });
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
            // The payload types are the user's, as written (`&String`).
            #[allow(clippy::ptr_arg)]
            pub trait Context {
                #(#guards)*
                #(#effects)*
                #(#delays)*
            }
        }
    }

    fn core_type(&self) -> TokenStream {
        let m = &self.machine_ident;
        let doc = doc_line(&format!(
            "[`{m}`] without its context: its state alone, what [`Fired`] and [`FireError`] are generic over."
        ));
        let fired_doc = doc_line(&format!("What a successful [`{m}::fire`] reports."));
        let error_doc = doc_line(&format!(
            "Why [`{m}::fire`] did not fire, with the event handed back (`into_event`)."
        ));
        quote! {
            #doc
            #[derive(__fsm::Clone, __fsm::Copy, __fsm::Debug, __fsm::PartialEq, __fsm::Eq, __fsm::Hash)]
            pub struct Core {
                state: State,
            }

            #fired_doc
            pub type Fired = __fsm::Fired<Core>;

            #error_doc
            pub type FireError = __fsm::Rejected<Core, Event>;

            /// A timer that fired.
            pub type TimerFired = __fsm::TimerFired<Core>;

            /// Timers that came due while none of their guards held.
            pub type TimerRejected = __fsm::TimerRejected<Core>;
        }
    }

    /// The timers of `state` in the order they are tried: priority first,
    /// then declaration order; with their index among the state's timers.
    fn timer_order(&self, state: StateId) -> Vec<(usize, TimerId)> {
        let mut timers: Vec<(usize, TimerId)> = self
            .machine
            .timers_of(state)
            .enumerate()
            .map(|(i, (id, _))| (i, id))
            .collect();
        timers.sort_by_key(|&(i, id)| (-self.machine.timers[id.index()].priority, i));
        timers
    }

    fn effect_calls(&self, effects: &[EffectId], payload: bool) -> TokenStream {
        effects
            .iter()
            .map(|e| {
                let method = &self.effects[e.index()];
                if payload && self.machine.effects[e.index()].payload.is_some() {
                    quote!(Context::#method(&mut self.context, payload);)
                } else {
                    quote!(Context::#method(&mut self.context);)
                }
            })
            .collect()
    }

    /// Run a transition from `from` (effects, state change, timers) and give
    /// its `to` and outputs table.
    fn take(
        &self,
        tables: &mut Tables,
        from: StateId,
        target: Option<StateId>,
        effects: &[EffectId],
        emits: &[OutputId],
        payload: bool,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let own = self.effect_calls(effects, payload);
        match target {
            None => (own, quote!(state), tables.outputs(emits.to_vec())),
            Some(target) => {
                let exit = self.effect_calls(&self.machine.state(from).exit_effects, false);
                let enter = self.effect_calls(&self.machine.state(target).enter_effects, false);
                let variant = &self.idents.states[target.index()];
                let arm = if self.max_timers > 0 {
                    quote!(self.arm_timers();)
                } else {
                    TokenStream::new()
                };
                let outputs: Vec<OutputId> = self
                    .machine
                    .state(from)
                    .exit
                    .iter()
                    .chain(emits)
                    .chain(&self.machine.state(target).enter)
                    .copied()
                    .collect();
                let run = quote!(#exit #own #enter self.state = State::#variant; #arm);
                (run, quote!(State::#variant), tables.outputs(outputs))
            }
        }
    }

    fn guard_call(&self, payload: bool) -> impl Fn(GuardId) -> TokenStream + '_ {
        move |g: GuardId| {
            let method = &self.idents.guards[g.index()];
            if payload && self.machine.guards[g.index()].payload.is_some() {
                quote!(Context::#method(&self.context, payload))
            } else {
                quote!(Context::#method(&self.context))
            }
        }
    }

    fn uses_payload(&self, candidates: &[TransitionId]) -> bool {
        candidates.iter().any(|&t| {
            let transition = self.machine.transition(t);
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

    fn fire_body(&self, tables: &mut Tables) -> TokenStream {
        if self.machine.actions.is_empty() {
            return quote!(match event {});
        }
        let mut arms = Vec::new();
        for state in self.machine.state_ids() {
            let groups = self.machine.candidate_groups(state);
            let state_variant = &self.idents.states[state.index()];
            for (action, candidates) in &groups {
                let candidates = reachable(self.machine, candidates);
                let action_variant = &self.idents.actions[action.index()];
                let has_payload = self.machine.actions[action.index()].payload.is_some();
                let payload = has_payload && self.uses_payload(&candidates);
                let pattern = match (has_payload, payload) {
                    (true, true) => quote!(Event::#action_variant(payload)),
                    (true, false) => quote!(Event::#action_variant(_)),
                    _ => quote!(Event::#action_variant),
                };
                let exprs: Vec<&GuardExpr> = candidates
                    .iter()
                    .filter_map(|&t| self.machine.transition(t).guard.as_ref().map(|g| &g.expr))
                    .collect();
                let cached = repeated_guards(exprs.iter().copied());
                let call = self.guard_call(payload);
                let mut branches = Vec::new();
                let mut fallback = None;
                for &t in &candidates {
                    let transition = self.machine.transition(t);
                    let (run, to, outputs) = self.take(
                        tables,
                        state,
                        transition.target,
                        &transition.effects,
                        &transition.emits,
                        payload,
                    );
                    let fired = quote!({
                        #run
                        __fsm::Ok(Fired { from: state, to: #to, action: Action::#action_variant, outputs: #outputs })
                    });
                    match &transition.guard {
                        Some(guard) => {
                            let condition = condition_with(&guard.expr, &cached, &self.idents, &call);
                            branches.push(quote!(if #condition #fired));
                        }
                        None => fallback = Some(fired),
                    }
                }
                let fallback = fallback.unwrap_or_else(|| {
                    let rejected = tables.rejected(
                        candidates
                            .iter()
                            .map(|&t| {
                                let transition = self.machine.transition(t);
                                let guard = transition
                                    .guard
                                    .as_ref()
                                    .map(|g| self.machine.guard_text(&g.expr));
                                (guard.unwrap_or_default(), transition.target)
                            })
                            .collect(),
                    );
                    quote!(__fsm::Err(__fsm::Rejected::new(
                        __fsm::FireError::rejected(state, Action::#action_variant, #rejected),
                        event,
                    )))
                });
                let caches = cached.iter().map(|g| {
                    let cache = &self.idents.guard_caches[g.index()];
                    quote!(let mut #cache: __fsm::Option<bool> = __fsm::None;)
                });
                let body = if branches.is_empty() {
                    fallback
                } else {
                    quote!({ #(#caches)* #(#branches)else* else { #fallback } })
                };
                arms.push(quote!((State::#state_variant, #pattern) => #body,));
            }
            if groups.len() < self.machine.actions.len() {
                let valid = tables.valid_actions(groups.iter().map(|(a, _)| *a).collect());
                let terminal = self.machine.state(state).is_terminal();
                arms.push(quote! {
                    (State::#state_variant, _) => __fsm::Err(__fsm::Rejected::new(
                        __fsm::FireError::invalid(state, event.action(), #valid, #terminal),
                        event,
                    )),
                });
            }
        }
        quote!(match (state, &event) { #(#arms)* })
    }

    /// `arm_timers`: the deadlines of the current state's timers, from now.
    fn arm_timers(&self) -> TokenStream {
        let n = Literal::usize_unsuffixed(self.max_timers);
        let arms = self.machine.state_ids().filter_map(|state| {
            let timers: Vec<_> = self.machine.timers_of(state).collect();
            if timers.is_empty() {
                return None;
            }
            let variant = &self.idents.states[state.index()];
            let mut named: Vec<usize> = Vec::new();
            let sets = timers.iter().enumerate().map(|(i, (_, timer))| {
                let index = Literal::usize_unsuffixed(i);
                let delay = match timer.delay {
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
                };
                quote!(self.deadlines[#index] = __fsm::Some(__fsm::deadline(now, #delay));)
            });
            let sets: Vec<TokenStream> = sets.collect();
            // Each named delay is read once per entry, so timers sharing it
            // share one deadline.
            let locals = named.iter().map(|&d| {
                let local = format_ident!("delay_{d}");
                let method = &self.delays[d];
                quote!(let #local = Context::#method(&self.context);)
            });
            Some(quote!(State::#variant => {
                let now = __fsm::Timestamp::from_system_time(__fsm::Clock::now(&self.clock));
                #(#locals)*
                #(#sets)*
            }))
        });
        let arms: Vec<TokenStream> = arms.collect();
        quote! {
            /// Disarm every timer, and arm those of the current state.
            fn arm_timers(&mut self) {
                self.deadlines = [__fsm::None; #n];
                #[allow(clippy::match_single_binding)]
                match self.state {
                    #(#arms)*
                    _ => {}
                }
            }
        }
    }

    /// `fire_due_at`: fire the earliest timer due at `now`.
    fn fire_due_at(&self, tables: &mut Tables) -> TokenStream {
        let mut order_arms = Vec::new();
        let mut arms = Vec::new();
        for state in self.machine.state_ids() {
            let order = self.timer_order(state);
            if order.is_empty() {
                continue;
            }
            let variant = &self.idents.states[state.index()];
            let indices = order.iter().map(|&(i, _)| Literal::usize_unsuffixed(i));
            order_arms.push(quote!(State::#variant => &[#(#indices),*],));
            // Groups: timers with the same delay, in trial order.
            let mut groups: Vec<(Delay, Vec<(usize, TimerId)>)> = Vec::new();
            for &(i, id) in &order {
                let delay = self.machine.timers[id.index()].delay;
                match groups.iter_mut().find(|(d, _)| *d == delay) {
                    Some((_, members)) => members.push((i, id)),
                    None => groups.push((delay, vec![(i, id)])),
                }
            }
            for (_, members) in groups {
                let patterns = members.iter().map(|&(i, _)| Literal::usize_unsuffixed(i));
                let disarm = members.iter().map(|&(i, _)| {
                    let i = Literal::usize_unsuffixed(i);
                    quote!(self.deadlines[#i] = __fsm::None;)
                });
                let first = Literal::u32_unsuffixed(members[0].0 as u32);
                let exprs: Vec<&GuardExpr> = members
                    .iter()
                    .filter_map(|&(_, id)| self.machine.timers[id.index()].guard.as_ref().map(|g| &g.expr))
                    .collect();
                let cached = repeated_guards(exprs.iter().copied());
                let call = self.guard_call(false);
                let mut branches = Vec::new();
                let mut fallback = None;
                for &(i, id) in &members {
                    let timer = &self.machine.timers[id.index()];
                    let (run, to, outputs) =
                        self.take(tables, state, timer.target, &timer.effects, &timer.emits, false);
                    let i = Literal::u32_unsuffixed(i as u32);
                    let fired = quote!({
                        #run
                        __fsm::Some(__fsm::Ok(TimerFired { from: state, to: #to, timer: #i, due, outputs: #outputs }))
                    });
                    match &timer.guard {
                        Some(guard) => {
                            let condition = condition_with(&guard.expr, &cached, &self.idents, &call);
                            branches.push(quote!(if #condition #fired));
                        }
                        None => {
                            fallback = Some(fired);
                            break;
                        }
                    }
                }
                let fallback = fallback.unwrap_or_else(
                    || quote!(__fsm::Some(__fsm::Err(TimerRejected { state, timer: #first, due }))),
                );
                let caches = cached.iter().map(|g| {
                    let cache = &self.idents.guard_caches[g.index()];
                    quote!(let mut #cache: __fsm::Option<bool> = __fsm::None;)
                });
                let body = if branches.is_empty() {
                    fallback
                } else {
                    quote!({ #(#caches)* #(#branches)else* else { #fallback } })
                };
                arms.push(quote!((State::#variant, #(#patterns)|*) => { #(#disarm)* #body }));
            }
        }
        quote! {
            /// The current state's timers, in the order they are tried.
            fn timer_order(state: State) -> &'static [usize] {
                #[allow(clippy::match_single_binding)]
                match state {
                    #(#order_arms)*
                    _ => &[],
                }
            }

            /// Fire the earliest timer due at `now`.
            fn fire_due_at(&mut self, now: __fsm::Timestamp) -> __fsm::Option<__fsm::Result<TimerFired, TimerRejected>> {
                let state = self.state;
                let mut next: __fsm::Option<(usize, __fsm::Timestamp)> = __fsm::None;
                for &index in Self::timer_order(state) {
                    if let __fsm::Some(due) = self.deadlines[index] {
                        if due <= now && !__fsm::matches!(next, __fsm::Some((_, earliest)) if earliest <= due) {
                            next = __fsm::Some((index, due));
                        }
                    }
                }
                let (index, due) = next?;
                match (state, index) {
                    #(#arms)*
                    _ => {
                        self.deadlines[index] = __fsm::None;
                        __fsm::None
                    }
                }
            }
        }
    }

    fn machine_type(&self, tables: &mut Tables) -> TokenStream {
        let m = &self.machine_ident;
        let name = &self.machine.name;
        let ctx = &self.context;
        let initial = &self.idents.states[self.machine.initial.index()];
        let docs = doc_attrs(&self.machine.docs, &format!("The `{name}` state machine."));
        let fire_body = self.fire_body(tables);
        let timers = self.max_timers > 0;
        let n = Literal::usize_unsuffixed(self.max_timers);
        let clock_arg_restore = if timers {
            quote!(, clock)
        } else {
            TokenStream::new()
        };
        let (generics, params, ty_default, clock_field, clock_param, clock_arg, clock_init) = if timers {
            (
                quote!(<K: __fsm::Clock>),
                quote!(<K>),
                quote!(<K = __fsm::SystemClock>),
                quote!(clock: K, deadlines: [__fsm::Option<__fsm::Timestamp>; #n],),
                quote!(, clock: K),
                quote!(, __fsm::SystemClock),
                quote!(clock, deadlines: [__fsm::None; #n],),
            )
        } else {
            Default::default()
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
                pub fn fire_next_due(&mut self) -> __fsm::Option<__fsm::Result<TimerFired, TimerRejected>> {
                    let now = __fsm::Timestamp::from_system_time(__fsm::Clock::now(&self.clock));
                    self.fire_due_at(now)
                }

                /// Fire every timer whose deadline has passed, earliest first,
                /// each exactly once, handing each result to `each`, and return
                /// how many there were. The clock is read once: timers armed
                /// by these firings are due later.
                pub fn fire_due(&mut self, mut each: impl __fsm::FnMut(__fsm::Result<TimerFired, TimerRejected>)) -> usize {
                    let now = __fsm::Timestamp::from_system_time(__fsm::Clock::now(&self.clock));
                    let mut count = 0;
                    while let __fsm::Some(result) = self.fire_due_at(now) {
                        count += 1;
                        each(result);
                    }
                    count
                }

                /// The timers armed now, with their deadlines, as a snapshot
                /// stores them.
                pub fn armed_timers(&self) -> impl Iterator<Item = __fsm::ArmedTimer> + '_ {
                    let state = self.state.name();
                    self.deadlines
                        .iter()
                        .enumerate()
                        .filter_map(move |(index, due)| due.map(|due| __fsm::ArmedTimer::new(state, index as u32, due)))
                }

                /// The clock.
                pub fn clock(&self) -> &K {
                    &self.clock
                }
            }
        } else {
            TokenStream::new()
        };
        let (arm_new, restore_deadlines, deadlines_init, with_timers) = if timers {
            (
                quote!(machine.arm_timers();),
                quote!(let deadlines = snapshot.deadlines::<#n>(Self::timer_order(state).len())?;),
                quote!(clock, deadlines,),
                quote!(.with_timers(self.armed_timers())),
            )
        } else {
            Default::default()
        };
        let restore_doc = if timers {
            quote! {
                /// Armed timers keep the deadlines the snapshot gives them,
                /// however long ago it was taken; the timers of the state it
                /// does not list stay disarmed.
            }
        } else {
            TokenStream::new()
        };
        quote! {
            #docs
            ///
            /// It owns its context, which its guards read and its effects
            /// update.
            pub struct #m #ty_default {
                state: State,
                context: #ctx,
                #clock_field
            }

            impl #m {
                /// The machine in its initial state, owning `context`, timed by the system clock.
                pub fn new(context: #ctx) -> Self {
                    Self::with_clock(context #clock_arg)
                }
            }

            impl #generics #m #params {
                /// The machine in its initial state, owning `context`, timed by `clock`.
                pub fn with_clock(context: #ctx #clock_param) -> Self {
                    #[allow(unused_mut)]
                    let mut machine = Self { state: State::#initial, context, #clock_init };
                    #arm_new
                    machine
                }

                /// The current state.
                pub fn state(&self) -> State {
                    self.state
                }

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

                /// The actions that have a transition in the current state.
                pub fn valid_actions(&self) -> &'static [Action] {
                    <Core as __fsm::Machine>::valid_actions_in(self.state)
                }

                /// True when the current state is terminal.
                pub fn is_terminal(&self) -> bool {
                    <Core as __fsm::Machine>::is_terminal_state(self.state)
                }

                /// Fire `event`. Guards read the context as it was before;
                /// then the chosen transition's effects run (exit hook, its
                /// `do`, enter hook) and the machine moves, arming the new
                /// state's timers. On error nothing ran and the event is
                /// handed back in the error (`into_event`). Neither allocates.
                pub fn fire(&mut self, event: Event) -> __fsm::Result<Fired, FireError> {
                    let state = self.state;
                    #fire_body
                }

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
                    #clock_param
                ) -> __fsm::Result<Self, __fsm::RestoreError> {
                    let state = snapshot.state_of::<Core>(policy)?;
                    #restore_deadlines
                    __fsm::Ok(Self { state, context, #deadlines_init })
                }

                #timer_methods
            }

            __fsm::if_serde! {
                impl #generics #m #params {
                    /// The current state, context and armed timers, with the
                    /// machine's name and fingerprint, ready to be stored.
                    ///
                    /// # Errors
                    ///
                    /// When the context does not serialize.
                    pub fn snapshot(&self) -> __fsm::Result<__fsm::Snapshot, __fsm::SnapshotError>
                    where
                        for<'a> #ctx: __fsm::Serialize,
                    {
                        __fsm::Snapshot::new(#name, <Core as __fsm::Machine>::FINGERPRINT, self.state.name())
                            #with_timers
                            .with_context_of(&self.context)
                    }

                    /// The machine in the state, context and timers of
                    /// `snapshot`; `policy` decides whether a snapshot of a
                    /// different definition is accepted.
                    ///
                    /// # Errors
                    ///
                    /// As [`Self::restore_with_context`], and when the snapshot
                    /// carries no context or one that does not deserialize
                    /// (the error names the field).
                    pub fn restore_with(
                        snapshot: &__fsm::Snapshot,
                        policy: __fsm::FingerprintPolicy
                        #clock_param
                    ) -> __fsm::Result<Self, __fsm::RestoreError>
                    where
                        for<'a> #ctx: __fsm::DeserializeOwned,
                    {
                        snapshot.state_of::<Core>(policy)?;
                        let context = snapshot.context_as::<#ctx>()?;
                        Self::restore_with_context(snapshot, policy, context #clock_arg_restore)
                    }
                }

                impl #m {
                    /// The machine in the state, context and timers of
                    /// `snapshot`, which must come from this exact definition,
                    /// timed by the system clock.
                    ///
                    /// # Errors
                    ///
                    /// As [`Self::restore_with`].
                    pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError>
                    where
                        for<'a> #ctx: __fsm::DeserializeOwned,
                    {
                        Self::restore_with(snapshot, __fsm::FingerprintPolicy::Strict #clock_arg)
                    }
                }
            }
        }
    }
}

/// The candidates up to and including the first unguarded one.
fn reachable(machine: &Machine, candidates: &[TransitionId]) -> Vec<TransitionId> {
    match candidates
        .iter()
        .position(|&t| machine.transition(t).guard.is_none())
    {
        Some(last) => candidates[..=last].to_vec(),
        None => candidates.to_vec(),
    }
}
