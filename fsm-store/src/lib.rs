//! Durable storage for the snapshots of fsmc state machines: the [`Store`]
//! trait and its backends.
//!
//! It stores the [`Snapshot`]s of `fsm-runtime`, whatever took them: a
//! generated machine (`Persist::snapshot`), a [`Recorded`] one with its
//! history, or an engine of `fsm-dynamic`.
//!
//! A store keeps, per instance id, the latest [`Snapshot`] and a [`Version`]
//! that counts its saves. Every save is a compare-and-swap on that version, so
//! two writers that both loaded version 3 cannot both write version 4: the
//! second gets [`StoreError::Conflict`] and must reload before deciding again.
//!
//! Backends:
//!
//! - [`FileStore`]: one JSON file per instance in a directory, replaced
//!   atomically and serialized across processes by an advisory lock.
//! - `PgStore` (feature `postgres`): one row per instance in a PostgreSQL
//!   table, for instances shared by processes on many machines.
//!
//! `docs/durability.md` states exactly what each backend promises (crashes,
//! power loss, concurrent writers) and which test is the evidence.
//!
//! Store files are read by [`json`], JSON as `serde_json` reads it except
//! that an object giving a key twice is an error; `fsmc history` reads them
//! the same way.
//!
//! # Features
//!
//! - `postgres`: `PgStore`, instances in one PostgreSQL table, through the
//!   synchronous `postgres` client.
//!
//! [`Recorded`]: fsm_runtime::Recorded

mod file;
pub mod json;
#[cfg(feature = "postgres")]
mod pg;

pub use file::FileStore;
#[cfg(feature = "postgres")]
pub use pg::{PgSetupError, PgStore};

use fsm_runtime::Snapshot;
use std::fmt;

/// How many times an instance has been saved. `0` means "no such instance
/// yet"; the first save creates version `1`.
pub type Version = u64;

/// Where snapshots live between runs, keyed by instance id.
///
/// Implementations are shared between threads (`Send + Sync`) and make every
/// [`save`](Store::save) a compare-and-swap on the instance's [`Version`].
///
/// # A store's own data
///
/// Every key of a snapshot is fsmc's, and reading one refuses any other (a
/// misspelled `"timers"` would otherwise restore a machine without its
/// timers). A store that keeps data of its own, such as the version, keeps
/// it beside the snapshot, in its own record: [`FileStore`] writes
/// `{"version": 3, "snapshot": {...}}`, and `PgStore` keeps `version` and
/// `updated_at` in columns beside the `snapshot` column. Stored data that
/// does not read back, an unknown key included, is [`StoreError::Corrupt`].
pub trait Store: Send + Sync {
    /// The instance's current version and snapshot, or `None` if it was never
    /// saved.
    fn load(&self, id: &str) -> Result<Option<(Version, Snapshot)>, StoreError>;

    /// Compare-and-swap: writes `snapshot` as version `expected + 1` only if
    /// the stored version is `expected` (`0` = must not exist). Returns the
    /// new version.
    fn save(&self, id: &str, expected: Version, snapshot: &Snapshot) -> Result<Version, StoreError>;
}

/// Why a [`Store`] could not load or save an instance.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// Someone else saved first: the stored version is not the expected one.
    /// Reload, decide again, and save against the version just loaded.
    Conflict {
        /// The instance.
        id: String,
        /// The version the caller expected.
        expected: Version,
        /// The version actually stored (`0`: the instance does not exist).
        current: Version,
    },
    /// The stored data cannot be read back. The store never overwrites it on
    /// its own; see `docs/durability.md` for how to recover.
    Corrupt {
        /// The instance.
        id: String,
        /// Where the data is: a file path, or a table and row.
        location: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The id cannot name an instance in this store.
    InvalidId {
        /// The id as given.
        id: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An I/O operation failed.
    Io {
        /// The instance.
        id: String,
        /// The file or directory the operation was on.
        location: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The backend reported an error (for example a PostgreSQL error).
    Backend {
        /// The instance.
        id: String,
        /// The backend's message.
        message: String,
    },
}

impl StoreError {
    /// The instance the error is about.
    pub fn id(&self) -> &str {
        match self {
            StoreError::Conflict { id, .. }
            | StoreError::Corrupt { id, .. }
            | StoreError::InvalidId { id, .. }
            | StoreError::Io { id, .. }
            | StoreError::Backend { id, .. } => id,
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Conflict {
                id,
                expected,
                current,
            } => write!(
                f,
                "instance `{id}` was saved by someone else: expected version {expected}, \
                 found version {current}; reload it and try again"
            ),
            StoreError::Corrupt { id, location, reason } => write!(
                f,
                "the stored data of instance `{id}` at {location} is corrupt: {reason}"
            ),
            StoreError::InvalidId { id, reason } => {
                write!(f, "invalid instance id {id:?}: {reason}")
            }
            StoreError::Io { id, location, source } => {
                write!(f, "I/O error on {location} (instance `{id}`): {source}")
            }
            StoreError::Backend { id, message } => {
                write!(f, "store backend error (instance `{id}`): {message}")
            }
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
