//! One recorded transition.

#[allow(unused_imports)]
use crate::prelude::*;
use crate::timestamp::Timestamp;

use alloc::sync::Arc;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

/// A transition a machine took, as a [`History`](crate::History) recorded
/// it: names rather than typed values, so that generated machines and
/// dynamic engines share one format.
///
/// With the `serde` feature it serializes to
/// `{"seq": 0, "from": "idle", "to": "executing", "action": "start", "timestamp": "2026-01-10T09:32:15.000Z"}`.
/// This is an entry of a runtime record's `history`, the JSON in which an
/// execution runtime logs a machine's state changes (`from`, `to`,
/// `timestamp`, `reason`), with the action as the reason, plus the sequence
/// number. When reading, an entry without `action` takes its `reason`, so
/// such records read as they are written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HistoryEntry {
    pub(super) seq: u64,
    pub(super) from: Name,
    pub(super) to: Name,
    pub(super) action: Name,
    pub(super) at: Timestamp,
}

/// A name in a [`HistoryEntry`], which recording never copies: generated
/// code's are `'static`, and a dynamic engine's are shared with its
/// definition. Cloning an entry (into a [`Snapshot`](crate::Snapshot), or
/// back into a restored history) copies no name either. Compares, hashes
/// and prints as the text.
#[derive(Clone)]
pub(crate) enum Name {
    Static(&'static str),
    Shared(Arc<str>),
}

impl Deref for Name {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        match self {
            Name::Static(name) => name,
            Name::Shared(name) => name,
        }
    }
}

impl From<Cow<'static, str>> for Name {
    fn from(name: Cow<'static, str>) -> Name {
        match name {
            Cow::Borrowed(name) => Name::Static(name),
            Cow::Owned(name) => Name::Shared(name.into()),
        }
    }
}

impl From<String> for Name {
    fn from(name: String) -> Name {
        Name::Shared(name.into())
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        **self == **other
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl HistoryEntry {
    /// The entry's sequence number: how many transitions the history had
    /// recorded before this one. Consecutive entries have consecutive numbers;
    /// dropping old entries never renumbers the rest.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The state the transition left.
    pub fn from(&self) -> &str {
        &self.from
    }

    /// The action that fired it.
    pub fn action(&self) -> &str {
        &self.action
    }

    /// The state it entered; the same as [`from`](HistoryEntry::from) for
    /// internal transitions and self-transitions.
    pub fn to(&self) -> &str {
        &self.to
    }

    /// When it fired.
    pub fn at(&self) -> Timestamp {
        self.at
    }
}

/// `` #3 2026-01-10T09:32:15.000Z `idle` --start--> `executing` ``
impl fmt::Display for HistoryEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#{} {} `{}` --{}--> `{}`",
            self.seq, self.at, &*self.from, &*self.action, &*self.to
        )
    }
}

/// Why a list of entries cannot be a history: a sequence number that does
/// not increase. Entries may skip numbers (a store may drop some), but never
/// go back.
#[cfg(feature = "serde")]
pub(crate) fn check_order(entries: &[HistoryEntry]) -> Result<(), String> {
    match entries.windows(2).find(|pair| pair[1].seq <= pair[0].seq) {
        Some(pair) => Err(format!(
            "history entries must have increasing `seq`: {} follows {}",
            pair[1].seq, pair[0].seq
        )),
        None => Ok(()),
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::HistoryEntry;
    #[allow(unused_imports)]
    use crate::prelude::*;
    use crate::snapshot::{unknown_field, ListItem, Place};
    use crate::timestamp::Timestamp;
    use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde::ser::{SerializeStruct, Serializer};
    use std::collections::HashSet;
    use std::fmt;

    const FIELDS: &[&str] = &["seq", "from", "to", "action", "timestamp"];
    /// What an entry may hold: its fields, and a runtime record's name for
    /// the action.
    const KNOWN: &[&str] = &["seq", "from", "to", "action", "reason", "timestamp"];

    impl serde::Serialize for HistoryEntry {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut s = serializer.serialize_struct("HistoryEntry", FIELDS.len())?;
            s.serialize_field("seq", &self.seq)?;
            s.serialize_field("from", &*self.from)?;
            s.serialize_field("to", &*self.to)?;
            s.serialize_field("action", &*self.action)?;
            s.serialize_field("timestamp", &self.at)?;
            s.end()
        }
    }

    impl<'de> serde::Deserialize<'de> for HistoryEntry {
        /// Alone (a runtime record's entry), unknown fields are skipped,
        /// each only once: such records may carry more than an entry holds.
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_struct("HistoryEntry", FIELDS, EntryVisitor(None))
        }
    }

    impl ListItem for HistoryEntry {
        const LIST: &'static str = "history";

        /// In a snapshot, which fsmc alone writes, an unknown field is an
        /// error naming the entry: a misspelled `action` next to a
        /// `reason` would otherwise read as the reason.
        fn deserialize_at<'de, D: Deserializer<'de>>(
            deserializer: D,
            place: Place,
        ) -> Result<Self, D::Error> {
            deserializer.deserialize_struct("HistoryEntry", FIELDS, EntryVisitor(Some(place)))
        }
    }

    /// Reads an entry: strictly, at its place in a snapshot, when it has one.
    struct EntryVisitor(Option<Place>);

    /// Put `value` in `slot`, refusing a second value for `key`.
    fn fill<T, E: de::Error>(slot: &mut Option<T>, key: &str, value: T) -> Result<(), E> {
        if slot.replace(value).is_some() {
            return Err(duplicate(key));
        }
        Ok(())
    }

    fn duplicate<E: de::Error>(key: &str) -> E {
        E::custom(format_args!("duplicate field `{key}`"))
    }

    impl<'de> Visitor<'de> for EntryVisitor {
        type Value = HistoryEntry;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a history entry with `seq`, `from`, `to`, `action` and `timestamp`")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HistoryEntry, A::Error> {
            let mut seq: Option<u64> = None;
            let mut from: Option<String> = None;
            let mut to: Option<String> = None;
            let mut action: Option<String> = None;
            let mut reason: Option<String> = None;
            let mut at: Option<Timestamp> = None;
            let mut seen_reason = false;
            let mut others = HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "seq" => fill(&mut seq, &key, map.next_value()?)?,
                    "from" => fill(&mut from, &key, map.next_value()?)?,
                    "to" => fill(&mut to, &key, map.next_value()?)?,
                    "action" => fill(&mut action, &key, map.next_value()?)?,
                    "timestamp" => fill(&mut at, &key, map.next_value()?)?,
                    // A runtime record's name for the action. Kept only when
                    // there is no `action`, since a record may give both.
                    "reason" => {
                        if std::mem::replace(&mut seen_reason, true) {
                            return Err(duplicate(&key));
                        }
                        reason = map.next_value::<Option<String>>()?;
                    }
                    _ => {
                        if let Some(place) = self.0 {
                            return Err(unknown_field(&key, place, KNOWN));
                        }
                        if others.contains(&key) {
                            return Err(duplicate(&key));
                        }
                        map.next_value::<de::IgnoredAny>()?;
                        others.insert(key);
                    }
                }
            }
            Ok(HistoryEntry {
                seq: seq.ok_or_else(|| de::Error::missing_field("seq"))?,
                from: from.ok_or_else(|| de::Error::missing_field("from"))?.into(),
                to: to.ok_or_else(|| de::Error::missing_field("to"))?.into(),
                action: action
                    .or(reason)
                    .ok_or_else(|| de::Error::missing_field("action"))?
                    .into(),
                at: at.ok_or_else(|| de::Error::missing_field("timestamp"))?,
            })
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HistoryEntry, A::Error> {
            let missing = |index: usize| de::Error::invalid_length(index, &self);
            let number = seq.next_element()?.ok_or_else(|| missing(0))?;
            let from: String = seq.next_element()?.ok_or_else(|| missing(1))?;
            let to: String = seq.next_element()?.ok_or_else(|| missing(2))?;
            let action: String = seq.next_element()?.ok_or_else(|| missing(3))?;
            let at = seq.next_element()?.ok_or_else(|| missing(4))?;
            Ok(HistoryEntry {
                seq: number,
                from: from.into(),
                to: to.into(),
                action: action.into(),
                at,
            })
        }
    }
}
