//! Why an engine could not be built: guards, effects or delays bound wrongly.

use fsm_runtime::__private::write_names;
use std::fmt;

/// Why [`EngineBuilder::build`](super::EngineBuilder::build) failed: every
/// guard, effect and delay the definition names must be bound exactly once,
/// and nothing else.
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
    /// Effects or delays of the definition that nobody bound, in the
    /// definition's order.
    UnboundNames {
        /// Effects or delays.
        kind: Binding,
        /// Their names.
        names: Vec<String>,
    },
    /// An effect or delay was bound under a name the definition does not
    /// have (for that kind).
    UnknownName {
        /// Effect or delay.
        kind: Binding,
        /// The name it was bound under.
        name: String,
        /// The definition's name of that kind closest to it, if one is close.
        suggestion: Option<String>,
        /// The definition's names of that kind, in order.
        known: Vec<String>,
    },
    /// An effect or delay was bound twice.
    NameBoundTwice {
        /// Effect or delay.
        kind: Binding,
        /// Its name.
        name: String,
    },
}

/// What an [`EngineBuilder`](super::EngineBuilder) binds by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binding {
    /// A guard: `.guard(name, |payload| ...)` or
    /// `.context_guard(name, |context, payload| ...)`.
    Guard,
    /// An effect: `.effect(name, |context, payload| ...)`.
    Effect,
    /// A delay: `.delay(name, |context| ...)`.
    Delay,
}

impl Binding {
    /// `"guard"`, `"effect"` or `"delay"`.
    pub const fn name(self) -> &'static str {
        match self {
            Binding::Guard => "guard",
            Binding::Effect => "effect",
            Binding::Delay => "delay",
        }
    }

    /// How to bind one, for messages.
    const fn how(self) -> &'static str {
        match self {
            Binding::Guard => "`.guard(name, |input| ...)`",
            Binding::Effect => "`.effect(name, |context, payload| ...)`",
            Binding::Delay => "`.delay(name, |context| ...)`",
        }
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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

    /// The effects (or delays, for [`Binding::Delay`]; guards, for
    /// [`Binding::Guard`]) of the definition that nobody bound.
    pub fn unbound_of(&self, kind: Binding) -> &[String] {
        if kind == Binding::Guard {
            return self.unbound();
        }
        self.problems
            .iter()
            .find_map(|p| match p {
                BindProblem::UnboundNames { kind: k, names } if *k == kind => Some(names.as_slice()),
                _ => None,
            })
            .unwrap_or_default()
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
            BindProblem::UnboundNames { kind, names } => {
                let plural = if names.len() == 1 { "" } else { "s" };
                write!(f, "{kind}{plural} ")?;
                write_names(f, names.iter().map(String::as_str))?;
                f.write_str(if names.len() == 1 { " is" } else { " are" })?;
                write!(f, " not bound; bind each with {}", kind.how())
            }
            BindProblem::UnknownName {
                kind,
                name,
                suggestion,
                known,
            } => {
                write!(f, "`{name}` is not {} {kind} of the machine", article(*kind))?;
                match suggestion {
                    Some(close) => write!(f, " (did you mean `{close}`?)"),
                    None if known.is_empty() => write!(f, ", which has no {kind}s"),
                    None => {
                        write!(f, "; its {kind}s are ")?;
                        write_names(f, known.iter().map(String::as_str))
                    }
                }
            }
            BindProblem::NameBoundTwice { kind, name } => write!(f, "{kind} `{name}` is bound twice"),
        }
    }
}

/// `a` or `an`.
fn article(kind: Binding) -> &'static str {
    match kind {
        Binding::Effect => "an",
        Binding::Guard | Binding::Delay => "a",
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
