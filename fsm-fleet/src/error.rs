//! What can go wrong, each naming what it is about.

use std::fmt;

/// An error of the fleet as a whole: the database, or a call's arguments.
#[derive(Debug)]
#[non_exhaustive]
pub enum FleetError {
    /// The database failed (it could not be opened, a statement failed, it
    /// is locked longer than the busy timeout).
    Database(crate::DatabaseError),
    /// The database's schema is not one this build reads.
    Schema {
        /// What is wrong with it.
        message: String,
    },
    /// An instance with this id exists already.
    DuplicateInstance {
        /// The id.
        id: String,
    },
    /// No instance has this id.
    UnknownInstance {
        /// The id.
        id: String,
    },
    /// A machine's snapshot or event did not serialize.
    Serialize {
        /// The instance.
        id: String,
        /// What the serializer said.
        message: String,
    },
}

impl fmt::Display for FleetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FleetError::Database(error) => write!(f, "the fleet's database failed: {error}"),
            FleetError::Schema { message } => write!(f, "the fleet's database cannot be used: {message}"),
            FleetError::DuplicateInstance { id } => write!(f, "instance `{id}` exists already"),
            FleetError::UnknownInstance { id } => write!(f, "there is no instance `{id}`"),
            FleetError::Serialize { id, message } => {
                write!(f, "instance `{id}`: could not serialize: {message}")
            }
        }
    }
}

impl std::error::Error for FleetError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FleetError::Database(error) => Some(error),
            _ => None,
        }
    }
}
