//! Nested states: the `Region` enum and the tree methods of `State`, and
//! each transition flattened at compile time, per leaf it can be taken from,
//! into the states it exits and enters.
//!
//! Everything comes from the model's helpers ([`Machine::step`],
//! [`Machine::candidate_groups`], [`Machine::timers_in`]); nothing about the
//! tree is re-derived here. A history target makes the entries depend on
//! the machine's memory at run time: [`step`] gives one case per path the
//! memory can select (a few per target: each remembered leaf inside it,
//! merged where they enter the same states, plus "nothing remembered"), so
//! the generated code matches on the memory slot and every case is still a
//! static table.

use crate::docs::{doc_attrs, doc_line};
use crate::idents::Idents;
use fsm_grammar::model::{HistoryKind, HistoryMemory, Machine, Path, Source, StateId};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

/// The composite states whose last active leaf the machine keeps, in
/// declaration order: slot `i` of its memory is for `slots[i]`. Empty for
/// a machine without history targets, which then keeps no memory.
pub(crate) fn memory_slots(machine: &Machine) -> Vec<StateId> {
    machine.history_composites()
}

/// A transition taken from one leaf: the memory slot it reads, if any, the
/// cases that reading selects between, and the slots it records.
pub(crate) struct Step {
    /// The slot whose value selects the case; `None` when there is one case.
    pub read: Option<usize>,
    /// One case per distinct path. The last is the default: nothing
    /// remembered (and anything not listed by the others).
    pub cases: Vec<Case>,
    /// The slots that remember the leaf the transition is taken from (the
    /// history composites it exits).
    pub records: Vec<usize>,
}

/// One path of a [`Step`], and the remembered leaves that select it.
pub(crate) struct Case {
    /// The leaves in the read slot that select this case; empty for the
    /// default case.
    pub remembered: Vec<StateId>,
    /// The states exited and entered.
    pub path: Path,
}

impl Case {
    /// The leaf the machine is in afterwards.
    pub fn to(&self, leaf: StateId) -> StateId {
        self.path.entries.last().copied().unwrap_or(leaf)
    }
}

/// The transition declared at `source` to `target` (through its history
/// when `history` is set), taken while the machine is in `leaf`.
pub(crate) fn step(
    machine: &Machine,
    slots: &[StateId],
    leaf: StateId,
    source: Source,
    target: Option<StateId>,
    history: Option<HistoryKind>,
) -> Step {
    let mut recorded = HistoryMemory::default();
    let default = machine.step(leaf, source, target, history, &mut recorded);
    let records: Vec<usize> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| recorded.last_leaf.contains_key(s))
        .map(|(i, _)| i)
        .collect();
    let single = |path: Path| Step {
        read: None,
        cases: vec![Case {
            remembered: Vec::new(),
            path,
        }],
        records: records.clone(),
    };
    let (Some(target), Some(_)) = (target, history) else {
        return single(default);
    };
    let Some(slot) = slots.iter().position(|&s| s == target) else {
        return single(default);
    };
    // One case per distinct path over the leaves the slot can remember.
    let mut cases: Vec<Case> = Vec::new();
    for remembered in machine.leaves().filter(|&l| machine.is_inside(l, target)) {
        let mut memory = HistoryMemory::default();
        memory.last_leaf.insert(target, remembered);
        let path = machine.step(leaf, source, Some(target), history, &mut memory);
        if path == default {
            continue;
        }
        match cases.iter_mut().find(|c| c.path == path) {
            Some(case) => case.remembered.push(remembered),
            None => cases.push(Case {
                remembered: vec![remembered],
                path,
            }),
        }
    }
    if cases.is_empty() {
        return single(default);
    }
    cases.push(Case {
        remembered: Vec::new(),
        path: default,
    });
    Step {
        read: Some(slot),
        cases,
        records,
    }
}

/// The code of `step`: `arm(case)` alone when it has one case, else a
/// `match` on the slot it reads (`slot(i)` is the place of slot `i`).
pub(crate) fn dispatch(
    step: &Step,
    idents: &Idents,
    slot: &dyn Fn(usize) -> TokenStream,
    arm: &mut dyn FnMut(&Case) -> TokenStream,
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
    step: &Step,
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
pub(crate) fn regions(machine: &Machine) -> Vec<StateId> {
    machine
        .state_ids()
        .filter(|&s| machine.state(s).is_composite())
        .collect()
}

/// The `Region` enum and the tree methods of `State`, for a machine with
/// nested states (nothing for a flat one).
pub(crate) fn tree_items(machine: &Machine, idents: &Idents) -> TokenStream {
    if !machine.is_nested() {
        return TokenStream::new();
    }
    let m = &idents.machine;
    let regions = regions(machine);
    let variant = |s: StateId| -> &Ident { &idents.states[s.index()] };
    let region_variants: Vec<&Ident> = regions.iter().map(|&r| variant(r)).collect();
    let names: Vec<&str> = regions.iter().map(|&r| machine.state(r).name.as_str()).collect();
    let docs = regions.iter().map(|&r| {
        let state = machine.state(r);
        doc_attrs(&state.docs, &format!("The region `{}`.", state.name))
    });
    let region_of = |parent: Option<StateId>| match parent {
        Some(p) => {
            let p = variant(p);
            quote!(__fsm::Some(Region::#p))
        }
        None => quote!(__fsm::None),
    };
    let region_parents = regions.iter().map(|&r| {
        let v = variant(r);
        let parent = region_of(machine.state(r).parent);
        quote!(Region::#v => #parent,)
    });
    let leaves: Vec<StateId> = machine.leaves().collect();
    let leaf_parents = leaves.iter().map(|&l| {
        let v = variant(l);
        let parent = region_of(machine.state(l).parent);
        quote!(State::#v => #parent,)
    });
    let leaf_ancestors = leaves.iter().map(|&l| {
        let v = variant(l);
        let ancestors = machine.ancestors(l).map(&variant);
        quote!(State::#v => &[#(Region::#ancestors),*],)
    });
    let contains = regions.iter().map(|&r| {
        let v = variant(r);
        let inside: Vec<&Ident> = leaves
            .iter()
            .filter(|&&l| machine.is_inside(l, r))
            .map(|&l| variant(l))
            .collect();
        quote!(Region::#v => __fsm::matches!(self, #(State::#inside)|*),)
    });
    let summary = doc_line(&format!(
        "The regions of [`{m}`]: its composite states, those that hold states."
    ));
    quote! {
        #summary
        ///
        /// The machine is always in one leaf ([`State`]) and in every region
        /// holding it: see [`State::ancestors`] and [`State::is_in`].
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
        pub enum Region {
            #(#docs #region_variants,)*
        }

        impl Region {
            /// Every region, in declaration order.
            pub const ALL: &'static [Region] = &[#(Region::#region_variants),*];

            /// The name of the region, as written in the definition.
            pub const fn name(self) -> &'static str {
                match self {
                    #(Region::#region_variants => #names,)*
                }
            }

            /// The region named `name`, if there is one.
            pub fn from_name(name: &str) -> __fsm::Option<Region> {
                match name {
                    #(#names => __fsm::Some(Region::#region_variants),)*
                    _ => __fsm::None,
                }
            }

            /// The region holding this one; `None` at the top level.
            pub const fn parent(self) -> __fsm::Option<Region> {
                match self {
                    #(#region_parents)*
                }
            }
        }

        impl __fsm::fmt::Display for Region {
            fn fmt(&self, f: &mut __fsm::fmt::Formatter<'_>) -> __fsm::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl State {
            /// The region holding this state; `None` at the top level.
            pub const fn parent(self) -> __fsm::Option<Region> {
                match self {
                    #(#leaf_parents)*
                }
            }

            /// The regions holding this state, innermost first: the machine
            /// is in all of them while it is in this state.
            pub const fn ancestors(self) -> &'static [Region] {
                match self {
                    #(#leaf_ancestors)*
                }
            }

            /// True when this state lies inside `region` (at any depth).
            pub const fn is_in(self, region: Region) -> bool {
                match region {
                    #(#contains)*
                }
            }
        }
    }
}
