//! Histories: the transitions a machine has taken, with when it took them.
//!
//! A [`History`] records what it is given; [`Recorded`] and
//! [`Shared`](crate::Shared) feed it every successful fire of a generated
//! machine, and [`History::record_names`] takes transitions from anywhere
//! else (a dynamic engine, a replay). A [`Snapshot`] carries the entries,
//! so a restored machine continues its history where it stopped.

mod entry;
mod recorded;

pub(crate) use crate::timestamp::Timestamp;
pub use entry::HistoryEntry;
pub(crate) use entry::Name;
pub use recorded::Recorded;

#[cfg(feature = "serde")]
pub(crate) use entry::check_order;
#[cfg(feature = "std")]
pub(crate) use recorded::{emitted, record};

use crate::clock::{self, Clock};
use crate::fired::Fired;
use crate::machine::Machine;
#[allow(unused_imports)]
use crate::prelude::*;
use crate::snapshot::{RestoreError, Snapshot};
use crate::symbol::Symbol;
use alloc::borrow::Cow;
use alloc::collections::{vec_deque, VecDeque};
use alloc::sync::Arc;
use core::fmt;
use core::num::NonZeroUsize;

/// How many entries a [`History`] keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Retention {
    /// Every entry.
    #[default]
    All,
    /// The latest entries, this many: a ring buffer, for machines that run
    /// for a long time.
    Last(NonZeroUsize),
}

/// A recorder of transitions: every one, or the last N.
///
/// Each entry gets a sequence number ([`HistoryEntry::seq`]) counting from
/// `0`, the time from the history's [`Clock`], and the names of its states
/// and action. Internal transitions are recorded like any other, with
/// `from == to`: each entry is one successful fire. Rejected actions are not
/// recorded.
///
/// ```
/// use fsm_runtime::{History, Recorded};
/// use std::num::NonZeroUsize;
///
/// fsm_runtime::fsm! {
///     machine Execution {
///         initial state idle { on start -> executing; }
///         state executing { on success -> completed; on error -> failed; }
///         terminal state completed;
///         terminal state failed;
///     }
/// }
///
/// let mut run = Recorded::with_history(
///     execution::Execution::new(),
///     History::bounded(NonZeroUsize::new(100).unwrap()),
/// );
/// run.fire(execution::Action::Start)?;
/// run.fire(execution::Action::Error)?;
///
/// let steps: Vec<_> = run.history().iter().map(|e| (e.seq(), e.from(), e.action(), e.to())).collect();
/// assert_eq!(steps, [(0, "idle", "start", "executing"), (1, "executing", "error", "failed")]);
/// # Ok::<(), execution::FireError>(())
/// ```
#[derive(Clone)]
pub struct History {
    entries: VecDeque<HistoryEntry>,
    retention: Retention,
    next_seq: u64,
    clock: Arc<dyn Clock>,
}

impl History {
    /// An empty history that keeps every entry, timed by the
    /// [`SystemClock`](crate::SystemClock) (feature `std`).
    #[cfg(feature = "std")]
    pub fn new() -> History {
        History::with_retention(Retention::All)
    }

    /// An empty history that keeps the last `capacity` entries, timed by the
    /// [`SystemClock`](crate::SystemClock) (feature `std`).
    #[cfg(feature = "std")]
    pub fn bounded(capacity: NonZeroUsize) -> History {
        History::with_retention(Retention::Last(capacity))
    }

    /// An empty history that keeps what `retention` says, timed by the
    /// [`SystemClock`](crate::SystemClock) (feature `std`).
    #[cfg(feature = "std")]
    pub fn with_retention(retention: Retention) -> History {
        History::timed_by(crate::SystemClock, retention)
    }

    /// An empty history that keeps what `retention` says, timed by `clock`:
    /// the constructor without the standard library, where there is no
    /// system clock.
    pub fn timed_by(clock: impl Clock, retention: Retention) -> History {
        History {
            entries: VecDeque::new(),
            retention,
            next_seq: 0,
            clock: Arc::new(clock),
        }
    }

    /// This history, timing the entries it records from now on with `clock`.
    pub fn with_clock(mut self, clock: impl Clock) -> History {
        self.clock = Arc::new(clock);
        self
    }

    /// The largest `seq` a history resumed from a snapshot may end with:
    /// `2^63 - 1`, the largest a PostgreSQL `bigint` or a signed 64-bit
    /// integer holds. A history resumed from there still numbers `2^63`
    /// transitions, more than a billion a second fire in 290 years, so its
    /// numbers never run out. Restoring a snapshot whose history ends
    /// later is [`RestoreError::SeqOutOfRange`]: such numbers do not come
    /// from a [`History`], which counts from `0`.
    pub const MAX_RESUMED_SEQ: u64 = i64::MAX.unsigned_abs();

    /// This history with its entries replaced by those `snapshot` carries
    /// (the latest of them, if there are more than it keeps), numbering the
    /// next entry after the last one of the snapshot. Without entries in the
    /// snapshot, it starts again from `0`.
    ///
    /// # Errors
    ///
    /// [`RestoreError::SeqOutOfRange`] when the snapshot's last entry has a
    /// `seq` above [`History::MAX_RESUMED_SEQ`]; nothing is resumed then.
    pub fn resumed_from(self, snapshot: &Snapshot) -> Result<History, RestoreError> {
        let next_seq = next_seq_after(snapshot)?;
        Ok(self.resumed_at(snapshot, next_seq))
    }

    /// [`History::resumed_from`], with `next_seq` from [`next_seq_after`]
    /// (checked first, as `fsm-dynamic`'s engine does before it changes
    /// anything).
    #[doc(hidden)]
    pub fn resumed_at(mut self, snapshot: &Snapshot, next_seq: u64) -> History {
        self.next_seq = next_seq;
        let entries = snapshot.history();
        let keep = match self.retention {
            Retention::All => entries.len(),
            Retention::Last(capacity) => capacity.get().min(entries.len()),
        };
        self.entries = entries[entries.len() - keep..].iter().cloned().collect();
        self
    }

    /// How many entries it keeps.
    pub fn retention(&self) -> Retention {
        self.retention
    }

    /// Record a transition of a generated machine; see [`Recorded`] and
    /// [`Shared`](crate::Shared) to have every fire recorded.
    pub fn record<M: Machine>(&mut self, fired: &Fired<M>) -> &HistoryEntry {
        let at = self.now();
        self.push_fired(at, fired)
    }

    /// Record a transition given by names: `from` --`action`--> `to`.
    ///
    /// For transitions that do not come from generated code, such as those of
    /// an `fsm-dynamic` engine (`fired.from_name()`,
    /// `fired.action_name()`, `fired.to_name()`). When several threads fire,
    /// recording after the fire returns may record them out of order; record
    /// under the same lock as the fire, as [`Shared`](crate::Shared) does.
    /// (An engine built with a history records its own, under its lock,
    /// sharing its definition's names rather than copying them.)
    ///
    /// A `'static` name is kept as it is; an owned one is moved into a
    /// shared buffer once, so the entry's clones (in snapshots, in restored
    /// histories) copy no name.
    pub fn record_names(
        &mut self,
        from: impl Into<Cow<'static, str>>,
        action: impl Into<Cow<'static, str>>,
        to: impl Into<Cow<'static, str>>,
    ) -> &HistoryEntry {
        let at = self.now();
        self.push(at, from.into().into(), action.into().into(), to.into().into())
    }

    /// [`record_names`](Self::record_names) with names shared with their
    /// owner (`fsm-dynamic`'s definitions): recording copies none.
    #[doc(hidden)]
    pub fn record_shared(&mut self, from: Arc<str>, action: Arc<str>, to: Arc<str>) -> &HistoryEntry {
        let at = self.now();
        self.push(at, Name::Shared(from), Name::Shared(action), Name::Shared(to))
    }

    /// The entries kept, oldest first.
    pub fn iter(&self) -> vec_deque::Iter<'_, HistoryEntry> {
        self.entries.iter()
    }

    /// The number of entries kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no entry is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The oldest entry kept.
    pub fn first(&self) -> Option<&HistoryEntry> {
        self.entries.front()
    }

    /// The latest entry.
    pub fn last(&self) -> Option<&HistoryEntry> {
        self.entries.back()
    }

    /// How many transitions were recorded in all, counting those no longer
    /// kept (and, after [`History::resumed_from`], those recorded before):
    /// the sequence number the next entry will get.
    pub fn recorded(&self) -> u64 {
        self.next_seq
    }

    /// The time for an entry recorded now.
    pub(crate) fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Record the timer that fired, at `at`, with its label as the action.
    pub(crate) fn push_timer<M: Machine>(
        &mut self,
        at: Timestamp,
        fired: &crate::TimerFired<M>,
    ) -> &HistoryEntry {
        self.push(
            at,
            crate::state::name_of(&fired.from),
            Name::Static(fired.label),
            crate::state::name_of(&fired.to),
        )
    }

    /// Record `fired`, at `at`.
    pub(crate) fn push_fired<M: Machine>(&mut self, at: Timestamp, fired: &Fired<M>) -> &HistoryEntry {
        self.push(
            at,
            crate::state::name_of(&fired.from),
            Name::Static(fired.action.name()),
            crate::state::name_of(&fired.to),
        )
    }

    /// Record a move from `from` to `to` on `action` that did not return a
    /// `Fired` (a runaway), at `at`.
    pub(crate) fn push_moved<M: Machine>(
        &mut self,
        at: Timestamp,
        from: &M::State,
        action: M::Action,
        to: &M::State,
    ) -> &HistoryEntry {
        self.push(
            at,
            crate::state::name_of(from),
            Name::Static(action.name()),
            crate::state::name_of(to),
        )
    }

    fn push(&mut self, at: Timestamp, from: Name, action: Name, to: Name) -> &HistoryEntry {
        if let Retention::Last(capacity) = self.retention {
            if self.entries.len() == capacity.get() {
                self.entries.pop_front();
            }
        }
        self.entries.push_back(HistoryEntry {
            seq: self.next_seq,
            from,
            to,
            action,
            at,
        });
        // Unreachable: a history counts from 0, or resumes at most from
        // `MAX_RESUMED_SEQ`, and then needs 2^63 fires to get here.
        self.next_seq = self
            .next_seq
            .checked_add(1)
            .expect("a history numbers fewer than 2^64 transitions");
        self.entries.back().expect("an entry was just pushed")
    }
}

/// The `seq` of the entry recorded after the history `snapshot` carries:
/// `0` without one, else one more than its last, which must leave room for
/// the numbers to come (see [`History::MAX_RESUMED_SEQ`]).
#[doc(hidden)]
pub fn next_seq_after(snapshot: &Snapshot) -> Result<u64, RestoreError> {
    match snapshot.history().last() {
        None => Ok(0),
        Some(last) if last.seq <= History::MAX_RESUMED_SEQ => Ok(last.seq + 1),
        Some(last) => Err(RestoreError::SeqOutOfRange {
            machine: snapshot.machine().to_owned(),
            seq: last.seq,
            max: History::MAX_RESUMED_SEQ,
        }),
    }
}

#[cfg(feature = "std")]
impl Default for History {
    /// [`History::new`].
    fn default() -> History {
        History::new()
    }
}

impl fmt::Debug for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("History")
            .field("retention", &self.retention)
            .field("recorded", &self.next_seq)
            .field("entries", &self.entries)
            .field("clock", &clock::OpaqueClock)
            .finish()
    }
}

impl<'a> IntoIterator for &'a History {
    type Item = &'a HistoryEntry;
    type IntoIter = vec_deque::Iter<'a, HistoryEntry>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
