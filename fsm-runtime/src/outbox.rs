//! Outputs kept until the caller has performed them: the outbox of a
//! [`Recorded`](crate::Recorded) machine, carried by its snapshot.
//!
//! Performing outputs and saving the state cannot happen at once, so an
//! orchestrator that does one and then the other has a window in which a
//! crash loses an output (saved, then killed before performing it) or
//! duplicates one (performed, then killed before saving). The outbox closes
//! that window from the machine's side: each step's outputs are saved with
//! the state, as pending, under a key that names the step, and the caller
//! acknowledges each one once performed. After a restore, whatever was not
//! acknowledged is pending still, under the same key, so the caller performs
//! it again: at least once, with a key that lets the receiver drop a repeat.

#[allow(unused_imports)]
use crate::prelude::*;
use core::fmt;

/// Which output of which step: the step's sequence number in the history
/// ([`HistoryEntry::seq`](crate::HistoryEntry::seq), counting every
/// transition the machine took, across restores) and the output's place
/// among that step's outputs, from `0`.
///
/// It displays as `step/index` (`3/0`). Prefixed with the instance's id, as
/// `format!("{instance}/{key}")`, it is an idempotency key: the same output
/// gets the same key however many times a crash makes the caller perform it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OutputKey {
    step: u64,
    index: u32,
}

impl OutputKey {
    /// Output `index` (from `0`) of step `step`.
    pub const fn new(step: u64, index: u32) -> OutputKey {
        OutputKey { step, index }
    }

    /// The step's sequence number in the history.
    pub const fn step(self) -> u64 {
        self.step
    }

    /// The output's place among the step's outputs, from `0`.
    pub const fn index(self) -> u32 {
        self.index
    }
}

/// `3/0`
impl fmt::Display for OutputKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.step, self.index)
    }
}

/// An output a step emitted that the caller has not acknowledged yet: its
/// key and the output (a generated machine's `Output`, or in a snapshot, its
/// name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pending<O> {
    /// Which step emitted it, and where among its outputs.
    pub key: OutputKey,
    /// The output.
    pub output: O,
}

/// The outputs of the step numbered `step`, keyed, onto `outbox`: the one
/// rule for keys, generated code's and the dynamic engine's.
pub fn push_step<O: Copy>(outbox: &mut Vec<Pending<O>>, step: u64, outputs: &[O]) {
    outbox.extend(outputs.iter().enumerate().map(|(index, &output)| Pending {
        // A step has no more outputs than its transition emits, far below
        // `u32::MAX`; saturate rather than wrap if one ever did.
        key: OutputKey::new(step, u32::try_from(index).unwrap_or(u32::MAX)),
        output,
    }));
}

/// Remove the output under `key` from `outbox`; whether it was there.
pub fn ack<O>(outbox: &mut Vec<Pending<O>>, key: OutputKey) -> bool {
    // Kept in key order, so a binary search finds it.
    match outbox.binary_search_by_key(&key, |pending| pending.key) {
        Ok(at) => {
            outbox.remove(at);
            true
        }
        Err(_) => false,
    }
}
