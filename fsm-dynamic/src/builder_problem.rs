//! What a [`DefinitionBuilder`](super::DefinitionBuilder) can be given that
//! has no `.fsm` text: problems found before the checks run.

use std::fmt;

/// Something a [`DefinitionBuilder`](super::DefinitionBuilder) holds that
/// cannot be written as `.fsm`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuilderProblem {
    /// A name that is not an identifier of the `.fsm` language.
    InvalidName {
        /// What the name names.
        kind: NameKind,
        /// The name as given.
        name: String,
    },
    /// A transition or hook in a state that was never declared with
    /// `state`, `initial` or `terminal`.
    UndeclaredState {
        /// The state as given.
        state: String,
        /// What uses it.
        used_by: StateUse,
        /// A declared state with a similar name.
        suggestion: Option<String>,
    },
    /// A guard expression with a character that guards do not use.
    InvalidGuard {
        /// The action of the transition.
        action: String,
        /// The guard expression as given.
        guard: String,
        /// The first character that is not allowed; `None` when the guard
        /// is empty.
        character: Option<char>,
    },
}

/// What a name given to the builder names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameKind {
    /// The machine.
    Machine,
    /// A state.
    State,
    /// An action.
    Action,
    /// An output.
    Output,
}

impl NameKind {
    /// `"machine"`, `"state"`, `"action"` or `"output"`.
    pub const fn name(self) -> &'static str {
        match self {
            NameKind::Machine => "machine",
            NameKind::State => "state",
            NameKind::Action => "action",
            NameKind::Output => "output",
        }
    }
}

impl fmt::Display for NameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What refers to an undeclared state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateUse {
    /// A transition on this action leaves it.
    Transition {
        /// The action.
        action: String,
    },
    /// Outputs emitted on entering it.
    Enter,
    /// Outputs emitted on leaving it.
    Exit,
}

impl fmt::Display for BuilderProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuilderProblem::InvalidName { kind, name } => write!(
                f,
                "`{name}` is not a valid {kind} name: a name is ASCII letters, digits and `_`, \
                 and does not start with a digit"
            ),
            BuilderProblem::UndeclaredState {
                state,
                used_by,
                suggestion,
            } => {
                match used_by {
                    StateUse::Transition { action } => {
                        write!(f, "the transition on `{action}` leaves state `{state}`")?
                    }
                    StateUse::Enter => write!(f, "enter outputs are given for state `{state}`")?,
                    StateUse::Exit => write!(f, "exit outputs are given for state `{state}`")?,
                }
                f.write_str(", which is not declared")?;
                match suggestion {
                    Some(close) => write!(f, " (did you mean `{close}`?)"),
                    None => write!(f, "; declare it with `.state(\"{state}\")`"),
                }
            }
            BuilderProblem::InvalidGuard {
                action,
                guard,
                character,
            } => {
                write!(f, "the guard `{guard}` of the transition on `{action}` ")?;
                match character {
                    None => f.write_str("is empty")?,
                    Some(c) => write!(f, "contains `{}`", c.escape_debug())?,
                }
                f.write_str(": a guard is guard names joined by `!`, `&&`, `||` and parentheses")
            }
        }
    }
}
