//! The timer methods of a machine with timers: arming a new machine's
//! timers, firing the earliest due one (`fire_due_at`, `fire_next_due`,
//! `fire_due`), the next deadline, and the armed timers as a snapshot lists
//! them.

use super::{Gen, Time};
use crate::chain::trials;
use crate::guards::condition_with;
use crate::nested::index;
use crate::tables::Tables;
use fsm_grammar::model::{GuardId, StateId};
use fsm_grammar::plan;
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::BTreeSet;

impl Gen<'_> {
    /// The timer methods of the machine type's inherent impl, with timers:
    /// `arm_timers`, `timer_order`, `timers_in`, `fire_due_at`,
    /// `next_deadline`, `fire_next_due`, `fire_due` and `clock`.
    pub(super) fn timer_methods(&self, tables: &mut Tables) -> TokenStream {
        if self.max_timers == 0 {
            return TokenStream::new();
        }
        let k = &self.clock_param;
        let g_generics = self.guards_generics();
        let g_param = self.guards_param();
        let g_pass = self.guards_pass();
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
    }

    /// `armed_timers`, in an impl of its own, with timers: `ArmedTimer`
    /// names its state as a snapshot does, with `alloc`.
    pub(super) fn armed_timers(&self, generics: &TokenStream, params: &TokenStream) -> TokenStream {
        if self.max_timers == 0 {
            return TokenStream::new();
        }
        let m = &self.machine_ident;
        quote! {
            __fsm::if_alloc! {
                impl #generics #m #params {
                    /// The timers armed now, with their deadlines, as a snapshot
                    /// stores them: those of the current state, then those of each
                    /// composite state around it, outwards, each named by the state
                    /// that declares it.
                    pub fn armed_timers(&self) -> impl __fsm::Iterator<Item = __fsm::ArmedTimer> + '_ {
                        Self::timers_in(self.state)
                            .iter()
                            .filter_map(move |&(state, timer, slot)| self.deadlines[slot].map(|due| __fsm::ArmedTimer::new(state, timer, due)))
                    }
                }
            }
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
}
