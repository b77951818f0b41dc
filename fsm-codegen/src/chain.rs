//! The steps that follow a step in one `fire`: the `always` and `done`
//! transitions of a machine without parallel states, laid out as a tree.
//!
//! Such a machine has one active leaf, so after each step the plan knows
//! which leaf it is in, which `always` and `done` transitions are tried
//! there ([`Plan::settle_candidates`]), what each `in(...)` is, and what
//! each next step does. The code of a `fire` is then a finite tree of steps
//! (a machine whose tree is not, [`Plan::unfolds`], is rendered over
//! configurations instead)
//! whose every end is a leaf and one static table of the outputs of the
//! whole chain, so `Fired::outputs` stays a `&'static [Output]`.

use crate::guards::{condition_with, decided};
use crate::idents::Idents;
use crate::nested::{dispatch, records};
use crate::tables::Tables;
use fsm_grammar::model::{GuardExpr, GuardId, Machine, OutputId, StateId};
use fsm_grammar::plan::{self, Plan};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeSet;

/// How one engine's code runs a step and reads its memory.
pub(crate) struct Chain<'a> {
    pub machine: &'a Machine,
    pub plan: &'a Plan,
    pub idents: &'a Idents,
    /// The code of one move's effects, state change and timers (nothing for
    /// a machine without a context or timers, whose `transition` is pure).
    /// The flag is true for the first step of an action, whose own effects
    /// get the payload.
    pub run_move: &'a dyn Fn(&plan::Move, bool) -> TokenStream,
    /// The place of history slot `i`.
    pub slot: &'a dyn Fn(usize) -> TokenStream,
    /// A guard's call, without a payload (the steps after the first have
    /// none).
    pub call: &'a dyn Fn(GuardId) -> TokenStream,
}

impl Chain<'_> {
    /// An expression for taking `step` from leaf `from` and every step after
    /// it: `(State, &'static [Output], bool)`, the leaf it ends in, the
    /// outputs of the whole chain, and whether it stayed internal (no step
    /// exited or entered a state). `prefix` are the outputs of the steps
    /// before it in this `fire`, `internal` whether they were all internal.
    pub(crate) fn step(
        &self,
        tables: &mut Tables,
        from: StateId,
        step: &plan::Step,
        payload: bool,
        prefix: &[OutputId],
        internal: bool,
    ) -> TokenStream {
        let record = records(step, from, self.idents, self.slot);
        dispatch(step, self.idents, self.slot, &mut |case| {
            let mv = &case.mv;
            let run = (self.run_move)(mv, payload);
            let (at, entered) = match mv.to {
                Some(to) => (to, true),
                None => (from, false),
            };
            let outputs: Vec<OutputId> = prefix.iter().chain(&mv.outputs).copied().collect();
            let after = self.settle(tables, at, entered, &outputs, internal && mv.is_internal());
            if record.is_empty() && run.is_empty() {
                after
            } else {
                quote!({ #record #run #after })
            }
        })
    }

    /// An expression for what follows a step that left the machine in
    /// `leaf` (see [`Chain::step`]): the first `always` or `done` transition
    /// whose guard holds, or the end of the `fire`.
    fn settle(
        &self,
        tables: &mut Tables,
        leaf: StateId,
        entered: bool,
        prefix: &[OutputId],
        internal: bool,
    ) -> TokenStream {
        let trials = trials(
            self.machine,
            leaf,
            self.plan.settle_candidates(leaf, entered).map(|c| {
                (
                    c,
                    self.machine.eventless[c.eventless]
                        .guard
                        .as_ref()
                        .map(|g| &g.expr),
                )
            }),
        );
        let cached: BTreeSet<GuardId> = plan::repeated_guards(trials.iter().filter_map(|(_, g)| g.as_ref()))
            .into_iter()
            .collect();
        let mut branches = Vec::new();
        let mut fallback = None;
        for (candidate, guard) in &trials {
            let next = self.step(tables, leaf, &candidate.step, false, prefix, internal);
            match guard {
                Some(expr) => {
                    let condition = condition_with(expr, &cached, self.idents, self.call);
                    branches.push(quote!(if #condition { #next }));
                }
                None => fallback = Some(next),
            }
        }
        // When no candidate is taken, the `fire` ends here.
        let fallback = fallback.unwrap_or_else(|| {
            let variant = &self.idents.states[leaf.index()];
            let outputs = tables.outputs(prefix.to_vec());
            quote!((State::#variant, #outputs, #internal))
        });
        if branches.is_empty() {
            return fallback;
        }
        let caches = cached.iter().map(|g| {
            let cache = &self.idents.guard_caches[g.index()];
            quote!(let mut #cache: __fsm::Option<bool> = __fsm::None;)
        });
        quote!({ #(#caches)* #(#branches)else* else { #fallback } })
    }
}

/// The candidates tried in `leaf`, in order, each with its guard once every
/// `in(...)` in it is decided for that leaf: those whose guard cannot hold
/// are left out, and the list ends at the first that needs no guard.
pub(crate) fn trials<'g, T>(
    machine: &Machine,
    leaf: StateId,
    candidates: impl IntoIterator<Item = (T, Option<&'g GuardExpr>)>,
) -> Vec<(T, Option<GuardExpr>)> {
    let mut out = Vec::new();
    for (candidate, guard) in candidates {
        match guard.map(|g| decided(machine, leaf, g)) {
            None | Some(Err(true)) => {
                out.push((candidate, None));
                break;
            }
            Some(Err(false)) => {}
            Some(Ok(expr)) => out.push((candidate, Some(expr))),
        }
    }
    out
}
