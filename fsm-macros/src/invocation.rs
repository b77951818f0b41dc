//! What was passed to `fsm!`: the runtime's path, then options and a
//! definition, or options that name a file.
//!
//! ```text
//! fsm! { machine Door { ... } }                          // a definition
//! fsm! { module = self; machine Door { ... } }           // options `;` definition
//! fsm!(file = "machines/door.fsm")                       // options only
//! fsm!(file = "machines/door.fsm", module = self)
//! ```
//!
//! Options are `name = value`, separated by `,`. Before an inline definition
//! a `;` ends them, as `biased;` does in `tokio::select!`. A definition never
//! starts with `name =` (it starts with `machine`, `///` or `#[allow]`), so
//! the two cannot be confused.

use crate::report;
use fsm_codegen::Module;
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::quote;

/// The options `fsm!` takes, each with how it is written.
const OPTIONS: [(&str, &str); 2] = [
    ("file", "file = \"machines/door.fsm\""),
    ("module", "module = self"),
];

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

/// What `fsm!` was asked to do.
pub(crate) struct Invocation {
    /// Where the machine's items go: `module = self` puts them into the
    /// module around the macro instead of `pub mod <machine_name>`.
    pub(crate) module: Module,
    /// Where the definition is.
    pub(crate) source: Source,
}

/// The two forms of the macro.
pub(crate) enum Source {
    /// `fsm! { machine Door { ... } }`.
    Inline(TokenStream),
    /// `fsm!(file = "machines/door.fsm")`.
    File {
        /// The path as written, relative to the crate root.
        path: String,
        /// The span of the path literal, where the file's diagnostics go.
        literal: Span,
    },
}

/// An error on the tokens from `first` to `last`.
fn error(message: &str, first: &TokenTree, last: &TokenTree) -> TokenStream {
    report::error(message, first.span(), last.span())
}

fn is_punct(token: &TokenTree, c: char) -> bool {
    matches!(token, TokenTree::Punct(p) if p.as_char() == c)
}

fn is_option(name: &str) -> bool {
    OPTIONS.iter().any(|(option, _)| *option == name)
}

/// How `name` is written, for messages.
fn example(name: &str) -> &'static str {
    OPTIONS
        .iter()
        .find(|(option, _)| *option == name)
        .map_or("module = self", |(_, example)| example)
}

impl Invocation {
    /// Split the options from the definition. Input that does not start
    /// with an option (`file` or `module`, or any `name =`) is a definition
    /// as a whole; anything malformed in the options is an error on the
    /// token at fault.
    pub(crate) fn parse(input: TokenStream) -> Result<Invocation, TokenStream> {
        let tokens: Vec<TokenTree> = input.clone().into_iter().collect();
        let starts_with_options = match tokens.as_slice() {
            [TokenTree::Ident(name), rest @ ..] => {
                is_option(&name.to_string()) || rest.first().is_some_and(|t| is_punct(t, '='))
            }
            _ => false,
        };
        if !starts_with_options {
            return Ok(Invocation {
                module: Module::Own,
                source: Source::Inline(input),
            });
        }

        let mut file: Option<(String, Span)> = None;
        let mut module: Option<Module> = None;
        let mut rest = tokens.as_slice();
        // The `,` before the current option, if any.
        let mut comma: Option<&TokenTree> = None;
        let definition = loop {
            let (name_token, after_name) = match rest {
                [first @ TokenTree::Ident(_), after @ ..] => (first, after),
                [first, ..] => {
                    return Err(error(
                        &format!(
                            "expected an option of `fsm!`, like `{}` or `{}`",
                            OPTIONS[1].1, OPTIONS[0].1
                        ),
                        first,
                        first,
                    ))
                }
                // The loop only goes round again with tokens left.
                [] => break None,
            };
            let name = name_token.to_string();
            let equals = after_name.first().filter(|t| is_punct(t, '='));
            if !is_option(&name) {
                // `module = self, machine Door { ... }`: a definition after
                // a `,`, where a `;` belongs.
                if let (Some(comma), None) = (comma, equals) {
                    return Err(error(
                        "expected `;` between the options and the definition, like \
                         `fsm! { module = self; machine Door { ... } }`",
                        comma,
                        comma,
                    ));
                }
                let help = match fsm_grammar::closest(&name, OPTIONS.iter().map(|(o, _)| *o)) {
                    Some(option) => format!("did you mean `{option}`?"),
                    None => format!("`fsm!` takes `{}` and `{}`", OPTIONS[1].1, OPTIONS[0].1),
                };
                return Err(error(
                    &format!("unknown option `{name}` of `fsm!`\nhelp: {help}"),
                    name_token,
                    name_token,
                ));
            }
            let Some(equals) = equals else {
                return Err(error(
                    &format!("expected `=` after `{name}`, as in `{}`", example(&name)),
                    name_token,
                    after_name.first().unwrap_or(name_token),
                ));
            };
            // The value: every token up to the next `,` or `;`.
            let after_equals = &after_name[1..];
            let end = after_equals
                .iter()
                .position(|t| is_punct(t, ',') || is_punct(t, ';'))
                .unwrap_or(after_equals.len());
            let (value, after_value) = after_equals.split_at(end);
            let Some(first) = value.first() else {
                return Err(error(
                    &format!("expected a value after `{name} =`, as in `{}`", example(&name)),
                    name_token,
                    equals,
                ));
            };
            let last = value.last().unwrap_or(first);
            match name.as_str() {
                "file" => {
                    if file.is_some() {
                        return Err(twice(name_token));
                    }
                    file = Some(file_path(first, last)?);
                }
                _ => {
                    if module.is_some() {
                        return Err(twice(name_token));
                    }
                    module = Some(module_value(first, last)?);
                }
            }
            if let [_, extra, ..] = value {
                return Err(error(
                    &format!(
                        "unexpected `{extra}` after `{name} = {first}`\nhelp: separate options with `,`, \
                         and end them with `;` before a definition"
                    ),
                    extra,
                    last,
                ));
            }
            match after_value {
                [] => break None,
                [separator, after @ ..] if is_punct(separator, ';') => break Some((separator, after)),
                [separator, after @ ..] => {
                    if after.is_empty() {
                        break None;
                    }
                    comma = Some(separator);
                    rest = after;
                }
            }
        };

        let module = module.unwrap_or_default();
        match (file, definition) {
            (Some((path, literal)), None) => Ok(Invocation {
                module,
                source: Source::File { path, literal },
            }),
            (Some(_), Some((semicolon, after))) => Err(error(
                "`file = \"...\"` reads the definition from the file, so no definition follows \
                 the options\nhelp: separate options with `,`; `;` ends them before an inline definition",
                semicolon,
                after.last().unwrap_or(semicolon),
            )),
            (None, Some((_, after))) => Ok(Invocation {
                module,
                source: Source::Inline(after.iter().cloned().collect()),
            }),
            (None, None) => {
                let (first, last) = (&tokens[0], &tokens[tokens.len() - 1]);
                Err(error(
                    "expected a definition after the options: end them with `;` and write it, \
                     like `fsm! { module = self; machine Door { ... } }`, or read it from a file \
                     with `file = \"machines/door.fsm\"`",
                    first,
                    last,
                ))
            }
        }
    }
}

fn twice(name: &TokenTree) -> TokenStream {
    error(&format!("the option `{name}` is given twice"), name, name)
}

/// The path of `file = "..."`, and the span of its literal.
fn file_path(first: &TokenTree, last: &TokenTree) -> Result<(String, Span), TokenStream> {
    if let TokenTree::Literal(literal) = first {
        if let syn::Lit::Str(path) = syn::Lit::new(literal.clone()) {
            return Ok((path.value(), literal.span()));
        }
    }
    Err(error(
        "the path must be a string literal, like `file = \"machines/door.fsm\"`, relative to \
         the crate root",
        first,
        last,
    ))
}

/// The value of `module = ...`: `self` is the one there is.
fn module_value(first: &TokenTree, last: &TokenTree) -> Result<Module, TokenStream> {
    match first {
        TokenTree::Ident(value) if value == "self" => Ok(Module::Surrounding),
        _ => Err(error(
            &format!(
                "`module` takes `self`, not `{first}`\nhelp: `module = self` puts the machine's items \
                 into the module around `fsm!`; leave the option out for a module named after the \
                 machine"
            ),
            first,
            last,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn parse(source: &str) -> Result<Invocation, TokenStream> {
        Invocation::parse(TokenStream::from_str(source).expect("test input lexes"))
    }

    fn path(source: &str) -> Option<(String, Module)> {
        match parse(source) {
            Ok(Invocation {
                module,
                source: Source::File { path, .. },
            }) => Some((path, module)),
            _ => None,
        }
    }

    fn inline(source: &str) -> Option<(String, Module)> {
        match parse(source) {
            Ok(Invocation {
                module,
                source: Source::Inline(tokens),
            }) => Some((tokens.to_string(), module)),
            _ => None,
        }
    }

    fn error(source: &str) -> String {
        match parse(source) {
            Err(tokens) => tokens.to_string(),
            Ok(_) => panic!("`{source}` parses"),
        }
    }

    #[test]
    fn a_path_literal_is_the_file_form() {
        let own = |path: &str| Some((path.to_string(), Module::Own));
        assert_eq!(path(r#"file = "a/b.fsm""#), own("a/b.fsm"));
        assert_eq!(path(r#"file = "a/b.fsm","#), own("a/b.fsm"));
        assert_eq!(path(r##"file = r#"a\b.fsm"#"##), own(r"a\b.fsm"));
        assert_eq!(path(r#"file = "a\\b.fsm""#), own(r"a\b.fsm"));
    }

    #[test]
    fn module_self_goes_with_either_form() {
        let surrounding = |text: &str| Some((text.to_string(), Module::Surrounding));
        assert_eq!(path(r#"file = "a.fsm", module = self"#), surrounding("a.fsm"));
        assert_eq!(path(r#"module = self, file = "a.fsm","#), surrounding("a.fsm"));
        assert_eq!(
            inline("module = self; machine M { initial state a; }"),
            surrounding("machine M { initial state a ; }")
        );
        // Options and nothing after the `;`: no machine, which the
        // expansion reports as for an empty `fsm! {}`.
        assert_eq!(inline("module = self;"), surrounding(""));
    }

    #[test]
    fn anything_else_is_a_definition() {
        for source in ["machine M { initial state a; }", "", "/// doc\nmachine M {}"] {
            assert_eq!(inline(source).map(|(_, m)| m), Some(Module::Own), "{source}");
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
        for (source, expected) in [
            ("file", "expected `=` after `file`"),
            ("file =", "expected a value after `file =`"),
            (r#"file "a.fsm""#, "expected `=` after `file`"),
            (
                r#"file = "a.fsm" x"#,
                "unexpected `x` after `file = \\\"a.fsm\\\"`",
            ),
            ("file = 3", "the path must be a string literal"),
            ("file = machines::door", "the path must be a string literal"),
            (
                r#"file = "a.fsm", file = "b.fsm""#,
                "the option `file` is given twice",
            ),
            (
                r#"file = "a.fsm"; machine M {}"#,
                "`file = \\\"...\\\"` reads the definition from the file",
            ),
        ] {
            let error = error(source);
            assert!(error.contains(expected), "{source}: {error}");
        }
    }

    #[test]
    fn a_malformed_module_option_is_an_error() {
        for (source, expected) in [
            (
                "module = super; machine M {}",
                "`module` takes `self`, not `super`",
            ),
            (
                r#"module = "self"; machine M {}"#,
                "`module` takes `self`, not `\\\"self\\\"`",
            ),
            (
                "module = self self; machine M {}",
                "unexpected `self` after `module = self`",
            ),
            ("module; machine M {}", "expected `=` after `module`"),
            (
                "module = self, module = self;",
                "the option `module` is given twice",
            ),
            (
                "modul = self; machine M {}",
                "unknown option `modul` of `fsm!`\\nhelp: did you mean `module`?",
            ),
            (
                "colour = red; machine M {}",
                "unknown option `colour` of `fsm!`\\nhelp: `fsm!` takes",
            ),
            (
                "module = self, machine M {}",
                "expected `;` between the options and the definition",
            ),
            ("module = self", "expected a definition after the options"),
            ("module = self, ; machine M {}", "expected an option of `fsm!`"),
        ] {
            let error = error(source);
            assert!(error.contains(expected), "{source}: {error}");
        }
    }
}
