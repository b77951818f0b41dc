//! Why a pipeline command stopped.

use crate::workflow::DefinitionError;
use fsm_fleet::FleetError;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Everything that can stop a pipeline command.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A file operation failed.
    Io {
        /// What was being done ("writing").
        doing: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The fleet's database could not be opened.
    Open {
        /// `--db`.
        db: String,
        /// Why.
        source: FleetError,
    },
    /// The fleet's database refused a call.
    Fleet(FleetError),
    /// `workflows.json` is unusable.
    Definition(DefinitionError),
    /// A run's instance does not hold what this command expects (its
    /// snapshot does not read, or it is not a run of this program).
    Instance {
        /// The instance.
        id: String,
        /// What is wrong.
        message: String,
    },
    /// Anything else a user can fix: named in the message.
    Usage(String),
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
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { doing, path, source } => write!(f, "{doing} {}: {source}", path.display()),
            Error::Open { db, source } => write!(f, "opening the fleet {db}: {source}"),
            Error::Fleet(error) => write!(f, "{error}"),
            Error::Definition(error) => write!(f, "pipeline definition: {error}"),
            Error::Instance { id, message } => write!(f, "pipeline `{id}`: {message}"),
            Error::Usage(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Open { source, .. } => Some(source),
            Error::Fleet(error) => Some(error),
            Error::Definition(error) => Some(error),
            Error::Instance { .. } | Error::Usage(_) => None,
        }
    }
}

impl From<FleetError> for Error {
    fn from(error: FleetError) -> Self {
        Error::Fleet(error)
    }
}

impl From<DefinitionError> for Error {
    fn from(error: DefinitionError) -> Self {
        Error::Definition(error)
    }
}
