//! The `State`, `Action` and `Output` enums, with their names, `Display`,
//! `FromStr`, `Symbol` and (through the runtime's `serde` feature) serde.

use crate::docs::{doc_attrs, doc_line};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// One of the three enums.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    State,
    /// The `State` enum of a machine with nested states: its leaves.
    Leaf,
    Action,
    Output,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::State | Kind::Leaf => "state",
            Kind::Action => "action",
            Kind::Output => "output",
        }
    }

    fn type_name(self) -> &'static str {
        match self {
            Kind::State | Kind::Leaf => "State",
            Kind::Action => "Action",
            Kind::Output => "Output",
        }
    }

    fn summary(self, machine: &Ident) -> String {
        match self {
            Kind::State => format!("The states of [`{machine}`]."),
            Kind::Leaf => format!(
                "The states [`{machine}`] can be in: the leaves of its tree, those that hold no states \
                 (the others are [`Composite`]s)."
            ),
            Kind::Action => format!("The actions [`{machine}`] accepts: what the caller fires."),
            Kind::Output => format!("The outputs [`{machine}`] emits: what the caller performs."),
        }
    }
}

/// A variant: its identifier, its `.fsm` name and its doc lines.
pub(crate) struct Variant<'a> {
    pub ident: &'a Ident,
    pub name: &'a str,
    pub docs: &'a [String],
}

/// The enum of `kind` for machine `machine_name` (type `machine`).
pub(crate) fn symbol_enum(
    kind: Kind,
    machine_name: &str,
    machine: &Ident,
    variants: &[Variant],
) -> TokenStream {
    let ty = Ident::new(kind.type_name(), Span::call_site());
    let kind_variant = ty.clone();
    let summary = doc_line(&kind.summary(machine));
    let word = kind.word();
    let all_doc = doc_line(&format!("Every {word}, in declaration order."));
    let name_doc = doc_line(&format!("The name of the {word}, as written in the definition."));
    let idents: Vec<&Ident> = variants.iter().map(|v| v.ident).collect();
    let names: Vec<&str> = variants.iter().map(|v| v.name).collect();
    let docs = variants
        .iter()
        .map(|v| doc_attrs(v.docs, &format!("The {word} `{}`.", v.name)));
    let from_name = if variants.is_empty() {
        quote! {
            fn from_name(_name: &str) -> __fsm::Option<Self> {
                __fsm::None
            }
        }
    } else {
        quote! {
            fn from_name(name: &str) -> __fsm::Option<Self> {
                match name {
                    #(#names => __fsm::Some(#ty::#idents),)*
                    _ => __fsm::None,
                }
            }
        }
    };
    quote! {
        #summary
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
        pub enum #ty {
            #(#docs #idents,)*
        }

        impl #ty {
            #all_doc
            pub const ALL: &'static [#ty] = &[#(#ty::#idents),*];

            #name_doc
            pub const fn name(self) -> &'static str {
                match self {
                    #(#ty::#idents => #names,)*
                }
            }
        }

        impl __fsm::fmt::Display for #ty {
            fn fmt(&self, f: &mut __fsm::fmt::Formatter<'_>) -> __fsm::fmt::Result {
                f.write_str(self.name())
            }
        }

        // `Self::Err` would be ambiguous with a variant named `Err`.
        impl __fsm::FromStr for #ty {
            type Err = __fsm::ParseSymbolError;

            fn from_str(name: &str) -> __fsm::Result<Self, __fsm::ParseSymbolError> {
                <Self as __fsm::Symbol>::from_name(name).ok_or_else(|| __fsm::ParseSymbolError::new::<Self>(name))
            }
        }

        impl __fsm::Symbol for #ty {
            const KIND: __fsm::SymbolKind = __fsm::SymbolKind::#kind_variant;
            const MACHINE: &'static str = #machine_name;
            const ALL: &'static [Self] = #ty::ALL;
            const NAMES: &'static [&'static str] = &[#(#names),*];

            fn name(self) -> &'static str {
                #ty::name(self)
            }

            #from_name
        }

        __fsm::symbol_serde!(#ty);
    }
}
