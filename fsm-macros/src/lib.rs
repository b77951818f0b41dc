//! The `fsm!` macro of fsmc. Use it through `fsm-runtime`, which wraps it
//! as `fsm_runtime::fsm!` under its default `macros` feature: the wrapper
//! passes the runtime's path (`$crate`) ahead of the definition, so the
//! generated code works under a renamed dependency (see
//! `invocation::runtime`). Called directly, it assumes `::fsm_runtime`.
//!
//! The macro is a thin front door: it turns its input into `.fsm` text, hands
//! that to `fsm_grammar::check` and the checked model to `fsm-codegen`. It
//! parses nothing itself, so the macro, `fsmc build` and the build-script API
//! give the same diagnostics and the same code for the same definition.
//!
//! # Two forms
//!
//! ```text
//! fsm_runtime::fsm! {
//!     /// The front door.
//!     machine Door {
//!         initial state closed { on open -> opened; }
//!         state opened { on close -> closed; }
//!     }
//! }
//!
//! fsm_runtime::fsm!(file = "machines/door.fsm");
//! ```
//!
//! The path of the second form is relative to the crate root (the directory
//! of `Cargo.toml`). The generated code includes the file with
//! `include_str!`, so cargo rebuilds the crate when the file changes.
//!
//! # Options
//!
//! Options come first, as `name = value` separated by `,`; in the inline
//! form a `;` ends them (see `invocation`). `file = "..."` is one; the other
//! is `module = self`, which puts the machine's items into the module around
//! the macro instead of `pub mod <snake_name>`, so that `fsm!` inside
//! `mod door` gives `door::Door`, not `door::door::Door`:
//!
//! ```text
//! pub mod door {
//!     fsm_runtime::fsm! {
//!         module = self;
//!         machine Door { initial state closed; }
//!     }
//! }
//!
//! fsm_runtime::fsm!(file = "machines/door.fsm", module = self);
//! ```
//!
//! The items are re-exported from a private module (see
//! `fsm_codegen::Module::Surrounding`), and a definition with `module = self`
//! holds one machine: a second is an error on its name.
//!
//! # Diagnostics
//!
//! Every diagnostic of the checker is reported, not only the first.
//!
//! - **Errors** become `compile_error!`s. In the inline form each one sits on
//!   the exact tokens it concerns, so a misspelt state is underlined in the
//!   editor. Its message is the checker's, then the code, the places its
//!   secondary labels point at (as `note: ...: file:line:column`, since one
//!   `compile_error!` shows one span) and the help. In the file form rustc
//!   can only point at the path literal, so the message carries the file,
//!   line and column and the source lines with the problem marked. When
//!   there is an error the macro still emits a stub of each machine, so code
//!   that uses it does not fail with follow-on errors.
//! - **Warnings** cannot be emitted by a proc macro on stable Rust, so each
//!   one is a lint expectation that cannot be fulfilled, whose reason is the
//!   warning: rustc shows ``warning: this lint expectation is unfulfilled``
//!   on the first token it concerns, with the message, code and help as its
//!   note. Cargo hides it for dependencies, and it is silenced like the lint
//!   it is: with `#[allow(unreachable-state)]` in the definition, or
//!   `#[allow(unfulfilled_lint_expectations)]` in Rust. A crate built with
//!   `-D warnings` fails on it, as it should. Like rustc's own lints, the
//!   warnings show once the crate has no errors.
//!
//! `//` comments inside the inline form are dropped by rustc before the macro
//! sees them; `///` doc comments arrive as `#[doc]` attributes and become
//! rustdoc on the generated items as they would from a `.fsm` file.

mod expand;
mod file;
mod generate;
mod inline;
mod invocation;
mod report;
mod token_text;

use invocation::{Invocation, Source};
use std::panic::{self, AssertUnwindSafe};

/// Define state machines, inline or from a `.fsm` file. See the crate docs.
#[proc_macro]
pub fn fsm(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    // The macro must never fail with "proc macro panicked": a bug anywhere
    // below is still reported as an error, with a plea to report it.
    let expanded = panic::catch_unwind(AssertUnwindSafe(|| {
        let (runtime, input) = invocation::runtime(input);
        match Invocation::parse(input) {
            Ok(Invocation {
                module,
                source: Source::Inline(tokens),
            }) => inline::expand(tokens, runtime, module),
            Ok(Invocation {
                module,
                source: Source::File { path, literal },
            }) => file::expand(&path, literal, runtime, module),
            Err(error) => error,
        }
    }));
    let expanded = expanded.unwrap_or_else(|payload| {
        let reason = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let message = format!(
            "internal error in `fsm!`: {reason}\nhelp: this is a bug in fsmc; please report it \
             with the definition that caused it"
        );
        let here = proc_macro2::Span::call_site();
        report::error(&message, here, here)
    });
    expanded.into()
}
