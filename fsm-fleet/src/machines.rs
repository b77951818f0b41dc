//! The machines a worker can step, by name: each generated machine type
//! registered once, so that a row naming it can be restored, fired and saved
//! without knowing its type.

use crate::prune::TerminalStates;
use crate::stored;
use fsm_runtime::{
    FingerprintPolicy, FireEvent, History, OutputKey, Recorded, Restore, Snapshot, Symbol, Timed, Timestamp,
};
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroUsize;

/// The generated machine types a fleet holds, by their names.
///
/// ```ignore
/// let machines = Machines::new().with::<order::Order>().with::<refund::Refund>();
/// ```
#[derive(Default)]
pub struct Machines {
    drivers: BTreeMap<&'static str, Box<dyn Driver>>,
}

impl Machines {
    /// No machines.
    pub fn new() -> Machines {
        Machines::default()
    }

    /// These machines and `M`: instances whose row names `M::NAME` are
    /// stepped as `M`, restored from their snapshots ([`Restore`]: with
    /// timers on the system clock, with a context deserialized), their
    /// events read as `M::Event` from JSON.
    pub fn with<M>(mut self) -> Machines
    where
        M: FireEvent + Timed + Restore + 'static,
        M::Event: DeserializeOwned,
    {
        self.drivers.insert(M::NAME, Box::new(Typed::<M>(PhantomData)));
        self
    }

    /// The driver of the machine called `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&dyn Driver> {
        self.drivers.get(name).map(|d| &**d)
    }

    /// The names, for messages.
    pub(crate) fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.drivers.keys().copied()
    }

    /// The terminal states of each of these machines, as their definitions
    /// (their fingerprints) have them: what
    /// [`Prune::finished`](crate::Prune::finished) needs to tell a finished
    /// instance, which its row alone cannot.
    pub fn terminal_states(&self) -> TerminalStates {
        self.drivers
            .iter()
            .fold(TerminalStates::new(), |terminal, (name, driver)| {
                terminal.with(name, driver.fingerprint(), driver.terminal_states())
            })
    }
}

impl From<&Machines> for TerminalStates {
    fn from(machines: &Machines) -> TerminalStates {
        machines.terminal_states()
    }
}

impl fmt::Debug for Machines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

/// An event read from the inbox: its sequence number and its JSON.
pub(crate) struct InboxEvent {
    pub seq: i64,
    pub event: String,
    /// When it was sent: timers due by then fire before it.
    pub sent_at: Timestamp,
}

/// What became of an event.
pub(crate) enum Outcome {
    /// The machine took it.
    Done,
    /// The machine refused it (not valid in its state, or no guard held):
    /// consumed, with the machine's reason.
    Rejected(String),
    /// It is not an event of the machine: it never will be.
    Dead(String),
}

/// One step of an instance: what it consumed and what it left.
pub(crate) struct Stepped {
    pub outcomes: Vec<(i64, Outcome)>,
    pub timers: usize,
    pub snapshot: String,
    pub state: &'static str,
    pub next_deadline: Option<Timestamp>,
    pub outputs: Vec<(OutputKey, &'static str)>,
}

/// A registered machine type, behind its name.
pub(crate) trait Driver: Send + Sync {
    /// The fingerprint of its definition.
    fn fingerprint(&self) -> &'static str;

    /// The names of its terminal states.
    fn terminal_states(&self) -> Vec<&'static str>;

    /// Restore from `snapshot`, keeping the last `keep` history entries,
    /// fire `events` in order, then every due timer, and take the snapshot.
    /// `Err` when the snapshot does not restore: the instance is parked.
    fn step(&self, snapshot: &str, events: &[InboxEvent], keep: NonZeroUsize) -> Result<Stepped, String>;
}

struct Typed<M>(PhantomData<fn() -> M>);

/// The most timers one step fires: timers re-arm only later than now, so
/// this bound is never reached by a machine, only by a clock gone wrong.
const MAX_TIMERS_PER_STEP: usize = 10_000;

impl<M> Driver for Typed<M>
where
    M: FireEvent + Timed + Restore + 'static,
    M::Event: DeserializeOwned,
{
    fn fingerprint(&self) -> &'static str {
        M::FINGERPRINT
    }

    fn terminal_states(&self) -> Vec<&'static str> {
        <M::State as Symbol>::ALL
            .iter()
            .filter(|state| M::is_terminal_state(**state))
            .map(|state| state.name())
            .collect()
    }

    fn step(&self, snapshot: &str, events: &[InboxEvent], keep: NonZeroUsize) -> Result<Stepped, String> {
        let snapshot: Snapshot = serde_json::from_str(snapshot)
            .map_err(|e| format!("its snapshot does not read: {}", stored::bounded(&e.to_string())))?;
        let mut run =
            Recorded::<M>::restore_with(&snapshot, FingerprintPolicy::Strict, History::bounded(keep))
                .map_err(|e| e.to_string())?
                .with_outbox();
        let mut outcomes = Vec::with_capacity(events.len());
        let mut timers = 0;
        for inbox in events {
            // A timer that came due before the event was sent fires first,
            // as the drivers fire it.
            while timers < MAX_TIMERS_PER_STEP && run.next_deadline().is_some_and(|due| due <= inbox.sent_at)
            {
                if run.fire_next_due().is_none() {
                    break;
                }
                timers += 1;
            }
            let outcome = match stored::from_json::<M::Event>(&inbox.event) {
                Err(e) => Outcome::Dead(format!("not an event of machine `{}`: {e}", M::NAME)),
                Ok(event) => match run.fire(event) {
                    Ok(_) => Outcome::Done,
                    Err(e) => Outcome::Rejected(stored::bounded(&e.to_string())),
                },
            };
            outcomes.push((inbox.seq, outcome));
        }
        while timers < MAX_TIMERS_PER_STEP {
            match run.fire_next_due() {
                None => break,
                Some(_) => timers += 1,
            }
        }
        let outputs: Vec<(OutputKey, &'static str)> = run
            .pending()
            .iter()
            .map(|p| (p.key, fsm_runtime::Symbol::name(p.output)))
            .collect();
        for (key, _) in &outputs {
            run.ack(*key);
        }
        let snapshot = run.snapshot().map_err(|e| e.to_string())?;
        Ok(Stepped {
            outcomes,
            timers,
            snapshot: serde_json::to_string(&snapshot).map_err(|e| e.to_string())?,
            state: fsm_runtime::Symbol::name(run.state()),
            next_deadline: run.next_deadline(),
            outputs,
        })
    }
}
