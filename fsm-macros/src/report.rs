//! How a diagnostic reaches the user through rustc on stable Rust, where a
//! proc macro has no diagnostic API: an error becomes `compile_error!`, a
//! warning an unfulfilled `#[expect]` whose reason is the warning.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};

/// `::core::compile_error! { "message" }`, reported from `first` to `last`.
///
/// rustc reports the error on the whole macro call, so giving the path the
/// first span and the braces the last one underlines everything in between,
/// the way `syn::Error::new_spanned` does it without the nightly `Span::join`.
pub(crate) fn error(message: &str, first: Span, last: Span) -> TokenStream {
    let path = quote_spanned!(first=> ::core::compile_error!);
    let arguments = quote_spanned!(last=> { #message });
    quote!(#path #arguments)
}

/// A warning at `at`: a lint expectation that cannot be fulfilled, with the
/// whole message (code and help included) as its reason. rustc shows it as
///
/// ```text
/// warning: this lint expectation is unfulfilled
///   --> src/main.rs:11:15
///    |
/// 11 |         state spare { on open -> opened; }
///    |               ^^^^^
///    |
///    = note: state `spare` cannot be reached from the initial state `closed` [fsm::unreachable-state]
///            help: add a transition that targets `spare`, remove the state, or ...
/// ```
///
/// The one other stable way to put a message of our own into a warning,
/// `#[deprecated(note = ...)]`, prefixes it with "use of deprecated unit
/// struct `...`", which tells the user something false. `#[must_use = ...]`
/// shows the message as a note too, but after a line naming the invented
/// item by a path that changes with the module and with how many warnings
/// the crate has, and for a function call it suggests writing `let _ =` into
/// the definition. An expectation's line is always the same, and it needs
/// no item at all. (Like rustc's own lints, warnings are only reported when
/// the crate has no errors.)
///
/// The expected lint is `variant_size_differences`: allowed by default, in
/// no lint group and about enums only, so it never fires on the empty
/// constant and nothing a crate sets for its own code conflicts with it
/// (`#[expect]` of a lint the crate forbids is an error). The lint's name
/// carries the span, because rustc reports an unfulfilled expectation there.
/// The user silences a warning with `#[allow(...)]` in the definition, or
/// with `#[allow(unfulfilled_lint_expectations)]` in Rust; a crate built
/// with `-D warnings` fails on it, as it should.
pub(crate) fn warning(message: &str, at: Span) -> TokenStream {
    let lint = Ident::new("variant_size_differences", at);
    quote! {
        #[expect(#lint, reason = #message)]
        const _: () = ();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_a_compile_error_invocation() {
        let tokens = error("bad [fsm::syntax]", Span::call_site(), Span::call_site());
        assert_eq!(
            tokens.to_string(),
            ":: core :: compile_error ! { \"bad [fsm::syntax]\" }"
        );
    }

    #[test]
    fn a_warning_is_an_unfulfilled_expectation_whose_reason_is_the_message() {
        let tokens = warning("stuck [fsm::dead-end]\nhelp: add a way out", Span::call_site());
        assert_eq!(
            tokens.to_string(),
            "# [expect (variant_size_differences , reason = \"stuck [fsm::dead-end]\\nhelp: add a way out\")] \
             const _ : () = () ;"
        );
        // Nothing in it says "deprecated", the old way's "use of deprecated unit struct".
        assert!(!tokens.to_string().contains("deprecated"));
    }
}
