//! The traits the user implements, `Guards` and `Context`: their methods,
//! each carrying the span of its declaration, and the docs that show every
//! signature to write.

use crate::docs::{doc_attrs, doc_attrs_of};
use crate::options::Spans;
use fsm_grammar::model::Symbol;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// One method of a trait the user implements.
pub(crate) struct Method {
    /// Its docs and declaration.
    pub tokens: TokenStream,
    /// Its signature as the user writes it, for the trait's docs:
    /// `fn bump(&mut self, payload: &u32)`.
    pub signature: String,
}

/// What a method takes and returns.
pub(crate) enum Kind {
    /// `fn name(&self) -> bool`, with the payload when the guard has one.
    Guard,
    /// `fn name(&mut self)`, with the payload when the effect has one.
    Effect,
    /// `fn name(&self) -> Duration`.
    Delay,
}

/// The method of `symbol` named `method`, documented with its doc comment
/// or `fallback`.
///
/// Every token of the declaration spans the symbol's declaration (its name
/// in `guard name;`), as `spans` maps it: rustc then points there when an
/// impl lacks the method ("`name` from trait"), and at the payload type
/// when that type does not resolve.
pub(crate) fn method(
    spans: &Spans,
    symbol: &Symbol,
    method: &Ident,
    kind: Kind,
    payload: Option<TokenStream>,
    fallback: &str,
) -> Method {
    let docs = doc_attrs(&symbol.docs, fallback);
    let payload_text = symbol.payload.as_ref().map(|p| p.text.as_str());
    let (receiver, receiver_text) = match kind {
        Kind::Effect => (quote!(&mut self), "&mut self"),
        Kind::Guard | Kind::Delay => (quote!(&self), "&self"),
    };
    let (output, output_text) = match kind {
        Kind::Guard => (quote!(-> bool), " -> bool"),
        Kind::Effect => (TokenStream::new(), ""),
        Kind::Delay => (quote!(-> __fsm::Duration), " -> std::time::Duration"),
    };
    let (param, param_text) = match (&payload, payload_text) {
        (Some(ty), Some(text)) => (quote!(, payload: &#ty), format!(", payload: &{text}")),
        _ => (TokenStream::new(), String::new()),
    };
    let declaration = spans.respan(symbol.span(), quote!(fn #method(#receiver #param) #output;));
    Method {
        tokens: quote!(#docs #declaration),
        signature: format!("fn {method}({receiver_text}{param_text}){output_text}"),
    }
}

/// The trait docs' section that shows the impl to write, `for_type` being
/// the implementing type as the user would write it.
pub(crate) fn impl_section(trait_name: &str, for_type: &str, methods: &[Method]) -> TokenStream {
    if methods.is_empty() {
        return TokenStream::new();
    }
    let mut lines = vec![
        String::new(),
        "# Implementing it".to_string(),
        String::new(),
        "```text".to_string(),
        format!("impl {trait_name} for {for_type} {{"),
    ];
    lines.extend(methods.iter().map(|m| format!("    {} {{ ... }}", m.signature)));
    lines.push("}".to_string());
    lines.push("```".to_string());
    doc_attrs_of(&lines)
}
