//! The module of a machine with parallel states: the plan's tables for a
//! step over configurations ([`ChartPlan`]) written as `static`s, and a
//! machine type that steps with `fsm_runtime::__private::chart`, the one account of
//! that step, which the dynamic engine runs too. Nothing of the semantics
//! is written here: this module renders the tables, the guards (`in(...)`
//! tested against the configuration before the step) and the typed views
//! of a configuration.
//!
//! The machine holds its configuration and its history memory as bit sets,
//! so it is `Copy` (without a context or timers) and `fire` does not
//! allocate: the outputs come back as a constant list or one collected in
//! place (an `fsm_runtime::List`), sized by the plan's bound on one `fire`
//! ([`ChartPlan::fire_bound`]).
//!
//! For speed, an action whose every leaf has a step the plan writes out
//! ahead of time ([`Plan::static_steps`]) gets its own `match` arm, which
//! tests the active leaves and takes their steps as constants: what each
//! exits and enters, and the outputs of that combination of the regions'
//! steps, as the one step emitted them when the plan took them ahead of
//! time ([`Plan::outputs_together`]); nothing here orders them. In a machine
//! without `always` and `done` transitions nothing follows such a step, so
//! the arm returns its outputs as a constant list (`fsm_runtime::List::fixed`),
//! and `fire`, when it has a few such arms, is inlined where it is called, as
//! a hand-written `match` would be. The differential test holds the arms to
//! the dynamic engine and the SCXML reference.
//!
//! A machine with a context or payloads renders the `Event` enum and the
//! `Context` (or `Guards`) trait as other machines do: `fire` takes an
//! `Event` and a refusal hands it back; the host reaches the context through
//! `fsm_runtime::__private::chart::Access` (mutably in `fire`, which runs effects where
//! the chart says, shared in `can_fire`), and reads a named delay when its
//! group is armed.
//!
//! A machine with timers holds its clock and one deadline per timer group;
//! which group is due first, what a snapshot lists and what a restore
//! accepts are `fsm_runtime::__private::chart`'s (`chart::first_due` over
//! the plan's tie order, `Chart::armed_timers`, `chart::restore`), as for
//! the dynamic engine.

use crate::docs::{doc_attrs, module_docs};
use crate::extended::Gen;
use crate::guards::{condition_in, guards_trait};
use crate::idents::{type_ident, value_ident, Idents};
use crate::machine::{enums, module_lints, module_prelude};
use crate::options::Options;
use fsm_grammar::model::{Chosen, Delay, GuardExpr, Machine, StateId};
use fsm_grammar::plan::{ChartKind, ChartPlan, FireBound, Plan, PoolList, StaticStep};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

/// The most written-out arms a `fire` has that is always inlined.
const INLINE_ARMS: usize = 8;

/// The most combinations of the slots' steps an arm lists its outputs and
/// transitions for, ahead of time.
const MAX_COMBINATIONS: usize = 256;

/// The typed view of one slot of a configuration: the machine's top level
/// or one region of a parallel state, with the states one of which is
/// active in it while it is active (its leaves and parallel states not
/// inside a parallel state below it).
struct Slot {
    /// The region; `None` for the top level.
    region: Option<StateId>,
    /// Its enum, in `regions`.
    ty: Ident,
    /// Its accessor on `Configuration`.
    method: Ident,
    members: Vec<StateId>,
}

fn slots(m: &Machine) -> Vec<Slot> {
    let members = |region: Option<StateId>| -> Vec<StateId> {
        // A region that is a parallel state is in itself; its own regions
        // are slots of their own.
        if let Some(r) = region.filter(|&r| m.state(r).is_parallel()) {
            return vec![r];
        }
        m.state_ids()
            .filter(|&s| {
                let inside = region.is_none_or(|r| s == r || m.is_inside(s, r));
                let kind_ok = !m.state(s).is_composite() || m.state(s).is_parallel();
                // No parallel state between the slot and `s`.
                let free = m
                    .ancestors(s)
                    .take_while(|&a| Some(a) != region)
                    .all(|a| !m.state(a).is_parallel());
                inside && kind_ok && free && Some(s) != region.filter(|&r| m.state(r).is_composite())
            })
            .collect()
    };
    let mut out = vec![Slot {
        region: None,
        ty: format_ident!("Top"),
        method: format_ident!("top"),
        members: members(None),
    }];
    for s in m.state_ids() {
        if m.state(s).parent.is_some_and(|p| m.state(p).is_parallel()) {
            out.push(Slot {
                region: Some(s),
                ty: type_ident(&m.state(s).name),
                method: value_ident(&m.state(s).name),
                members: members(Some(s)),
            });
        }
    }
    out
}

/// A region's name that the generated module cannot use: its enum or its
/// accessor would clash with the top level's or `Configuration`'s own.
pub(crate) fn name_conflict(machine: &Machine) -> Option<String> {
    let reserved = fsm_grammar::naming::CONFIGURATION_METHODS;
    slots(machine).iter().skip(1).find_map(|slot| {
        let name = &machine.state(slot.region?).name;
        (slot.ty == "Top" || reserved.contains(&slot.method.to_string().as_str())).then(|| {
            format!(
                "machine `{}` has a region named `{name}`, which would clash with the generated \
                 `Configuration::top`, `leaves` or `is_in`; rename the region",
                machine.name
            )
        })
    })
}

fn lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

fn u32_lit(n: u32) -> Literal {
    Literal::u32_unsuffixed(n)
}

fn id_lit(s: Option<StateId>) -> TokenStream {
    match s {
        Some(s) => {
            let n = u32_lit(s.index() as u32);
            quote!(#n)
        }
        None => quote!(__fsm::chart::NONE),
    }
}

fn list(l: PoolList) -> TokenStream {
    let (start, len) = (u32_lit(l.start), u32_lit(l.len));
    quote!(__fsm::chart::List { start: #start, len: #len })
}

/// The set of `states` as a `Bits` of `words` words.
fn bits(states: impl IntoIterator<Item = StateId>, words: usize) -> TokenStream {
    let mut out = vec![0u64; words];
    for s in states {
        out[s.index() / 64] |= 1 << (s.index() % 64);
    }
    let out = out.into_iter().map(Literal::u64_unsuffixed);
    quote!(__fsm::chart::Bits([#(#out),*]))
}

fn hook((outputs, effects): (PoolList, PoolList)) -> TokenStream {
    let (o, e) = (list(outputs), list(effects));
    quote!(__fsm::chart::Hook { outputs: #o, effects: #e })
}

/// The written-out step `step` as statements: its outputs as the plan
/// recorded them, whether it moved, its history records and its
/// configuration change, evaluating to the states it enters.
fn inline_step(step: &StaticStep, cp: &ChartPlan, idents: &Idents) -> TokenStream {
    let parts = StepParts { cp, idents };
    let outputs = parts.push(ids(&step.outputs.concat()));
    let moved = parts.moved(step).then(|| quote!(host.moved = true;));
    let memory = parts.memory(step);
    let change = parts.change(step, quote!(set));
    quote! {
        #outputs
        #moved
        #memory
        #[allow(unused_mut)]
        let mut set = __fsm::chart::Bits::EMPTY;
        #change
        self.config = self.config.or(&set);
        set
    }
}

/// An action's arm over several slots: which step each slot takes (by its
/// active leaf), its history records and configuration change, then the
/// outputs and whether anything moved, for that combination of steps, as
/// the plan took it ahead of time ([`Plan::outputs_together`]). `combine`
/// gets the lists' index (`k`) and the lists, and ends the arm.
struct Combinations<'a> {
    groups: &'a [Vec<(StateId, usize)>],
    steps: &'a [StaticStep],
    parts: StepParts<'a>,
}

impl Combinations<'_> {
    /// The arm: `into` is where each slot's step adds its entries (`set`,
    /// or the configuration itself); `end` takes the outputs' and moves'
    /// constants and `k`.
    fn arm(
        &self,
        plan: &Plan,
        into: TokenStream,
        refuse: TokenStream,
        end: impl FnOnce(TokenStream) -> TokenStream,
    ) -> TokenStream {
        let Combinations { groups, steps, parts } = self;
        // Each slot takes the step of its active leaf, if it has one, and
        // says which (0: none); the numbers, mixed-radix, index the lists
        // of that combination of steps. (When no slot has a step, none
        // changed anything, and the action is refused.)
        let which: Vec<Ident> = (0..groups.len()).map(|g| format_ident!("slot_{g}")).collect();
        let find = groups.iter().zip(&which).map(|(group, var)| {
            let branches = group.iter().enumerate().map(|(k, &(leaf, f))| {
                let (id, k) = (u32_lit(leaf.index() as u32), lit(k + 1));
                let (memory, change) = (parts.memory(&steps[f]), parts.change(&steps[f], into.clone()));
                quote!(if before.contains(#id) { #memory #change #k })
            });
            quote!(let #var: usize = #(#branches else)* { 0 };)
        });
        let radices: Vec<usize> = groups.iter().map(|g| g.len() + 1).collect();
        let first = &which[0];
        let index = which[1..]
            .iter()
            .zip(&radices[1..])
            .fold(quote!(#first), |acc, (var, &radix)| {
                let radix = lit(radix);
                quote!((#acc) * #radix + #var)
            });
        let combinations: usize = radices.iter().product();
        let mut sets: Vec<Vec<&StaticStep>> = Vec::with_capacity(combinations);
        for n in 0..combinations {
            // The step of each slot in this combination, if any.
            let mut rest = n;
            let mut chosen: Vec<&StaticStep> = Vec::new();
            for g in (0..groups.len()).rev() {
                let k = rest % radices[g];
                rest /= radices[g];
                if let Some(k) = k.checked_sub(1) {
                    chosen.push(&steps[groups[g][k].1]);
                }
            }
            sets.push(chosen);
        }
        let outputs = plan.outputs_together(&sets);
        let outputs = outputs.iter().map(|o| parts.output_slice(&ids(o)));
        let moved = sets.iter().map(|set| set.iter().any(|step| parts.moved(step)));
        let n = lit(combinations);
        let none = which.iter().map(|var| quote!(#var == 0));
        let end = end(quote! {
            const OUTPUTS: [&[Output]; #n] = [#(#outputs),*];
            const MOVED: [bool; #n] = [#(#moved),*];
            let k = #index;
        });
        quote! {
            #(#find)*
            if #(#none)&&* {
                return #refuse;
            }
            #end
        }
    }
}

/// The body of an action's arm that returns what it did: which step each
/// slot takes (by its active leaf), their history records and configuration
/// change, and the outputs of that combination of steps as the plan took it
/// ahead of time.
fn direct_arm(
    groups: &[Vec<(StateId, usize)>],
    steps: &[StaticStep],
    plan: &Plan,
    cp: &ChartPlan,
    idents: &Idents,
    input: &TokenStream,
) -> TokenStream {
    let parts = StepParts { cp, idents };
    let refuse = quote! {
        __fsm::Err(invalid(before, #input))
    };
    let fired = |outputs: TokenStream, internal: TokenStream| {
        quote! {
            __fsm::Ok(__fsm::Fired {
                from: Configuration(before),
                to: Configuration(self.config),
                action,
                outputs: __fsm::List::fixed(#outputs),
                internal: #internal,
            })
        }
    };
    if let [group] = groups {
        let branches = group.iter().map(|&(leaf, f)| {
            let step = &steps[f];
            let id = u32_lit(leaf.index() as u32);
            let outputs = parts.output_slice(&ids(&step.outputs.concat()));
            let internal = !parts.moved(step);
            let returned = fired(quote!(#outputs), quote!(#internal));
            let (memory, change) = (parts.memory(step), parts.change(step, quote!(self.config)));
            quote!(if before.contains(#id) { #memory #change #returned })
        });
        return quote! {
            #(#branches else)* {
                #refuse
            }
        };
    }
    let returned = fired(quote!(OUTPUTS[k]), quote!(!MOVED[k]));
    Combinations { groups, steps, parts }.arm(plan, quote!(self.config), refuse, |lists| {
        quote! {
            #lists
            #returned
        }
    })
}

/// The parts of a written-out step as statements.
struct StepParts<'a> {
    cp: &'a ChartPlan,
    idents: &'a Idents,
}

/// Outputs as the ids the generated tables hold.
fn ids(outputs: &[fsm_grammar::model::OutputId]) -> Vec<u32> {
    outputs.iter().map(|o| o.index() as u32).collect()
}

impl StepParts<'_> {
    fn push(&self, outputs: Vec<u32>) -> TokenStream {
        let outputs = outputs.into_iter().map(|o| &self.idents.outputs[o as usize]);
        quote!(#(host.outputs.push(Output::#outputs);)*)
    }

    /// True when the step's transition has a target.
    fn moved(&self, step: &StaticStep) -> bool {
        self.cp.transitions[step.transition].target.is_some()
    }

    /// `outputs` as a constant slice.
    fn output_slice(&self, outputs: &[u32]) -> TokenStream {
        let outputs = outputs.iter().map(|&o| &self.idents.outputs[o as usize]);
        quote!(&[#(Output::#outputs),*])
    }

    /// The step's history records.
    fn memory(&self, step: &StaticStep) -> TokenStream {
        let leaf = u32_lit(step.leaf.index() as u32);
        let memory = step.memory.iter().map(|&slot| {
            let slot = lit(slot);
            quote! {
                self.memory[#slot] = __fsm::chart::Bits::EMPTY;
                self.memory[#slot].insert(#leaf);
            }
        });
        quote!(#(#memory)*)
    }

    /// Its states exited, removed from the configuration, and entered,
    /// added to `into`, one by one (constants the compiler folds into word
    /// operations), so the code grows with the step, not with the machine.
    fn change(&self, step: &StaticStep, into: TokenStream) -> TokenStream {
        let exits = step.exits.iter().map(|s| u32_lit(s.index() as u32));
        let entries = step.entries.iter().map(|s| u32_lit(s.index() as u32));
        quote! {
            #(self.config.remove(#exits);)*
            #(#into.insert(#entries);)*
        }
    }
}

/// `pub mod <snake_name> { ... }` for a checked machine over
/// configurations: one with parallel states, or one whose `always` and
/// `done` steps cannot be laid out ahead of time.
pub(crate) fn parallel_module(machine: &Machine, options: &Options) -> TokenStream {
    let m = machine;
    let docs = module_docs(m, options);
    let prelude = module_prelude(options);
    let lints = module_lints();
    // A context or payloads: `fire` takes an `Event`, and the `Event` enum
    // and the `Context` trait (or `Guards`, with payloads) are rendered as
    // for a machine without parallel states.
    let payloads = m.actions.iter().any(|a| a.payload.is_some());
    let gen = (m.context.is_some() || payloads).then(|| Gen::new(m, options));
    let sh = Shared::new(m, options, gen.as_ref());
    let idents = &sh.idents;
    let module = &idents.module;
    let enums = enums(m, idents);
    let guards_trait = guards_trait(&m.guards, idents, &options.spans);
    let name = &m.name;
    let fingerprint = &sh.fingerprint;
    // The `Event` enum and the `Context` trait (or `Guards` with payloads),
    // over the user's types, which resolve where the machine is generated.
    let (guards_trait, data_allow, data_use) = match &gen {
        Some(gen) => {
            let event = gen.events.then(|| gen.event_enum());
            let traits = gen.context_trait();
            (
                quote!(#event #traits),
                quote! {
                    // The context and payload types are the user's, often
                    // private to the module that generates the machine.
                    #[allow(private_interfaces, private_bounds)]
                },
                quote! {
                    #[allow(unused_imports)]
                    use super::*;
                },
            )
        }
        None => (guards_trait, TokenStream::new(), TokenStream::new()),
    };
    let Shared {
        ctx,
        impl_generics,
        machine_ty,
        n_actions,
        g_param,
        input,
        input_ref_ty,
        g_arg,
        input_action,
        max_leaves,
        ..
    } = &sh;
    let views = views(&sh);
    let tables = tables(&sh);
    let (written_arms, general) = written_arms(&sh);
    let (fire_error, fire_methods) = fire(&sh, &written_arms, general);
    let host = host(&sh);
    let traits = machine_traits(&sh);
    let delay_fn = delay_fn(&sh);
    let check_host = sh.host_with(quote!(__fsm::None), quote!(__fsm::Some(event)), true);
    let can_fire_doc = format!(
        " True when `fire` would take `{input}` now (asking the guards it would ask, and changing \
         nothing)."
    );

    let ctx_accessors = ctx.as_ref().map(|c| {
        quote! {
            /// The context.
            pub fn context(&self) -> &#c {
                &self.context
            }

            /// The context, to change outside any transition.
            pub fn context_mut(&mut self) -> &mut #c {
                &mut self.context
            }

            /// The machine's context, giving the machine up.
            pub fn into_context(self) -> #c {
                self.context
            }
        }
    });
    let snapshot_of = sh.snapshot_of();
    let plain_snapshot = ctx.is_none().then(|| {
        quote! {
            /// The configuration (its leaves, in document order),
            /// the armed timers and the history memory, with the
            /// machine's name and fingerprint, ready to be stored.
            pub fn snapshot(&self) -> __fsm::Snapshot {
                #snapshot_of
            }
        }
    });
    // The machine, and what a machine with timers adds: its clock, its
    // deadlines (one per timer group), and firing the due ones.
    let Items {
        machine_struct,
        constructor,
        timer_methods,
        armed_timers,
        restore,
        restore_system,
        timer_items,
    } = if sh.timed {
        timed_items(&sh)
    } else {
        untimed_items(&sh)
    };

    quote! {
        #docs
        #lints
        #data_allow
        pub mod #module {
            #prelude
            #data_use
            #enums
            #guards_trait

            #views

            #fire_error

            #timer_items

            #machine_struct

            impl #impl_generics #machine_ty {
                /// The machine's name, as written.
                pub const NAME: &'static str = #name;
                /// A hash of the definition, which snapshots carry.
                pub const FINGERPRINT: &'static str = #fingerprint;

                #constructor

                #ctx_accessors

                /// The active states.
                pub fn configuration(&self) -> Configuration {
                    Configuration(self.config)
                }

                /// True when `state` (a leaf or a composite) is active.
                pub fn is_in(&self, state: impl __fsm::Into<AnyState>) -> bool {
                    self.config.contains(state.into().id())
                }

                /// The active leaves, in document order.
                pub fn leaves(&self) -> impl __fsm::Iterator<Item = State> + '_ {
                    self.config.iter().filter_map(|s| LEAF_BY_ID[s as usize])
                }

                /// True in a top-level `terminal` state, which nothing leaves.
                pub fn is_terminal(&self) -> bool {
                    terminal_in(self.config)
                }

                /// The actions some active leaf has a transition for, in
                /// declaration order.
                pub fn valid_actions(&self) -> __fsm::List<Action, #n_actions> {
                    valid_in(self.config)
                }

                #fire_methods

                #timer_methods

                #[doc = #can_fire_doc]
                pub fn can_fire #g_param (&self, #input: #input_ref_ty #g_arg) -> bool {
                    let mut host = #check_host;
                    let a = action_index(#input_action);
                    let mut chosen = [0u32; #max_leaves];
                    __fsm::chart::select(
                        &CHART,
                        &self.config,
                        |leaf| __fsm::chart::Row::find(ROWS[leaf as usize], a).map_or(&[], |row| CHART.list(row.candidates)),
                        &mut host,
                        &mut chosen,
                    ) > 0
                }
            }

            __fsm::if_alloc! {
                impl #impl_generics #machine_ty {
                    #armed_timers

                    #plain_snapshot

                    #restore
                }
            }
            #restore_system

            #host

            #traits

            #delay_fn

            #tables
        }
    }
}

/// What the parts of the module share: the values computed once.
struct Shared<'a> {
    m: &'a Machine,
    options: &'a Options,
    idents: Idents,
    plan: Plan,
    cp: ChartPlan,
    bound: FireBound,
    /// The context's type, when the machine has one.
    ctx: Option<TokenStream>,
    events: bool,
    timed: bool,
    has_guards: bool,
    guards_arg: bool,
    gen_effects: Vec<Ident>,
    slots: Vec<Slot>,
    step_table: Vec<Vec<Option<usize>>>,
    static_steps: Vec<StaticStep>,
    named_delays: Vec<TokenStream>,
    words: Literal,
    slots_n: Literal,
    max_leaves: Literal,
    n_groups: Literal,
    n_guards: Literal,
    n_outputs: Literal,
    n_actions: Literal,
    input: TokenStream,
    input_ty: TokenStream,
    input_ref_ty: TokenStream,
    input_action: TokenStream,
    let_action: TokenStream,
    g_param: TokenStream,
    g_arg: TokenStream,
    g_call: Option<TokenStream>,
    method_generics: TokenStream,
    impl_generics: TokenStream,
    machine_ty: TokenStream,
    type_params: TokenStream,
    default_params: TokenStream,
    output_fill: TokenStream,
    keep_timers: Option<TokenStream>,
    ctx_field: TokenStream,
    ctx_param: TokenStream,
    ctx_arg: TokenStream,
    ctx_init: TokenStream,
    ctx_sep: TokenStream,
    fingerprint: String,
}

impl<'a> Shared<'a> {
    fn new(m: &'a Machine, options: &'a Options, gen: Option<&Gen>) -> Shared<'a> {
        let idents = Idents::new(m);
        let plan = Plan::new(m);
        let cp = plan.chart.clone();
        let bound = cp.fire_bound(m);
        let machine_ident = &idents.machine;
        let ctx: Option<TokenStream> = gen.and_then(|g| g.context.clone());
        let events = gen.is_some_and(|g| g.events);
        let (gen_effects, gen_delays) = match gen {
            Some(g) => (g.effects.clone(), g.delays.clone()),
            None => (Vec::new(), Vec::new()),
        };
        let (input, input_ty, input_ref_ty, input_action, let_action) = if events {
            (
                quote!(event),
                quote!(Event),
                quote!(&Event),
                quote!(event.action()),
                quote!(let action = event.action();),
            )
        } else {
            (
                quote!(action),
                quote!(Action),
                quote!(Action),
                quote!(action),
                quote!(),
            )
        };
        let words = lit(cp.words);
        let slots_n = lit(plan.history.len());
        let max_leaves = lit(cp.max_leaves);
        let n_guards = lit(m.guards.len());
        let FireBound { outputs, .. } = bound;
        let n_outputs = lit(outputs);
        let n_actions = lit(m.actions.len().max(1));
        let output_fill = match idents.outputs.first() {
            Some(first) if outputs > 0 => quote!([Output::#first; #n_outputs]),
            _ => quote!([]),
        };
        let n_outputs = if idents.outputs.is_empty() {
            lit(0)
        } else {
            n_outputs
        };
        let timed = !m.timers.is_empty();
        let n_groups = lit(plan.timer_groups.len());
        let slots = slots(m);
        // The steps the plan writes out, and which leaves have candidates.
        let (step_table, static_steps) = plan.static_steps(m);
        let has_guards = !m.guards.is_empty();
        // The caller passes the guards to `fire` (a machine with guards and no
        // context); a machine with a context owns it, and its host reaches it.
        let guards_arg = has_guards && ctx.is_none();
        let g_call = guards_arg.then(|| quote!(, guards));
        let (g_param, g_arg) = if guards_arg {
            (quote!(<G: Guards + ?::core::marker::Sized>), quote!(, guards: &G))
        } else {
            (quote!(), quote!())
        };
        let method_generics = g_param.clone();
        let (impl_generics, machine_ty) = if timed {
            (quote!(<K: __fsm::Clock>), quote!(#machine_ident<K>))
        } else {
            (quote!(), quote!(#machine_ident))
        };
        // A timer group's delay: a literal, or the context's named delay, read
        // when the group is armed.
        let named_delays: Vec<TokenStream> = plan
            .timer_groups
            .iter()
            .enumerate()
            .filter_map(|(g, group)| match group.delay {
                Delay::Named(d) => {
                    let (g, method) = (u32_lit(g as u32), &gen_delays[d.index()]);
                    Some(quote!(#g => Context::#method(context),))
                }
                Delay::Literal(_) => None,
            })
            .collect();
        let keep_timers = timed.then(|| quote!(self.armed = host.armed;));
        // The runtime's result types, by their short names, and the refusals
        // `fire` builds: out of line, as the errors are the cold path.
        let (type_params, default_params) = if timed {
            (quote!(<K>), quote!(<K = __fsm::DefaultClock>))
        } else {
            (quote!(), quote!())
        };
        // The context: a field, a constructor argument, accessors, and with
        // `fsm-runtime`'s `serde` feature a part of every snapshot.
        let (ctx_field, ctx_param, ctx_arg, ctx_init, ctx_sep) = match &ctx {
            Some(c) => (
                quote!(context: #c,),
                quote!(context: #c),
                quote!(context),
                quote!(context,),
                quote!(,),
            ),
            None => Default::default(),
        };
        Shared {
            m,
            options,
            idents,
            plan,
            cp,
            bound,
            ctx,
            events,
            timed,
            has_guards,
            guards_arg,
            gen_effects,
            slots,
            step_table,
            static_steps,
            named_delays,
            words,
            slots_n,
            max_leaves,
            n_groups,
            n_guards,
            n_outputs,
            n_actions,
            input,
            input_ty,
            input_ref_ty,
            input_action,
            let_action,
            g_param,
            g_arg,
            g_call,
            method_generics,
            impl_generics,
            machine_ty,
            type_params,
            default_params,
            output_fill,
            keep_timers,
            ctx_field,
            ctx_param,
            ctx_arg,
            ctx_init,
            ctx_sep,
            fingerprint: m.fingerprint(),
        }
    }

    /// How the host reaches the guards: the caller's, the context (mutably
    /// in `fire`, to run effects; shared in `can_fire`), or nothing.
    fn reach(&self, shared: bool) -> TokenStream {
        match (&self.ctx, self.guards_arg) {
            (Some(_), _) if shared => quote!(context: &self.context,),
            (Some(_), _) => quote!(context: &mut self.context,),
            (None, true) => quote!(guards,),
            (None, false) => quote!(guards: &(),),
        }
    }

    /// The host's generics and types (its struct's parameters, its impls'
    /// generics and type, and the type `fire` steps with). A machine with
    /// timers is generic over its clock `K`, and its host keeps the
    /// deadlines of a step until the step is done.
    fn host_types(&self) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
        let (ctx, guards_arg, timed) = (&self.ctx, self.guards_arg, self.timed);
        let clock = |tokens: TokenStream| timed.then_some(tokens);
        let k_param = clock(quote!(, K));
        let k_bound = clock(quote!(, K: __fsm::Clock));
        match (ctx, guards_arg) {
            (Some(c), _) => (
                quote!(<'g, X #k_param>),
                quote!(<X: __fsm::chart::Access<#c> #k_bound>),
                quote!(Host<'_, X #k_param>),
                quote!(Host<'_, &mut #c #k_param>),
            ),
            (None, true) => (
                quote!(<'g, G: ?::core::marker::Sized #k_param>),
                quote!(<G: Guards + ?::core::marker::Sized #k_bound>),
                quote!(Host<'_, G #k_param>),
                quote!(Host<'_, G #k_param>),
            ),
            (None, false) => (
                quote!(<'g, G: ?::core::marker::Sized #k_param>),
                match timed {
                    true => quote!(<K: __fsm::Clock>),
                    false => quote!(),
                },
                quote!(Host<'_, () #k_param>),
                quote!(Host<'_, () #k_param>),
            ),
        }
    }

    /// A `Host` for a step: its clock reading `now`, its event `event`,
    /// reaching the context shared or not.
    fn host_with(&self, now: TokenStream, event: TokenStream, shared: bool) -> TokenStream {
        let (timed, events, n_guards, output_fill) =
            (self.timed, self.events, &self.n_guards, &self.output_fill);
        let timers = timed.then(|| quote!(armed: self.armed, now: #now, clock: &self.clock,));
        let event = events.then(|| quote!(event: #event,));
        let reach = self.reach(shared);
        quote! {
            Host {
                #reach
                #event
                cache: [__fsm::None; #n_guards],
                outputs: __fsm::chart::Inline::new(#output_fill),
                moved: false,
                #timers
            }
        }
    }

    /// The `always` and `done` steps after an action's step, and after a
    /// timer's.
    fn settles(&self) -> (TokenStream, TokenStream) {
        let (m, bound, input, keep_timers) = (self.m, &self.bound, &self.input, &self.keep_timers);
        // Without `always` and `done` transitions nothing follows a step; with
        // them, they settle, or (`bound.runaway`) may stop at the bound.
        let settle = if m.eventless.is_empty() {
            quote!(let _ = entered;)
        } else {
            quote! {
                let settled = __fsm::chart::settle(&CHART, &mut self.config, &mut self.memory, &before, &entered, &mut host, &mut chosen);
            }
        };
        // After an action's step, a runaway is an error, where the last
        // microstep left the machine (as the dynamic engine's), its timers
        // kept; after a timer's, the timer stays fired there, as there.
        let settle_timer = if m.eventless.is_empty() {
            settle.clone()
        } else {
            quote!(#settle let _ = settled;)
        };
        // Where an `always` or `done` transition can be taken twice, the
        // outputs hold what a `fire` taking none twice emits: one that
        // emitted more is an error too, having kept the first ones.
        let overflow = bound.overflow.then(|| {
            quote! {
                if host.outputs.overflow() > 0 {
                    #keep_timers
                    let emitted = host.outputs.pushed();
                    let outputs = __fsm::List::collected(host.outputs);
                    return __fsm::Err(__fsm::FireError::overflow(Configuration(before), Configuration(self.config), #input, outputs, emitted));
                }
            }
        });
        let settle = if !m.eventless.is_empty() && bound.runaway {
            quote! {
                #settle
                if settled == __fsm::chart::Settled::Runaway {
                    #keep_timers
                    let emitted = host.outputs.pushed();
                    let outputs = __fsm::List::collected(host.outputs);
                    return __fsm::Err(__fsm::FireError::runaway(Configuration(before), Configuration(self.config), #input, outputs, emitted));
                }
                #overflow
            }
        } else {
            quote!(#settle_timer #overflow)
        };
        (settle, settle_timer)
    }

    /// Timer group `g`'s delay, the context being `context`.
    fn delay_of(&self, g: TokenStream, context: TokenStream) -> TokenStream {
        if self.named_delays.is_empty() {
            quote!(DELAYS[#g as usize])
        } else {
            quote!(delay(#g, #context))
        }
    }

    /// The configuration and history memory of a snapshot, restored.
    fn restoring(&self, groups: TokenStream, armed: TokenStream) -> TokenStream {
        let slots_n = &self.slots_n;
        quote! {
            let mut memory = [__fsm::chart::Bits::EMPTY; #slots_n];
            let config = __fsm::chart::restore(
                &__fsm::chart::Restoring {
                    chart: CHART,
                    machine: Self::NAME,
                    fingerprint: Self::FINGERPRINT,
                    names: &NAMES,
                    slots: &HISTORY_SLOTS,
                    groups: #groups,
                },
                snapshot,
                policy,
                &mut memory,
                #armed,
            )?;
        }
    }

    /// The snapshot of the machine, without its context.
    fn snapshot_of(&self) -> TokenStream {
        let with_timers = self.timed.then(|| quote!(.with_timers(self.armed_timers())));
        quote! {
            __fsm::Snapshot::of_configuration(
                Self::NAME,
                Self::FINGERPRINT,
                self.leaves().map(State::name),
            )
            #with_timers
            .with_last_leaves(
                HISTORY_SLOTS
                    .iter()
                    .zip(&self.memory)
                    .filter(|(_, leaves)| !leaves.is_empty())
                    .map(|(&composite, leaves)| {
                        (NAMES[composite as usize], leaves.iter().map(|s| NAMES[s as usize]))
                    }),
            )
        }
    }
}

/// The typed views of a configuration: `AnyState`, the slots' enums in
/// `regions`, and `Configuration`.
fn views(sh: &Shared) -> TokenStream {
    let m = sh.m;
    let Shared {
        idents, slots, words, ..
    } = sh;
    let machine_ident = &idents.machine;
    // States as ids, and back.
    let leaves: Vec<StateId> = m.leaves().collect();
    let composites = crate::nested::composites(m);
    let variant = |s: StateId| &idents.states[s.index()];
    let leaf_ids = leaves.iter().map(|&s| {
        let (v, id) = (variant(s), u32_lit(s.index() as u32));
        quote!(State::#v => #id)
    });
    let composite_ids = composites.iter().map(|&s| {
        let (v, id) = (variant(s), u32_lit(s.index() as u32));
        quote!(Composite::#v => #id)
    });
    // A machine without composite states (one without parallel states whose
    // `always` and `done` steps cycle, stepped over the chart) has no
    // `Composite` enum, and `AnyState` no such variant.
    let (composite_variant, composite_from, composite_arm) = if composites.is_empty() {
        (TokenStream::new(), TokenStream::new(), TokenStream::new())
    } else {
        (
            quote! {
                /// A state holding states (parallel ones too).
                Composite(Composite),
            },
            quote! {
                impl __fsm::From<Composite> for AnyState {
                    fn from(state: Composite) -> AnyState {
                        AnyState::Composite(state)
                    }
                }
            },
            quote!(AnyState::Composite(state) => match state { #(#composite_ids,)* },),
        )
    };

    // The slots.
    let slot_enums = slots.iter().map(|slot| {
        let ty = &slot.ty;
        let variants = slot.members.iter().map(|&s| variant(s));
        let names = slot.members.iter().map(|&s| m.state(s).name.as_str());
        let variants2 = slot.members.iter().map(|&s| variant(s));
        let summary = match slot.region {
            None => format!("The top level of [`{machine_ident}`](super::{machine_ident}): where it is outside every parallel state, or which parallel state it is in."),
            Some(r) => format!(
                "Region `{}` of `{}`: the state it is in, while it is active.",
                m.state(r).name,
                m.state(m.state(r).parent.expect("a region has a parent")).name
            ),
        };
        let docs = doc_attrs(&[], &summary);
        quote! {
            #docs
            #[derive(
                __fsm::Clone,
                __fsm::Copy,
                __fsm::Debug,
                __fsm::PartialEq,
                __fsm::Eq,
                __fsm::PartialOrd,
                __fsm::Ord,
                __fsm::Hash
            )]
            pub enum #ty {
                #(#variants,)*
            }

            impl #ty {
                /// The state's name, as written in the definition.
                pub const fn name(self) -> &'static str {
                    match self {
                        #(#ty::#variants2 => #names,)*
                    }
                }
            }
        }
    });
    let slot_methods = slots.iter().map(|slot| {
        let (ty, method) = (&slot.ty, &slot.method);
        let arms = slot.members.iter().map(|&s| {
            let (v, id) = (variant(s), u32_lit(s.index() as u32));
            match slot.region {
                None => quote!(if self.0.contains(#id) { return regions::#ty::#v; }),
                Some(_) => quote!(if self.0.contains(#id) { return __fsm::Some(regions::#ty::#v); }),
            }
        });
        match slot.region {
            None => quote! {
                /// Where the machine is at the top level: a state outside
                /// every parallel state, or the parallel state it is in.
                pub fn top(&self) -> regions::Top {
                    #(#arms)*
                    ::core::unreachable!("a configuration has one state at the top level")
                }
            },
            Some(r) => {
                let doc = format!(
                    "The state region `{}` is in; `None` while `{}` is not active.",
                    m.state(r).name,
                    m.state(m.state(r).parent.expect("a region has a parent")).name
                );
                quote! {
                    #[doc = #doc]
                    pub fn #method(&self) -> __fsm::Option<regions::#ty> {
                        #(#arms)*
                        __fsm::None
                    }
                }
            }
        }
    });
    quote! {
        /// Any state of the machine, a leaf or a composite, for
        /// [`Configuration::is_in`].
        #[derive(__fsm::Clone, __fsm::Copy, __fsm::Debug, __fsm::PartialEq, __fsm::Eq, __fsm::Hash)]
        pub enum AnyState {
            /// A leaf.
            Leaf(State),
            #composite_variant
        }

        impl __fsm::From<State> for AnyState {
            fn from(state: State) -> AnyState {
                AnyState::Leaf(state)
            }
        }

        #composite_from

        impl AnyState {
            const fn id(self) -> u32 {
                match self {
                    AnyState::Leaf(state) => match state { #(#leaf_ids,)* },
                    #composite_arm
                }
            }
        }

        /// The states one of which is active in each slot of a
        /// configuration: [`Top`](regions::Top) for the top level, one
        /// enum per region of a parallel state. A `match` on one is
        /// exhaustive.
        pub mod regions {
            use super::__fsm;
            #(#slot_enums)*
        }

        /// The set of active states: one leaf in each active region,
        /// and every state holding them.
        #[derive(__fsm::Clone, __fsm::Copy, __fsm::PartialEq, __fsm::Eq, __fsm::Hash)]
        pub struct Configuration(__fsm::chart::Bits<#words>);

        impl Configuration {
            /// True when `state` (a leaf or a composite) is active.
            pub fn is_in(&self, state: impl __fsm::Into<AnyState>) -> bool {
                self.0.contains(state.into().id())
            }

            /// The active leaves, in document order.
            pub fn leaves(&self) -> impl __fsm::Iterator<Item = State> + '_ {
                self.0.iter().filter_map(|s| LEAF_BY_ID[s as usize])
            }

            #(#slot_methods)*
        }

        /// The active leaves, separated by commas.
        impl __fsm::fmt::Display for Configuration {
            fn fmt(&self, f: &mut __fsm::fmt::Formatter<'_>) -> __fsm::fmt::Result {
                for (i, leaf) in self.leaves().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(leaf.name())?;
                }
                __fsm::Ok(())
            }
        }

        impl __fsm::fmt::Debug for Configuration {
            fn fmt(&self, f: &mut __fsm::fmt::Formatter<'_>) -> __fsm::fmt::Result {
                f.debug_list().entries(self.leaves()).finish()
            }
        }
    }
}

/// The plan's tables as `static`s: the chart, each state's rows, the
/// written-out steps, the names, the outputs and the history slots.
fn tables(sh: &Shared) -> TokenStream {
    let m = sh.m;
    let Shared {
        idents,
        plan,
        cp,
        step_table,
        static_steps,
        words,
        slots_n,
        ..
    } = sh;
    let n_states = lit(m.states.len());
    let n_transitions = lit(cp.transitions.len());

    // The tables.
    let states = cp.states.iter().map(|s| {
        let kind = match s.kind {
            ChartKind::Leaf => quote!(Leaf),
            ChartKind::Final => quote!(Final),
            ChartKind::Composite => quote!(Composite),
            ChartKind::Parallel => quote!(Parallel),
        };
        let (parent, initial) = (id_lit(s.parent), id_lit(s.initial));
        let (depth, end) = (u32_lit(s.depth), u32_lit(s.end));
        let children = list(s.children);
        let memory = match s.memory {
            Some(slot) => {
                let n = u32_lit(slot as u32);
                quote!(#n)
            }
            None => quote!(__fsm::chart::NONE),
        };
        let (enter, exit) = (hook(s.enter), hook(s.exit));
        let (timer_groups, eventless) = (list(s.timer_groups), list(s.eventless));
        quote! {
            __fsm::chart::State {
                parent: #parent,
                kind: __fsm::chart::Kind::#kind,
                depth: #depth,
                end: #end,
                initial: #initial,
                children: #children,
                memory: #memory,
                enter: #enter,
                exit: #exit,
                timer_groups: #timer_groups,
                eventless: #eventless,
            }
        }
    });
    let transitions = cp.transitions.iter().map(|t| {
        let (source, target) = (id_lit(t.source), id_lit(t.target));
        let history = Literal::u8_unsuffixed(t.history);
        let priority = Literal::i32_unsuffixed(t.priority);
        let (lo, hi) = (u32_lit(t.exits.0), u32_lit(t.exits.1));
        let path = list(t.path);
        let own = hook(t.own);
        quote! {
            __fsm::chart::Transition {
                source: #source,
                target: #target,
                history: #history,
                priority: #priority,
                exits: (#lo, #hi),
                path: #path,
                own: #own,
            }
        }
    });
    let pool = cp.pool.iter().map(|&n| u32_lit(n));
    let n_pool = lit(cp.pool.len());

    let names = m.states.iter().map(|s| s.name.as_str());
    let variant = |s: StateId| &idents.states[s.index()];
    let leaf_by_id = m.state_ids().map(|s| {
        if m.state(s).is_composite() {
            quote!(__fsm::None)
        } else {
            let v = variant(s);
            quote!(__fsm::Some(State::#v))
        }
    });
    let output_by_index = idents.outputs.iter().map(|o| quote!(Output::#o));
    let n_outputs_all = lit(m.outputs.len());
    let history_slots = plan
        .history
        .iter()
        .map(|slot| u32_lit(slot.composite.index() as u32));
    let initial = bits(m.initial_configuration(), cp.words);
    let mut fast_pool: Vec<u32> = Vec::new();
    let mut pool_list = |ids: &mut dyn Iterator<Item = u32>| {
        let start = fast_pool.len() as u32;
        fast_pool.extend(ids);
        list(PoolList {
            start,
            len: fast_pool.len() as u32 - start,
        })
    };
    let fast_steps: Vec<TokenStream> = static_steps
        .iter()
        .map(|step| {
            let [exit_outputs, own_outputs, entry_outputs] = step
                .outputs
                .each_ref()
                .map(|part| pool_list(&mut part.iter().map(|o| o.index() as u32)));
            let memory = pool_list(&mut step.memory.iter().map(|&slot| slot as u32));
            let (leaf, transition) = (u32_lit(step.leaf.index() as u32), u32_lit(step.transition as u32));
            let exits = pool_list(&mut step.exits.iter().map(|s| s.index() as u32));
            let entries = pool_list(&mut step.entries.iter().map(|s| s.index() as u32));
            quote! {
                __fsm::chart::Fast {
                    leaf: #leaf,
                    transition: #transition,
                    exits: #exits,
                    entries: #entries,
                    exit_outputs: #exit_outputs,
                    own_outputs: #own_outputs,
                    entry_outputs: #entry_outputs,
                    memory: #memory,
                }
            }
        })
        .collect();
    let n_fast = lit(fast_steps.len());
    // Each state's rows, sorted by action: only the actions it has
    // candidates for, so the tables grow with the machine, not with states
    // times actions.
    let rows = (0..m.states.len()).map(|s| {
        let mut row: Vec<&(usize, PoolList)> = cp.rows[s].iter().filter(|(_, l)| l.len > 0).collect();
        row.sort_by_key(|(action, _)| *action);
        let row = row.into_iter().map(|&(action, l)| {
            let (action_lit, candidates) = (u32_lit(action as u32), list(l));
            let fast = match step_table[s][action] {
                Some(f) => {
                    let f = u32_lit(f as u32);
                    quote!(#f)
                }
                None => quote!(__fsm::chart::NONE),
            };
            quote!(__fsm::chart::Row { action: #action_lit, candidates: #candidates, fast: #fast })
        });
        quote!(&[#(#row),*])
    });
    let fast_pool_n = lit(fast_pool.len());
    let fast_pool = fast_pool.iter().map(|&n| u32_lit(n));
    quote! {
    const INITIAL: __fsm::chart::Bits<#words> = #initial;
    static NAMES: [&str; #n_states] = [#(#names),*];
    static LEAF_BY_ID: [__fsm::Option<State>; #n_states] = [#(#leaf_by_id),*];
    static OUTPUTS: [Output; #n_outputs_all] = [#(#output_by_index),*];
    static HISTORY_SLOTS: [u32; #slots_n] = [#(#history_slots),*];
    static STATES: [__fsm::chart::State; #n_states] = [#(#states),*];
    static TRANSITIONS: [__fsm::chart::Transition; #n_transitions] = [#(#transitions),*];
    static POOL: [u32; #n_pool] = [#(#pool),*];
    static ROWS: [&[__fsm::chart::Row]; #n_states] = [#(#rows),*];
    static FAST: [__fsm::chart::Fast; #n_fast] = [#(#fast_steps),*];
    static FAST_POOL: [u32; #fast_pool_n] = [#(#fast_pool),*];
    static CHART: __fsm::chart::Chart<'static> = __fsm::chart::Chart {
        states: &STATES,
        transitions: &TRANSITIONS,
        pool: &POOL,
    };
    }
}

/// The written-out arms of `fire`: for each action that has one, the
/// action, its arm, and whether the arm takes the whole step itself; and
/// the general step, for the actions without.
fn written_arms(sh: &Shared) -> (Vec<(Ident, TokenStream, bool)>, Option<TokenStream>) {
    let m = sh.m;
    let Shared {
        idents,
        cp,
        slots,
        step_table,
        static_steps,
        input,
        ..
    } = sh;
    // Each action whose every leaf has a written-out step, and whose steps
    // in different slots never meet, fires through a `match` arm that tests
    // the leaves and takes their steps as constants; the others through
    // the written-out steps when they apply, and the chart otherwise.
    let slot_of = |leaf: StateId| slots.iter().position(|slot| slot.members.contains(&leaf));
    let mut written_arms: Vec<(Ident, TokenStream, bool)> = Vec::new();
    let direct = m.eventless.is_empty();
    let mut general_actions = 0;
    for (a, action_ident) in idents.actions.iter().enumerate() {
        let leaves: Vec<StateId> = m
            .state_ids()
            .filter(|s| {
                cp.rows[s.index()]
                    .iter()
                    .any(|&(action, l)| action == a && l.len > 0)
            })
            .collect();
        let steps: Option<Vec<usize>> = leaves.iter().map(|l| step_table[l.index()][a]).collect();
        let groups: Option<Vec<Vec<(StateId, usize)>>> =
            steps.filter(|_| leaves.len() <= 64).and_then(|steps| {
                let mut groups: Vec<(usize, Vec<(StateId, usize)>)> = Vec::new();
                for (&leaf, &f) in leaves.iter().zip(&steps) {
                    let slot = slot_of(leaf)?;
                    match groups.iter_mut().find(|(s, _)| *s == slot) {
                        Some((_, group)) => group.push((leaf, f)),
                        None => groups.push((slot, vec![(leaf, f)])),
                    }
                }
                // Steps of different slots take different transitions and exit
                // different states, so any of them can be taken together.
                for (i, (_, g1)) in groups.iter().enumerate() {
                    for (_, g2) in &groups[i + 1..] {
                        for &(_, f1) in g1 {
                            for &(_, f2) in g2 {
                                let (s1, s2) = (&static_steps[f1], &static_steps[f2]);
                                if s1.transition == s2.transition
                                    || s1.exits.iter().any(|e| s2.exits.contains(e))
                                {
                                    return None;
                                }
                            }
                        }
                    }
                }
                Some(groups.into_iter().map(|(_, g)| g).collect())
            });
        let Some(groups) = groups.filter(|g| !g.is_empty()) else {
            general_actions += 1;
            continue;
        };
        let refused = quote!(__fsm::Err(invalid(before, #input)));
        // Without `always` and `done` transitions nothing follows the
        // step, so an arm can return what it did as constant lists: the
        // outputs and transitions of each combination of the slots' steps.
        let combinations: usize = groups.iter().map(|g| g.len() + 1).product();
        if direct && combinations <= MAX_COMBINATIONS {
            let body = direct_arm(&groups, static_steps, &sh.plan, cp, idents, input);
            written_arms.push((action_ident.clone(), body, true));
            continue;
        }
        let arm = if let [group] = groups.as_slice() {
            let branches = group.iter().map(|&(leaf, f)| {
                let id = u32_lit(leaf.index() as u32);
                let take = inline_step(&static_steps[f], cp, idents);
                quote!(if before.contains(#id) { #take })
            });
            quote! {
                #(#branches else)* {
                    return #refused
                }
            }
        } else if combinations <= MAX_COMBINATIONS {
            let parts = StepParts { cp, idents };
            let combined = Combinations {
                groups: &groups,
                steps: static_steps,
                parts,
            };
            let arm = combined.arm(&sh.plan, quote!(set), refused, |lists| {
                quote! {
                    #lists
                    for &output in OUTPUTS[k] {
                        host.outputs.push(output);
                    }
                    host.moved |= MOVED[k];
                    self.config = self.config.or(&set);
                    set
                }
            });
            quote! {
                #[allow(unused_mut)]
                let mut set = __fsm::chart::Bits::EMPTY;
                #arm
            }
        } else {
            // Too many combinations to list: the one step takes it.
            general_actions += 1;
            continue;
        };
        written_arms.push((action_ident.clone(), arm, false));
    }
    let general = (general_actions > 0).then(|| {
        quote! {
            {
                let a = action_index(action);
                let mut leaves = __fsm::chart::Bits::EMPTY;
                for s in before.iter() {
                    if __fsm::chart::Row::find(ROWS[s as usize], a).is_some() {
                        leaves.insert(s);
                    }
                }
                let fast = __fsm::chart::fast_step(
                    &FAST,
                    &FAST_POOL,
                    &leaves,
                    |leaf| __fsm::chart::Row::find(ROWS[leaf as usize], a).map_or(__fsm::chart::NONE, |r| r.fast),
                    &mut self.config,
                    &mut self.memory,
                    &mut host,
                    &mut chosen,
                );
                match fast {
                    __fsm::Some(entered) => entered,
                    __fsm::None => match Self::general_step(
                        &mut self.config,
                        &mut self.memory,
                        before,
                        a,
                        &mut host,
                        &mut chosen,
                    ) {
                        __fsm::Some(entered) => entered,
                        __fsm::None => {
                            let guarded = Self::has_candidates(&before, a);
                            return __fsm::Err(refused(before, #input, guarded));
                        }
                    },
                }
            }
        }
    });
    (written_arms, general)
}

/// What a step asks of the caller and collects for it: the `Host` struct,
/// its guards, effects and timers, and its `chart::Host` impl.
fn host(sh: &Shared) -> TokenStream {
    let m = sh.m;
    let Shared {
        idents,
        cp,
        ctx,
        gen_effects,
        words,
        n_guards,
        n_groups,
        n_outputs,
        ..
    } = sh;
    let (timed, events, has_guards) = (sh.timed, sh.events, sh.has_guards);
    // The guards, by transition.
    let guard_of = |c: Chosen| -> Option<&GuardExpr> { m.transition_of(c).guard.as_ref().map(|g| &g.expr) };
    // Whether some guard reads the configuration (`in(...)`).
    let reads_config = std::cell::Cell::new(false);
    let guard_arms: Vec<TokenStream> = cp
        .transitions
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let expr = guard_of(t.chosen)?;
            let call = |g: fsm_grammar::model::GuardId| {
                let n = lit(g.index());
                quote!(self.ask(#n))
            };
            let in_state = |s: StateId| {
                reads_config.set(true);
                let id = u32_lit(s.index() as u32);
                quote!(config.contains(#id))
            };
            let condition = condition_in(expr, idents, &call, &in_state);
            let i = u32_lit(i as u32);
            Some(quote!(#i => #condition,))
        })
        .collect();
    // `call` (a guard's or an effect's) with `payload` bound to the event's
    // payload of type `ty`.
    let payload_match = |ty: &str, call: TokenStream| {
        let variants = m
            .actions
            .iter()
            .zip(&idents.actions)
            .filter(|(a, _)| a.payload.as_ref().is_some_and(|p| p.text == ty))
            .map(|(_, v)| quote!(__fsm::Some(Event::#v(payload))));
        quote! {
            match self.event {
                #(#variants)|* => #call,
                // The checker allows a payload only where the action
                // carries one of this type (`payload-mismatch`).
                _ => ::core::unreachable!("a payload of this type is carried by every action that uses it"),
            }
        }
    };
    let ask_arms = m
        .guards
        .iter()
        .zip(&idents.guards)
        .enumerate()
        .map(|(i, (guard, g))| {
            let i = lit(i);
            let receiver = match ctx {
                Some(_) => quote!(Context::#g(__fsm::chart::Access::read(&self.context))),
                None => quote!(Guards::#g(self.guards)),
            };
            let call = match &guard.payload {
                None => receiver,
                Some(p) => {
                    let receiver = match ctx {
                        Some(_) => quote!(Context::#g(__fsm::chart::Access::read(&self.context), payload)),
                        None => quote!(Guards::#g(self.guards, payload)),
                    };
                    payload_match(&p.text, receiver)
                }
            };
            quote!(#i => #call,)
        });
    let ask = if has_guards {
        quote! {
            /// Guard `g`, asked at most once per step.
            fn ask(&mut self, g: usize) -> bool {
                *self.cache[g].get_or_insert_with(|| match g {
                    #(#ask_arms)*
                    _ => ::core::unreachable!(),
                })
            }
        }
    } else {
        quote!()
    };
    // The effects, run on the context; an effect with a payload only ever
    // runs as a transition's own `do`, on an action that carries one.
    let effect_body = match &ctx {
        Some(_) if !m.effects.is_empty() => {
            let arms = m.effects.iter().enumerate().map(|(i, effect)| {
                let (i, e) = (u32_lit(i as u32), &gen_effects[i]);
                let call = match &effect.payload {
                    None => quote!(Context::#e(context)),
                    Some(p) => payload_match(&p.text, quote!(Context::#e(context, payload))),
                };
                quote!(#i => #call,)
            });
            quote! {
                fn effect(&mut self, effect: u32, _own: bool) {
                    // `can_fire` reads the context and runs nothing.
                    let __fsm::Some(context) = __fsm::chart::Access::write(&mut self.context) else {
                        return;
                    };
                    match effect {
                        #(#arms)*
                        _ => ::core::unreachable!(),
                    }
                }
            }
        }
        _ => quote!(
            fn effect(&mut self, _effect: u32, _own: bool) {}
        ),
    };
    let (host_struct_param, host_generics, host_ty_impl, _) = sh.host_types();
    let host_reach_field = match ctx {
        Some(_) => quote!(context: X,),
        None => quote!(guards: &'g G,),
    };
    let host_event_field = events.then(|| quote!(event: __fsm::Option<&'g Event>,));
    let host_timer_fields = timed.then(|| {
        quote! {
            armed: [__fsm::Option<__fsm::Timestamp>; #n_groups],
            now: __fsm::Option<__fsm::Timestamp>,
            clock: &'g K,
        }
    });
    let arm_delay = sh.delay_of(quote!(g), quote!(__fsm::chart::Access::read(&self.context)));
    let arm_body = if timed {
        quote! {
            fn arm(&mut self, groups: &[u32]) {
                // The time every timer a step arms counts from, read once.
                let now = *self.now.get_or_insert_with(|| __fsm::Clock::now(self.clock));
                for &g in groups {
                    self.armed[g as usize] = __fsm::Some(__fsm::deadline(now, #arm_delay));
                }
            }

            fn disarm(&mut self, groups: &[u32]) {
                for &g in groups {
                    self.armed[g as usize] = __fsm::None;
                }
            }
        }
    } else {
        quote! {
            fn arm(&mut self, _groups: &[u32]) {}

            fn disarm(&mut self, _groups: &[u32]) {}
        }
    };
    let guard_body = if guard_arms.is_empty() {
        quote! {
            let _ = (transition, config);
            true
        }
    } else {
        let unused = (!reads_config.get()).then(|| quote!(let _ = config;));
        quote! {
            #unused
            match transition {
                #(#guard_arms)*
                _ => true,
            }
        }
    };
    quote! {
    /// What a step asks of the caller and collects for it.
    struct Host #host_struct_param {
        #host_reach_field
        #host_event_field
        cache: [__fsm::Option<bool>; #n_guards],
        outputs: __fsm::chart::Inline<Output, #n_outputs>,
        moved: bool,
        #host_timer_fields
    }

    impl #host_generics #host_ty_impl {
        #ask
    }

    impl #host_generics __fsm::chart::Host<#words> for #host_ty_impl {
        fn guard(&mut self, transition: u32, config: &__fsm::chart::Bits<#words>) -> bool {
            #guard_body
        }

        fn taken(&mut self, transition: u32) {
            // The next step asks its guards afresh.
            self.cache = [__fsm::None; #n_guards];
            self.moved |= TRANSITIONS[transition as usize].target != __fsm::chart::NONE;
        }

        #effect_body

        fn output(&mut self, output: u32) {
            self.outputs.push(OUTPUTS[output as usize]);
        }

        #arm_body
    }
    }
}

/// Most leaves with candidates for one action whose combinations
/// `rejected_in` lists ahead of time (2^6 lists for that action).
const MAX_REJECTING_LEAVES: usize = 6;

/// `rejected_in(before, a)`: the candidates the active leaves of `before`
/// tried for action `a`, all rejected, in the order the chart tries them
/// (leaves in document order, each leaf's in trial order, a transition
/// several leaves inherit once, where the first tried it), as the dynamic
/// engine lists them. `static` lists, one per combination of the action's
/// leaves with candidates that can be active, indexed by which are; empty for
/// an action more than [`MAX_REJECTING_LEAVES`] leaves have candidates for.
/// Read only when a `fire` is refused.
fn rejected_in(sh: &Shared) -> TokenStream {
    let (m, cp, words) = (sh.m, &sh.cp, &sh.words);
    let list = |l: PoolList| &cp.pool[l.start as usize..(l.start + l.len) as usize];
    let candidate = |t: u32| {
        let (guard, target) = match cp.transitions[t as usize].chosen {
            Chosen::Action(id) => {
                let transition = m.transition(id);
                let guard = transition.guard.as_ref().map(|g| m.guard_text(&g.expr));
                (
                    guard.unwrap_or_default(),
                    transition.target.map(|s| m.state(s).name.clone()),
                )
            }
            _ => (String::new(), None),
        };
        let target = match target {
            Some(name) => quote!(__fsm::Some(#name)),
            None => quote!(__fsm::None),
        };
        quote!(__fsm::Candidate::new(#guard, #target))
    };
    let guarded = |t: u32| match cp.transitions[t as usize].chosen {
        Chosen::Action(id) => m.transition(id).guard.is_some(),
        _ => false,
    };
    let ids: Vec<StateId> = m.state_ids().collect();
    // Two leaves can be active together when the innermost state holding
    // both is a parallel state.
    let together = |x: u32, y: u32| {
        let above = |s: StateId| {
            let mut chain = Vec::new();
            let mut at = m.state(s).parent;
            while let Some(p) = at {
                chain.push(p);
                at = m.state(p).parent;
            }
            chain
        };
        let (ax, ay) = (above(ids[x as usize]), above(ids[y as usize]));
        ax.iter()
            .find(|p| ay.contains(p))
            .is_some_and(|&p| m.state(p).is_parallel())
    };
    let mut leaves_by_action = Vec::new();
    let mut lists_by_action = Vec::new();
    for a in 0..m.actions.len() {
        // The leaves with candidates for `a` that can all be rejected (a
        // leaf with an unguarded one always takes it), in document order,
        // and their candidates.
        let leaves: Vec<(u32, &[u32])> = (0..cp.rows.len())
            .filter_map(|leaf| {
                let (_, l) = cp.rows[leaf].iter().find(|(action, _)| *action == a)?;
                Some((leaf as u32, list(*l)))
            })
            .filter(|(_, l)| !l.is_empty() && l.iter().all(|&t| guarded(t)))
            .collect();
        if leaves.is_empty() || leaves.len() > MAX_REJECTING_LEAVES {
            leaves_by_action.push(quote!(&[]));
            lists_by_action.push(quote!(&[]));
            continue;
        }
        let lists = (0..1usize << leaves.len()).map(|mask| {
            let chosen: Vec<u32> = (0..leaves.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| leaves[i].0)
                .collect();
            if chosen
                .iter()
                .enumerate()
                .any(|(i, &x)| chosen[i + 1..].iter().any(|&y| !together(x, y)))
            {
                // Never active together.
                return quote!(&[]);
            }
            let mut seen = Vec::new();
            for (i, (_, candidates)) in leaves.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    for &t in *candidates {
                        if !seen.contains(&t) {
                            seen.push(t);
                        }
                    }
                }
            }
            let items = seen.iter().map(|&t| candidate(t));
            quote!(&[#(#items),*])
        });
        let ids = leaves.iter().map(|&(leaf, _)| u32_lit(leaf));
        leaves_by_action.push(quote!(&[#(#ids),*]));
        lists_by_action.push(quote!(&[#(#lists),*]));
    }
    let n_actions = &sh.n_actions;
    quote! {
        /// The candidates the active leaves of `before` tried for action
        /// `a`: those of each leaf with some, in document order, each
        /// transition once; one `static` list per combination of them.
        fn rejected_in(before: &__fsm::chart::Bits<#words>, a: u32) -> &'static [__fsm::Candidate] {
            static LEAVES: [&[u32]; #n_actions] = [#(#leaves_by_action),*];
            static REJECTED: [&[&[__fsm::Candidate]]; #n_actions] = [#(#lists_by_action),*];
            let mut active = 0usize;
            for (i, &leaf) in LEAVES[a as usize].iter().enumerate() {
                if before.contains(leaf) {
                    active |= 1 << i;
                }
            }
            REJECTED[a as usize].get(active).copied().unwrap_or(&[])
        }
    }
}

/// `fire`, `fire_general`, the general step and `has_candidates`, and the
/// result types and refusals they return.
fn fire(
    sh: &Shared,
    written_arms: &[(Ident, TokenStream, bool)],
    general: Option<TokenStream>,
) -> (TokenStream, TokenStream) {
    let m = sh.m;
    let Shared {
        idents,
        ctx,
        words,
        slots_n,
        max_leaves,
        input,
        input_ty,
        let_action,
        g_param,
        g_arg,
        g_call,
        method_generics,
        impl_generics,
        machine_ty,
        type_params,
        default_params,
        keep_timers,
        ..
    } = sh;
    let (events, has_guards) = (sh.events, sh.has_guards);
    let machine_ident = &idents.machine;
    let direct = m.eventless.is_empty();
    // One `match` over the actions; the general step alone when no action
    // has written-out steps, and no wildcard arm when every action has.
    // The actions without written-out arms go to `fire_general`, out of
    // line, so that `fire` stays small. A `fire` of a few written-out arms
    // is always inlined where it is called, as a hand-written `match` would
    // be: the caller then reads what it uses of `Fired` where `fire` wrote
    // it, rather than a copy.
    let has_general = general.is_some();
    let inline = if !written_arms.is_empty() && written_arms.len() <= INLINE_ARMS {
        quote!(#[inline(always)])
    } else {
        quote!(#[inline])
    };
    let (settle, _) = sh.settles();
    let new_host = sh.host_with(quote!(__fsm::None), quote!(__fsm::Some(&event)), false);
    let (_, _, _, host_ty) = sh.host_types();
    let fired_doc = format!(" What a successful [`{machine_ident}::fire`] reports.");
    let error_doc = if events {
        format!(" Why [`{machine_ident}::fire`] did not fire, with the event handed back (`event`, `into_event`).")
    } else {
        format!(" Why [`{machine_ident}::fire`] did not fire.")
    };
    let rejected_in = rejected_in(sh);
    let input_action = &sh.input_action;
    let refused = has_general.then(|| {
        quote! {
            /// The general step's refusal: guards that all failed, or no
            /// candidate at all.
            #[cold]
            #[inline(never)]
            fn refused #impl_generics (
                before: __fsm::chart::Bits<#words>,
                #input: #input_ty,
                guarded: bool,
            ) -> __fsm::FireError<#machine_ty> {
                if guarded {
                    let candidates = rejected_in(&before, action_index(#input_action));
                    __fsm::FireError::rejected(Configuration(before), #input, candidates)
                } else {
                    invalid(before, #input)
                }
            }

            #rejected_in
        }
    });
    let has_candidates = has_general.then(|| {
        quote! {
            /// True when some leaf of `before` has candidates for
            /// action `a` (whose guards, then, all failed).
            fn has_candidates(before: &__fsm::chart::Bits<#words>, a: u32) -> bool {
                before.iter().any(|s| __fsm::chart::Row::find(ROWS[s as usize], a).is_some())
            }
        }
    });
    let fire_error = quote! {
        #[doc = #fired_doc]
        pub type Fired #default_params = __fsm::Fired<#machine_ident #type_params>;

        #[doc = #error_doc]
        pub type FireError #default_params = __fsm::FireError<#machine_ident #type_params>;

        /// The refusal of an action no active leaf has a transition for.
        #[cold]
        #[inline(never)]
        fn invalid #impl_generics (
            before: __fsm::chart::Bits<#words>,
            #input: #input_ty,
        ) -> __fsm::FireError<#machine_ty> {
            __fsm::FireError::invalid(Configuration(before), #input, valid_in(before), terminal_in(before))
        }

        #refused
    };
    // A step from the configuration before, whose states entered are
    // `entered`, then the `always` and `done` steps after it, and what they
    // all did.
    let step = |entered: TokenStream| {
        quote! {
            let before = self.config;
            let mut host = #new_host;
            // Scratch for the steps taken together, when some are.
            #[allow(unused_mut, unused_variables)]
            let mut chosen = [0u32; #max_leaves];
            let entered = #entered;
            #settle
            #keep_timers
            __fsm::Ok(__fsm::Fired {
                from: Configuration(before),
                to: Configuration(self.config),
                action,
                outputs: __fsm::List::collected(host.outputs),
                internal: !host.moved,
            })
        }
    };
    // Arms that return what they did take the step themselves; the others
    // evaluate to the states entered, and `step` does the rest.
    let fire_body = if m.actions.is_empty() {
        // No action: nothing to fire.
        quote!(match #input {})
    } else if written_arms.is_empty() {
        quote!(self.fire_general(#input #g_call))
    } else if direct {
        let arms = written_arms.iter().map(|(action, body, complete)| {
            let body = if *complete {
                body.clone()
            } else {
                step(body.clone())
            };
            quote!(Action::#action => { #body })
        });
        let wildcard = has_general.then(|| quote!(_ => self.fire_general(#input #g_call),));
        quote! {
            let before = self.config;
            #let_action
            match action { #(#arms)* #wildcard }
        }
    } else {
        let arms = written_arms
            .iter()
            .map(|(action, body, _)| quote!(Action::#action => { #body }));
        let wildcard = has_general.then(|| quote!(_ => return self.fire_general(#input #g_call),));
        let body = step(quote!(match action { #(#arms)* #wildcard }));
        quote!(#let_action #body)
    };
    let fire_general = general.map(|general| {
        let body = step(general);
        quote! {
            /// [`Self::fire`] for the actions without a written-out arm.
            #[inline(never)]
            fn fire_general #method_generics (&mut self, #input: #input_ty #g_arg) -> __fsm::Result<__fsm::Fired<Self>, __fsm::FireError<Self>> {
                #let_action
                #body
            }
        }
    });
    let guards_doc = match (&ctx, has_guards) {
        (Some(_), _) => {
            "the context answers the guards as each step finds it, each guard at most once per \
             step, and the steps' effects change it in the order they run; "
        }
        (None, true) => "`guards` answers the guards, each at most once per step; ",
        (None, false) => "",
    };
    let fire_doc = format!(
        " Fires `{input}`: {guards_doc}every active leaf takes its first enabled transition for it, \
         conflicts are resolved, and the step and the `always` and `done` steps after it run to \
         completion, as the chart says."
    );
    let fire_errors_doc = if events {
        " When no active leaf takes the event's action, or no guard of theirs holds: the machine \
         and its context are unchanged, nothing ran, and the error hands the event back."
    } else {
        " When no active leaf takes `action`, or no guard of theirs holds; the machine is unchanged."
    };
    let fire_methods = quote! {
        #[allow(clippy::single_match)]
        #inline
        #[doc = #fire_doc]
        ///
        /// # Errors
        ///
        #[doc = #fire_errors_doc]
        pub fn fire #g_param (&mut self, #input: #input_ty #g_arg) -> __fsm::Result<__fsm::Fired<Self>, __fsm::FireError<Self>> {
            #fire_body
        }

        #fire_general

        /// The chart's step for action `a`, from `before`: the
        /// first enabled candidate of every active leaf, conflicts
        /// removed; the states entered, or `None` when no leaf took
        /// the action.
        #[allow(clippy::too_many_arguments)]
        fn general_step #method_generics (
            config: &mut __fsm::chart::Bits<#words>,
            memory: &mut [__fsm::chart::Bits<#words>; #slots_n],
            before: __fsm::chart::Bits<#words>,
            a: u32,
            host: &mut #host_ty,
            chosen: &mut [u32; #max_leaves],
        ) -> __fsm::Option<__fsm::chart::Bits<#words>> {
            let n = __fsm::chart::select(
                &CHART,
                &before,
                |leaf| __fsm::chart::Row::find(ROWS[leaf as usize], a).map_or(&[], |row| CHART.list(row.candidates)),
                host,
                chosen,
            );
            if n == 0 {
                return __fsm::None;
            }
            let n = __fsm::chart::remove_conflicts(&CHART, &before, chosen, n);
            __fsm::Some(__fsm::chart::microstep(&CHART, config, memory, &chosen[..n], host))
        }

        #has_candidates
    };
    (fire_error, fire_methods)
}

/// `Machine` and its siblings, as every generated machine has them, and
/// the functions they read the tables with.
fn machine_traits(sh: &Shared) -> TokenStream {
    let m = sh.m;
    let Shared {
        idents,
        cp,
        ctx,
        words,
        n_actions,
        n_outputs,
        impl_generics,
        machine_ty,
        type_params,
        fingerprint,
        ..
    } = sh;
    let (events, timed, guards_arg) = (sh.events, sh.timed, sh.guards_arg);
    let machine_ident = &idents.machine;
    let name = &m.name;
    let terminal_states: Vec<StateId> = m.state_ids().filter(|&s| m.state(s).is_terminal()).collect();
    let terminal_ids: Vec<Literal> = terminal_states
        .iter()
        .map(|s| u32_lit(s.index() as u32))
        .collect();
    let action_arms = idents.actions.iter().enumerate().map(|(i, a)| {
        let i = u32_lit(i as u32);
        quote!(Action::#a => #i,)
    });
    // `Machine` and its siblings, as every generated machine has them.
    let valid_in_body = match idents.actions.first() {
        Some(first) => quote! {
            let mut valid = __fsm::chart::Inline::new([Action::#first; #n_actions]);
            for &action in Action::ALL {
                let a = action_index(action);
                if config.iter().any(|s| __fsm::chart::Row::find(ROWS[s as usize], a).is_some()) {
                    valid.push(action);
                }
            }
            __fsm::List::collected(valid)
        },
        // No action: nothing is ever valid.
        None => quote! {
            let _ = config;
            __fsm::List::fixed(&[])
        },
    };
    let terminal_configurations = terminal_states.iter().map(|&s| bits([s], cp.words));
    let event_ty = if events { quote!(Event) } else { quote!(Action) };
    let action_of = if events {
        quote!(event.action())
    } else {
        quote!(*event)
    };
    let guards_param = Ident::new("G", Span::call_site());
    let clock_param = Ident::new("K", Span::call_site());
    let traits = crate::extended::trait_impls(&crate::extended::Traits {
        machine: machine_ident,
        generics: impl_generics,
        params: type_params,
        events,
        guards_param: guards_arg.then_some(&guards_param),
        clock_param: timed.then_some(&clock_param),
        context: ctx.as_ref(),
    });
    let machine_impl = quote! {
        impl #impl_generics __fsm::Machine for #machine_ty {
            type State = Configuration;
            type Action = Action;
            type Output = Output;
            type Event = #event_ty;
            type Outputs = __fsm::List<Output, #n_outputs>;
            type Valid = __fsm::List<Action, #n_actions>;

            const NAME: &'static str = #name;
            const FINGERPRINT: &'static str = #fingerprint;
            const INITIAL: Configuration = Configuration(INITIAL);
            const TERMINAL: &'static [Configuration] = &[#(Configuration(#terminal_configurations)),*];

            #[inline]
            fn state(&self) -> Configuration {
                Configuration(self.config)
            }

            #[inline]
            fn action_of(event: &#event_ty) -> Action {
                #action_of
            }

            fn valid_actions_in(state: Configuration) -> __fsm::List<Action, #n_actions> {
                valid_in(state.0)
            }

            fn is_terminal_state(state: Configuration) -> bool {
                terminal_in(state.0)
            }
        }

        impl __fsm::MachineState for Configuration {
            type Leaf = State;

            fn leaves(&self) -> impl __fsm::Iterator<Item = State> + '_ {
                Configuration::leaves(self)
            }

            fn leaf(&self) -> __fsm::Option<State> {
                let mut leaves = Configuration::leaves(self);
                let first = leaves.next()?;
                match leaves.next() {
                    __fsm::None => __fsm::Some(first),
                    __fsm::Some(_) => __fsm::None,
                }
            }
        }

        #traits
    };
    quote! {
    const fn action_index(action: Action) -> u32 {
        match action {
            #(#action_arms)*
        }
    }

    /// The actions some leaf of `config` has a transition for, in
    /// declaration order.
    fn valid_in(config: __fsm::chart::Bits<#words>) -> __fsm::List<Action, #n_actions> {
        #valid_in_body
    }

    /// True when `config` is a top-level `terminal` state, which
    /// nothing leaves.
    fn terminal_in(config: __fsm::chart::Bits<#words>) -> bool {
        [#(#terminal_ids),*].iter().any(|&s: &u32| config.contains(s))
    }

    #machine_impl
    }
}

/// `delay`, when some timer group's delay is the context's: timer group
/// `g`'s delay, reading a named delay from `context`.
fn delay_fn(sh: &Shared) -> TokenStream {
    let named_delays = &sh.named_delays;
    match &sh.ctx {
        Some(c) if !named_delays.is_empty() => quote! {
            /// Timer group `g`'s delay, reading a named delay from `context`.
            fn delay(g: u32, context: &#c) -> __fsm::Duration {
                match g {
                    #(#named_delays)*
                    _ => DELAYS[g as usize],
                }
            }
        },
        _ => TokenStream::new(),
    }
}

/// What a machine with timers adds to its methods: its next deadline, its
/// clock, and firing the timers due.
fn timer_methods(sh: &Shared) -> TokenStream {
    let Shared {
        max_leaves,
        g_arg,
        g_call,
        method_generics,
        keep_timers,
        ..
    } = sh;
    let (_, settle_timer) = sh.settles();
    let due_host = sh.host_with(quote!(__fsm::Some(now)), quote!(__fsm::None), false);
    quote! {
        /// When the next armed timer is due; `None` when none
        /// is armed.
        pub fn next_deadline(&self) -> __fsm::Option<__fsm::Timestamp> {
            // Only the groups of active states are armed.
            self.armed.iter().flatten().min().copied()
        }

        /// Fire the timer due first by the clock (read once), if
        /// any, as its own step followed by its `always` and
        /// `done` steps: `Ok` with what it did, or `Err` when no
        /// guard of its group held (the group is then
        /// disarmed). Ties go by priority, then each leaf's own
        /// timers before those of the states holding it, leaves
        /// in document order. Does not allocate.
        pub fn fire_next_due #method_generics (
            &mut self #g_arg
        ) -> __fsm::Option<__fsm::Result<__fsm::TimerFired<Self>, __fsm::TimerRejected<Self>>> {
            let now = __fsm::Clock::now(&self.clock);
            self.fire_due_at(now #g_call)
        }

        /// Fire every timer whose deadline has passed, earliest
        /// first, each exactly once, handing each result to
        /// `each`, and return how many there were. The clock is
        /// read once: timers armed by these firings are due
        /// later.
        pub fn fire_due #method_generics (
            &mut self #g_arg,
            mut each: impl __fsm::FnMut(__fsm::Result<__fsm::TimerFired<Self>, __fsm::TimerRejected<Self>>),
        ) -> usize {
            let now = __fsm::Clock::now(&self.clock);
            let mut count = 0;
            while let __fsm::Some(result) = self.fire_due_at(now #g_call) {
                count += 1;
                each(result);
            }
            count
        }

        /// The clock.
        pub fn clock(&self) -> &K {
            &self.clock
        }

        /// The timer group due first at `now`, fired: the first
        /// of its timers whose guard holds takes its step.
        fn fire_due_at #method_generics (
            &mut self,
            now: __fsm::Timestamp #g_arg
        ) -> __fsm::Option<__fsm::Result<__fsm::TimerFired<Self>, __fsm::TimerRejected<Self>>> {
            let (g, due) = __fsm::chart::first_due(TIMER_ORDER.iter().copied(), &self.armed, __fsm::Some(now))?;
            self.armed[g as usize] = __fsm::None;
            let group = &GROUPS[g as usize];
            let declared_in = NAMES[group.state as usize];
            let before = self.config;
            let mut host = #due_host;
            let chosen = group
                .candidates
                .iter()
                .position(|&t| __fsm::chart::Host::guard(&mut host, t, &before));
            let __fsm::Some(k) = chosen else {
                return __fsm::Some(__fsm::Err(__fsm::TimerRejected {
                    state: Configuration(before),
                    declared_in,
                    timer: group.indices[0],
                    due,
                }));
            };
            #[allow(unused_mut, unused_variables)]
            let mut chosen = [0u32; #max_leaves];
            let entered = __fsm::chart::microstep(
                &CHART,
                &mut self.config,
                &mut self.memory,
                &group.candidates[k..=k],
                &mut host,
            );
            #settle_timer
            #keep_timers
            __fsm::Some(__fsm::Ok(__fsm::TimerFired {
                from: Configuration(before),
                to: Configuration(self.config),
                declared_in,
                timer: group.indices[k],
                label: LABELS[g as usize],
                due,
                outputs: __fsm::List::collected(host.outputs),
                internal: !host.moved,
            }))
        }
    }
}

/// A machine with timers' result types for a timer's step, and its timer
/// groups as `static`s.
fn timer_statics(sh: &Shared) -> TokenStream {
    let m = sh.m;
    let Shared {
        idents,
        plan,
        cp,
        n_groups,
        ..
    } = sh;
    let machine_ident = &idents.machine;
    // The timer groups: each one state's timers of one delay, armed and due
    // together.
    let groups = plan.timer_groups.iter().map(|g| {
        let state = u32_lit(g.state.index() as u32);
        let candidates = g
            .timers
            .iter()
            .map(|&(t, _)| u32_lit(cp.index_of(m, Chosen::Timer(t)) as u32));
        let indices = g.timers.iter().map(|&(_, i)| u32_lit(i));
        quote! {
            __fsm::chart::TimerGroup {
                state: #state,
                candidates: &[#(#candidates),*],
                indices: &[#(#indices),*],
            }
        }
    });
    let delays = plan.timer_groups.iter().map(|g| match g.delay {
        Delay::Literal(d) => {
            let ms = Literal::u64_unsuffixed(d.as_millis() as u64);
            quote!(__fsm::Duration::from_millis(#ms))
        }
        // Read from the context when the group is armed (`delay`).
        Delay::Named(_) => quote!(__fsm::Duration::ZERO),
    });
    let labels = plan.timer_groups.iter().map(|g| g.label.as_str());
    // The groups in the order ties fire (the plan's).
    let tie_order = plan.timer_order.iter().map(|&g| u32_lit(g as u32));
    quote! {
        /// A timer that fired.
        pub type TimerFired<K = __fsm::DefaultClock> = __fsm::TimerFired<#machine_ident<K>>;

        /// Timers that came due while none of their guards held.
        pub type TimerRejected<K = __fsm::DefaultClock> = __fsm::TimerRejected<#machine_ident<K>>;

        static GROUPS: [__fsm::chart::TimerGroup<'static>; #n_groups] = [#(#groups),*];
        static DELAYS: [__fsm::Duration; #n_groups] = [#(#delays),*];
        static LABELS: [&str; #n_groups] = [#(#labels),*];
        /// The timer groups in the order groups due at the same
        /// instant fire.
        static TIMER_ORDER: [u32; #n_groups] = [#(#tie_order),*];
    }
}

/// The documentation of `restore_with` (or `restore_with_context`).
fn restore_docs() -> TokenStream {
    quote! {
        /// The machine in the configuration of `snapshot`; `policy`
        /// decides whether a snapshot taken from a different definition
        /// is accepted.
        ///
        /// # Errors
        ///
        /// When the snapshot is of another machine or definition, names
        /// a state this machine does not have, names leaves that are not
        /// a configuration (two leaves of one region, a region with
        /// none), arms a timer that no active state declares, or
        /// remembers leaves that are not a configuration inside their
        /// composite.
    }
}

/// What a machine with timers' restores add: `policy` read as a
/// `RestorePolicy` (its fingerprint policy as `policy`, which the restoring
/// reads, and `missing_timers`), and the missing-timer rule, after the
/// configuration and (with a context) the context are restored: the timer
/// groups armed whenever their state is active (the model's
/// `timer_group_always_armed` says which) as a table, in the plan's order,
/// each group's state, label, deadline (its own slot) and index; a group of
/// an active state of which the snapshot arms no timer is refused, or
/// re-armed from the clock's time plus its delay
/// (`Snapshot::missing_timers_in`).
fn missing_timers(sh: &Shared) -> (TokenStream, TokenStream) {
    let (m, plan) = (sh.m, &sh.plan);
    let rows: Vec<TokenStream> = plan
        .timer_groups
        .iter()
        .enumerate()
        .filter(|(_, g)| m.timer_group_always_armed(g.state, g.timers.iter().map(|&(t, _)| t)))
        .map(|(i, g)| {
            let state = &m.state(g.state).name;
            let label = g.label.as_str();
            let slot = Literal::usize_unsuffixed(i);
            let group = u32_lit(i as u32);
            quote!((#state, #label, &[#slot], #group))
        })
        .collect();
    if rows.is_empty() {
        let read = quote!(let __fsm::RestorePolicy { fingerprint: policy, .. } = __fsm::Into::into(policy););
        return (read, TokenStream::new());
    }
    let read =
        quote!(let __fsm::RestorePolicy { fingerprint: policy, missing_timers } = __fsm::Into::into(policy););
    let n = Literal::usize_unsuffixed(rows.len());
    let delay = sh.delay_of(quote!(group), quote!(&context));
    // The table: each group's state, label, deadline's slot and index.
    let missing = quote! {
        static ALWAYS_ARMED: [(&str, &str, &[usize], u32); #n] = [#(#rows),*];
        snapshot.missing_timers_in(
            missing_timers,
            &ALWAYS_ARMED,
            |name| NAMES.iter().position(|n| *n == name).is_some_and(|s| config.contains(s as u32)),
            &mut armed,
            || __fsm::Clock::now(&clock),
            |group| #delay,
        )?;
    };
    (read, missing)
}

/// The snapshot and restores of a machine with a context of type `c`, with
/// and without `fsm-runtime`'s `serde` feature: `restore_sig` and
/// `restore_body` restore under a policy, `restore_call` strictly, which
/// needs `std` when `std_only`.
fn context_snapshots(
    sh: &Shared,
    c: &TokenStream,
    restore_sig: TokenStream,
    restore_body: TokenStream,
    std_only: bool,
    restore_call: TokenStream,
) -> TokenStream {
    let (m, options) = (sh.m, sh.options);
    let Shared {
        idents,
        impl_generics,
        machine_ty,
        ..
    } = sh;
    let machine_ident = &idents.machine;
    let snapshot_of = sh.snapshot_of();
    // With a context, a snapshot carries it as JSON: `snapshot` and the
    // restores that read the context need `fsm-runtime`'s `serde` feature,
    // and without it are stubs whose bound names the feature.
    let needs_serde = match &m.context {
        Some(c) => options.spans.respan(c.span, quote!(__fsm::NeedsSerdeFeature)),
        None => TokenStream::new(),
    };
    let gate = |items: TokenStream| {
        if std_only {
            quote!(__fsm::if_std! { #items })
        } else {
            items
        }
    };
    let restore = gate(quote! {
        impl #machine_ident {
            /// The machine in the configuration, context and timers
            /// of `snapshot`, which must come from this exact
            /// definition. Needs `fsm-runtime`'s `serde` feature.
            ///
            /// # Errors
            ///
            /// As [`Self::restore_with`].
            pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError>
            where
                for<'a> #c: __fsm::DeserializeOwned,
            {
                #restore_call
            }
        }
    });
    let restore_stub = gate(quote! {
        impl #machine_ident {
            /// Needs `fsm-runtime`'s `serde` feature, which is off;
            /// without it, [`Self::restore_with_context`] restores a
            /// snapshot with a context the caller gives. A call does
            /// not compile, and says so.
            #[allow(unused_variables)]
            pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError>
            where
                for<'a> #c: #needs_serde,
            {
                __fsm::stub()
            }
        }
    });
    quote! {
        __fsm::if_serde! {
            impl #impl_generics #machine_ty {
                /// The configuration (its leaves, in document order),
                /// the context, the armed timers and the history
                /// memory, with the machine's name and fingerprint,
                /// ready to be stored. Needs `fsm-runtime`'s `serde`
                /// feature (the snapshot carries the context as JSON).
                ///
                /// # Errors
                ///
                /// When the context does not serialize.
                pub fn snapshot(&self) -> __fsm::Result<__fsm::Snapshot, __fsm::SnapshotError>
                where
                    for<'a> #c: __fsm::Serialize,
                {
                    #snapshot_of.with_context_of(&self.context)
                }

                /// The machine in the configuration, context and
                /// timers of `snapshot`; `policy` decides whether a
                /// snapshot of a different definition is accepted.
                /// Needs `fsm-runtime`'s `serde` feature.
                ///
                /// # Errors
                ///
                /// As [`Self::restore_with_context`], and when the
                /// snapshot carries no context or one that does not
                /// deserialize (the error names the field).
                #restore_sig
                where
                    for<'a> #c: __fsm::DeserializeOwned,
                {
                    #restore_body
                }
            }

            #restore
        }

        __fsm::without_serde! {
            impl #impl_generics #machine_ty {
                /// Needs `fsm-runtime`'s `serde` feature, which is off:
                /// the snapshot of a machine with a context carries the
                /// context as JSON. A call does not compile, and says so.
                pub fn snapshot(&self) -> __fsm::Result<__fsm::Snapshot, __fsm::SnapshotError>
                where
                    for<'a> #c: #needs_serde,
                {
                    __fsm::stub()
                }

                /// Needs `fsm-runtime`'s `serde` feature, which is off;
                /// without it, [`Self::restore_with_context`] restores
                /// a snapshot with a context the caller gives. A call
                /// does not compile, and says so.
                #[allow(unused_variables)]
                #restore_sig
                where
                    for<'a> #c: #needs_serde,
                {
                    __fsm::stub()
                }
            }

            #restore_stub
        }
    }
}

/// What differs between a machine with timers and one without: its struct,
/// its constructor, its timer methods and items, and its restores.
struct Items {
    machine_struct: TokenStream,
    constructor: TokenStream,
    timer_methods: TokenStream,
    armed_timers: TokenStream,
    restore: TokenStream,
    restore_system: TokenStream,
    timer_items: TokenStream,
}

/// The machine with timers: its clock, its deadlines (one per timer group),
/// and firing the due ones.
fn timed_items(sh: &Shared) -> Items {
    let m = sh.m;
    let Shared {
        idents,
        ctx,
        words,
        slots_n,
        n_groups,
        ctx_field,
        ctx_param,
        ctx_arg,
        ctx_init,
        ctx_sep,
        ..
    } = sh;
    let machine_ident = &idents.machine;
    let name = &m.name;
    let restore_docs = restore_docs();
    let debug_bound = ctx.as_ref().map(|c| quote!(where for<'a> #c: __fsm::Debug));
    let debug_context = ctx.as_ref().map(|_| quote!(.field("context", &self.context)));
    let restore_name = match ctx {
        Some(_) => format_ident!("restore_with_context"),
        None => format_ident!("restore_with"),
    };
    let initial_delay = sh.delay_of(quote!(g), quote!(&context));
    let (timed_derive, timed_default, timed_clone) = match &ctx {
        None => (
            quote!(#[derive(__fsm::Clone)]),
            quote! {
                impl __fsm::Default for #machine_ident {
                    fn default() -> Self {
                        Self::new()
                    }
                }
            },
            TokenStream::new(),
        ),
        Some(c) => (
            TokenStream::new(),
            TokenStream::new(),
            quote! {
                /// A copy: the configuration, the history memory, a clone
                /// of the context, the clock and the deadlines.
                impl<K: __fsm::Clock + __fsm::Clone> __fsm::Clone for #machine_ident<K>
                where
                    for<'a> #c: __fsm::Clone,
                {
                    fn clone(&self) -> Self {
                        Self {
                            config: self.config,
                            memory: self.memory,
                            context: __fsm::Clone::clone(&self.context),
                            clock: __fsm::Clone::clone(&self.clock),
                            armed: self.armed,
                        }
                    }
                }
            },
        ),
    };
    let restoring = sh.restoring(quote!(&GROUPS), quote!(&mut armed));
    let (policy_read, missing) = missing_timers(sh);
    let struct_docs = doc_attrs(
        &m.docs,
        &format!(
            "The machine `{name}`: its configuration, its history memory, and the deadlines \
             of its armed timers, which it reads the time for from its clock."
        ),
    );
    Items {
        machine_struct: quote! {
            #struct_docs
            #timed_derive
            pub struct #machine_ident<K = __fsm::DefaultClock> {
                config: __fsm::chart::Bits<#words>,
                memory: [__fsm::chart::Bits<#words>; #slots_n],
                #ctx_field
                clock: K,
                armed: [__fsm::Option<__fsm::Timestamp>; #n_groups],
            }

            __fsm::if_std! {
                impl #machine_ident {
                    /// The machine in its initial configuration,
                    /// timed by the system clock.
                    pub fn new(#ctx_param) -> Self {
                        Self::with_clock(#ctx_arg #ctx_sep __fsm::SystemClock)
                    }
                }

                #timed_default
            }

            /// The configuration, the history memory, the context and
            /// the deadlines (not the clock).
            impl<K: __fsm::Clock> __fsm::Debug for #machine_ident<K> #debug_bound {
                fn fmt(&self, f: &mut __fsm::fmt::Formatter<'_>) -> __fsm::fmt::Result {
                    f.debug_struct(Self::NAME)
                        .field("configuration", &Configuration(self.config))
                        .field("memory", &self.memory)
                        #debug_context
                        .field("armed", &self.armed)
                        .finish_non_exhaustive()
                }
            }

            #timed_clone
        },
        constructor: quote! {
            /// The machine in its initial configuration, timed by
            /// `clock`, remembering nothing, with the timers of
            /// every state of the configuration armed. Nothing runs
            /// and nothing is emitted.
            pub fn with_clock(#ctx_param #ctx_sep clock: K) -> Self {
                let now = __fsm::Clock::now(&clock);
                let mut armed = [__fsm::None; #n_groups];
                for s in INITIAL.iter() {
                    for &g in CHART.list(STATES[s as usize].timer_groups) {
                        armed[g as usize] = __fsm::Some(__fsm::deadline(now, #initial_delay));
                    }
                }
                Self {
                    config: INITIAL,
                    memory: [__fsm::chart::Bits::EMPTY; #slots_n],
                    #ctx_init
                    clock,
                    armed,
                }
            }
        },
        timer_methods: timer_methods(sh),
        armed_timers: quote! {
            /// The timers armed now, with their deadlines, as a
            /// snapshot stores them: for each active leaf in
            /// document order, its own, then those of each state
            /// holding it, outward, each named by the state that
            /// declares it.
            pub fn armed_timers(&self) -> impl __fsm::Iterator<Item = __fsm::ArmedTimer> + '_ {
                __fsm::chart::armed_timers(&CHART, &GROUPS, &self.config, &self.armed)
                    .into_iter()
                    .map(|(state, timer, due)| __fsm::ArmedTimer::new(NAMES[state as usize], timer, due))
            }
        },
        restore: quote! {
            #restore_docs
            ///
            /// Armed timers keep the deadlines the snapshot gives
            /// them, however long ago it was taken. A timer armed
            /// whenever its state is active that the snapshot lost is
            /// refused (`MissingTimerPolicy::Refuse`, the default) or
            /// armed from the time of the restore
            /// (`MissingTimerPolicy::Rearm`), as `policy` says.
            pub fn #restore_name(
                snapshot: &__fsm::Snapshot,
                policy: impl __fsm::Into<__fsm::RestorePolicy>,
                #ctx_param #ctx_sep
                clock: K,
            ) -> __fsm::Result<Self, __fsm::RestoreError> {
                #policy_read
                let mut armed = [__fsm::None; #n_groups];
                #restoring
                #missing
                __fsm::Ok(Self { config, memory, #ctx_init clock, armed })
            }
        },
        restore_system: match &ctx {
            None => quote! {
                __fsm::if_alloc! {
                    __fsm::if_std! {
                        impl #machine_ident {
                            /// The machine in the configuration of
                            /// `snapshot`, timed by the system clock;
                            /// the snapshot must come from this exact
                            /// definition.
                            ///
                            /// # Errors
                            ///
                            /// As [`Self::restore_with`].
                            pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError> {
                                Self::restore_with(snapshot, __fsm::FingerprintPolicy::Strict, __fsm::SystemClock)
                            }
                        }
                    }
                }
            },
            Some(c) => context_snapshots(
                sh,
                c,
                quote! {
                    pub fn restore_with(
                        snapshot: &__fsm::Snapshot,
                        policy: impl __fsm::Into<__fsm::RestorePolicy>,
                        clock: K,
                    ) -> __fsm::Result<Self, __fsm::RestoreError>
                },
                quote! {
                    #policy_read
                    let mut armed = [__fsm::None; #n_groups];
                    #restoring
                    let context = snapshot.context_as::<#c>()?;
                    #missing
                    __fsm::Ok(Self { config, memory, context, clock, armed })
                },
                true,
                quote!(Self::restore_with(
                    snapshot,
                    __fsm::FingerprintPolicy::Strict,
                    __fsm::SystemClock
                )),
            ),
        },
        timer_items: timer_statics(sh),
    }
}

/// The machine without timers: its struct, its constructor and its
/// restores.
fn untimed_items(sh: &Shared) -> Items {
    let m = sh.m;
    let Shared {
        idents,
        ctx,
        words,
        slots_n,
        ..
    } = sh;
    let machine_ident = &idents.machine;
    let name = &m.name;
    let restore_docs = restore_docs();
    let machine_docs = doc_attrs(
        &m.docs,
        &format!("The machine `{name}`: its configuration and history memory."),
    );
    let debug_bound = ctx.as_ref().map(|c| quote!(where for<'a> #c: __fsm::Debug));
    let debug_context = ctx.as_ref().map(|_| quote!(.field("context", &self.context)));
    let restoring = sh.restoring(quote!(&[]), quote!(&mut []));
    Items {
        machine_struct: match &ctx {
            None => quote! {
                #machine_docs
                #[derive(__fsm::Clone, __fsm::Copy, __fsm::Debug, __fsm::PartialEq, __fsm::Eq, __fsm::Hash)]
                pub struct #machine_ident {
                    config: __fsm::chart::Bits<#words>,
                    memory: [__fsm::chart::Bits<#words>; #slots_n],
                }

                impl __fsm::Default for #machine_ident {
                    fn default() -> Self {
                        Self::new()
                    }
                }
            },
            Some(c) => quote! {
                #machine_docs
                pub struct #machine_ident {
                    config: __fsm::chart::Bits<#words>,
                    memory: [__fsm::chart::Bits<#words>; #slots_n],
                    context: #c,
                }

                /// The configuration, the history memory and the context.
                impl __fsm::Debug for #machine_ident #debug_bound {
                    fn fmt(&self, f: &mut __fsm::fmt::Formatter<'_>) -> __fsm::fmt::Result {
                        f.debug_struct(Self::NAME)
                            .field("configuration", &Configuration(self.config))
                            .field("memory", &self.memory)
                            #debug_context
                            .finish()
                    }
                }

                /// A copy: the configuration, the history memory and a
                /// clone of the context.
                impl __fsm::Clone for #machine_ident where for<'a> #c: __fsm::Clone {
                    fn clone(&self) -> Self {
                        Self {
                            config: self.config,
                            memory: self.memory,
                            context: __fsm::Clone::clone(&self.context),
                        }
                    }
                }
            },
        },
        constructor: match &ctx {
            None => quote! {
                /// The machine in its initial configuration, remembering
                /// nothing. Nothing runs and nothing is emitted.
                pub const fn new() -> Self {
                    Self {
                        config: INITIAL,
                        memory: [__fsm::chart::Bits::EMPTY; #slots_n],
                    }
                }
            },
            Some(c) => quote! {
                /// The machine in its initial configuration, owning
                /// `context`, remembering nothing. Nothing runs and
                /// nothing is emitted.
                pub fn new(context: #c) -> Self {
                    Self {
                        config: INITIAL,
                        memory: [__fsm::chart::Bits::EMPTY; #slots_n],
                        context,
                    }
                }
            },
        },
        timer_methods: quote!(),
        armed_timers: quote!(),
        restore: match &ctx {
            None => quote! {
                /// The machine in the configuration of `snapshot`,
                /// which must come from this machine and this exact
                /// definition.
                ///
                /// # Errors
                ///
                /// As [`Self::restore_with`].
                pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError> {
                    Self::restore_with(snapshot, __fsm::FingerprintPolicy::Strict)
                }

                #restore_docs
                pub fn restore_with(
                    snapshot: &__fsm::Snapshot,
                    policy: __fsm::FingerprintPolicy,
                ) -> __fsm::Result<Self, __fsm::RestoreError> {
                    #restoring
                    __fsm::Ok(Self { config, memory })
                }
            },
            Some(c) => quote! {
                #restore_docs
                ///
                /// The machine owns `context`, whatever context the
                /// snapshot carries.
                pub fn restore_with_context(
                    snapshot: &__fsm::Snapshot,
                    policy: __fsm::FingerprintPolicy,
                    context: #c,
                ) -> __fsm::Result<Self, __fsm::RestoreError> {
                    #restoring
                    __fsm::Ok(Self { config, memory, context })
                }
            },
        },
        restore_system: match &ctx {
            None => quote!(),
            Some(c) => context_snapshots(
                sh,
                c,
                quote! {
                    pub fn restore_with(
                        snapshot: &__fsm::Snapshot,
                        policy: __fsm::FingerprintPolicy,
                    ) -> __fsm::Result<Self, __fsm::RestoreError>
                },
                quote! {
                    #restoring
                    let context = snapshot.context_as::<#c>()?;
                    __fsm::Ok(Self { config, memory, context })
                },
                false,
                quote!(Self::restore_with(snapshot, __fsm::FingerprintPolicy::Strict)),
            ),
        },
        timer_items: quote!(),
    }
}

#[cfg(test)]
mod tests {
    use crate::{machine_tokens, Options};

    fn machine(text: &str) -> fsm_grammar::model::Machine {
        let model = fsm_grammar::check(text).into_model().expect("it checks");
        model.machines.into_iter().next().expect("one machine")
    }

    const REGIONS: &str = "parallel state p {
        state a { initial state a1 { on x -> a2; } state a2 { on x -> a1; } }
        state b { initial state b1 { on y -> b2; } state b2 { on y -> b1; } }
    }";

    #[test]
    fn parallel_states_with_data_and_timers_are_generated() {
        let cases = [
            ("", "pub fn fire (& mut self , action : Action)"),
            ("context Ctx;", "pub fn fire (& mut self , event : Event)"),
            (
                "action go, x(u32), y;",
                "pub fn fire (& mut self , event : Event)",
            ),
            (
                "context Ctx; guard ok(u32); action go, x(u32), y;",
                "pub trait Context",
            ),
        ];
        for (declaration, expected) in cases {
            let text = format!(
                "machine M {{ {declaration} initial state idle {{ on go -> p; after 5s -> p; }} {REGIONS} }}"
            );
            let m = machine(&text);
            let tokens = machine_tokens(&m, &Options::default()).to_string();
            assert!(
                tokens.contains(expected),
                "{declaration}: no `{expected}` in\n{tokens}"
            );
        }
    }

    #[test]
    fn a_region_named_like_a_configuration_method_is_refused_by_the_check_and_by_codegen() {
        for name in ["top", "leaves", "is_in"] {
            let text = format!(
                "machine M {{ initial parallel state p {{ state {name} {{ initial state t1 {{ on x -> t2; }} \
                 state t2 {{ on x -> t1; }} }} state other; }} }}"
            );
            let checked = fsm_grammar::check(&text);
            assert!(
                checked
                    .diagnostics
                    .iter()
                    .any(|d| d.code == fsm_grammar::Code::NameCollision
                        && d.message.contains(&format!("region `{name}`"))),
                "{:?}",
                checked.diagnostics
            );
            // Handed the unchecked model, code generation refuses it too.
            let tokens = machine_tokens(&checked.model.machines[0], &Options::default()).to_string();
            assert!(
                tokens.contains("compile_error") && tokens.contains(&format!("a region named `{name}`")),
                "{tokens}"
            );
        }
    }

    #[test]
    fn a_cycle_of_eventless_transitions_is_generated_with_its_runaway() {
        let cycle = "machine M { guard g; initial state idle { on go -> p; }
            parallel state p {
                state a { initial state a1 { always [g] -> a2; } state a2 { always [g] -> a1; } }
                state b { initial state b1 { on y -> b1; } }
            } }";
        let tokens = machine_tokens(&machine(cycle), &Options::default()).to_string();
        assert!(!tokens.contains("compile_error"), "{tokens}");
        assert!(tokens.contains("Runaway"), "{tokens}");
    }
}
