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
    /// A typed send ([`Fleet::send_to`](crate::Fleet::send_to) and its
    /// twins) named an instance of another machine: the event is not one
    /// its machine reads, so it was not sent.
    WrongMachine {
        /// The instance.
        id: String,
        /// The instance's machine.
        machine: String,
        /// The machine whose event was sent.
        sent: String,
    },
    /// An instance id longer than [`MAX_INSTANCE_ID_BYTES`](crate::MAX_INSTANCE_ID_BYTES)
    /// (in UTF-8): refused by [`Fleet::create`](crate::Fleet::create)
    /// before any statement, on both backends.
    InstanceIdTooLong {
        /// The id.
        id: String,
        /// Its length in bytes.
        length: usize,
        /// The limit, in bytes.
        limit: usize,
    },
    /// A deduplication key longer than
    /// [`MAX_DEDUP_KEY_BYTES`](crate::MAX_DEDUP_KEY_BYTES) (in UTF-8):
    /// refused by every send before any statement, on both backends, and
    /// nothing of the send (or of its batch) is sent.
    DedupKeyTooLong {
        /// The instance the event was sent to.
        id: String,
        /// The key's length in bytes.
        length: usize,
        /// The limit, in bytes.
        limit: usize,
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
            FleetError::WrongMachine { id, machine, sent } => write!(
                f,
                "instance `{id}` is of machine `{machine}`, not `{sent}`: an event of `{sent}` is not sent to it"
            ),
            FleetError::InstanceIdTooLong { id, length, limit } => write!(
                f,
                "instance id `{}` is {length} bytes long: an id is at most {limit} bytes",
                Cut(id)
            ),
            FleetError::DedupKeyTooLong { id, length, limit } => write!(
                f,
                "instance `{}`: the deduplication key is {length} bytes long: a key is at most {limit} bytes",
                Cut(id)
            ),
            FleetError::Serialize { id, message } => {
                write!(f, "instance `{id}`: could not serialize: {message}")
            }
        }
    }
}

/// Text quoted in a message, cut to its first [`Cut::CHARS`] characters
/// and an `…`: the ids and keys the limits refuse can be megabytes long.
struct Cut<'a>(&'a str);

impl Cut<'_> {
    /// The most characters shown.
    const CHARS: usize = 64;
}

impl fmt::Display for Cut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(Cut::CHARS) {
            Some((end, _)) => write!(f, "{}…", &self.0[..end]),
            None => f.write_str(self.0),
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
