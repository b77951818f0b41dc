//! Snapshots: a machine's current state with enough identity to restore it
//! safely later, possibly into a newer build.

use crate::history::{History, HistoryEntry};
use crate::machine::Machine;
use crate::symbol::{write_names, Symbol};
use std::borrow::Cow;
use std::fmt;

/// A machine's state, stored, and optionally its history.
///
/// With the `serde` feature it serializes to
/// `{"type": "fsm", "machine": "Door", "fingerprint": "…", "current_state": "opened"}`,
/// followed by `"history": [...]` (see [`HistoryEntry`]) when it carries
/// history entries; without entries the field is left out, so a snapshot
/// without history reads and writes exactly as before histories existed.
///
/// Taking a snapshot does not allocate; reading one back (from JSON, or with
/// [`Snapshot::new`] from owned strings) does, and so does attaching a
/// history.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Snapshot {
    machine: Cow<'static, str>,
    fingerprint: Cow<'static, str>,
    current_state: Cow<'static, str>,
    /// Sequence numbers increase, whether the entries came from a
    /// [`History`] or were deserialized (which checks).
    history: Vec<HistoryEntry>,
}

impl Snapshot {
    /// A snapshot of machine `machine` (its name), whose definition has
    /// `fingerprint`, in state `current_state` (its name).
    pub fn new(
        machine: impl Into<Cow<'static, str>>,
        fingerprint: impl Into<Cow<'static, str>>,
        current_state: impl Into<Cow<'static, str>>,
    ) -> Self {
        Snapshot {
            machine: machine.into(),
            fingerprint: fingerprint.into(),
            current_state: current_state.into(),
            history: Vec::new(),
        }
    }

    /// This snapshot, carrying the entries `history` keeps (replacing any it
    /// carried). [`History::resumed_from`] and
    /// [`Recorded::restore`](crate::Recorded::restore) read them back.
    pub fn with_history(mut self, history: &History) -> Self {
        self.history = history.iter().cloned().collect();
        self
    }

    /// The history entries it carries, oldest first; empty when it was taken
    /// without a history.
    pub fn history(&self) -> &[HistoryEntry] {
        &self.history
    }

    /// The name of the machine.
    pub fn machine(&self) -> &str {
        &self.machine
    }

    /// The fingerprint of the definition the snapshot was taken from.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The name of the state.
    pub fn current_state(&self) -> &str {
        &self.current_state
    }

    /// The state of `M` this snapshot holds. Checks, in this order, that it
    /// is a snapshot of `M`, that the definition is the same (unless `policy`
    /// ignores that), and that the state exists.
    pub fn state_of<M: Machine>(&self, policy: FingerprintPolicy) -> Result<M::State, RestoreError> {
        if self.machine != M::NAME {
            return Err(RestoreError::OtherMachine {
                expected: M::NAME.to_owned(),
                found: self.machine.to_string(),
            });
        }
        if policy == FingerprintPolicy::Strict && self.fingerprint != M::FINGERPRINT {
            return Err(RestoreError::FingerprintMismatch {
                machine: M::NAME.to_owned(),
                expected: M::FINGERPRINT.to_owned(),
                found: self.fingerprint.to_string(),
            });
        }
        M::State::from_name(&self.current_state).ok_or_else(|| RestoreError::UnknownState {
            machine: M::NAME.to_owned(),
            state: self.current_state.to_string(),
            known: <M::State as Symbol>::NAMES
                .iter()
                .map(|&s| s.to_owned())
                .collect(),
        })
    }
}

/// Whether restoring accepts a snapshot taken from a different definition of
/// the same machine.
///
/// The fingerprint changes whenever behaviour can change (a transition, a
/// guard, a priority). A state that still exists is often still meaningful,
/// but only the application can tell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FingerprintPolicy {
    /// Refuse it with [`RestoreError::FingerprintMismatch`].
    #[default]
    Strict,
    /// Accept it if its state still exists.
    Ignore,
}

/// Why a snapshot could not be restored, into a generated machine or a
/// dynamic engine alike. It owns its names (restoring is no hot path, and a
/// definition loaded at run time has no `'static` ones).
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
    /// The snapshot's history ends with a sequence number above
    /// [`History::MAX_RESUMED_SEQ`], too close to the top of `u64` for the
    /// history to go on numbering its entries. Such numbers do not come from
    /// a [`History`], which counts from `0`; the snapshot was edited or
    /// written by something else.
    SeqOutOfRange {
        /// The machine.
        machine: String,
        /// The `seq` of the snapshot's last history entry.
        seq: u64,
        /// The largest `seq` a restored history may end with.
        max: u64,
    },
}

impl fmt::Display for RestoreError {
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
            RestoreError::SeqOutOfRange { machine, seq, max } => write!(
                f,
                "the snapshot's history of machine `{machine}` ends at `seq` {seq}, above {max}, \
                 the largest a restored history can go on numbering from"
            ),
        }
    }
}

impl std::error::Error for RestoreError {}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::Snapshot;
    use crate::history::{check_order, HistoryEntry};
    use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde::ser::{SerializeStruct, Serializer};
    use std::collections::HashSet;
    use std::fmt;

    const TYPE: &str = "fsm";
    const FIELDS: &[&str] = &["type", "machine", "fingerprint", "current_state", "history"];

    impl serde::Serialize for Snapshot {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let has_history = !self.history.is_empty();
            let mut s = serializer.serialize_struct("Snapshot", 4 + usize::from(has_history))?;
            s.serialize_field("type", TYPE)?;
            s.serialize_field("machine", &*self.machine)?;
            s.serialize_field("fingerprint", &*self.fingerprint)?;
            s.serialize_field("current_state", &*self.current_state)?;
            if has_history {
                s.serialize_field("history", &self.history)?;
            } else {
                s.skip_field("history")?;
            }
            s.end()
        }
    }

    impl<'de> serde::Deserialize<'de> for Snapshot {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_struct("Snapshot", FIELDS, SnapshotVisitor)
        }
    }

    struct SnapshotVisitor;

    /// The snapshot, with `history` checked.
    fn with_history<E: de::Error>(mut snapshot: Snapshot, history: Vec<HistoryEntry>) -> Result<Snapshot, E> {
        check_order(&history).map_err(E::custom)?;
        snapshot.history = history;
        Ok(snapshot)
    }

    fn check_type<E: de::Error>(found: &str) -> Result<(), E> {
        if found == TYPE {
            Ok(())
        } else {
            Err(E::custom(format_args!(
                "not an fsm snapshot: `type` is `{found}`, expected `{TYPE}`"
            )))
        }
    }

    impl<'de> Visitor<'de> for SnapshotVisitor {
        type Value = Snapshot;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an fsm snapshot with `type`, `machine`, `fingerprint` and `current_state`")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Snapshot, A::Error> {
            let mut kind: Option<String> = None;
            let mut machine: Option<String> = None;
            let mut fingerprint: Option<String> = None;
            let mut current_state: Option<String> = None;
            let mut history: Option<Vec<HistoryEntry>> = None;
            let mut others = HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                let slot = match key.as_str() {
                    "type" => &mut kind,
                    "machine" => &mut machine,
                    "fingerprint" => &mut fingerprint,
                    "current_state" => &mut current_state,
                    "history" => {
                        if history.replace(map.next_value()?).is_some() {
                            return Err(de::Error::custom("duplicate field `history`"));
                        }
                        continue;
                    }
                    // Unknown fields are skipped, so stores may add their
                    // own; but each once, as the fields read.
                    _ => {
                        if others.contains(&key) {
                            return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
                        }
                        map.next_value::<de::IgnoredAny>()?;
                        others.insert(key);
                        continue;
                    }
                };
                if slot.is_some() {
                    return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
                }
                *slot = Some(map.next_value()?);
            }
            check_type(&kind.ok_or_else(|| de::Error::missing_field("type"))?)?;
            let snapshot = Snapshot::new(
                machine.ok_or_else(|| de::Error::missing_field("machine"))?,
                fingerprint.ok_or_else(|| de::Error::missing_field("fingerprint"))?,
                current_state.ok_or_else(|| de::Error::missing_field("current_state"))?,
            );
            with_history(snapshot, history.unwrap_or_default())
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Snapshot, A::Error> {
            let mut next = |index: usize| -> Result<String, A::Error> {
                seq.next_element()?
                    .ok_or_else(|| de::Error::invalid_length(index, &self))
            };
            check_type(&next(0)?)?;
            let snapshot = Snapshot::new(next(1)?, next(2)?, next(3)?);
            // The history is optional, and last.
            let history = seq.next_element()?.unwrap_or_default();
            with_history(snapshot, history)
        }
    }
}
