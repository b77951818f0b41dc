//! The `static` tables that `fire` and its errors borrow: output sequences,
//! valid actions and rejected candidates. Equal tables are emitted once; they
//! are numbered in the order the generators first ask for them, so the output
//! is deterministic.

use crate::idents::Idents;
use fsm_grammar::model::{ActionId, OutputId};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

/// A guarded candidate as its rejection reports it: guard text and target.
pub(crate) type RejectedCandidate = (String, Option<String>);

/// Interned tables of one machine.
#[derive(Default)]
pub(crate) struct Tables {
    outputs: Interner<OutputId>,
    valid_actions: Interner<ActionId>,
    rejected: Interner<RejectedCandidate>,
}

impl Tables {
    /// `&OUTPUTS_n` for `outputs`, `&[]` when empty, as a `&'static [Output]`
    /// (a machine's `Outputs`, which a coercion would not reach through the
    /// associated type).
    pub fn outputs(&mut self, outputs: Vec<OutputId>) -> TokenStream {
        self.outputs.reference("OUTPUTS", outputs, &quote!(Output))
    }

    /// `&VALID_ACTIONS_n` for `actions`, `&[]` when empty, as a `&[Action]`.
    pub fn valid_actions(&mut self, actions: Vec<ActionId>) -> TokenStream {
        self.valid_actions
            .reference("VALID_ACTIONS", actions, &quote!(Action))
    }

    /// `&REJECTED_n` for `candidates`.
    pub fn rejected(&mut self, candidates: Vec<RejectedCandidate>) -> TokenStream {
        self.rejected
            .reference("REJECTED", candidates, &quote!(__fsm::Candidate))
    }

    /// The `static` items of every table asked for.
    pub fn statics(&self, idents: &Idents) -> TokenStream {
        let outputs = self.outputs.statics("OUTPUTS", &quote!(Output), |&o| {
            let variant = &idents.outputs[o.index()];
            quote!(Output::#variant)
        });
        let actions = self
            .valid_actions
            .statics("VALID_ACTIONS", &quote!(Action), |&a| {
                let variant = &idents.actions[a.index()];
                quote!(Action::#variant)
            });
        let rejected = self
            .rejected
            .statics("REJECTED", &quote!(__fsm::Candidate), |(guard, target)| {
                let target = match target {
                    Some(name) => quote!(__fsm::Some(#name)),
                    None => quote!(__fsm::None),
                };
                quote!(__fsm::Candidate::new(#guard, #target))
            });
        quote!(#outputs #actions #rejected)
    }
}

/// Distinct sequences of `T`, numbered by first request.
struct Interner<T: Ord + Clone> {
    index: BTreeMap<Vec<T>, usize>,
    tables: Vec<Vec<T>>,
}

impl<T: Ord + Clone> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            index: BTreeMap::new(),
            tables: Vec::new(),
        }
    }
}

impl<T: Ord + Clone> Interner<T> {
    fn reference(&mut self, prefix: &str, items: Vec<T>, ty: &TokenStream) -> TokenStream {
        if items.is_empty() {
            return quote!(__fsm::slice::<#ty>(&[]));
        }
        let next = self.tables.len();
        let number = *self.index.entry(items.clone()).or_insert(next);
        if number == next {
            self.tables.push(items);
        }
        let name = static_name(prefix, number);
        quote!(__fsm::slice::<#ty>(&#name))
    }

    fn statics(&self, prefix: &str, ty: &TokenStream, item: impl Fn(&T) -> TokenStream) -> TokenStream {
        self.tables
            .iter()
            .enumerate()
            .map(|(number, items)| {
                let name = static_name(prefix, number);
                let len = Literal::usize_unsuffixed(items.len());
                let items = items.iter().map(&item);
                quote!(static #name: [#ty; #len] = [#(#items),*];)
            })
            .collect()
    }
}

fn static_name(prefix: &str, number: usize) -> Ident {
    Ident::new(&format!("{prefix}_{number}"), Span::call_site())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_tables_are_emitted_once_in_first_use_order() {
        let mut tables = Tables::default();
        let o = |i: u32| OutputId(i);
        assert_eq!(
            tables.outputs(vec![o(1), o(0)]).to_string(),
            "__fsm :: slice :: < Output > (& OUTPUTS_0)"
        );
        assert_eq!(
            tables.outputs(vec![o(0)]).to_string(),
            "__fsm :: slice :: < Output > (& OUTPUTS_1)"
        );
        assert_eq!(
            tables.outputs(vec![o(1), o(0)]).to_string(),
            "__fsm :: slice :: < Output > (& OUTPUTS_0)"
        );
        assert_eq!(
            tables.outputs(Vec::new()).to_string(),
            "__fsm :: slice :: < Output > (& [])"
        );
        assert_eq!(tables.outputs.tables, [vec![o(1), o(0)], vec![o(0)]]);
        assert_eq!(
            tables.valid_actions(vec![ActionId(0)]).to_string(),
            "__fsm :: slice :: < Action > (& VALID_ACTIONS_0)"
        );
        assert_eq!(
            tables.rejected(vec![("g".into(), None)]).to_string(),
            "__fsm :: slice :: < __fsm :: Candidate > (& REJECTED_0)"
        );
    }
}
