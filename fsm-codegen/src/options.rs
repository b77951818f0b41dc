//! What callers may change about the generated code.

use fsm_grammar::Model;
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use std::fmt;
use std::rc::Rc;

/// Options of code generation.
#[derive(Clone, Debug)]
pub struct Options {
    /// The path by which generated code names the runtime's hidden module.
    /// Generated code names nothing else, not even `Option`, so the user's
    /// own items cannot change its meaning. Default:
    /// `::fsm_runtime::__private`.
    pub runtime_path: TokenStream,
    /// The `.fsm` file the machines come from, as an absolute path. When set,
    /// each module includes it with `include_str!`, so cargo rebuilds the
    /// crate when the file changes (what the `fsm!(file = ...)` form needs).
    pub source_file: Option<String>,
    /// Where each machine's items go: a module of its own (the default) or
    /// the module the code is generated in.
    pub module: Module,
    /// Where the items that stand for a declaration of the `.fsm` text point
    /// in the user's source, for rustc's errors about them. Default: nowhere
    /// in particular (`Span::call_site()`).
    pub spans: Spans,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runtime_path: quote!(::fsm_runtime::__private),
            source_file: None,
            module: Module::Own,
            spans: Spans::default(),
        }
    }
}

/// The spans of the `.fsm` text in the user's source: what the `fsm!` macro
/// knows and generated source does not need.
///
/// The methods of the generated `Context` and `Guards` traits carry the span
/// of their `guard`, `effect` or `delay` declaration, so that rustc's error
/// for an impl that lacks one (E0046, "not all trait items implemented")
/// points at that declaration with its signature, not at the whole macro
/// call.
#[derive(Clone, Default)]
pub struct Spans(Option<Rc<dyn Fn(fsm_grammar::Span) -> Option<Span>>>);

impl Spans {
    /// The spans `map` gives byte ranges of the text; `None` from it (or no
    /// map at all, the default) is `Span::call_site()`.
    pub fn new(map: impl Fn(fsm_grammar::Span) -> Option<Span> + 'static) -> Self {
        Spans(Some(Rc::new(map)))
    }

    /// The span of `range` of the text, if the map knows it.
    fn of(&self, range: fsm_grammar::Span) -> Option<Span> {
        self.0.as_ref().and_then(|map| map(range))
    }

    /// `tokens`, every one of them spanning `range` of the text; unchanged
    /// when the map does not know it.
    pub(crate) fn respan(&self, range: fsm_grammar::Span, tokens: TokenStream) -> TokenStream {
        match self.of(range) {
            Some(span) => respan(tokens, span),
            None => tokens,
        }
    }
}

impl fmt::Debug for Spans {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Spans(..)"
        } else {
            "Spans(None)"
        })
    }
}

fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

/// Where a machine's items (`Door`, `State`, `Action`, ...) go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Module {
    /// A module named after the machine, `pub mod door { ... }`, so the
    /// machine is `door::Door` beside the code that generates it.
    #[default]
    Own,
    /// The module the code is generated in, so that `fsm!` inside
    /// `mod door` (or `include_fsm!("door")` there) gives `door::Door`, not
    /// `door::door::Door`. `fsm!` spells it `module = self`.
    ///
    /// The items stay in a private module, `__fsm_door`, which the code
    /// re-exports with `pub use self::__fsm_door::*;`: the machine's `.fsm`
    /// types still resolve in the surrounding module, its runtime alias and
    /// private tables do not leak into it, and the user's own items of the
    /// same name win over the re-exported ones, as with any glob import.
    /// rustdoc shows the items as the surrounding module's own. Two machines
    /// would both bring a `State` into the one module, so a definition may
    /// hold only one: every later machine becomes a `compile_error!`.
    Surrounding,
}

impl Options {
    /// The hook where the module wrapper is placed: with
    /// [`Module::Surrounding`], the top-level `pub mod name { ... }` of
    /// `item` becomes a private `mod __fsm_name { ... }` and its glob
    /// re-export. Anything else (`compile_error!`s, attributes) is kept.
    pub(crate) fn place(&self, item: TokenStream) -> TokenStream {
        if self.module == Module::Own {
            return item;
        }
        let tokens: Vec<TokenTree> = item.into_iter().collect();
        let mut placed = TokenStream::new();
        let mut rest = tokens.as_slice();
        while let Some((first, after)) = rest.split_first() {
            if let [TokenTree::Ident(vis), TokenTree::Ident(keyword), TokenTree::Ident(name), TokenTree::Group(body), tail @ ..] =
                rest
            {
                if vis == "pub" && keyword == "mod" && body.delimiter() == Delimiter::Brace {
                    let hidden = hidden_module(name);
                    placed.extend(quote! {
                        mod #hidden #body
                        #[allow(unused_imports)]
                        pub use self::#hidden::*;
                    });
                    rest = tail;
                    continue;
                }
            }
            placed.extend(std::iter::once(first.clone()));
            rest = after;
        }
        placed
    }

    /// Why the machine at `index` of `model` cannot be generated with these
    /// options: with [`Module::Surrounding`], any machine after the first,
    /// whose items would clash with the first one's in the same module.
    pub(crate) fn refusal(&self, model: &Model, index: usize) -> Option<String> {
        if self.module != Module::Surrounding || index == 0 {
            return None;
        }
        Some(format!(
            "machine `{}` cannot go into the surrounding module beside machine `{}`: both would \
             define `State`, `Action` and the rest there\nhelp: a definition whose items go into the \
             surrounding module (`module = self` in `fsm!`, `Module::Surrounding` in the build \
             script) holds one machine; generate the others in modules of their own",
            model.machines[index].name, model.machines[0].name
        ))
    }
}

/// `door` → `__fsm_door`, `r#match` → `__fsm_match`, spanned like `name`.
fn hidden_module(name: &Ident) -> Ident {
    let name = name.to_string();
    let bare = name.strip_prefix("r#").unwrap_or(&name);
    format_ident!("__fsm_{}", bare)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surrounding() -> Options {
        Options {
            module: Module::Surrounding,
            ..Options::default()
        }
    }

    #[test]
    fn the_default_keeps_the_module() {
        let item = quote!(
            #[doc = "Door."]
            pub mod door {
                pub struct Door;
            }
        );
        assert_eq!(
            Options::default().place(item.clone()).to_string(),
            item.to_string()
        );
    }

    #[test]
    fn surrounding_hides_the_module_and_re_exports_its_items() {
        let item = quote! {
            #[doc = "Door."]
            #[allow(dead_code)]
            pub mod door { use super::*; pub struct Door; }
        };
        assert_eq!(
            surrounding().place(item).to_string(),
            quote! {
                #[doc = "Door."]
                #[allow(dead_code)]
                mod __fsm_door { use super::*; pub struct Door; }
                #[allow(unused_imports)]
                pub use self::__fsm_door::*;
            }
            .to_string()
        );
    }

    #[test]
    fn a_raw_module_name_hides_without_its_prefix() {
        let item = quote!(
            pub mod r#match {
                pub struct Match;
            }
        );
        let placed = surrounding().place(item).to_string();
        assert!(placed.starts_with("mod __fsm_match {"), "{placed}");
        assert!(placed.ends_with("pub use self :: __fsm_match :: * ;"), "{placed}");
    }

    #[test]
    fn a_compile_error_is_kept() {
        let item = quote!(::core::compile_error!("no"););
        assert_eq!(surrounding().place(item.clone()).to_string(), item.to_string());
    }

    #[test]
    fn only_one_machine_goes_into_the_surrounding_module() {
        let checked =
            fsm_grammar::check("machine Door { initial state a; }\nmachine Lamp { initial state b; }");
        let model = &checked.model;
        assert_eq!(Options::default().refusal(model, 1), None);
        assert_eq!(surrounding().refusal(model, 0), None);
        let message = surrounding().refusal(model, 1).unwrap_or_default();
        assert!(
            message.starts_with("machine `Lamp` cannot go into the surrounding module beside machine `Door`"),
            "{message}"
        );
    }
}
