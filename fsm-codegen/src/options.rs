//! What callers may change about the generated code.

use proc_macro2::TokenStream;
use quote::quote;

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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runtime_path: quote!(::fsm_runtime::__private),
            source_file: None,
        }
    }
}
