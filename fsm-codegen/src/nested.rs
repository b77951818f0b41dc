//! Nested states: the `Composite` enum and the tree methods of `State`, and
//! the code of a step whose path depends on the history memory.
//!
//! What a transition exits and enters from each leaf, and the cases a
//! history target selects between, come from the plan
//! ([`fsm_grammar::plan`]); nothing about the tree is decided here. A step
//! through a history target has one case per path the memory can select, so
//! the generated code matches on the memory slot and every case is still a
//! static table.

use crate::docs::{doc_attrs, doc_line};
use crate::idents::Idents;
use fsm_grammar::model::{Machine, StateId};
use fsm_grammar::plan;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

/// The composite states whose last active leaf the machine keeps, in
/// declaration order: slot `i` of its memory is for `slots[i]`. Empty for
/// a machine without history targets, which then keeps no memory.
pub(crate) fn memory_slots(machine: &Machine) -> Vec<StateId> {
    machine.history_composites()
}

/// The code of `step`: `arm(case)` alone when it has one case, else a
/// `match` on the slot it reads (`slot(i)` is the place of slot `i`).
pub(crate) fn dispatch(
    step: &plan::Step,
    idents: &Idents,
    slot: &dyn Fn(usize) -> TokenStream,
    arm: &mut dyn FnMut(&plan::Case) -> TokenStream,
) -> TokenStream {
    let Some(read) = step.read else {
        return arm(&step.cases[0]);
    };
    let place = slot(read);
    let arms = step.cases.iter().map(|case| {
        let body = arm(case);
        if case.remembered.is_empty() {
            quote!(_ => #body,)
        } else {
            let leaves = case.remembered.iter().map(|l| &idents.states[l.index()]);
            quote!(#(__fsm::Some(State::#leaves))|* => #body,)
        }
    });
    quote!(match #place { #(#arms)* })
}

/// `slot(i) = Some(State::Leaf);` for each slot `step` records.
pub(crate) fn records(
    step: &plan::Step,
    leaf: StateId,
    idents: &Idents,
    slot: &dyn Fn(usize) -> TokenStream,
) -> TokenStream {
    let variant = &idents.states[leaf.index()];
    step.records
        .iter()
        .map(|&i| {
            let place = slot(i);
            quote!(#place = __fsm::Some(State::#variant);)
        })
        .collect()
}

/// A slot index as a literal.
pub(crate) fn index(i: usize) -> Literal {
    Literal::usize_unsuffixed(i)
}

/// The composite states, in declaration order.
pub(crate) fn composites(machine: &Machine) -> Vec<StateId> {
    machine
        .state_ids()
        .filter(|&s| machine.state(s).is_composite())
        .collect()
}

/// The `Composite` enum and the tree methods of `State`, for a machine with
/// nested states (nothing for a flat one).
pub(crate) fn tree_items(machine: &Machine, idents: &Idents) -> TokenStream {
    if !machine.is_nested() {
        return TokenStream::new();
    }
    let m = &idents.machine;
    let composites = composites(machine);
    let variant = |s: StateId| -> &Ident { &idents.states[s.index()] };
    let composite_variants: Vec<&Ident> = composites.iter().map(|&c| variant(c)).collect();
    let names: Vec<&str> = composites
        .iter()
        .map(|&c| machine.state(c).name.as_str())
        .collect();
    let docs = composites.iter().map(|&c| {
        let state = machine.state(c);
        doc_attrs(&state.docs, &format!("The composite state `{}`.", state.name))
    });
    let composite_of = |parent: Option<StateId>| match parent {
        Some(p) => {
            let p = variant(p);
            quote!(__fsm::Some(Composite::#p))
        }
        None => quote!(__fsm::None),
    };
    let composite_parents = composites.iter().map(|&c| {
        let v = variant(c);
        let parent = composite_of(machine.state(c).parent);
        quote!(Composite::#v => #parent,)
    });
    let leaves: Vec<StateId> = machine.leaves().collect();
    let leaf_parents = leaves.iter().map(|&l| {
        let v = variant(l);
        let parent = composite_of(machine.state(l).parent);
        quote!(State::#v => #parent,)
    });
    let leaf_ancestors = leaves.iter().map(|&l| {
        let v = variant(l);
        let ancestors = machine.ancestors(l).map(&variant);
        quote!(State::#v => &[#(Composite::#ancestors),*],)
    });
    let contains = composites.iter().map(|&c| {
        let v = variant(c);
        let inside: Vec<&Ident> = leaves
            .iter()
            .filter(|&&l| machine.is_inside(l, c))
            .map(|&l| variant(l))
            .collect();
        quote!(Composite::#v => __fsm::matches!(self, #(State::#inside)|*),)
    });
    let summary = doc_line(&format!(
        "The composite states of [`{m}`]: those that hold states."
    ));
    let whole = if machine.has_parallel() {
        quote! {
            /// The machine is in one leaf ([`State`]) in each active region of a
            /// parallel state, and in every composite state holding them: see
            /// `Configuration`.
        }
    } else {
        quote! {
            /// The machine is always in one leaf ([`State`]) and in every composite
            /// state holding it: see [`State::ancestors`] and [`State::is_in`].
        }
    };
    quote! {
        #summary
        ///
        #whole
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
        pub enum Composite {
            #(#docs #composite_variants,)*
        }

        impl Composite {
            /// Every composite state, in declaration order.
            pub const ALL: &'static [Composite] = &[#(Composite::#composite_variants),*];

            /// The name of the composite state, as written in the definition.
            pub const fn name(self) -> &'static str {
                match self {
                    #(Composite::#composite_variants => #names,)*
                }
            }

            /// The composite state named `name`, if there is one.
            pub fn from_name(name: &str) -> __fsm::Option<Composite> {
                match name {
                    #(#names => __fsm::Some(Composite::#composite_variants),)*
                    _ => __fsm::None,
                }
            }

            /// The composite state holding this one; `None` at the top level.
            pub const fn parent(self) -> __fsm::Option<Composite> {
                match self {
                    #(#composite_parents)*
                }
            }
        }

        impl __fsm::fmt::Display for Composite {
            fn fmt(&self, f: &mut __fsm::fmt::Formatter<'_>) -> __fsm::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl State {
            /// The composite state holding this state; `None` at the top level.
            pub const fn parent(self) -> __fsm::Option<Composite> {
                match self {
                    #(#leaf_parents)*
                }
            }

            /// The composite states holding this state, innermost first: the
            /// machine is in all of them while it is in this state.
            pub const fn ancestors(self) -> &'static [Composite] {
                match self {
                    #(#leaf_ancestors)*
                }
            }

            /// True when this state lies inside `composite` (at any depth).
            pub const fn is_in(self, composite: Composite) -> bool {
                match composite {
                    #(#contains)*
                }
            }
        }
    }
}
