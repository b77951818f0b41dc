//! The Rust types a `.fsm` file names (`context Downloads;`, `action
//! start(Job)`), as tokens that resolve where the user meant them.
//!
//! Generated code lives in the machine's own module and sees the user's
//! items through `use super::*`. A glob import loses to the module's own
//! items, so a type the user named `State`, `Configuration` or like the
//! machine itself would silently bind to the generated one. Every path that
//! starts with such a name is written `super::Name` instead: the user's item
//! of that name, in the module the machine was generated into.

use fsm_grammar::naming::MODULE_ITEMS;
use proc_macro2::{Delimiter, Group, Ident, Spacing, TokenStream, TokenTree};
use quote::quote;
use std::str::FromStr;

/// `text`, a Rust type, as tokens in which no path names an item generated
/// beside the machine `machine` (see the [module](self)). Text that is not
/// Rust becomes a `compile_error!` naming it.
pub(crate) fn rust_type(text: &str, machine: &Ident) -> TokenStream {
    match TokenStream::from_str(text) {
        Ok(tokens) => resolve(tokens, &machine.to_string()),
        Err(_) => {
            let message = format!("`{text}` is not a Rust type");
            quote!(::core::compile_error!(#message))
        }
    }
}

/// `tokens` with `super::` before each path that starts with a generated
/// item's name (a name not preceded by `::`, `.` or a path of its own).
fn resolve(tokens: TokenStream, machine: &str) -> TokenStream {
    let mut out = Vec::new();
    // True after `::`, when the next identifier continues a path.
    let mut in_path = false;
    let mut colons = 0;
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                if !in_path && (name == machine || MODULE_ITEMS.contains(&name.as_str())) {
                    out.extend(quote!(super::));
                }
                out.push(TokenTree::Ident(ident));
                in_path = false;
                colons = 0;
            }
            TokenTree::Punct(punct) => {
                if punct.as_char() == '\'' {
                    // A lifetime's name is not a path.
                    in_path = true;
                    colons = 0;
                } else if punct.as_char() == ':' {
                    colons += 1;
                    // The second colon of `::`: a path goes on.
                    in_path = colons == 2 && punct.spacing() == Spacing::Alone;
                    if colons == 2 {
                        colons = 0;
                    }
                } else {
                    in_path = false;
                    colons = 0;
                }
                out.push(TokenTree::Punct(punct));
            }
            TokenTree::Group(group) => {
                let mut inner = Group::new(group.delimiter(), resolve(group.stream(), machine));
                inner.set_span(group.span());
                out.push(TokenTree::Group(inner));
                in_path = group.delimiter() == Delimiter::None && in_path;
                colons = 0;
            }
            TokenTree::Literal(literal) => {
                out.push(TokenTree::Literal(literal));
                in_path = false;
                colons = 0;
            }
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    fn resolved(text: &str) -> String {
        rust_type(text, &Ident::new("Door", Span::call_site())).to_string()
    }

    #[test]
    fn a_path_starting_with_a_generated_name_is_the_users() {
        assert_eq!(resolved("State"), "super :: State");
        assert_eq!(resolved("Door"), "super :: Door");
        assert_eq!(resolved("Vec<Configuration>"), "Vec < super :: Configuration >");
        assert_eq!(
            resolved("(Host, &'static Fired)"),
            "(super :: Host , &'static super :: Fired)"
        );
        assert_eq!(resolved("State::Inner"), "super :: State :: Inner");
    }

    #[test]
    fn other_paths_are_left_as_written() {
        assert_eq!(resolved("Downloads"), "Downloads");
        assert_eq!(resolved("crate::State"), "crate :: State");
        assert_eq!(resolved("::std::vec::Vec<u8>"), ":: std :: vec :: Vec < u8 >");
        assert_eq!(resolved("jobs::Action"), "jobs :: Action");
        assert_eq!(resolved("<T as Trait>::State"), "< T as Trait >:: State");
    }

    #[test]
    fn text_that_is_not_rust_names_itself() {
        assert!(resolved("Vec<(>").contains("is not a Rust type"));
    }
}
