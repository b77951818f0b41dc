//! The `Guards` trait, and guard expressions as Rust conditions.

use crate::docs::doc_attrs_of;
use crate::idents::Idents;
use crate::options::Spans;
use crate::user_trait::{impl_section, method, Kind, Method};
use fsm_grammar::model::{GuardExpr, GuardId, Machine, StateId, Symbol};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeSet;

/// The `Guards` trait: one `fn name(&self) -> bool` per guard, each spanning
/// its declaration as `spans` maps it. Nothing when the machine has no
/// guards.
pub(crate) fn guards_trait(guards: &[Symbol], idents: &Idents, spans: &Spans) -> TokenStream {
    if guards.is_empty() {
        return TokenStream::new();
    }
    let machine_ident = &idents.machine;
    let summary = doc_attrs_of(&[
        format!("The conditions [`{machine_ident}`] asks about when an action has guarded"),
        "transitions. The caller implements them over whatever state it carries.".to_string(),
    ]);
    let methods: Vec<Method> = guards
        .iter()
        .zip(&idents.guards)
        .map(|(guard, ident)| {
            let fallback = format!("Whether the guard `{}` holds.", guard.name);
            method(spans, guard, ident, Kind::Guard, None, &fallback)
        })
        .collect();
    let section = impl_section("Guards", "YourGuards", &methods);
    let methods = methods.iter().map(|m| &m.tokens);
    quote! {
        #summary
        ///
        /// Each guard is evaluated only when a candidate transition needs it,
        /// and at most once per `fire`.
        #section
        pub trait Guards {
            #(#methods)*
        }
    }
}

/// `expr` with every `in(...)` decided for a machine without parallel
/// states in leaf `leaf` (the leaf and the states holding it are active):
/// `Err(value)` when that decides it.
pub(crate) fn decided(machine: &Machine, leaf: StateId, expr: &GuardExpr) -> Result<GuardExpr, bool> {
    machine.decide_in_leaf(leaf, expr)
}

/// `expr` as a short-circuiting Rust condition over `guards`. Guards in
/// `cached` go through their cache local.
pub(crate) fn condition(expr: &GuardExpr, cached: &BTreeSet<GuardId>, idents: &Idents) -> TokenStream {
    let call = |guard: GuardId| {
        let method = &idents.guards[guard.index()];
        quote!(Guards::#method(guards))
    };
    condition_with(expr, cached, idents, &call)
}

/// [`condition`], with each guard evaluated by `call` (a `Context` method, a
/// guard with a payload).
pub(crate) fn condition_with(
    expr: &GuardExpr,
    cached: &BTreeSet<GuardId>,
    idents: &Idents,
    call: &dyn Fn(GuardId) -> TokenStream,
) -> TokenStream {
    // Decided before any condition is written (`decided`).
    let undecided = |_: StateId| quote!(::core::compile_error!("an `in(...)` left undecided"));
    condition_at(
        expr,
        0,
        cached,
        idents,
        &Calls {
            guard: call,
            in_state: &undecided,
        },
    )
}

/// [`condition_with`], with each `in(S)` tested by `in_state`: for a
/// machine with parallel states, which decides them as it runs.
pub(crate) fn condition_in(
    expr: &GuardExpr,
    idents: &Idents,
    call: &dyn Fn(GuardId) -> TokenStream,
    in_state: &dyn Fn(StateId) -> TokenStream,
) -> TokenStream {
    condition_at(
        expr,
        0,
        &BTreeSet::new(),
        idents,
        &Calls {
            guard: call,
            in_state,
        },
    )
}

/// How a condition's guards and `in(...)` tests are written.
struct Calls<'a> {
    guard: &'a dyn Fn(GuardId) -> TokenStream,
    in_state: &'a dyn Fn(StateId) -> TokenStream,
}

/// Precedence: `||` 1, `&&` 2, `!` and guards 3. Parentheses only where the
/// tree needs them (a right operand of the same operator keeps them, as in
/// the canonical guard text), so rustc never sees unused ones.
fn condition_at(
    expr: &GuardExpr,
    min: u8,
    cached: &BTreeSet<GuardId>,
    idents: &Idents,
    call: &Calls<'_>,
) -> TokenStream {
    let (precedence, tokens) = match expr {
        GuardExpr::Var(guard) => {
            let call = (call.guard)(*guard);
            if cached.contains(guard) {
                let cache = &idents.guard_caches[guard.index()];
                (3, quote!(*#cache.get_or_insert_with(|| #call)))
            } else {
                (3, call)
            }
        }
        GuardExpr::In(state) => (3, (call.in_state)(*state)),
        GuardExpr::Not(inner) => {
            let inner = condition_at(inner, 3, cached, idents, call);
            (3, quote!(!#inner))
        }
        GuardExpr::And(left, right) => {
            let left = condition_at(left, 2, cached, idents, call);
            let right = condition_at(right, 3, cached, idents, call);
            (2, quote!(#left && #right))
        }
        GuardExpr::Or(left, right) => {
            let left = condition_at(left, 1, cached, idents, call);
            let right = condition_at(right, 2, cached, idents, call);
            (1, quote!(#left || #right))
        }
    };
    if precedence < min {
        quote!((#tokens))
    } else {
        tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The condition generated for the guard of the machine's only transition.
    fn condition_of(guard: &str) -> String {
        let text = format!("machine M {{ initial state s {{ on go [{guard}] -> s; }} }}");
        let model = fsm_grammar::check(&text).into_model().unwrap();
        let machine = &model.machines[0];
        let expr = &machine.transitions[0].guard.as_ref().unwrap().expr;
        let cached = fsm_grammar::plan::repeated_guards([expr]).into_iter().collect();
        condition(expr, &cached, &Idents::new(machine)).to_string()
    }

    #[test]
    fn parentheses_only_where_the_tree_needs_them() {
        assert_eq!(
            condition_of("a || b && c"),
            "Guards :: a (guards) || Guards :: b (guards) && Guards :: c (guards)"
        );
        assert_eq!(
            condition_of("(a || b) && c"),
            "(Guards :: a (guards) || Guards :: b (guards)) && Guards :: c (guards)"
        );
        // A chain of one operator is flat in the model, however it was grouped.
        assert_eq!(
            condition_of("a && (b && c)"),
            "Guards :: a (guards) && Guards :: b (guards) && Guards :: c (guards)"
        );
        assert_eq!(
            condition_of("!(a && b)"),
            "! (Guards :: a (guards) && Guards :: b (guards))"
        );
        assert_eq!(condition_of("!!a"), "! ! Guards :: a (guards)");
    }

    #[test]
    fn repeated_guards_go_through_their_cache() {
        assert_eq!(
            condition_of("a && !a || b"),
            "* cached_a . get_or_insert_with (|| Guards :: a (guards)) && ! * cached_a . get_or_insert_with (|| \
             Guards :: a (guards)) || Guards :: b (guards)"
        );
    }

    #[test]
    fn keywords_are_escaped() {
        assert_eq!(
            condition_of("type && self"),
            "Guards :: r#type (guards) && Guards :: self_ (guards)"
        );
    }
}
