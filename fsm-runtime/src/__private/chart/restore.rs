//! A chart machine's configuration, history memory and armed timers, read
//! from a snapshot and checked ([`restore`]).

use super::{Bits, Chart, Kind, Problem, TimerGroup};
use crate::timestamp::Timestamp;

/// A machine whose generated code runs on a [`Chart`], as [`restore`]
/// needs it.
#[cfg(feature = "alloc")]
#[doc(hidden)]
pub struct Restoring<'a> {
    /// Its tables.
    pub chart: Chart<'a>,
    /// Its name.
    pub machine: &'a str,
    /// Its fingerprint.
    pub fingerprint: &'a str,
    /// Every state's name, by id.
    pub names: &'a [&'a str],
    /// The composite state of each history slot.
    pub slots: &'a [u32],
    /// Its timer groups, by index.
    pub groups: &'a [TimerGroup<'a>],
}

/// The configuration `snapshot` holds, with the history memory it carries
/// written into `memory` (one per slot), checked as the dynamic engine
/// checks them: a snapshot of this machine and (under
/// [`FingerprintPolicy::Strict`]) this definition, known leaves forming a
/// configuration ([`Chart::configuration_of_leaves`]), each armed timer one
/// an active state declares (its group's deadline written into `armed`, the
/// earliest when the snapshot lists more than one timer of a group), and
/// each memory a composite entered through its history with leaves forming
/// a configuration inside it.
///
/// # Errors
///
/// The first [`RestoreError`] found, in that order.
#[cfg(feature = "alloc")]
#[doc(hidden)]
pub fn restore<const W: usize>(
    m: &Restoring<'_>,
    snapshot: &crate::Snapshot,
    policy: crate::FingerprintPolicy,
    memory: &mut [Bits<W>],
    armed: &mut [Option<Timestamp>],
) -> Result<Bits<W>, crate::RestoreError> {
    use crate::prelude::*;
    use crate::RestoreError;
    struct Words<'a>(&'a Problem, &'a Chart<'a>, &'a [&'a str]);
    impl core::fmt::Display for Words<'_> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            self.0.describe(self.1, self.2, f)
        }
    }
    if snapshot.machine() != m.machine {
        return Err(RestoreError::OtherMachine {
            expected: m.machine.to_owned(),
            found: snapshot.machine().to_owned(),
        });
    }
    if policy == crate::FingerprintPolicy::Strict && snapshot.fingerprint() != m.fingerprint {
        return Err(RestoreError::FingerprintMismatch {
            machine: m.machine.to_owned(),
            expected: m.fingerprint.to_owned(),
            found: snapshot.fingerprint().to_owned(),
        });
    }
    let is_leaf = |s: u32| matches!(m.chart.state(s).kind, Kind::Leaf | Kind::Final);
    let leaf_id = |name: &str| {
        m.names
            .iter()
            .position(|n| *n == name)
            .map(|s| s as u32)
            .filter(|&s| is_leaf(s))
    };
    let mut leaves = Vec::with_capacity(snapshot.leaves().len());
    for name in snapshot.leaves() {
        match leaf_id(name) {
            Some(leaf) => leaves.push(leaf),
            None => {
                return Err(RestoreError::UnknownState {
                    machine: m.machine.to_owned(),
                    state: name.to_string(),
                    known: (0..m.names.len() as u32)
                        .filter(|&s| is_leaf(s))
                        .map(|s| m.names[s as usize].to_owned())
                        .collect(),
                })
            }
        }
    }
    let config = m
        .chart
        .configuration_of_leaves::<W>(&leaves, None)
        .map_err(|problem| RestoreError::InvalidConfiguration {
            machine: m.machine.to_owned(),
            leaves: snapshot.leaves().iter().map(|l| l.to_string()).collect(),
            reason: Words(&problem, &m.chart, m.names).to_string(),
        })?;
    for timer in snapshot.checked_timers()? {
        // Only the timers of an active state can be armed.
        let active = m
            .names
            .iter()
            .position(|n| *n == timer.state())
            .map(|s| s as u32)
            .filter(|&s| config.contains(s));
        let Some(state) = active else {
            return Err(snapshot.unknown_timer(timer, None));
        };
        let own = m.chart.list(m.chart.state(state).timer_groups);
        let Some(&group) = own
            .iter()
            .find(|&&g| m.groups[g as usize].indices.contains(&timer.timer()))
        else {
            let count = own
                .iter()
                .map(|&g| m.groups[g as usize].indices.len() as u32)
                .sum();
            return Err(snapshot.unknown_timer(timer, Some(count)));
        };
        let due = &mut armed[group as usize];
        *due = Some(due.map_or(timer.due(), |d| d.min(timer.due())));
    }
    for (state, names) in snapshot.checked_last_leaves()? {
        let invalid = |reason: String| RestoreError::InvalidLastLeaves {
            machine: m.machine.to_owned(),
            state: state.to_owned(),
            leaves: names.iter().map(|l| l.to_string()).collect(),
            reason,
        };
        let Some(slot) = m.slots.iter().position(|&c| m.names[c as usize] == state) else {
            return Err(invalid(format!(
                "`{state}` is not a composite state that a transition enters through its history"
            )));
        };
        let mut ids = Vec::with_capacity(names.len());
        for name in names {
            match leaf_id(name) {
                Some(leaf) => ids.push(leaf),
                None => return Err(invalid(format!("`{name}` is not a leaf state of the machine"))),
            }
        }
        let inside = m
            .chart
            .configuration_of_leaves::<W>(&ids, Some(m.slots[slot]))
            .map_err(|problem| invalid(Words(&problem, &m.chart, m.names).to_string()))?;
        let mut kept = Bits::EMPTY;
        for s in inside.iter().filter(|&s| is_leaf(s)) {
            kept.insert(s);
        }
        memory[slot] = kept;
    }
    Ok(config)
}
