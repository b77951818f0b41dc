//! The body of `Fire::transition`: one `match (state, action)` arm per action
//! valid in a state (a leaf, with the transitions it inherits), trying its
//! candidates as the plan lists them, and one arm per state for the invalid
//! rest.

use crate::chain::{trials, Chain};
use crate::guards::condition;
use crate::idents::Idents;
use crate::nested::{dispatch, index, records};
use crate::tables::Tables;
use fsm_grammar::model::{ActionId, Machine, StateId};
use fsm_grammar::plan::{self, Plan};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeSet;

/// How the parameters of `transition` are named: `_state`, `_guards` and
/// `_last_active` when unused, so no machine, however degenerate, triggers
/// a warning.
pub(crate) struct Params {
    pub state: TokenStream,
    pub guards: TokenStream,
    /// The history memory, `&mut [Option<State>; N]` (machines with history
    /// targets only).
    pub last_active: TokenStream,
}

/// The parameter names and the body of `transition` for `machine`.
pub(crate) fn transition_body(
    machine: &Machine,
    plan: &Plan,
    idents: &Idents,
    tables: &mut Tables,
) -> (Params, TokenStream) {
    if machine.actions.is_empty() {
        // `Action` has no variants, so the function cannot be called.
        let params = Params {
            state: quote!(_state),
            guards: quote!(_guards),
            last_active: quote!(_last_active),
        };
        return (params, quote!(match action {}));
    }
    // The `always` and `done` steps after an action's are in the same
    // function, and ask their guards there.
    // (An `in(...)` alone is decided here, per leaf, and asks no guard.)
    let mut uses_guards = machine
        .eventless
        .iter()
        .any(|e| e.guard.as_ref().is_some_and(|g| names_a_guard(&g.expr)));
    let mut uses_memory = false;
    let mut arms = Vec::new();
    for state in machine.leaves() {
        let rows = &plan.leaf(state).actions;
        let state_variant = &idents.states[state.index()];
        for row in rows {
            uses_guards |= row
                .candidates
                .iter()
                .any(|c| machine.transition(c.transition).guard.is_some());
            let action_variant = &idents.actions[row.action.index()];
            let body = group_body(machine, plan, idents, tables, state, row, &mut uses_memory);
            arms.push(quote!((State::#state_variant, Action::#action_variant) => #body,));
        }
        if rows.len() < machine.actions.len() {
            let valid = tables.valid_actions(rows.iter().map(|row| row.action).collect::<Vec<ActionId>>());
            let terminal = machine.state(state).is_terminal();
            arms.push(quote! {
                (State::#state_variant, _) => __fsm::Err(FireError::invalid(state, action, #valid, #terminal)),
            });
        }
    }
    let params = Params {
        state: quote!(state),
        guards: if uses_guards {
            quote!(guards)
        } else {
            quote!(_guards)
        },
        last_active: if uses_memory {
            quote!(last_active)
        } else {
            quote!(_last_active)
        },
    };
    (params, quote!(match (state, action) { #(#arms)* }))
}

/// `Ok(Fired)` for the first candidate whose guard holds, else the
/// rejection, as an `if` / `else if` chain.
fn group_body(
    machine: &Machine,
    plan: &Plan,
    idents: &Idents,
    tables: &mut Tables,
    state: StateId,
    row: &plan::ActionRow,
    uses_memory: &mut bool,
) -> TokenStream {
    let cached: BTreeSet<_> = row.cached_guards.iter().copied().collect();
    let mut branches = Vec::new();
    let mut fallback = None;
    let trials = trials(
        machine,
        state,
        row.candidates.iter().map(|c| {
            (
                c,
                machine.transition(c.transition).guard.as_ref().map(|g| &g.expr),
            )
        }),
    );
    for (candidate, guard) in &trials {
        let fired = if machine.eventless.is_empty() {
            fired(idents, tables, state, candidate, uses_memory)
        } else {
            chained(machine, plan, idents, tables, state, candidate, uses_memory)
        };
        match guard {
            Some(expr) => {
                let condition = condition(expr, &cached, idents);
                branches.push(quote!(if #condition { #fired }));
            }
            None => fallback = Some(fired),
        }
    }
    let fallback = fallback.unwrap_or_else(|| {
        let rejected = tables.rejected(
            row.candidates
                .iter()
                .map(|c| {
                    let transition = machine.transition(c.transition);
                    let guard = transition.guard.as_ref().map(|g| machine.guard_text(&g.expr));
                    let target = transition.target.map(|s| machine.state(s).name.clone());
                    (guard.unwrap_or_default(), target)
                })
                .collect(),
        );
        quote!(__fsm::Err(FireError::rejected(state, action, #rejected)))
    });
    if branches.is_empty() {
        return fallback;
    }
    let caches = cached.iter().map(|g| {
        let cache = &idents.guard_caches[g.index()];
        quote!(let mut #cache: __fsm::Option<bool> = __fsm::None;)
    });
    quote!({
        #(#caches)*
        #(#branches)else* else { #fallback }
    })
}

/// `Ok(Fired { .. })` for `candidate` taken from leaf `state`, with the
/// outputs of its plan. With a history target, one case per path the memory
/// selects; the memory of the composite states it leaves is updated.
fn fired(
    idents: &Idents,
    tables: &mut Tables,
    state: StateId,
    candidate: &plan::Candidate,
    uses_memory: &mut bool,
) -> TokenStream {
    let step = &candidate.step;
    let mut to_outputs = |case: &plan::Case| {
        let to = match case.mv.to {
            None => quote!(state),
            Some(to) => {
                let variant = &idents.states[to.index()];
                quote!(State::#variant)
            }
        };
        (to, tables.outputs(case.mv.outputs.clone()))
    };
    let slot = |i: usize| {
        let i = index(i);
        quote!(last_active[#i])
    };
    let record = records(step, state, idents, &slot);
    let internal = step.default_case().mv.is_internal();
    if step.read.is_none() && record.is_empty() {
        let (to, outputs) = to_outputs(&step.cases[0]);
        return quote!(__fsm::Ok(Fired { from: state, to: #to, action, outputs: #outputs, internal: #internal }));
    }
    *uses_memory = true;
    if step.read.is_none() {
        let (to, outputs) = to_outputs(&step.cases[0]);
        return quote!({
            #record
            __fsm::Ok(Fired { from: state, to: #to, action, outputs: #outputs, internal: #internal })
        });
    }
    let chosen = dispatch(step, idents, &slot, &mut |case| {
        let (to, outputs) = to_outputs(case);
        quote!((#to, #outputs))
    });
    quote!({
        let (to, outputs): (State, &'static [Output]) = #chosen;
        #record
        __fsm::Ok(Fired { from: state, to, action, outputs, internal: #internal })
    })
}

/// [`fired`] for a machine with `always` or `done` transitions: the steps
/// that follow in the same `fire` are laid out after it ([`Chain`]).
fn chained(
    machine: &Machine,
    plan: &Plan,
    idents: &Idents,
    tables: &mut Tables,
    state: StateId,
    candidate: &plan::Candidate,
    uses_memory: &mut bool,
) -> TokenStream {
    let slot = |i: usize| {
        let i = index(i);
        quote!(last_active[#i])
    };
    let call = |guard: fsm_grammar::model::GuardId| {
        let method = &idents.guards[guard.index()];
        quote!(Guards::#method(guards))
    };
    *uses_memory |= !plan.history.is_empty();
    let chain = Chain {
        machine,
        plan,
        idents,
        run_move: &|_, _| TokenStream::new(),
        slot: &slot,
        call: &call,
    };
    let chosen = chain.step(tables, state, &candidate.step, true, &[], true);
    quote!({
        let (to, outputs, internal): (State, &'static [Output], bool) = #chosen;
        __fsm::Ok(Fired { from: state, to, action, outputs, internal })
    })
}

/// True when `expr` names one of the machine's guards, not only `in(...)`.
fn names_a_guard(expr: &fsm_grammar::model::GuardExpr) -> bool {
    use fsm_grammar::model::GuardExpr;
    match expr {
        GuardExpr::Var(_) => true,
        GuardExpr::In(_) => false,
        GuardExpr::Not(e) => names_a_guard(e),
        GuardExpr::And(a, b) | GuardExpr::Or(a, b) => names_a_guard(a) || names_a_guard(b),
    }
}
