//! Snapshots: a machine's current state with enough identity to restore it
//! safely later, possibly into a newer build.

use crate::history::{History, HistoryEntry, Timestamp};
use crate::machine::Machine;
use crate::outbox::Pending;
#[allow(unused_imports)]
use crate::prelude::*;
use crate::symbol::{write_names, Symbol};

use core::fmt;

#[cfg(feature = "serde")]
pub use serde_impls::Shortened;
#[cfg(feature = "serde")]
pub(crate) use serde_impls::{unknown_field, ListItem, Place};

/// A machine's state, stored, with its context, its armed timers and
/// optionally its history.
///
/// With the `serde` feature it serializes to
/// `{"type": "fsm", "machine": "Door", "fingerprint": "…", "current_state": "opened"}`,
/// followed by `"context": …` (the machine's context, as the context type
/// serializes it) for a machine with a context, `"timers": [...]` (see
/// [`ArmedTimer`]) when timers are armed, and `"history": [...]` (see
/// [`HistoryEntry`]) when it carries history entries. Each field is left out
/// when there is nothing to put in it, so a snapshot of a machine without
/// them reads and writes exactly as before they existed. The format is
/// described in `docs/json.md`.
///
/// A machine with parallel states is in several leaves at once, one in each
/// active region: its snapshot names them all, in document order, as
/// `"configuration": ["a2", "b1"]`, in place of `current_state` (see
/// [`Snapshot::of_configuration`] and [`Snapshot::leaves`]). It does so even
/// when one leaf is active, so the shape of its snapshots does not change as
/// it moves; a machine without parallel states writes `current_state`, as
/// it always has.
///
/// Reading is strict: a key the format does not have, at the top or in a
/// timer or a history entry, is an error naming the key and where it is
/// (``unknown field `timer` in the snapshot, expected …``), and so is a key
/// given twice or a timer armed twice. A misspelled `"timers"` would
/// otherwise restore a machine with no timer armed, and the next save would
/// erase the evidence. The keys of a snapshot are all fsmc's: a store that
/// keeps data of its own keeps it beside the snapshot, in its own record
/// (see `fsm_store::Store`). The context reads as its type's
/// `Deserialize` says; `#[serde(deny_unknown_fields)]` makes it strict too.
///
/// Taking a snapshot of a machine without a context or armed timers does not
/// allocate; reading one back (from JSON, or with [`Snapshot::new`] from
/// owned strings) does, and so does attaching a history, timers or a context.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Snapshot {
    machine: Cow<'static, str>,
    fingerprint: Cow<'static, str>,
    /// The active leaves, under the key they are written with.
    active: Active,
    /// The context, as JSON: the snapshot stays one type whatever the
    /// context's, and reads back from any self-describing format.
    #[cfg(feature = "serde")]
    context: Option<serde_json::Value>,
    timers: Vec<ArmedTimer>,
    /// For each composite state some transition enters through its history,
    /// the leaves last active inside it (one, unless parallel states lie
    /// inside it), by names, in the machine's order.
    last_active: Vec<(Cow<'static, str>, Leaves)>,
    /// Sequence numbers increase, whether the entries came from a
    /// [`History`] or were deserialized (which checks).
    history: Vec<HistoryEntry>,
    /// The outputs not acknowledged yet, in key order, when the machine
    /// keeps an outbox (`Some(vec![])` when it keeps one and all are
    /// acknowledged).
    pending: Option<Vec<Pending<Cow<'static, str>>>>,
}

/// What a snapshot says is active, as its key says it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Active {
    /// `current_state`: the state of a machine without parallel states.
    State(Cow<'static, str>),
    /// `configuration`: the active leaves of a machine with parallel
    /// states, in document order.
    Configuration(Vec<Cow<'static, str>>),
}

impl Active {
    /// The active leaves: the one state, or the configuration's.
    fn leaves(&self) -> &[Cow<'static, str>] {
        match self {
            Active::State(state) => core::slice::from_ref(state),
            Active::Configuration(leaves) => leaves,
        }
    }
}

/// The leaves a composite state remembers. One leaf is kept without a
/// vector, so a machine without parallel states allocates no more than it
/// did before they existed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Leaves {
    /// One leaf: a string in JSON.
    One(Cow<'static, str>),
    /// Several (parallel states lie inside the composite): an array in
    /// JSON. Never one; none only when built so in code.
    Several(Vec<Cow<'static, str>>),
}

impl Leaves {
    /// `leaves`, kept as [`Leaves::One`] when there is one.
    fn new(mut leaves: Vec<Cow<'static, str>>) -> Leaves {
        match leaves.len() {
            1 => Leaves::One(leaves.pop().expect("one leaf")),
            _ => Leaves::Several(leaves),
        }
    }

    fn as_slice(&self) -> &[Cow<'static, str>] {
        match self {
            Leaves::One(leaf) => core::slice::from_ref(leaf),
            Leaves::Several(leaves) => leaves,
        }
    }
}

/// The `(composite, leaf)` pairs of [`Snapshot::last_active`]: one for each
/// leaf each composite remembers.
struct Pairs<'a> {
    /// The entries not done yet.
    entries: &'a [(Cow<'static, str>, Leaves)],
    /// The index of the next leaf of `entries[0]`.
    leaf: usize,
    /// How many pairs are left.
    len: usize,
}

impl<'a> Iterator for Pairs<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<(&'a str, &'a str)> {
        loop {
            let ((state, leaves), rest) = self.entries.split_first()?;
            if let Some(leaf) = leaves.as_slice().get(self.leaf) {
                self.leaf += 1;
                self.len -= 1;
                return Some((state, leaf));
            }
            self.entries = rest;
            self.leaf = 0;
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl ExactSizeIterator for Pairs<'_> {}

/// A timer armed when the snapshot was taken: which one, and when it is due.
///
/// With the `serde` feature it serializes to
/// `{"state": "call_tool", "timer": 0, "due": "2026-01-10T09:32:45.000Z"}`.
/// `timer` is the timer's index among the `after` transitions of `state`,
/// in declaration order; `due` is absolute (UTC, to the millisecond), so a
/// machine restored after a crash keeps the deadline first promised.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArmedTimer {
    state: Cow<'static, str>,
    timer: u32,
    due: Timestamp,
}

impl ArmedTimer {
    /// Timer number `timer` (counting from `0` in declaration order) of
    /// state `state` (its name), due at `due`.
    pub fn new(state: impl Into<Cow<'static, str>>, timer: u32, due: Timestamp) -> ArmedTimer {
        ArmedTimer {
            state: state.into(),
            timer,
            due,
        }
    }

    /// The name of the state whose timer this is.
    pub fn state(&self) -> &str {
        &self.state
    }

    /// The timer's index among the state's timers, in declaration order.
    pub fn timer(&self) -> u32 {
        self.timer
    }

    /// When the timer is due.
    pub fn due(&self) -> Timestamp {
        self.due
    }
}

impl Snapshot {
    /// A snapshot of machine `machine` (its name), whose definition has
    /// `fingerprint`, in state `current_state` (its name).
    pub fn new(
        machine: impl Into<Cow<'static, str>>,
        fingerprint: impl Into<Cow<'static, str>>,
        current_state: impl Into<Cow<'static, str>>,
    ) -> Self {
        Snapshot::with_active(
            machine.into(),
            fingerprint.into(),
            Active::State(current_state.into()),
        )
    }

    /// A snapshot of machine `machine` (its name), whose definition has
    /// `fingerprint`, of a machine with parallel states whose active leaves
    /// are `leaves` (their names, in document order): written as
    /// `"configuration": ["a2", "b1"]` in place of `current_state`, even
    /// when one leaf is active.
    ///
    /// Nothing is checked here. Reading a snapshot refuses an empty
    /// configuration and a leaf named twice, and restoring checks that the
    /// leaves form a configuration of the machine (the one step's rule,
    /// which both engines apply).
    pub fn of_configuration<L: Into<Cow<'static, str>>>(
        machine: impl Into<Cow<'static, str>>,
        fingerprint: impl Into<Cow<'static, str>>,
        leaves: impl IntoIterator<Item = L>,
    ) -> Self {
        let leaves = leaves.into_iter().map(Into::into).collect();
        Snapshot::with_active(machine.into(), fingerprint.into(), Active::Configuration(leaves))
    }

    fn with_active(machine: Cow<'static, str>, fingerprint: Cow<'static, str>, active: Active) -> Self {
        Snapshot {
            machine,
            fingerprint,
            active,
            #[cfg(feature = "serde")]
            context: None,
            timers: Vec::new(),
            last_active: Vec::new(),
            history: Vec::new(),
            pending: None,
        }
    }

    /// This snapshot, remembering for each composite state in `last_active`
    /// the leaf last active inside it (replacing any it remembered):
    /// `("connected", "on_hold")` makes `-> connected.history` go back to
    /// `on_hold`. Pairs are composite state first, leaf second, by name.
    /// [`Snapshot::with_last_leaves`] remembers several leaves for one
    /// composite.
    pub fn with_last_active<S, L>(mut self, last_active: impl IntoIterator<Item = (S, L)>) -> Self
    where
        S: Into<Cow<'static, str>>,
        L: Into<Cow<'static, str>>,
    {
        self.last_active = last_active
            .into_iter()
            .map(|(state, leaf)| (state.into(), Leaves::One(leaf.into())))
            .collect();
        self
    }

    /// This snapshot, remembering for each composite state in `last_leaves`
    /// the leaves last active inside it, by names, in document order
    /// (replacing any it remembered): several when parallel states lie
    /// inside it, one in each of their regions. `("p", ["a2", "b2"])` makes
    /// `-> p.deep_history` go back to `a2` and `b2`. The memory of a
    /// machine with parallel states; it is written as an array where a
    /// composite remembers several leaves, as a string where it remembers
    /// one.
    pub fn with_last_leaves<S, I, L>(mut self, last_leaves: impl IntoIterator<Item = (S, I)>) -> Self
    where
        S: Into<Cow<'static, str>>,
        I: IntoIterator<Item = L>,
        L: Into<Cow<'static, str>>,
    {
        self.last_active = last_leaves
            .into_iter()
            .map(|(state, leaves)| {
                let leaves = leaves.into_iter().map(Into::into).collect();
                (state.into(), Leaves::new(leaves))
            })
            .collect();
        self
    }

    /// The history memory of a machine with nested states: for each
    /// composite state that some transition enters through its history and
    /// that the machine has left at least once, the leaf that was active
    /// inside it when it was last left, as `(composite, leaf)` names. Empty
    /// for a flat machine.
    ///
    /// A composite that remembers several leaves (parallel states lie inside
    /// it) comes once for each, in document order; [`Snapshot::last_leaves`]
    /// gives each composite once, with all its leaves.
    pub fn last_active(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + '_ {
        Pairs {
            entries: &self.last_active,
            leaf: 0,
            len: self
                .last_active
                .iter()
                .map(|(_, leaves)| leaves.as_slice().len())
                .sum(),
        }
    }

    /// The history memory, each composite state once with the leaves it
    /// remembers, by names, in document order: one leaf, or several when
    /// parallel states lie inside it. For a machine without parallel states,
    /// the same as [`Snapshot::last_active`].
    pub fn last_leaves(&self) -> impl ExactSizeIterator<Item = (&str, &[Cow<'static, str>])> + '_ {
        self.last_active
            .iter()
            .map(|(state, leaves)| (&**state, leaves.as_slice()))
    }

    /// This snapshot, with the timers `timers` armed (replacing any it
    /// carried).
    pub fn with_timers(mut self, timers: impl IntoIterator<Item = ArmedTimer>) -> Self {
        self.timers = timers.into_iter().collect();
        self
    }

    /// The timers armed when the snapshot was taken; empty when none were
    /// (or the machine has none).
    pub fn timers(&self) -> &[ArmedTimer] {
        &self.timers
    }

    /// This snapshot, carrying `context` (replacing any it carried).
    #[cfg(feature = "serde")]
    pub fn with_context(mut self, context: serde_json::Value) -> Self {
        self.context = Some(context);
        self
    }

    /// This snapshot, carrying `context` serialized (replacing any it
    /// carried).
    ///
    /// # Errors
    ///
    /// When `context` does not serialize to JSON: a map whose keys are not
    /// strings, or a `Serialize` impl that fails.
    #[cfg(feature = "serde")]
    pub fn with_context_of<C: serde::Serialize + ?Sized>(self, context: &C) -> Result<Self, SnapshotError> {
        match serde_json::to_value(context) {
            Ok(value) => Ok(self.with_context(value)),
            Err(error) => Err(SnapshotError {
                machine: self.machine.to_string(),
                message: error.to_string(),
            }),
        }
    }

    /// The context it carries, as JSON; `None` for a snapshot of a machine
    /// without a context (or one written before contexts existed).
    #[cfg(feature = "serde")]
    pub fn context(&self) -> Option<&serde_json::Value> {
        self.context.as_ref()
    }

    /// The context it carries, deserialized as a `C`.
    ///
    /// # Errors
    ///
    /// [`RestoreError::MissingContext`] when it carries none, and
    /// [`RestoreError::InvalidContext`], naming the field, when it does not
    /// deserialize as a `C`.
    #[cfg(feature = "serde")]
    pub fn context_as<C: serde::de::DeserializeOwned>(&self) -> Result<C, RestoreError> {
        let value = self
            .context
            .as_ref()
            .ok_or_else(|| RestoreError::MissingContext {
                machine: self.machine.to_string(),
            })?;
        serde_path_to_error::deserialize(value).map_err(|error| {
            let path = error.path().to_string();
            RestoreError::InvalidContext {
                machine: self.machine.to_string(),
                field: if path == "." { String::new() } else { path },
                message: error.into_inner().to_string(),
            }
        })
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

    /// This snapshot, carrying an outbox: the outputs in `pending`, by name,
    /// not acknowledged yet (see [`Recorded::with_outbox`](crate::Recorded::with_outbox)).
    /// An empty `pending` still records that the machine keeps an outbox.
    pub fn with_pending<S: Into<Cow<'static, str>>>(
        mut self,
        pending: impl IntoIterator<Item = Pending<S>>,
    ) -> Self {
        self.pending = Some(
            pending
                .into_iter()
                .map(|p| Pending {
                    key: p.key,
                    output: p.output.into(),
                })
                .collect(),
        );
        self
    }

    /// The outputs not acknowledged when the snapshot was taken, by name, in
    /// key order; `None` when the machine kept no outbox.
    pub fn pending(&self) -> Option<impl ExactSizeIterator<Item = Pending<&str>> + '_> {
        self.pending.as_ref().map(|pending| {
            pending.iter().map(|p| Pending {
                key: p.key,
                output: &*p.output,
            })
        })
    }

    /// The outbox it carries, checked: keys in increasing order, each from a
    /// step the history has numbered (before [`next_seq_after`](crate::history::next_seq_after)),
    /// so that no new step can reuse a key, and each an output of the
    /// machine (`is_output`). `None` when the snapshot keeps no outbox.
    ///
    /// # Errors
    ///
    /// [`RestoreError::InvalidPending`] naming the first entry that is wrong.
    #[doc(hidden)]
    pub fn checked_pending(
        &self,
        is_output: impl Fn(&str) -> bool,
    ) -> Result<Option<impl ExactSizeIterator<Item = Pending<&str>> + '_>, RestoreError> {
        let Some(pending) = &self.pending else {
            return Ok(None);
        };
        let next_seq = crate::history::next_seq_after(self)?;
        let invalid = |index: usize, reason: String| RestoreError::InvalidPending {
            machine: self.machine.to_string(),
            index,
            reason,
        };
        for (index, p) in pending.iter().enumerate() {
            if !is_output(&p.output) {
                return Err(invalid(
                    index,
                    format!("`{}` is not an output of the machine", p.output),
                ));
            }
            if p.key.step() >= next_seq {
                return Err(invalid(
                    index,
                    match next_seq {
                        0 => format!("its step {} is not in the history, which is empty", p.key.step()),
                        _ => format!(
                            "its step {} is after the history's last, {}",
                            p.key.step(),
                            next_seq - 1
                        ),
                    },
                ));
            }
            if index > 0 && pending[index - 1].key >= p.key {
                return Err(invalid(
                    index,
                    format!(
                        "its key {} does not come after the key before it, {}",
                        p.key,
                        pending[index - 1].key
                    ),
                ));
            }
        }
        Ok(self.pending())
    }

    /// The outbox it carries as `M`'s outputs, checked as
    /// [`Snapshot::checked_pending`] says; `None` when it keeps none.
    ///
    /// # Errors
    ///
    /// [`RestoreError::InvalidPending`] naming the first entry that is wrong.
    pub fn pending_of<M: Machine>(&self) -> Result<Option<Vec<Pending<M::Output>>>, RestoreError> {
        let checked = self.checked_pending(|name| M::Output::from_name(name).is_some())?;
        Ok(checked.map(|pending| {
            pending
                .filter_map(|p| {
                    Some(Pending {
                        key: p.key,
                        output: M::Output::from_name(p.output)?,
                    })
                })
                .collect()
        }))
    }

    /// The name of the machine.
    pub fn machine(&self) -> &str {
        &self.machine
    }

    /// The fingerprint of the definition the snapshot was taken from.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The name of the state the machine is in, when it is in one leaf: the
    /// snapshot's `current_state`, or its `configuration` when that names
    /// one leaf.
    ///
    /// A machine with parallel states can be in several leaves at once. For
    /// such a snapshot this is the empty string, which names no state: code
    /// that looks it up finds nothing, rather than one region's leaf taken
    /// for the whole. [`Snapshot::leaves`] gives the leaves in every case.
    pub fn current_state(&self) -> &str {
        match self.active.leaves() {
            [state] => state,
            _ => "",
        }
    }

    /// The active leaves, by names, in document order, when the snapshot is
    /// of a machine with parallel states (it has a `configuration`); `None`
    /// when it has a `current_state`.
    pub fn configuration(&self) -> Option<&[Cow<'static, str>]> {
        match &self.active {
            Active::State(_) => None,
            Active::Configuration(leaves) => Some(leaves),
        }
    }

    /// The active leaves, by names, in document order, whichever key holds
    /// them: the one state of `current_state`, or the leaves of
    /// `configuration`. What a restore reads.
    pub fn leaves(&self) -> &[Cow<'static, str>] {
        self.active.leaves()
    }

    /// The state of `M` this snapshot holds. Checks, in this order, that it
    /// is a snapshot of `M`, that the definition is the same (unless `policy`
    /// ignores that), that the snapshot names one leaf (a `current_state`,
    /// or a `configuration` of one leaf), and that the state exists.
    ///
    /// For a machine without parallel states; one with them restores from
    /// [`Snapshot::leaves`].
    pub fn state_of<M: Machine>(&self, policy: FingerprintPolicy) -> Result<M::State, RestoreError>
    where
        M::State: Symbol,
    {
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
        let state = match self.leaves() {
            [state] => state,
            leaves => {
                return Err(RestoreError::InvalidConfiguration {
                    machine: M::NAME.to_owned(),
                    leaves: leaves.iter().map(|leaf| leaf.to_string()).collect(),
                    reason: format!(
                        "machine `{}` has no parallel states: it is in one state at a time",
                        M::NAME
                    ),
                })
            }
        };
        M::State::from_name(state).ok_or_else(|| RestoreError::UnknownState {
            machine: M::NAME.to_owned(),
            state: state.to_string(),
            known: <M::State as Symbol>::NAMES
                .iter()
                .map(|&s| s.to_owned())
                .collect(),
        })
    }
}

impl Snapshot {
    /// The timers it carries, each armed once: what every restore (generated
    /// code's and the dynamic engine's) arms.
    ///
    /// # Errors
    ///
    /// [`RestoreError::DuplicateTimer`] when two entries arm the same timer
    /// of the same state, which no machine writes (each timer has one
    /// deadline) and a hand edit may: neither deadline is more right than
    /// the other.
    #[doc(hidden)]
    pub fn checked_timers(&self) -> Result<&[ArmedTimer], RestoreError> {
        match duplicate_timer(&self.timers) {
            None => Ok(&self.timers),
            Some((first, second)) => Err(RestoreError::DuplicateTimer {
                machine: self.machine.to_string(),
                state: self.timers[second].state.to_string(),
                timer: self.timers[second].timer,
                first,
                second,
            }),
        }
    }
}

impl Snapshot {
    /// The deadlines of the timers it carries, checked against the machine
    /// it restores into, where the timers of the current state and of every
    /// state holding it are armed together: `slot(state, timer)` is the
    /// slot in the returned array of timer number `timer` of the state named
    /// `state`, when that state is
    /// the snapshot's current state or holds it and has such a timer, and
    /// `None` otherwise; `timers_here(state)` is how many timers the state
    /// named `state` has when it is the current state or holds it, and
    /// `None` otherwise, for the error. For generated code.
    ///
    /// # Errors
    ///
    /// [`RestoreError::UnknownTimer`] for a timer of a state that neither is
    /// the current state nor holds it, or past that state's timers;
    /// [`RestoreError::DuplicateTimer`] for a timer armed twice.
    #[doc(hidden)]
    pub fn deadlines_in<const N: usize>(
        &self,
        slot: impl Fn(&str, u32) -> Option<usize>,
        timers_here: impl Fn(&str) -> Option<u32>,
    ) -> Result<[Option<Timestamp>; N], RestoreError> {
        let mut deadlines = [None; N];
        for armed in self.checked_timers()? {
            match slot(&armed.state, armed.timer).filter(|&slot| slot < N) {
                Some(slot) => deadlines[slot] = Some(armed.due),
                None => {
                    return Err(self.unknown_timer(armed, timers_here(&armed.state)));
                }
            }
        }
        Ok(deadlines)
    }
}

impl Snapshot {
    /// The error for `armed`, a timer that cannot be restored: `timers` is
    /// how many timers its state has when that state is the current one or
    /// holds it, `None` when it is neither. The one rule of both engines
    /// (generated code's and `fsm-dynamic`'s).
    #[doc(hidden)]
    pub fn unknown_timer(&self, armed: &ArmedTimer, timers: Option<u32>) -> RestoreError {
        RestoreError::UnknownTimer {
            machine: self.machine.to_string(),
            current_state: self.current_state().to_string(),
            leaves: self.leaves().iter().map(|leaf| leaf.to_string()).collect(),
            state: armed.state.to_string(),
            timer: armed.timer,
            timers,
        }
    }

    /// The one rule (`fsm-dynamic` and generated code apply it, with or
    /// without parallel states) for a timer group `timer` (`after
    /// 30s`) of `state` that is armed whenever `state` is active, `state` is
    /// active in the snapshot, and the snapshot arms none of its timers:
    /// under [`MissingTimerPolicy::Refuse`] the error, under
    /// [`MissingTimerPolicy::Rearm`] the group's deadline, `rearm()`, which
    /// is the time of the restore plus the delay.
    ///
    /// # Errors
    ///
    /// [`RestoreError::MissingTimer`] under [`MissingTimerPolicy::Refuse`].
    #[doc(hidden)]
    pub fn missing_timer(
        &self,
        policy: MissingTimerPolicy,
        state: &str,
        timer: &str,
        rearm: impl FnOnce() -> Timestamp,
    ) -> Result<Timestamp, RestoreError> {
        match policy {
            MissingTimerPolicy::Refuse => Err(RestoreError::MissingTimer {
                machine: self.machine.to_string(),
                state: state.to_owned(),
                timer: timer.to_owned(),
            }),
            MissingTimerPolicy::Rearm => Ok(rearm()),
        }
    }

    /// [`Snapshot::missing_timer`] for generated code, over its table of the
    /// timer groups armed whenever their state is active
    /// (`Machine::timer_group_always_armed` decided which, when the code was
    /// generated), in the plan's order: each group `(state, label, slots,
    /// group)` whose state is active (`active(state)`) and none of whose
    /// `slots` in `deadlines` is armed is refused or, under
    /// [`MissingTimerPolicy::Rearm`], armed in each of its slots at `now()`
    /// (read once, when a first group is re-armed) plus `delay(group)`.
    ///
    /// # Errors
    ///
    /// [`RestoreError::MissingTimer`] for the first such group under
    /// [`MissingTimerPolicy::Refuse`].
    #[doc(hidden)]
    #[allow(clippy::type_complexity)]
    pub fn missing_timers_in(
        &self,
        policy: MissingTimerPolicy,
        groups: &[(&str, &str, &[usize], u32)],
        active: impl Fn(&str) -> bool,
        deadlines: &mut [Option<Timestamp>],
        now: impl FnOnce() -> Timestamp,
        delay: impl Fn(u32) -> core::time::Duration,
    ) -> Result<(), RestoreError> {
        let mut now = Some(now);
        let mut read: Option<Timestamp> = None;
        for &(state, label, slots, group) in groups {
            let armed = slots
                .iter()
                .any(|&slot| deadlines.get(slot).is_some_and(Option::is_some));
            if armed || !active(state) {
                continue;
            }
            let due = self.missing_timer(policy, state, label, || {
                let now = *read.get_or_insert_with(|| now.take().map_or(Timestamp::UNIX_EPOCH, |now| now()));
                crate::timer::deadline(now, delay(group))
            })?;
            for &slot in slots {
                if let Some(deadline) = deadlines.get_mut(slot) {
                    *deadline = Some(due);
                }
            }
        }
        Ok(())
    }

    /// The history memory it carries, each composite named once, with one
    /// leaf: the memory of a machine without parallel states.
    ///
    /// # Errors
    ///
    /// [`RestoreError::InvalidLastActive`] for a composite named twice, and
    /// [`RestoreError::InvalidLastLeaves`] for one that remembers several
    /// leaves (or none). The one rule of both engines (reading a snapshot
    /// refuses a repeated key already; this holds for one built in code
    /// too).
    #[doc(hidden)]
    pub fn checked_last_active(
        &self,
    ) -> Result<impl ExactSizeIterator<Item = (&str, &str)> + '_, RestoreError> {
        for (second, (state, leaves)) in self.last_active.iter().enumerate() {
            let leaf = match leaves {
                Leaves::One(leaf) => leaf,
                Leaves::Several(leaves) => {
                    return Err(self.invalid_last_leaves(
                        state,
                        leaves,
                        "a machine without parallel states remembers one leaf in each composite state"
                            .to_owned(),
                    ))
                }
            };
            if self.named_before(second) {
                return Err(RestoreError::InvalidLastActive {
                    machine: self.machine.to_string(),
                    state: state.to_string(),
                    leaf: leaf.to_string(),
                    reason: format!("`{state}` is named twice"),
                });
            }
        }
        Ok(self.last_active())
    }

    /// The history memory it carries, each composite named once, with the
    /// leaves it remembers: the memory of a machine with parallel states.
    /// Whether the leaves of each form a configuration inside it is the
    /// engine's question (the one step's rule, which both engines apply).
    ///
    /// # Errors
    ///
    /// [`RestoreError::InvalidLastLeaves`] for a composite named twice. The
    /// one rule of both engines, as for [`Snapshot::checked_last_active`].
    #[doc(hidden)]
    pub fn checked_last_leaves(
        &self,
    ) -> Result<impl ExactSizeIterator<Item = (&str, &[Cow<'static, str>])> + '_, RestoreError> {
        for (second, (state, leaves)) in self.last_active.iter().enumerate() {
            if self.named_before(second) {
                return Err(self.invalid_last_leaves(
                    state,
                    leaves.as_slice(),
                    format!("`{state}` is named twice"),
                ));
            }
        }
        Ok(self.last_leaves())
    }

    /// True when the composite of entry `index` of `last_active` is named
    /// by an earlier entry.
    fn named_before(&self, index: usize) -> bool {
        let state = &self.last_active[index].0;
        self.last_active[..index]
            .iter()
            .any(|(earlier, _)| earlier == state)
    }

    /// The error for the memory of composite `state`, which remembers
    /// `leaves`, for `reason`.
    fn invalid_last_leaves(&self, state: &str, leaves: &[Cow<'static, str>], reason: String) -> RestoreError {
        RestoreError::InvalidLastLeaves {
            machine: self.machine.to_string(),
            state: state.to_owned(),
            leaves: leaves.iter().map(|leaf| leaf.to_string()).collect(),
            reason,
        }
    }
}

impl Snapshot {
    /// The history memory it carries, checked against machine `M`: slot `i`
    /// of the result is the leaf remembered for `composites[i]` (the names
    /// of the composite states `M` enters through their history, in slot
    /// order); `inside(i, leaf)` says whether `leaf` lies inside
    /// `composites[i]`. For generated code.
    ///
    /// # Errors
    ///
    /// [`RestoreError::InvalidLastActive`] for a state not in `composites`,
    /// a leaf `M` does not have, one not inside its composite, or a
    /// composite named twice; [`RestoreError::InvalidLastLeaves`] for a
    /// composite that remembers several leaves.
    #[doc(hidden)]
    pub fn last_active_of<M: Machine, const N: usize>(
        &self,
        composites: &[&str],
        inside: impl Fn(usize, M::State) -> bool,
    ) -> Result<[Option<M::State>; N], RestoreError>
    where
        M::State: Symbol,
    {
        let mut slots = [None; N];
        for (state, leaf) in self.checked_last_active()? {
            let invalid = |reason: String| RestoreError::InvalidLastActive {
                machine: self.machine.to_string(),
                state: state.to_owned(),
                leaf: leaf.to_owned(),
                reason,
            };
            let Some(slot) = composites.iter().position(|&c| c == state) else {
                return Err(invalid(format!(
                    "`{state}` is not a composite state that a transition enters through its history"
                )));
            };
            let Some(remembered) = M::State::from_name(leaf) else {
                return Err(invalid(format!("`{leaf}` is not a leaf state of the machine")));
            };
            if !inside(slot, remembered) {
                return Err(invalid(format!("`{leaf}` is not inside `{state}`")));
            }
            slots[slot] = Some(remembered);
        }
        Ok(slots)
    }
}

/// The indices of the first two entries of `timers` that arm the same timer
/// of the same state, if any. The one rule for reading and for restoring.
fn duplicate_timer(timers: &[ArmedTimer]) -> Option<(usize, usize)> {
    // Few timers are armed at once: quadratic is cheaper than a set.
    timers.iter().enumerate().find_map(|(second, armed)| {
        timers[..second]
            .iter()
            .position(|earlier| earlier.state == armed.state && earlier.timer == armed.timer)
            .map(|first| (first, second))
    })
}

/// Why a machine's snapshot could not be taken: its context did not
/// serialize.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotError {
    machine: String,
    message: String,
}

impl SnapshotError {
    /// The machine whose snapshot failed.
    pub fn machine(&self) -> &str {
        &self.machine
    }

    /// What the serializer said.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the context of machine `{}` does not serialize: {}",
            self.machine, self.message
        )
    }
}

impl core::error::Error for SnapshotError {}

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

/// What restoring does with a timer the snapshot should arm and does not.
///
/// A state's timers with one delay (a group) are armed when the state is
/// entered and stay armed while it is active, until the group comes due. A
/// group that comes due and can leave its state active (every timer of it
/// guarded, so that it can be rejected, or one without a target or with a
/// target inside its state) is disarmed until the state is entered again;
/// a snapshot that does not arm it may be right. Every other group is armed
/// whenever its state is active, and a snapshot of a configuration holding
/// that state that does not arm it lost it (a hand edit, a store that kept
/// the state and not the timers, an older definition without the timer
/// restored under [`FingerprintPolicy::Ignore`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MissingTimerPolicy {
    /// Refuse the snapshot with [`RestoreError::MissingTimer`].
    #[default]
    Refuse,
    /// Arm the timer as entering its state now would: its deadline is the
    /// time of the restore plus its delay (a named delay read from the
    /// restored context).
    Rearm,
}

/// What restoring accepts: [`FingerprintPolicy`] for a snapshot of another
/// definition, [`MissingTimerPolicy`] for one that lost a timer. The
/// default is strict on both. The dynamic engine's `restore_with`, a
/// generated machine's and [`Restore::restore_with`](crate::Restore::restore_with)
/// take one, or a [`FingerprintPolicy`] (strict on lost timers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RestorePolicy {
    /// A snapshot taken from a different definition.
    pub fingerprint: FingerprintPolicy,
    /// A timer the snapshot should arm and does not.
    pub missing_timers: MissingTimerPolicy,
}

impl RestorePolicy {
    /// Strict on both: what `restore` does.
    pub const STRICT: RestorePolicy = RestorePolicy {
        fingerprint: FingerprintPolicy::Strict,
        missing_timers: MissingTimerPolicy::Refuse,
    };

    /// This policy, with `fingerprint`.
    #[must_use]
    pub const fn with_fingerprint(self, fingerprint: FingerprintPolicy) -> RestorePolicy {
        RestorePolicy { fingerprint, ..self }
    }

    /// This policy, with `missing_timers`.
    #[must_use]
    pub const fn with_missing_timers(self, missing_timers: MissingTimerPolicy) -> RestorePolicy {
        RestorePolicy {
            missing_timers,
            ..self
        }
    }
}

impl From<FingerprintPolicy> for RestorePolicy {
    /// `fingerprint`, refusing a snapshot that lost a timer.
    fn from(fingerprint: FingerprintPolicy) -> RestorePolicy {
        RestorePolicy::STRICT.with_fingerprint(fingerprint)
    }
}

impl From<MissingTimerPolicy> for RestorePolicy {
    /// `missing_timers`, refusing a snapshot of another definition.
    fn from(missing_timers: MissingTimerPolicy) -> RestorePolicy {
        RestorePolicy::STRICT.with_missing_timers(missing_timers)
    }
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
    /// The machine has a context and the snapshot carries none (it was
    /// written for a machine without one).
    MissingContext {
        /// The machine.
        machine: String,
    },
    /// The snapshot's context does not deserialize as the machine's context
    /// type.
    InvalidContext {
        /// The machine.
        machine: String,
        /// Where in the context the problem is, as a path of fields and
        /// indices (`retries`, `history[2].role`); empty when it is the
        /// context as a whole.
        field: String,
        /// What the deserializer said.
        message: String,
    },
    /// The snapshot's history memory (`last_active`) names a state that is
    /// not a composite state entered through its history, a leaf that is not
    /// inside it, or the same state twice.
    InvalidLastActive {
        /// The machine.
        machine: String,
        /// The composite state, as the snapshot names it.
        state: String,
        /// The leaf remembered for it, as the snapshot names it.
        leaf: String,
        /// What is wrong with the pair, in words.
        reason: String,
    },
    /// The snapshot arms a timer the machine does not have in the
    /// snapshot's state.
    UnknownTimer {
        /// The machine.
        machine: String,
        /// The snapshot's current state (empty for a snapshot of several
        /// leaves: see `leaves`).
        current_state: String,
        /// The snapshot's active leaves, in document order.
        leaves: Vec<String>,
        /// The state the timer belongs to, in the snapshot.
        state: String,
        /// The timer's index, in the snapshot.
        timer: u32,
        /// How many timers the named state has, when it is the current
        /// state or holds it (its timers may be armed, and `timer` is past
        /// them); `None` when its timers cannot be armed in the current
        /// state, or the machine has no such state.
        timers: Option<u32>,
    },
    /// The leaves the snapshot names (its `current_state`, or its
    /// `configuration`) are not a configuration of the machine: two leaves
    /// of one region, a region with none, a leaf outside the active
    /// parallel state, or several leaves for a machine without parallel
    /// states.
    InvalidConfiguration {
        /// The machine.
        machine: String,
        /// The leaves, as the snapshot names them.
        leaves: Vec<String>,
        /// What is wrong with them, in words.
        reason: String,
    },
    /// The snapshot's history memory (`last_active`) remembers, for a
    /// composite state, leaves that are not a configuration inside it, or
    /// names the state twice.
    InvalidLastLeaves {
        /// The machine.
        machine: String,
        /// The composite state, as the snapshot names it.
        state: String,
        /// The leaves remembered for it, as the snapshot names them.
        leaves: Vec<String>,
        /// What is wrong with them, in words.
        reason: String,
    },
    /// An output the snapshot's outbox holds (`pending[index]`) is not an
    /// output of the machine, comes from a step the history has not
    /// numbered, or is out of key order.
    InvalidPending {
        /// The machine.
        machine: String,
        /// The entry's index in the snapshot's `pending`.
        index: usize,
        /// What is wrong with it, in words.
        reason: String,
    },
    /// The snapshot arms no timer of a group that is armed whenever its
    /// state is active, and that state is active in the snapshot (see
    /// [`MissingTimerPolicy`]).
    MissingTimer {
        /// The machine.
        machine: String,
        /// The state that declares the timers.
        state: String,
        /// The group, as a history names it: `after 30s`, `after backoff`.
        timer: String,
    },
    /// The snapshot arms the same timer of the same state twice (in
    /// `timers[first]` and `timers[second]`).
    DuplicateTimer {
        /// The machine.
        machine: String,
        /// The state the timer belongs to, in the snapshot.
        state: String,
        /// The timer's index among the state's timers.
        timer: u32,
        /// The index in the snapshot's `timers` of the first entry arming it.
        first: usize,
        /// The index of the second.
        second: usize,
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
            RestoreError::MissingContext { machine } => write!(
                f,
                "the snapshot of machine `{machine}` carries no `context`, and the machine has one"
            ),
            RestoreError::InvalidContext {
                machine,
                field,
                message,
            } => {
                write!(
                    f,
                    "the snapshot's context of machine `{machine}` does not deserialize"
                )?;
                if !field.is_empty() {
                    write!(f, " at field `{field}`")?;
                }
                write!(f, ": {message}")
            }
            RestoreError::InvalidLastActive {
                machine,
                state,
                leaf,
                reason,
            } => write!(
                f,
                "the snapshot of machine `{machine}` remembers `{leaf}` as last active in `{state}`, \
                 but {reason}"
            ),
            RestoreError::UnknownTimer {
                machine,
                current_state,
                leaves,
                state,
                timer,
                timers,
            } => match timers {
                Some(0) => write!(
                    f,
                    "the snapshot of machine `{machine}` arms timer {timer} of state `{state}`, \
                     which has no timers"
                ),
                Some(count) => write!(
                    f,
                    "the snapshot of machine `{machine}` arms timer {timer} of state `{state}`, \
                     which has {count} timer{}",
                    if *count == 1 { "" } else { "s" }
                ),
                None if leaves.len() > 1 => {
                    write!(
                        f,
                        "the snapshot of machine `{machine}` arms a timer of state `{state}`, \
                         but only the timers of its active states "
                    )?;
                    write_names(f, leaves.iter().map(String::as_str))?;
                    f.write_str(" (and of the states holding them) can be armed")
                }
                None => write!(
                    f,
                    "the snapshot of machine `{machine}` arms a timer of state `{state}`, \
                     but only the timers of its current state `{current_state}` (and of the states \
                     holding it) can be armed"
                ),
            },
            RestoreError::InvalidConfiguration {
                machine,
                leaves,
                reason,
            } => {
                write!(f, "the snapshot of machine `{machine}` is in ")?;
                write_names(f, leaves.iter().map(String::as_str))?;
                write!(f, ", which is not a configuration of the machine: {reason}")
            }
            RestoreError::InvalidLastLeaves {
                machine,
                state,
                leaves,
                reason,
            } => {
                write!(f, "the snapshot of machine `{machine}` remembers ")?;
                write_names(f, leaves.iter().map(String::as_str))?;
                write!(f, " as last active in `{state}`, but {reason}")
            }
            RestoreError::InvalidPending {
                machine,
                index,
                reason,
            } => write!(
                f,
                "the snapshot of machine `{machine}` holds `pending[{index}]` in its outbox, but {reason}"
            ),
            RestoreError::MissingTimer {
                machine,
                state,
                timer,
            } => write!(
                f,
                "the snapshot of machine `{machine}` arms no timer `{timer}` of state `{state}`, \
                 which is armed whenever `{state}` is active; restore it with \
                 `MissingTimerPolicy::Rearm` to arm it from the time of the restore"
            ),
            RestoreError::DuplicateTimer {
                machine,
                state,
                timer,
                first,
                second,
            } => write!(
                f,
                "the snapshot of machine `{machine}` arms timer {timer} of state `{state}` twice, \
                 in `timers[{first}]` and `timers[{second}]`"
            ),
        }
    }
}

impl core::error::Error for RestoreError {}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::{duplicate_timer, Active, ArmedTimer, Leaves, Snapshot};
    use crate::history::{check_order, HistoryEntry, Timestamp};
    use crate::outbox::{OutputKey, Pending};
    #[allow(unused_imports)]
    use crate::prelude::*;
    use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde::ser::{SerializeMap, SerializeStruct, Serializer};
    use std::borrow::Cow;
    use std::collections::HashSet;
    use std::fmt;
    use std::marker::PhantomData;

    const TYPE: &str = "fsm";
    const FIELDS: &[&str] = &[
        "type",
        "machine",
        "fingerprint",
        "current_state",
        "configuration",
        "context",
        "timers",
        "last_active",
        "history",
        "pending",
    ];
    const TIMER_FIELDS: &[&str] = &["state", "timer", "due"];
    const PENDING_FIELDS: &[&str] = &["step", "index", "output"];

    /// Where in a snapshot an object being read is, for its errors.
    #[derive(Clone, Copy, Debug)]
    pub(crate) enum Place {
        /// The snapshot itself.
        Top,
        /// Item `index` of the snapshot's list `list` (`timers`, `history`).
        Item(&'static str, usize),
    }

    impl fmt::Display for Place {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                Place::Top => f.write_str("the snapshot"),
                Place::Item(list, index) => write!(f, "`{list}[{index}]`"),
            }
        }
    }

    /// ``unknown field `timer` in the snapshot, expected `type`, …``: the
    /// key, where it is, and what it may be.
    pub(crate) fn unknown_field<E: de::Error>(key: &str, place: Place, expected: &[&str]) -> E {
        struct Message<'a>(&'a str, Place, &'a [&'a str]);
        impl fmt::Display for Message<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let Message(key, place, expected) = *self;
                write!(f, "unknown field `{}` in {place}, expected ", Shortened(key))?;
                for (i, name) in expected.iter().enumerate() {
                    match i {
                        0 => {}
                        _ if i + 1 == expected.len() => f.write_str(" or ")?,
                        _ => f.write_str(", ")?,
                    }
                    write!(f, "`{name}`")?;
                }
                Ok(())
            }
        }
        E::custom(Message(key, place, expected))
    }

    impl serde::Serialize for Snapshot {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let has_history = !self.history.is_empty();
            let has_timers = !self.timers.is_empty();
            let has_last_active = !self.last_active.is_empty();
            let len = 4
                + usize::from(self.context.is_some())
                + usize::from(has_timers)
                + usize::from(has_last_active)
                + usize::from(has_history)
                + usize::from(self.pending.is_some());
            let mut s = serializer.serialize_struct("Snapshot", len)?;
            s.serialize_field("type", TYPE)?;
            s.serialize_field("machine", &*self.machine)?;
            s.serialize_field("fingerprint", &*self.fingerprint)?;
            match &self.active {
                Active::State(state) => {
                    s.serialize_field("current_state", &**state)?;
                    s.skip_field("configuration")?;
                }
                Active::Configuration(leaves) => {
                    s.skip_field("current_state")?;
                    s.serialize_field("configuration", &Names(leaves))?;
                }
            }
            match &self.context {
                Some(context) => s.serialize_field("context", context)?,
                None => s.skip_field("context")?,
            }
            if has_timers {
                s.serialize_field("timers", &self.timers)?;
            } else {
                s.skip_field("timers")?;
            }
            if has_last_active {
                s.serialize_field("last_active", &LastActive(&self.last_active))?;
            } else {
                s.skip_field("last_active")?;
            }
            if has_history {
                s.serialize_field("history", &self.history)?;
            } else {
                s.skip_field("history")?;
            }
            // An empty outbox is written too: it says the machine keeps one.
            match &self.pending {
                Some(pending) => s.serialize_field("pending", &PendingList(pending))?,
                None => s.skip_field("pending")?,
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

    /// `timers`, each timer armed once.
    fn check_timers<E: de::Error>(timers: &[ArmedTimer]) -> Result<(), E> {
        match duplicate_timer(timers) {
            None => Ok(()),
            Some((first, second)) => Err(E::custom(format_args!(
                "`timers[{second}]` arms timer {} of state `{}` again, as `timers[{first}]` does",
                timers[second].timer,
                Shortened(&timers[second].state)
            ))),
        }
    }

    /// The leaves of a `configuration`: at least one, each once.
    fn check_configuration<E: de::Error>(leaves: &[String]) -> Result<(), E> {
        if leaves.is_empty() {
            return Err(E::custom(
                "`configuration` is empty: it names the active leaves, and a machine is always in one",
            ));
        }
        for (second, leaf) in leaves.iter().enumerate() {
            if let Some(first) = leaves[..second].iter().position(|l| l == leaf) {
                return Err(E::custom(format_args!(
                    "`configuration[{second}]` names `{}` again, as `configuration[{first}]` does",
                    Shortened(leaf)
                )));
            }
        }
        Ok(())
    }

    /// `value` into `slot`, unless the field was given before.
    fn once<T, E: de::Error>(slot: &mut Option<T>, value: T, key: &str) -> Result<(), E> {
        if slot.replace(value).is_some() {
            return Err(E::custom(format_args!("duplicate field `{key}`")));
        }
        Ok(())
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
            let mut configuration: Option<Vec<String>> = None;
            let mut context: Option<serde_json::Value> = None;
            let mut timers: Option<Vec<ArmedTimer>> = None;
            let mut last_active: Option<LastActiveOwned> = None;
            let mut history: Option<Vec<HistoryEntry>> = None;
            let mut pending: Option<Vec<PendingEntry>> = None;
            while let Some(key) = map.next_key::<String>()? {
                let slot = match key.as_str() {
                    "type" => &mut kind,
                    "machine" => &mut machine,
                    "fingerprint" => &mut fingerprint,
                    "current_state" => &mut current_state,
                    "context" => {
                        once(&mut context, map.next_value()?, &key)?;
                        continue;
                    }
                    "configuration" => {
                        once(&mut configuration, map.next_value()?, &key)?;
                        continue;
                    }
                    "timers" => {
                        let value = map.next_value_seed(List::<ArmedTimer>::new())?;
                        once(&mut timers, value, &key)?;
                        continue;
                    }
                    "last_active" => {
                        once(&mut last_active, map.next_value()?, &key)?;
                        continue;
                    }
                    "history" => {
                        let value = map.next_value_seed(List::<HistoryEntry>::new())?;
                        once(&mut history, value, &key)?;
                        continue;
                    }
                    "pending" => {
                        let value = map.next_value_seed(List::<PendingEntry>::new())?;
                        once(&mut pending, value, &key)?;
                        continue;
                    }
                    // Refused before its value is read: every key of a
                    // snapshot is fsmc's, and a misspelled one (`timer`)
                    // skipped would restore a machine without what it
                    // held, and the next save would erase it.
                    _ => return Err(unknown_field(&key, Place::Top, FIELDS)),
                };
                let value = map.next_value()?;
                once(slot, value, &key)?;
            }
            check_type(&kind.ok_or_else(|| de::Error::missing_field("type"))?)?;
            let timers = timers.unwrap_or_default();
            check_timers(&timers)?;
            let machine = machine.ok_or_else(|| de::Error::missing_field("machine"))?;
            let fingerprint = fingerprint.ok_or_else(|| de::Error::missing_field("fingerprint"))?;
            let mut snapshot = match (current_state, configuration) {
                (Some(state), None) => Snapshot::new(machine, fingerprint, state),
                (None, Some(leaves)) => {
                    check_configuration(&leaves)?;
                    Snapshot::of_configuration(machine, fingerprint, leaves)
                }
                (Some(_), Some(_)) => {
                    return Err(de::Error::custom(
                        "a snapshot has `current_state` (a machine without parallel states) or \
                         `configuration` (one with them), not both",
                    ))
                }
                (None, None) => {
                    return Err(de::Error::custom(
                        "missing field `current_state` (or `configuration`, for a machine with \
                         parallel states)",
                    ))
                }
            };
            snapshot.context = context;
            snapshot.timers = timers;
            snapshot.last_active = last_active.map(|l| l.0).unwrap_or_default();
            if let Some(pending) = pending {
                check_pending_order(&pending)?;
                snapshot.pending = Some(pending.into_iter().map(|entry| entry.0).collect());
            }
            with_history(snapshot, history.unwrap_or_default())
        }

        /// Formats that write structs as sequences (not self-describing)
        /// hold the four fields and the optional history, as before
        /// contexts and timers existed; a context needs a self-describing
        /// format such as JSON.
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Snapshot, A::Error> {
            let mut next = |index: usize| -> Result<String, A::Error> {
                seq.next_element()?
                    .ok_or_else(|| de::Error::invalid_length(index, &self))
            };
            check_type(&next(0)?)?;
            let snapshot = Snapshot::new(next(1)?, next(2)?, next(3)?);
            // The history is optional, and last.
            let history = seq
                .next_element_seed(List::<HistoryEntry>::new())?
                .unwrap_or_default();
            with_history(snapshot, history)
        }
    }

    /// An item of one of a snapshot's lists, read knowing which: its
    /// errors name it (`timers[1]`).
    pub(crate) trait ListItem: Sized {
        /// The list's key in the snapshot.
        const LIST: &'static str;

        /// The item at `place`.
        fn deserialize_at<'de, D: Deserializer<'de>>(deserializer: D, place: Place)
            -> Result<Self, D::Error>;
    }

    /// A snapshot's list of `T`s.
    struct List<T>(PhantomData<T>);

    impl<T> List<T> {
        fn new() -> List<T> {
            List(PhantomData)
        }
    }

    impl<'de, T: ListItem> DeserializeSeed<'de> for List<T> {
        type Value = Vec<T>;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<T>, D::Error> {
            deserializer.deserialize_seq(self)
        }
    }

    impl<'de, T: ListItem> Visitor<'de> for List<T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a sequence")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            while let Some(item) = seq.next_element_seed(Item(items.len(), PhantomData))? {
                items.push(item);
            }
            Ok(items)
        }
    }

    /// Item `.0` of a snapshot's list of `T`s.
    struct Item<T>(usize, PhantomData<T>);

    impl<'de, T: ListItem> DeserializeSeed<'de> for Item<T> {
        type Value = T;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
            T::deserialize_at(deserializer, Place::Item(T::LIST, self.0))
        }
    }

    /// Names as a JSON array.
    struct Names<'a>(&'a [Cow<'static, str>]);

    impl serde::Serialize for Names<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(self.0.iter().map(|name| &**name))
        }
    }

    /// `last_active` as a JSON object: composite state → leaf, or → leaves
    /// when it remembers several.
    struct LastActive<'a>(&'a [(Cow<'static, str>, Leaves)]);

    impl serde::Serialize for LastActive<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(self.0.len()))?;
            for (state, leaves) in self.0 {
                match leaves {
                    Leaves::One(leaf) => map.serialize_entry(&**state, &**leaf)?,
                    Leaves::Several(leaves) => map.serialize_entry(&**state, &Names(leaves))?,
                }
            }
            map.end()
        }
    }

    /// A value of `last_active`: a leaf, or several.
    enum Remembered {
        One(String),
        Several(Vec<String>),
    }

    impl<'de> serde::Deserialize<'de> for Remembered {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Remembered;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a leaf's name, or an array of leaves' names")
                }
                fn visit_str<E: de::Error>(self, leaf: &str) -> Result<Remembered, E> {
                    Ok(Remembered::One(leaf.to_owned()))
                }
                fn visit_string<E: de::Error>(self, leaf: String) -> Result<Remembered, E> {
                    Ok(Remembered::One(leaf))
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Remembered, A::Error> {
                    let mut leaves = Vec::new();
                    while let Some(leaf) = seq.next_element::<String>()? {
                        leaves.push(leaf);
                    }
                    Ok(Remembered::Several(leaves))
                }
            }
            deserializer.deserialize_any(V)
        }
    }

    /// `last_active` read back, in the order written, each state once.
    struct LastActiveOwned(Vec<(Cow<'static, str>, Leaves)>);

    impl<'de> serde::Deserialize<'de> for LastActiveOwned {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = LastActiveOwned;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("an object naming, for each composite state, the leaf last active inside it")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LastActiveOwned, A::Error> {
                    let mut pairs: Vec<(Cow<'static, str>, Leaves)> = Vec::new();
                    let mut seen = HashSet::new();
                    while let Some((state, remembered)) = map.next_entry::<String, Remembered>()? {
                        if !seen.insert(state.clone()) {
                            return Err(de::Error::custom(format_args!(
                                "duplicate field `{state}` in `last_active`"
                            )));
                        }
                        let leaves = match remembered {
                            Remembered::One(leaf) => Leaves::One(leaf.into()),
                            Remembered::Several(leaves) if leaves.is_empty() => {
                                return Err(de::Error::custom(format_args!(
                                    "`last_active` remembers no leaf for `{state}`"
                                )))
                            }
                            Remembered::Several(leaves) => {
                                Leaves::new(leaves.into_iter().map(Cow::Owned).collect())
                            }
                        };
                        pairs.push((state.into(), leaves));
                    }
                    Ok(LastActiveOwned(pairs))
                }
            }
            deserializer.deserialize_map(V)
        }
    }

    impl serde::Serialize for ArmedTimer {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut s = serializer.serialize_struct("ArmedTimer", 3)?;
            s.serialize_field("state", &*self.state)?;
            s.serialize_field("timer", &self.timer)?;
            s.serialize_field("due", &self.due)?;
            s.end()
        }
    }

    impl<'de> serde::Deserialize<'de> for ArmedTimer {
        /// Alone, an unknown key is an error as serde words it; in a
        /// snapshot, the error also says which timer.
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_struct("ArmedTimer", TIMER_FIELDS, ArmedTimerVisitor(None))
        }
    }

    impl ListItem for ArmedTimer {
        const LIST: &'static str = "timers";

        fn deserialize_at<'de, D: Deserializer<'de>>(
            deserializer: D,
            place: Place,
        ) -> Result<Self, D::Error> {
            deserializer.deserialize_struct("ArmedTimer", TIMER_FIELDS, ArmedTimerVisitor(Some(place)))
        }
    }

    /// Reads an armed timer, at its place in a snapshot if it has one.
    struct ArmedTimerVisitor(Option<Place>);

    impl<'de> Visitor<'de> for ArmedTimerVisitor {
        type Value = ArmedTimer;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an armed timer with `state`, `timer` and `due`")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ArmedTimer, A::Error> {
            let mut state: Option<String> = None;
            let mut timer: Option<u32> = None;
            let mut due: Option<Timestamp> = None;
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "state" => once(&mut state, map.next_value()?, &key)?,
                    "timer" => once(&mut timer, map.next_value()?, &key)?,
                    "due" => once(&mut due, map.next_value()?, &key)?,
                    _ => {
                        return Err(match self.0 {
                            Some(place) => unknown_field(&key, place, TIMER_FIELDS),
                            None => de::Error::unknown_field(&key, TIMER_FIELDS),
                        })
                    }
                }
            }
            Ok(ArmedTimer::new(
                state.ok_or_else(|| de::Error::missing_field("state"))?,
                timer.ok_or_else(|| de::Error::missing_field("timer"))?,
                due.ok_or_else(|| de::Error::missing_field("due"))?,
            ))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ArmedTimer, A::Error> {
            let state: String = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(0, &self))?;
            let timer = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(1, &self))?;
            let due = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(2, &self))?;
            Ok(ArmedTimer::new(state, timer, due))
        }
    }

    /// `pending` in key order, each key once: the order a machine keeps
    /// them in, which acknowledging relies on.
    fn check_pending_order<E: de::Error>(pending: &[PendingEntry]) -> Result<(), E> {
        for (index, pair) in pending.windows(2).enumerate() {
            if pair[0].0.key >= pair[1].0.key {
                return Err(E::custom(format_args!(
                    "`pending[{}]` has key {}, which does not come after `pending[{index}]`'s, {}",
                    index + 1,
                    pair[1].0.key,
                    pair[0].0.key
                )));
            }
        }
        Ok(())
    }

    /// The outbox as a JSON array of `{"step", "index", "output"}`.
    struct PendingList<'a>(&'a [Pending<Cow<'static, str>>]);

    impl serde::Serialize for PendingList<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(self.0.iter().map(PendingRef))
        }
    }

    struct PendingRef<'a>(&'a Pending<Cow<'static, str>>);

    impl serde::Serialize for PendingRef<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut s = serializer.serialize_struct("Pending", 3)?;
            s.serialize_field("step", &self.0.key.step())?;
            s.serialize_field("index", &self.0.key.index())?;
            s.serialize_field("output", &*self.0.output)?;
            s.end()
        }
    }

    /// An entry of the outbox, read at its place in a snapshot.
    struct PendingEntry(Pending<Cow<'static, str>>);

    impl ListItem for PendingEntry {
        const LIST: &'static str = "pending";

        fn deserialize_at<'de, D: Deserializer<'de>>(
            deserializer: D,
            place: Place,
        ) -> Result<Self, D::Error> {
            deserializer.deserialize_struct("Pending", PENDING_FIELDS, PendingVisitor(place))
        }
    }

    struct PendingVisitor(Place);

    impl<'de> Visitor<'de> for PendingVisitor {
        type Value = PendingEntry;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a pending output with `step`, `index` and `output`")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PendingEntry, A::Error> {
            let mut step: Option<u64> = None;
            let mut index: Option<u32> = None;
            let mut output: Option<String> = None;
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "step" => once(&mut step, map.next_value()?, &key)?,
                    "index" => once(&mut index, map.next_value()?, &key)?,
                    "output" => once(&mut output, map.next_value()?, &key)?,
                    _ => return Err(unknown_field(&key, self.0, PENDING_FIELDS)),
                }
            }
            Ok(PendingEntry(Pending {
                key: OutputKey::new(
                    step.ok_or_else(|| de::Error::missing_field("step"))?,
                    index.ok_or_else(|| de::Error::missing_field("index"))?,
                ),
                output: Cow::Owned(output.ok_or_else(|| de::Error::missing_field("output"))?),
            }))
        }
    }

    /// A key in a message: control characters escaped, and cut after
    /// [`Shortened::MAX_CHARS`] characters, so a hostile key cannot flood
    /// the output. Also `fsm-store`'s, for the keys its JSON reader refuses.
    #[doc(hidden)]
    pub struct Shortened<'a>(pub &'a str);

    impl Shortened<'_> {
        const MAX_CHARS: usize = 64;
    }

    impl fmt::Display for Shortened<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let mut chars = self.0.chars();
            for c in chars.by_ref().take(Shortened::MAX_CHARS) {
                if c.is_control() {
                    write!(f, "{}", c.escape_debug())?;
                } else {
                    fmt::Write::write_char(f, c)?;
                }
            }
            if chars.next().is_some() {
                f.write_str("…")?;
            }
            Ok(())
        }
    }
}
