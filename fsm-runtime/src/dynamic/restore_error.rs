//! Why a snapshot could not be restored into a dynamic engine.

use crate::symbol::write_names;
use std::fmt;

/// Why a snapshot could not be restored: the variants and the messages of
/// [`crate::RestoreError`], with owned names, since a definition loaded at
/// run time has no `'static` ones.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestoreError {
    /// The snapshot belongs to another machine.
    OtherMachine {
        /// The machine restoring.
        expected: String,
        /// The machine in the snapshot.
        found: String,
    },
    /// The snapshot was taken from a different definition of the machine.
    FingerprintMismatch {
        /// The machine.
        machine: String,
        /// The fingerprint of the definition restoring.
        expected: String,
        /// The fingerprint in the snapshot.
        found: String,
    },
    /// The snapshot names a state the machine does not have.
    UnknownState {
        /// The machine.
        machine: String,
        /// The state in the snapshot.
        state: String,
        /// The machine's states, in declaration order.
        known: Vec<String>,
    },
}

impl fmt::Display for RestoreError {
    /// Word for word the messages of [`crate::RestoreError`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RestoreError::OtherMachine { expected, found } => {
                write!(f, "the snapshot is of machine `{found}`, not `{expected}`")
            }
            RestoreError::FingerprintMismatch {
                machine,
                expected,
                found,
            } => write!(
                f,
                "the snapshot of machine `{machine}` was taken from a different definition \
                 (fingerprint {found}, this build has {expected}); restore it with \
                 `FingerprintPolicy::Ignore` to accept it"
            ),
            RestoreError::UnknownState {
                machine,
                state,
                known,
            } => {
                write!(
                    f,
                    "the snapshot's state `{state}` does not exist in machine `{machine}`; its states are "
                )?;
                write_names(f, known.iter().map(String::as_str))
            }
        }
    }
}

impl std::error::Error for RestoreError {}

impl From<crate::RestoreError> for RestoreError {
    /// The same error with owned names, so code restoring generated and
    /// dynamic machines can handle one type.
    fn from(error: crate::RestoreError) -> Self {
        match error {
            crate::RestoreError::OtherMachine { expected, found } => RestoreError::OtherMachine {
                expected: expected.to_owned(),
                found,
            },
            crate::RestoreError::FingerprintMismatch {
                machine,
                expected,
                found,
            } => RestoreError::FingerprintMismatch {
                machine: machine.to_owned(),
                expected: expected.to_owned(),
                found,
            },
            crate::RestoreError::UnknownState {
                machine,
                state,
                known,
            } => RestoreError::UnknownState {
                machine: machine.to_owned(),
                state,
                known: known.iter().map(|&s| s.to_owned()).collect(),
            },
        }
    }
}
