//! The hand-over to `fsm-codegen`: the machines when the text is clean, stubs
//! of them otherwise.

use crate::expand::Generation;
use fsm_codegen::{Module, Options, Spans};
use fsm_grammar::model::Machine;
use fsm_grammar::Checked;
use proc_macro2::TokenStream;
use quote::quote;

/// The generated code for `checked`.
///
/// With errors, every machine gets a stub: those in the model with what the
/// model knows of them, the ones a syntax error kept out of it by name only.
/// A module is stubbed once, so a duplicated machine adds no error of its own.
///
/// With `module = self` only the first machine is generated: the others'
/// items would clash with its own in the one module, and `expand` has
/// already reported each of them on its name.
///
/// The methods of the traits the user implements carry the spans `spans`
/// gives their declarations.
pub(crate) fn machines(checked: &Checked, generation: &Generation, spans: Spans) -> TokenStream {
    let options = Options {
        spans,
        ..options(generation)
    };
    if !checked.has_errors() {
        return match (generation.module, checked.model.machines.first()) {
            (Module::Surrounding, Some(first)) => fsm_codegen::machine_tokens(first, &options),
            _ => fsm_codegen::model_tokens(&checked.model, &options),
        };
    }
    stubs(checked, generation)
}

/// A stub of every machine `checked` names, whether or not it has errors:
/// those in the model with what the model knows of them, the ones a syntax
/// error kept out of it by name only.
pub(crate) fn stubs(checked: &Checked, generation: &Generation) -> TokenStream {
    let in_model = checked.model.machines.iter().map(|m| (m.name.as_str(), Some(m)));
    let by_name = checked
        .file
        .unparsed
        .iter()
        .map(|name| (name.name.as_str(), None));
    stubs_of(in_model.chain(by_name), generation)
}

/// A stub of each machine of `names`, knowing nothing but the name.
pub(crate) fn stubs_named<'a>(
    names: impl IntoIterator<Item = &'a str>,
    generation: &Generation,
) -> TokenStream {
    stubs_of(names.into_iter().map(|name| (name, None)), generation)
}

fn stubs_of<'a>(
    machines: impl Iterator<Item = (&'a str, Option<&'a Machine>)>,
    generation: &Generation,
) -> TokenStream {
    let options = options(generation);
    // With `module = self`, as in `machines`, the first machine only.
    let placed = match generation.module {
        Module::Own => usize::MAX,
        Module::Surrounding => 1,
    };
    // Keyed by module name: `Door` and `door` would both stub `mod door`.
    let mut stubbed: Vec<String> = Vec::new();
    let mut stubs = TokenStream::new();
    for (name, partial) in machines.take(placed) {
        let module = fsm_grammar::naming::escape(&fsm_grammar::naming::snake(name));
        if !stubbed.contains(&module) {
            stubbed.push(module);
            stubs.extend(fsm_codegen::stub_tokens(name, partial, &options));
        }
    }
    stubs
}

fn options(generation: &Generation) -> Options {
    let runtime = &generation.runtime;
    Options {
        runtime_path: quote!(#runtime::__private),
        source_file: generation.source_file.clone(),
        module: generation.module,
        spans: Spans::default(),
    }
}
