//! The pipeline both forms of `fsm!` share: check the text, report every
//! diagnostic on the tokens it concerns, then generate the machines, or stubs
//! of them when there are errors so that follow-on errors in the user's code
//! do not bury the real one.

use crate::report;
use fsm_codegen::Module;
use fsm_grammar::{Diagnostic, Severity};
use proc_macro2::{Span, TokenStream};

/// Where one form of the macro shows the diagnostics of its text.
pub(crate) trait Origin {
    /// How `diagnostic` is shown: its message and the tokens it goes on.
    fn show(&self, diagnostic: &Diagnostic) -> Shown;

    /// The error for a text that defines no machine at all.
    fn no_machine(&self) -> Shown;

    /// An error of the macro's own (not the checker's) at `span` of the
    /// text: `message` is its first line, `help` its last.
    fn at(&self, span: fsm_grammar::Span, message: &str, help: &str) -> Shown;

    /// Where the generated items that stand for a declaration point: by
    /// default, at the macro call.
    fn declaration_spans(&self) -> fsm_codegen::Spans {
        fsm_codegen::Spans::default()
    }
}

/// A message and the first and last tokens it is shown on.
pub(crate) struct Shown {
    /// The whole message, code and help included.
    pub(crate) message: String,
    /// The token the message starts at.
    pub(crate) first: Span,
    /// The token it ends at (a warning shows on `first` only).
    pub(crate) last: Span,
}

/// What code generation needs besides the checked text.
pub(crate) struct Generation {
    /// The `.fsm` file the text was read from, which the generated code
    /// includes so that cargo rebuilds when it changes.
    pub(crate) source_file: Option<String>,
    /// The path of the runtime crate: `$crate` as `fsm_runtime::fsm!` passes
    /// it, so a renamed dependency works, else `::fsm_runtime`.
    pub(crate) runtime: TokenStream,
    /// Where the machine's items go (`module = self`).
    pub(crate) module: Module,
}

/// Check `text` and expand it: every diagnostic, then the generated code.
pub(crate) fn expand(text: &str, origin: &dyn Origin, generation: &Generation) -> TokenStream {
    let checked = fsm_grammar::check(text);
    let mut expanded = TokenStream::new();
    for diagnostic in &checked.diagnostics {
        let shown = origin.show(diagnostic);
        expanded.extend(match diagnostic.severity {
            Severity::Error => report::error(&shown.message, shown.first, shown.last),
            Severity::Warning => report::warning(&shown.message, shown.first),
        });
    }
    // The rule `fsmc build` and build scripts apply too.
    if fsm_grammar::source::defines_no_machine(&checked) {
        let shown = origin.no_machine();
        expanded.extend(report::error(&shown.message, shown.first, shown.last));
    }
    if generation.module == Module::Surrounding {
        // Their `State`s would clash in the one module; only the first is
        // generated (see `generate::placed`).
        let first = checked.model.machines.first().map(|m| m.name.as_str());
        for machine in checked.model.machines.iter().skip(1) {
            let message = format!(
                "machine `{}` cannot go into the module around `fsm!` beside machine `{}`: \
                 with `module = self` both would define `State`, `Action` and the rest there",
                machine.name,
                first.unwrap_or_default()
            );
            let help = format!(
                "with `module = self` a definition holds one machine: give `{}` an `fsm!` of \
                 its own in another module, or drop `module = self`",
                machine.name
            );
            let shown = origin.at(machine.span, &message, &help);
            expanded.extend(report::error(&shown.message, shown.first, shown.last));
        }
    }
    expanded.extend(crate::generate::machines(
        &checked,
        generation,
        origin.declaration_spans(),
    ));
    expanded
}
