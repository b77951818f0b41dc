//! Why an engine could not be built: guards bound wrongly.

use crate::symbol::write_names;
use std::fmt;

/// Why [`EngineBuilder::build`](super::EngineBuilder::build) failed: every
/// guard the definition names must be bound exactly once, and nothing else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindError {
    pub(crate) machine: String,
    pub(crate) problems: Vec<BindProblem>,
}

/// One thing wrong with the guards given to an
/// [`EngineBuilder`](super::EngineBuilder).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BindProblem {
    /// Guards of the definition that nobody bound, in the definition's order.
    Unbound {
        /// Their names.
        guards: Vec<String>,
    },
    /// A guard was bound under a name the definition does not have.
    Unknown {
        /// The name it was bound under.
        guard: String,
        /// The definition's guard with the closest name, if one is close.
        suggestion: Option<String>,
        /// The definition's guards, in order.
        known: Vec<String>,
    },
    /// A guard was bound twice.
    BoundTwice {
        /// Its name.
        guard: String,
    },
}

impl BindError {
    /// The machine whose engine was being built.
    pub fn machine(&self) -> &str {
        &self.machine
    }

    /// Every problem: unknown and repeated names in the order they were
    /// bound, then the unbound guards.
    pub fn problems(&self) -> &[BindProblem] {
        &self.problems
    }

    /// The guards of the definition that nobody bound.
    pub fn unbound(&self) -> &[String] {
        self.problems
            .iter()
            .find_map(|p| match p {
                BindProblem::Unbound { guards } => Some(guards.as_slice()),
                _ => None,
            })
            .unwrap_or_default()
    }
}

impl fmt::Display for BindProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindProblem::Unbound { guards } => {
                f.write_str(if guards.len() == 1 { "guard " } else { "guards " })?;
                write_names(f, guards.iter().map(String::as_str))?;
                f.write_str(if guards.len() == 1 { " is" } else { " are" })?;
                f.write_str(" not bound; bind each with `.guard(name, |input| ...)`")
            }
            BindProblem::Unknown {
                guard,
                suggestion,
                known,
            } => {
                write!(f, "`{guard}` is not a guard of the machine")?;
                match suggestion {
                    Some(close) => write!(f, " (did you mean `{close}`?)"),
                    None if known.is_empty() => f.write_str(", which has no guards"),
                    None => {
                        f.write_str("; its guards are ")?;
                        write_names(f, known.iter().map(String::as_str))
                    }
                }
            }
            BindProblem::BoundTwice { guard } => write!(f, "guard `{guard}` is bound twice"),
        }
    }
}

impl fmt::Display for BindError {
    /// `` cannot build the engine of machine `M`: guard `ok` is not bound; ... ``
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot build the engine of machine `{}`: ", self.machine)?;
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            problem.fmt(f)?;
        }
        Ok(())
    }
}

impl std::error::Error for BindError {}
