//! Why the orchestrator or a worker stopped.

use crate::workflow::DefinitionError;
use fsm_runtime::RestoreError;
use fsm_store::StoreError;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Everything that can stop a pipeline command.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A file operation failed.
    Io {
        /// What was being done ("writing the output").
        doing: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The status store refused a load or a save.
    Store(StoreError),
    /// `workflows.json` or the run's copy of its pipeline is unusable.
    Definition(DefinitionError),
    /// A stored status is not one of its machine's states.
    Restore {
        /// The status instance.
        id: String,
        /// Why.
        source: RestoreError,
    },
    /// A status machine refused an action the orchestrator decided on:
    /// the stored statuses contradict each other (edited by hand?).
    Transition {
        /// The status instance.
        id: String,
        /// The machine's explanation.
        message: String,
    },
    /// The run directory does not hold what this command expects.
    Run(String),
}

impl Error {
    /// An I/O error while `doing` something with `path`.
    pub fn io<'a>(doing: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> Error + 'a {
        move |source| Error::Io {
            doing,
            path: path.to_owned(),
            source,
        }
    }

    /// Whether another orchestrator saved a status first.
    pub fn is_conflict(&self) -> bool {
        matches!(self, Error::Store(StoreError::Conflict { .. }))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { doing, path, source } => write!(f, "{doing} {}: {source}", path.display()),
            Error::Store(error) => write!(f, "status store: {error}"),
            Error::Definition(error) => write!(f, "pipeline definition: {error}"),
            Error::Restore { id, source } => write!(f, "status `{id}`: {source}"),
            Error::Transition { id, message } => write!(f, "status `{id}`: {message}"),
            Error::Run(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Store(error) => Some(error),
            Error::Definition(error) => Some(error),
            Error::Restore { source, .. } => Some(source),
            Error::Transition { .. } | Error::Run(_) => None,
        }
    }
}

impl From<StoreError> for Error {
    fn from(error: StoreError) -> Self {
        Error::Store(error)
    }
}

impl From<DefinitionError> for Error {
    fn from(error: DefinitionError) -> Self {
        Error::Definition(error)
    }
}
