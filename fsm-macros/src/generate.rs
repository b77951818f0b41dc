//! The hand-over to `fsm-codegen`: the machines when the text is clean, stubs
//! of them otherwise.

use crate::expand::Generation;
use fsm_codegen::Options;
use fsm_grammar::Checked;
use proc_macro2::TokenStream;
use quote::quote;

/// The generated code for `checked`.
///
/// With errors, every machine gets a stub: those in the model with what the
/// model knows of them, the ones a syntax error kept out of it by name only.
/// A module is stubbed once, so a duplicated machine adds no error of its own.
pub(crate) fn machines(checked: &Checked, generation: &Generation) -> TokenStream {
    let runtime = &generation.runtime;
    let options = Options {
        runtime_path: quote!(#runtime::__private),
        source_file: generation.source_file.clone(),
    };
    if !checked.has_errors() {
        return fsm_codegen::model_tokens(&checked.model, &options);
    }
    // Keyed by module name: `Door` and `door` would both stub `mod door`.
    let mut stubbed: Vec<String> = Vec::new();
    let mut stubs = TokenStream::new();
    let in_model = checked.model.machines.iter().map(|m| (m.name.as_str(), Some(m)));
    let by_name = checked
        .file
        .unparsed
        .iter()
        .map(|name| (name.name.as_str(), None));
    for (name, partial) in in_model.chain(by_name) {
        let module = fsm_grammar::naming::escape(&fsm_grammar::naming::snake(name));
        if !stubbed.contains(&module) {
            stubbed.push(module);
            stubs.extend(fsm_codegen::stub_tokens(name, partial, &options));
        }
    }
    stubs
}
