//! What was passed to `fsm!`: the runtime's path, then a definition or
//! `file = "path"`.

use crate::report;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;

/// The path of the runtime crate, and the rest of the input.
///
/// `fsm_runtime::fsm!` is a `macro_rules!` wrapper that calls this macro as
/// `@runtime($crate) <its input>`, so the generated code names the runtime
/// by `$crate`, which follows a renamed dependency. The user's tokens are
/// passed on untouched, spans and all. Called directly, without the prefix,
/// the macro assumes the runtime is `::fsm_runtime`.
pub(crate) fn runtime(input: TokenStream) -> (TokenStream, TokenStream) {
    let mut tokens = input.clone().into_iter();
    if let (Some(TokenTree::Punct(at)), Some(TokenTree::Ident(keyword)), Some(TokenTree::Group(path))) =
        (tokens.next(), tokens.next(), tokens.next())
    {
        if at.as_char() == '@' && keyword == "runtime" && path.delimiter() == Delimiter::Parenthesis {
            return (path.stream(), tokens.collect());
        }
    }
    (quote!(::fsm_runtime), input)
}

/// The two forms of the macro.
pub(crate) enum Invocation {
    /// `fsm! { machine Door { ... } }`.
    Inline(TokenStream),
    /// `fsm!(file = "machines/door.fsm")`.
    File {
        /// The path as written, relative to the crate root.
        path: String,
        /// The span of the path literal, where the file's diagnostics go.
        literal: proc_macro2::Span,
    },
}

impl Invocation {
    /// Tell the forms apart. A definition never starts with `file`, so input
    /// that does is a file form, and anything malformed after it an error.
    pub(crate) fn parse(input: TokenStream) -> Result<Invocation, TokenStream> {
        let tokens: Vec<TokenTree> = input.clone().into_iter().collect();
        let Some(TokenTree::Ident(keyword)) = tokens.first() else {
            return Ok(Invocation::Inline(input));
        };
        if keyword != "file" {
            return Ok(Invocation::Inline(input));
        }
        let arguments = match tokens.as_slice() {
            [_, _, _, TokenTree::Punct(comma)] if comma.as_char() == ',' => &tokens[..3],
            _ => &tokens[..],
        };
        if let [_, TokenTree::Punct(equals), TokenTree::Literal(literal)] = arguments {
            if equals.as_char() == '=' {
                return match syn::Lit::new(literal.clone()) {
                    syn::Lit::Str(path) => Ok(Invocation::File {
                        path: path.value(),
                        literal: literal.span(),
                    }),
                    _ => Err(report::error(
                        "the path must be a string literal, like `file = \"machines/door.fsm\"`",
                        literal.span(),
                        literal.span(),
                    )),
                };
            }
        }
        let last = tokens.last().map_or(keyword.span(), TokenTree::span);
        Err(report::error(
            "expected `file = \"path/to/machine.fsm\"`, with the path relative to the crate root",
            keyword.span(),
            last,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn parse(source: &str) -> Result<Invocation, TokenStream> {
        Invocation::parse(TokenStream::from_str(source).expect("test input lexes"))
    }

    fn path(source: &str) -> Option<String> {
        match parse(source) {
            Ok(Invocation::File { path, .. }) => Some(path),
            _ => None,
        }
    }

    fn error(source: &str) -> Option<String> {
        parse(source).err().map(|tokens| tokens.to_string())
    }

    #[test]
    fn a_path_literal_is_the_file_form() {
        assert_eq!(path(r#"file = "a/b.fsm""#).as_deref(), Some("a/b.fsm"));
        assert_eq!(path(r#"file = "a/b.fsm","#).as_deref(), Some("a/b.fsm"));
        assert_eq!(path(r##"file = r#"a\b.fsm"#"##).as_deref(), Some(r"a\b.fsm"));
        assert_eq!(path(r#"file = "a\\b.fsm""#).as_deref(), Some(r"a\b.fsm"));
    }

    #[test]
    fn anything_else_is_a_definition() {
        for source in ["machine M { initial state a; }", "", "/// doc\nmachine M {}"] {
            assert!(matches!(parse(source), Ok(Invocation::Inline(_))), "{source}");
        }
    }

    #[test]
    fn the_runtime_prefix_is_split_off() {
        let split = |source: &str| {
            let (runtime, rest) = runtime(TokenStream::from_str(source).expect("test input lexes"));
            (runtime.to_string(), rest.to_string())
        };
        assert_eq!(
            split("@runtime(::my_runtime) machine M {}"),
            (":: my_runtime".to_string(), "machine M { }".to_string())
        );
        assert_eq!(
            split(r#"@runtime(crate::rt) file = "a.fsm""#),
            ("crate :: rt".to_string(), r#"file = "a.fsm""#.to_string())
        );
        // Without the prefix (the macro called directly), the default path.
        assert_eq!(
            split("machine M {}"),
            (":: fsm_runtime".to_string(), "machine M { }".to_string())
        );
        assert_eq!(split(""), (":: fsm_runtime".to_string(), String::new()));
    }

    #[test]
    fn a_malformed_file_form_is_an_error() {
        let expected = "expected `file = \\\"path/to/machine.fsm\\\"`";
        for source in ["file", "file =", r#"file "a.fsm""#, r#"file = "a.fsm" x"#] {
            let error = error(source).unwrap_or_default();
            assert!(error.contains(expected), "{source}: {error}");
        }
        let error = error("file = 3").unwrap_or_default();
        assert!(error.contains("the path must be a string literal"), "{error}");
    }
}
