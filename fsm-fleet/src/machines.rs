//! The machines a worker can step, by name: each generated machine type
//! registered once, so that a row naming it can be restored, fired and saved
//! without knowing its type.

use crate::prune::TerminalStates;
use crate::stored;
use fsm_runtime::driver::TimerResult;
use fsm_runtime::{
    FingerprintPolicy, Fire, FireError, FireEvent, Fired, History, Machine, MachineState, OutputKey,
    Recorded, Restore, Snapshot, Symbol, Timed, TimedWith, Timestamp,
};
use serde::de::DeserializeOwned;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroUsize;

/// The generated machine types a fleet holds, by their names.
///
/// ```ignore
/// let machines = Machines::new().with::<order::Order>().with::<refund::Refund>();
/// ```
///
/// A machine whose guards are passed per call (one with guards and no
/// context) is registered with the guards its instances fire by:
/// `Machines::new().with_guards::<lamp::Lamp, _>(Mains)`.
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

    /// These machines and `M`, whose instances fire every event and every
    /// timer with `guards`: a machine whose guards are passed per call (one
    /// with guards and no context), which [`Machines::with`] cannot take,
    /// as `with_guards::<lamp::Lamp, _>(Mains)`. Otherwise as
    /// [`Machines::with`]: instances whose row names `M::NAME` are stepped
    /// as `M`, restored from their snapshots, their events read as
    /// `M::Event` from JSON. The guards are shared by every worker thread
    /// that steps with these machines, so they are `Send + Sync`.
    ///
    /// Any other machine can be registered this way too, with
    /// [`NoGuards`](fsm_runtime::NoGuards) (it never looks at its guards),
    /// so generic code registers every kind alike.
    ///
    /// ```
    /// use fsm_fleet::{Fleet, Machines};
    ///
    /// fsm_runtime::fsm! {
    ///     machine Lamp {
    ///         guard powered;
    ///         initial state off { on switch [powered] -> on; }
    ///         terminal state on;
    ///     }
    /// }
    ///
    /// struct Mains;
    /// impl lamp::Guards for Mains {
    ///     fn powered(&self) -> bool {
    ///         true
    ///     }
    /// }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let mut fleet = Fleet::open(dir.path().join("fleet.db"))?;
    /// fleet.create("lamp-1", lamp::Lamp::new())?;
    /// fleet.send_to::<lamp::Lamp>("lamp-1", &lamp::Action::Switch, "switch-1")?;
    /// fleet.work(&Machines::new().with_guards::<lamp::Lamp, _>(Mains), 10)?;
    /// assert_eq!(fleet.instance("lamp-1")?.unwrap().state, "on");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_guards<M, G>(mut self, guards: G) -> Machines
    where
        M: Fire<G> + TimedWith<G> + Restore + 'static,
        M::Event: DeserializeOwned,
        G: Send + Sync + 'static,
    {
        self.drivers.insert(
            M::NAME,
            Box::new(Guarded::<M, G> {
                guards,
                machine: PhantomData,
            }),
        );
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
    /// The machine took it, but its `always` and `done` transitions ran
    /// away (`FireError::Runaway`): the machine moved and its outputs are
    /// kept, as for `Done`, and the event is marked with the error.
    Runaway(String),
    /// It is not an event of the machine: it never will be.
    Dead(String),
}

/// One step of an instance: what it consumed and what it left.
pub(crate) struct Stepped {
    pub outcomes: Vec<(i64, Outcome)>,
    pub timers: usize,
    pub snapshot: String,
    pub state: Cow<'static, str>,
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

/// A machine type that fires its events alone.
struct Typed<M>(PhantomData<fn() -> M>);

/// A machine type whose instances fire with `guards`.
struct Guarded<M, G> {
    guards: G,
    machine: PhantomData<fn() -> M>,
}

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
        terminal_states::<M>()
    }

    fn step(&self, snapshot: &str, events: &[InboxEvent], keep: NonZeroUsize) -> Result<Stepped, String> {
        step::<M>(
            snapshot,
            events,
            keep,
            Recorded::fire,
            Recorded::fire_next_due,
            <M as Timed>::next_deadline,
        )
    }
}

impl<M, G> Driver for Guarded<M, G>
where
    M: Fire<G> + TimedWith<G> + Restore + 'static,
    M::Event: DeserializeOwned,
    G: Send + Sync + 'static,
{
    fn fingerprint(&self) -> &'static str {
        M::FINGERPRINT
    }

    fn terminal_states(&self) -> Vec<&'static str> {
        terminal_states::<M>()
    }

    fn step(&self, snapshot: &str, events: &[InboxEvent], keep: NonZeroUsize) -> Result<Stepped, String> {
        step::<M>(
            snapshot,
            events,
            keep,
            |run, event| run.fire_with(event, &self.guards),
            |run| run.fire_next_due_with(&self.guards),
            <M as TimedWith<G>>::next_deadline,
        )
    }
}

/// The names of `M`'s terminal states.
fn terminal_states<M: Machine>() -> Vec<&'static str> {
    // A terminal state is one leaf, which names it.
    M::TERMINAL
        .iter()
        .filter_map(|state| state.leaf().map(Symbol::name))
        .collect()
}

/// Restore `M` from `snapshot`, keeping the last `keep` history entries,
/// fire `events` in order (each through `fire`, the timers due before it
/// first), then every due timer (through `fire_next_due`), and take the
/// snapshot, with the next deadline `next_deadline` reads.
fn step<M>(
    snapshot: &str,
    events: &[InboxEvent],
    keep: NonZeroUsize,
    mut fire: impl FnMut(&mut Recorded<M>, M::Event) -> Result<Fired<M>, FireError<M>>,
    mut fire_next_due: impl FnMut(&mut Recorded<M>) -> Option<TimerResult<M>>,
    next_deadline: impl Fn(&M) -> Option<Timestamp>,
) -> Result<Stepped, String>
where
    M: Restore,
    M::Event: DeserializeOwned,
{
    let snapshot: Snapshot = serde_json::from_str(snapshot)
        .map_err(|e| format!("its snapshot does not read: {}", stored::bounded(&e.to_string())))?;
    let mut run = Recorded::<M>::restore_with(&snapshot, FingerprintPolicy::Strict, History::bounded(keep))
        .map_err(|e| e.to_string())?
        .with_outbox();
    let mut outcomes = Vec::with_capacity(events.len());
    let mut timers = 0;
    for inbox in events {
        // A timer that came due before the event was sent fires first,
        // as the drivers fire it.
        while timers < MAX_TIMERS_PER_STEP
            && next_deadline(run.machine()).is_some_and(|due| due <= inbox.sent_at)
        {
            if fire_next_due(&mut run).is_none() {
                break;
            }
            timers += 1;
        }
        let outcome = match stored::from_json::<M::Event>(&inbox.event) {
            Err(e) => Outcome::Dead(format!("not an event of machine `{}`: {e}", M::NAME)),
            Ok(event) => match fire(&mut run, event) {
                Ok(_) => Outcome::Done,
                // `Recorded` kept the move and the outputs (pending in the
                // outbox, as a taken event's).
                Err(e @ FireError::Runaway(_)) => Outcome::Runaway(stored::bounded(&e.to_string())),
                Err(e) => Outcome::Rejected(stored::bounded(&e.to_string())),
            },
        };
        outcomes.push((inbox.seq, outcome));
    }
    while timers < MAX_TIMERS_PER_STEP {
        match fire_next_due(&mut run) {
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
        state: state_name(&run.state()),
        next_deadline: next_deadline(run.machine()),
        outputs,
    })
}

/// The name the fleet keeps for a machine's state: its leaf's, or with
/// parallel states the active leaves separated by `, `, as a history names
/// them.
pub(crate) fn state_name<S: MachineState>(state: &S) -> Cow<'static, str> {
    match state.leaf() {
        Some(leaf) => Cow::Borrowed(leaf.name()),
        None => Cow::Owned(state.to_string()),
    }
}
