//! `fsm-grammar`: the one front end of fsmc.
//!
//! It turns `.fsm` text into a checked [`Model`]:
//!
//! ```text
//! text ──parse──▶ ast::File ──lower──▶ model::Model ──checks──▶ diagnostics
//!                                             └──plan──▶ plan::Plan (what engines run)
//! ```
//!
//! The CLI, the `fsm!` macro and the build-script API all call [`check`]; none
//! of them parses on its own. Diagnostics are collected, never fail-fast: one
//! call reports every problem in the text, sorted by position.
//!
//! ```
//! let checked = fsm_grammar::check("machine M { initial state a { on go -> b; } state b; }");
//! assert!(!checked.has_errors());
//! assert_eq!(checked.model.machines[0].states.len(), 2);
//! ```
//!
//! What it holds, and what is public:
//!
//! - the front end: [`check`] (and [`parse`] alone), the syntax tree
//!   ([`ast`]), the [`model`], the [`plan`] that code generation and the
//!   dynamic engine both render, [`Diagnostic`]s with their [`report`]
//!   layouts, [`source`] files, [`Span`]s and timer [`duration`]s;
//! - the rules shared with whatever generates or names code: [`naming`],
//!   [`closest`] ("did you mean"), and the size limits of the language
//!   ([`MAX_GUARD_DEPTH`], [`MAX_GUARD_OPERATORS`], [`MAX_STATE_DEPTH`]);
//! - behind the `format` feature, `format`: the canonical layout of
//!   `fsmc fmt`;
//! - behind the `interchange` feature, `interchange`: machines as JSON
//!   documents, exported and imported.
//!
//! The `fancy` feature renders diagnostics graphically (miette's `fancy`).
//! Diagrams of a machine are the `fsm-diagram` crate's.

pub mod ast;
mod braces;
mod checks;
mod comments;
mod diagnostic;
pub mod duration;
mod elide;
pub use elide::elide;
#[cfg(feature = "format")]
pub mod format;
// The interchange writes imports back as formatted `.fsm` text.
#[cfg(all(feature = "interchange", not(feature = "format")))]
mod format;
mod guard_logic;
#[cfg(feature = "interchange")]
pub mod interchange;
mod limits;
mod lower;
pub mod model;
pub mod naming;
mod parser;
pub mod plan;
pub mod report;
pub mod source;
mod span;
mod suggest;
mod syntax_error;

pub use diagnostic::{Code, Diagnostic, Label, Severity};
pub use limits::{MAX_GUARD_DEPTH, MAX_GUARD_OPERATORS, MAX_STATE_DEPTH};
pub use model::Model;
pub use parser::{parse, Parsed};
pub use span::{LineCol, LineIndex, Span};
pub use suggest::closest;

/// The outcome of checking one text: the syntax tree, the model and every
/// diagnostic, sorted by position.
#[derive(Debug)]
pub struct Checked {
    /// The syntax tree (machines with syntax errors are missing).
    pub file: ast::File,
    /// The semantic model. Only trustworthy for code generation when
    /// [`Checked::has_errors`] is false.
    pub model: Model,
    /// Every diagnostic, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The model if there are no errors, else the diagnostics.
    pub fn into_model(self) -> Result<Model, Vec<Diagnostic>> {
        if self.has_errors() {
            Err(self.diagnostics)
        } else {
            Ok(self.model)
        }
    }
}

/// Parse, lower and check `text`.
pub fn check(text: &str) -> Checked {
    let parsed = parser::parse(text);
    let mut diagnostics = parsed.diagnostics;
    let model = lower::lower(&parsed.file, &mut diagnostics);
    checks::run(&model, &mut diagnostics);
    diagnostic::sort(&mut diagnostics);
    Checked {
        file: parsed.file,
        model,
        diagnostics,
    }
}

/// What the user asked of the lints: `--allow`, `--deny`, `--deny-warnings`.
#[derive(Clone, Debug, Default)]
pub struct LintOptions {
    /// Warnings to drop.
    pub allow: Vec<Code>,
    /// Warnings to turn into errors.
    pub deny: Vec<Code>,
    /// Turn every warning into an error.
    pub deny_warnings: bool,
}

impl LintOptions {
    /// Apply the options: allowed warnings are removed, denied ones become
    /// errors. Errors are never removed.
    pub fn apply(&self, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        diagnostics
            .into_iter()
            .filter(|d| d.is_error() || !self.allow.contains(&d.code))
            .map(|mut d| {
                if self.deny_warnings || self.deny.contains(&d.code) {
                    d.severity = Severity::Error;
                }
                d
            })
            .collect()
    }
}
