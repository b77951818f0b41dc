//! `fsm-grammar`: the one front end of fsmc.
//!
//! It turns `.fsm` text into a checked [`Model`](model::Model):
//!
//! ```text
//! text ──parse──▶ ast::File ──lower──▶ model::Model ──checks──▶ diagnostics
//! ```
//!
//! The CLI, the `fsm!` macro and the build-script API all call [`check`]; none
//! of them parses on its own. Diagnostics are collected, never fail-fast: one
//! call reports every problem in the text, sorted by position.

pub mod ast;
pub mod comments;
pub mod diagnostic;
pub mod parser;
pub mod span;
mod syntax_error;

pub use diagnostic::{Code, Diagnostic, Label, Severity};
pub use span::{LineCol, LineIndex, Span};
