//! How a diagnostic reaches the user through rustc on stable Rust, where a
//! proc macro has no diagnostic API: an error becomes `compile_error!`, a
//! warning becomes the use of a `#[deprecated]` item.

use fsm_grammar::Code;
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

/// A warning at `at`: a deprecated unit struct, named after the code and
/// carrying the message as its note, used at that token. rustc then warns
/// ``use of deprecated unit struct `_::fsm::dead_end`: MESSAGE`` there, and
/// the user can silence it like any lint: `#[allow(...)]` in the `.fsm` text,
/// or `#[allow(deprecated)]` in Rust.
///
/// rustc reports a deprecated path on its last segment only, whatever the
/// spans of the others, so a warning marks one token: the first of its range.
pub(crate) fn warning(code: Code, message: &str, at: Span) -> TokenStream {
    let name = code.name().replace('-', "_");
    let definition = Ident::new(&name, Span::call_site());
    let usage = Ident::new(&name, at);
    // Each warning is a block of its own, so two with one code do not clash.
    quote! {
        const _: () = {
            mod fsm {
                #[deprecated(note = #message)]
                #[allow(non_camel_case_types)]
                pub struct #definition;
            }
            let _ = fsm::#usage;
        };
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
    fn a_warning_uses_a_deprecated_item_named_after_the_code() {
        let tokens = warning(Code::DeadEnd, "stuck", Span::call_site());
        assert_eq!(
            tokens.to_string(),
            "const _ : () = { mod fsm { # [deprecated (note = \"stuck\")] \
             # [allow (non_camel_case_types)] pub struct dead_end ; } \
             let _ = fsm :: dead_end ; } ;"
        );
    }
}
