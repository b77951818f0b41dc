//! Why a definition could not be built.

use super::builder_problem::BuilderProblem;
use fsm_grammar::interchange::ImportDiagnostic;
use fsm_grammar::{Diagnostic, LineIndex, Severity};
use fsm_runtime::__private::write_names;
use std::fmt;

/// Why a [`Definition`](super::Definition) could not be built.
///
/// Its `Display` lists every problem, one block each, like `fsmc check`
/// without the source excerpt:
///
/// ```text
/// the definition has 1 error:
/// error[fsm::unknown-state]: transition on `start` targets unknown state `runing`
///   --> 3:21: on start -> runing;
///   help: did you mean `running`?
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DefinitionError {
    /// The checks of `fsmc check` found errors in the `.fsm` text: the text
    /// given, or the text a [`DefinitionBuilder`](super::DefinitionBuilder)
    /// wrote.
    Check {
        /// The `.fsm` text that was checked; the diagnostics' spans are byte
        /// offsets into it.
        text: String,
        /// Every diagnostic of the text, errors and warnings, sorted by
        /// position.
        diagnostics: Vec<Diagnostic>,
    },
    /// The JSON document is malformed, does not have the documented shape,
    /// or describes a machine that the checks reject. See
    /// [`fsm_grammar::interchange::from_json`].
    Json {
        /// Every diagnostic, located by JSON path.
        diagnostics: Vec<ImportDiagnostic>,
    },
    /// The text defines no machine.
    NoMachine,
    /// The text defines several machines, and none was named.
    SeveralMachines {
        /// Their names, in source order.
        names: Vec<String>,
    },
    /// The text defines no machine with the name asked for.
    UnknownMachine {
        /// The name asked for.
        name: String,
        /// The names of the machines it defines, in source order.
        known: Vec<String>,
    },
    /// A [`DefinitionBuilder`](super::DefinitionBuilder) holds something
    /// that cannot be written as `.fsm`; nothing was checked.
    Builder {
        /// The machine's name, as given to the builder.
        machine: String,
        /// Every problem: invalid names first, then undeclared states and
        /// invalid guards, each in the order the builder was given them.
        problems: Vec<BuilderProblem>,
    },
    /// The machine has more states than a configuration holds
    /// ([`Definition::MAX_STATES`]).
    ///
    /// [`Definition::MAX_STATES`]: super::Definition::MAX_STATES
    TooLarge {
        /// The machine's name.
        machine: String,
        /// How many states it has.
        states: usize,
    },
}

impl DefinitionError {
    /// The diagnostics of the checks, for [`DefinitionError::Check`]; empty
    /// otherwise. Render them with `fsm_grammar::report::human` against the
    /// `text` of the error for a graphical report.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            DefinitionError::Check { diagnostics, .. } => diagnostics,
            _ => &[],
        }
    }
}

impl fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DefinitionError::Check { text, diagnostics } => {
                let severities = diagnostics.iter().map(|d| d.severity);
                write_header(f, "the definition has", severities)?;
                let lines = LineIndex::new(text);
                for d in diagnostics {
                    let at = lines.line_col(text, d.span.start);
                    let line = text.lines().nth(at.line - 1).unwrap_or_default().trim();
                    write!(f, "\n{}[fsm::{}]: {}", d.severity, d.code, d.message)?;
                    write!(f, "\n  --> {}:{}: {line}", at.line, at.column)?;
                    write!(f, "\n  help: {}", d.help)?;
                }
                Ok(())
            }
            DefinitionError::Json { diagnostics } => {
                let severities = diagnostics.iter().map(|d| d.severity);
                write_header(f, "the JSON definition has", severities)?;
                for d in diagnostics {
                    write!(f, "\n{}", d.severity)?;
                    if let Some(code) = d.code {
                        write!(f, "[fsm::{code}]")?;
                    }
                    write!(f, ": {}: {}", d.path, d.message)?;
                    if let Some(help) = &d.help {
                        write!(f, "\n  help: {help}")?;
                    }
                }
                Ok(())
            }
            DefinitionError::NoMachine => f.write_str("the text defines no machine"),
            DefinitionError::SeveralMachines { names } => {
                write!(f, "the text defines {} machines (", names.len())?;
                write_names(f, names.iter().map(String::as_str))?;
                f.write_str("); name the one to load")
            }
            DefinitionError::UnknownMachine { name, known } => {
                write!(f, "the text defines no machine `{name}`")?;
                if known.is_empty() {
                    return f.write_str("; it defines no machine at all");
                }
                f.write_str("; its machines are ")?;
                write_names(f, known.iter().map(String::as_str))?;
                if let Some(close) = fsm_grammar::closest(name, known.iter().map(String::as_str)) {
                    write!(f, " (did you mean `{close}`?)")?;
                }
                Ok(())
            }
            DefinitionError::Builder { machine, problems } => {
                write!(
                    f,
                    "the builder's definition of machine `{machine}` has {}:",
                    count(problems.len(), "problem")
                )?;
                for problem in problems {
                    write!(f, "\n- {problem}")?;
                }
                Ok(())
            }
            DefinitionError::TooLarge { machine, states } => write!(
                f,
                "machine `{machine}` has {states} states; the dynamic engine runs machines of at most {} \
                 states",
                super::Definition::MAX_STATES
            ),
        }
    }
}

impl std::error::Error for DefinitionError {}

/// `{prefix} 2 errors and 1 warning:`
fn write_header(
    f: &mut fmt::Formatter<'_>,
    prefix: &str,
    severities: impl Iterator<Item = Severity>,
) -> fmt::Result {
    let (mut errors, mut warnings) = (0, 0);
    for severity in severities {
        match severity {
            Severity::Error => errors += 1,
            Severity::Warning => warnings += 1,
        }
    }
    write!(f, "{prefix} {}", count(errors, "error"))?;
    if warnings > 0 {
        write!(f, " and {}", count(warnings, "warning"))?;
    }
    f.write_str(":")
}

/// `1 error`, `2 errors`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
