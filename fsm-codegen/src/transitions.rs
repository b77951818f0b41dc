//! The body of `Fire::transition`: one `match (state, action)` arm per action
//! valid in a state (a leaf, with the transitions it inherits), trying its
//! candidates in the order of `Machine::candidate_groups`, and one arm per
//! state for the invalid rest.

use crate::guards::{condition, repeated_guards};
use crate::idents::Idents;
use crate::nested::{dispatch, index, memory_slots, records, step, Case};
use crate::tables::Tables;
use fsm_grammar::model::{ActionId, Machine, OutputId, StateId, TransitionId};
use proc_macro2::TokenStream;
use quote::quote;

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
    let mut uses_guards = false;
    let mut uses_memory = false;
    let mut arms = Vec::new();
    // Once per machine: per transition it made generation quadratic.
    let slots = memory_slots(machine);
    for state in machine.leaves() {
        let groups = machine.candidate_groups(state);
        let state_variant = &idents.states[state.index()];
        for (action, candidates) in &groups {
            let candidates = reachable(machine, candidates);
            uses_guards |= candidates.iter().any(|&t| machine.transition(t).guard.is_some());
            let action_variant = &idents.actions[action.index()];
            let body = group_body(
                machine,
                idents,
                tables,
                state,
                &candidates,
                &slots,
                &mut uses_memory,
            );
            arms.push(quote!((State::#state_variant, Action::#action_variant) => #body,));
        }
        if groups.len() < machine.actions.len() {
            let valid = tables.valid_actions(groups.iter().map(|(a, _)| *a).collect::<Vec<ActionId>>());
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

/// The candidates up to and including the first unguarded one: those after it
/// can never fire (the checker reports them as `shadowed-transition`).
fn reachable(machine: &Machine, candidates: &[TransitionId]) -> Vec<TransitionId> {
    match candidates
        .iter()
        .position(|&t| machine.transition(t).guard.is_none())
    {
        Some(last) => candidates[..=last].to_vec(),
        None => candidates.to_vec(),
    }
}

/// `Ok(Fired)` for the first candidate whose guard holds, else the
/// rejection, as an `if` / `else if` chain.
fn group_body(
    machine: &Machine,
    idents: &Idents,
    tables: &mut Tables,
    state: StateId,
    candidates: &[TransitionId],
    slots: &[StateId],
    uses_memory: &mut bool,
) -> TokenStream {
    let cached = repeated_guards(
        candidates
            .iter()
            .filter_map(|&t| machine.transition(t).guard.as_ref().map(|g| &g.expr)),
    );
    let mut branches = Vec::new();
    let mut fallback = None;
    for &t in candidates {
        let fired = fired(machine, idents, tables, state, t, slots, uses_memory);
        match &machine.transition(t).guard {
            Some(guard) => {
                let condition = condition(&guard.expr, &cached, idents);
                branches.push(quote!(if #condition { #fired }));
            }
            None => fallback = Some(fired),
        }
    }
    let fallback = fallback.unwrap_or_else(|| {
        let rejected = tables.rejected(
            candidates
                .iter()
                .map(|&t| {
                    let transition = machine.transition(t);
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

/// `Ok(Fired { .. })` for transition `t` taken from leaf `state`: the exit
/// outputs of the states it leaves (innermost first), its own, then the
/// enter outputs of the states it enters (outermost first). With a history
/// target, one case per path the memory selects; the memory of the regions
/// it leaves is updated.
fn fired(
    machine: &Machine,
    idents: &Idents,
    tables: &mut Tables,
    state: StateId,
    t: TransitionId,
    slots: &[StateId],
    uses_memory: &mut bool,
) -> TokenStream {
    let transition = machine.transition(t);
    let step = step(
        machine,
        slots,
        state,
        transition.source,
        transition.target,
        transition.history,
    );
    let mut to_outputs = |case: &Case| {
        let outputs: Vec<OutputId> = case
            .path
            .exits
            .iter()
            .flat_map(|&s| &machine.state(s).exit)
            .chain(&transition.emits)
            .chain(case.path.entries.iter().flat_map(|&s| &machine.state(s).enter))
            .copied()
            .collect();
        let to = match transition.target {
            None => quote!(state),
            Some(_) => {
                let variant = &idents.states[case.to(state).index()];
                quote!(State::#variant)
            }
        };
        (to, tables.outputs(outputs))
    };
    let slot = |i: usize| {
        let i = index(i);
        quote!(last_active[#i])
    };
    let record = records(&step, state, idents, &slot);
    let internal = transition.target.is_none();
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
    let chosen = dispatch(&step, idents, &slot, &mut |case| {
        let (to, outputs) = to_outputs(case);
        quote!((#to, #outputs))
    });
    quote!({
        let (to, outputs): (State, &'static [Output]) = #chosen;
        #record
        __fsm::Ok(Fired { from: state, to, action, outputs, internal: #internal })
    })
}
