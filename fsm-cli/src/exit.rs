//! The exit status of a run.

use std::process::ExitCode;

/// How a run ended. The variants are ordered by severity, so the outcome of
/// several steps is their maximum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Exit {
    /// Nothing to report (exit status 0).
    #[default]
    Clean,
    /// The input has problems: errors, denied warnings, or files that
    /// `fmt --check` would change (exit status 1).
    Problems,
    /// fsmc could not do its job: a usage error or a file it could not read
    /// or write (exit status 2).
    Trouble,
}

impl Exit {
    /// Record that a step ended with `other`.
    pub fn raise(&mut self, other: Exit) {
        *self = (*self).max(other);
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(match exit {
            Exit::Clean => 0,
            Exit::Problems => 1,
            Exit::Trouble => 2,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Exit;

    #[test]
    fn raising_keeps_the_worst_outcome() {
        let mut exit = Exit::Clean;
        exit.raise(Exit::Trouble);
        exit.raise(Exit::Problems);
        assert_eq!(exit, Exit::Trouble);
    }
}
