//! `fire` and `can_fire`: the same choice of candidate, by leaf and action,
//! which `can_fire` makes without running an effect or building a result.

use super::{Gen, Time};
use crate::chain::trials;
use crate::guards::{condition_with, decided};
use crate::tables::Tables;
use fsm_grammar::model::{GuardId, StateId};
use fsm_grammar::plan;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeSet;

impl Gen<'_> {
    /// `fire` and `can_fire`, with their docs, in the machine type's
    /// inherent impl.
    pub(super) fn fire_methods(&self, tables: &mut Tables) -> TokenStream {
        let fire_body = self.fire_body(tables, false);
        let check_body = self.fire_body(tables, true);
        // A machine with timers but no action has an empty `Action`: its
        // `fire` matches on nothing, and what follows is unreachable.
        let allow_unreachable = if self.machine.actions.is_empty() {
            quote!(#[allow(unreachable_code)])
        } else {
            TokenStream::new()
        };
        let g_generics = self.guards_generics();
        let g_param = self.guards_param();
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
        let (input, input_ty, input_ref) = if self.events {
            (quote!(event), quote!(Event), quote!(&Event))
        } else {
            (quote!(action), quote!(Action), quote!(Action))
        };
        let (fire_doc, can_fire_doc) = self.fire_docs();
        quote! {
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
        }
    }

    /// The docs of `fire` and of `can_fire`, which depend on whether the
    /// machine has a context and takes events.
    fn fire_docs(&self) -> (TokenStream, TokenStream) {
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
        (fire_doc, can_fire_doc)
    }

    /// The input `fire` matches on (`event` or `action`) and its type's name.
    fn fire_input(&self) -> (TokenStream, TokenStream) {
        if self.events {
            (quote!(event), quote!(Event))
        } else {
            (quote!(action), quote!(Action))
        }
    }

    /// The body of `fire` or, with `check`, of `can_fire`: the same choice
    /// of candidate, which in `can_fire` runs no effect and builds no result.
    fn fire_body(&self, tables: &mut Tables, check: bool) -> TokenStream {
        let (input, _) = self.fire_input();
        if self.machine.actions.is_empty() {
            return if check && self.events {
                quote!(match *event {})
            } else {
                quote!(match #input {})
            };
        }
        let mut arms = Vec::new();
        for state in self.machine.leaves() {
            let rows = &self.plan.leaf(state).actions;
            let state_variant = &self.idents.states[state.index()];
            for row in rows {
                arms.push(self.action_arm(tables, state, row, check));
            }
            if rows.len() < self.machine.actions.len() {
                let body = if check {
                    quote!(false)
                } else {
                    let valid = tables.valid_actions(rows.iter().map(|row| row.action).collect());
                    let terminal = self.machine.state(state).is_terminal();
                    quote!(__fsm::Err(__fsm::FireError::invalid(state, #input, #valid, #terminal)))
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

    /// The arm of `fire` (or, with `check`, of `can_fire`) for the action of
    /// `row` in leaf `state`: its candidates tried in the plan's order, the
    /// first whose guard holds fires; when none does, the event is rejected.
    fn action_arm(
        &self,
        tables: &mut Tables,
        state: StateId,
        row: &plan::ActionRow,
        check: bool,
    ) -> TokenStream {
        let (input, kind) = self.fire_input();
        let state_variant = &self.idents.states[state.index()];
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
            } else {
                self.fired(tables, state, candidate, action_variant, payload)
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
            quote!(__fsm::Err(__fsm::FireError::rejected(state, #input, #rejected)))
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
        quote!((State::#state_variant, #pattern) => #body,)
    }

    /// What `fire` does when `candidate` fires in leaf `state`: its step
    /// (and, with `always` or `done` transitions, the steps after it), and
    /// the `Fired` it reports.
    fn fired(
        &self,
        tables: &mut Tables,
        state: StateId,
        candidate: &plan::Candidate,
        action_variant: &proc_macro2::Ident,
        payload: bool,
    ) -> TokenStream {
        if self.machine.eventless.is_empty() {
            let (run, to, outputs) = self.take(tables, state, &candidate.step, payload, Time::Read);
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
        }
    }
}
