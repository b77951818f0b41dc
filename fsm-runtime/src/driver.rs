//! Drivers: the loop that feeds a machine its events and fires its timers
//! when they come due, so callers do not hand-roll it.
//!
//! - [`run_blocking`] waits on a [`std::sync::mpsc::Receiver`] until the next
//!   deadline, on the calling thread;
//! - `run` (feature `tokio`) waits on a `tokio::sync::mpsc::Receiver` and the
//!   next deadline at once, in a task;
//! - [`run_virtual`], for tests, fires a script of events on a
//!   [`ManualClock`] and moves the clock from deadline to deadline, so a
//!   test of a ten-minute timeout takes a few lines and no time.
//!
//! All run any [`Driven`] machine: a generated machine whose `fire` takes
//! the event alone (every one but a machine that takes its guards per
//! call), such a machine in a [`Recorded`], which records what the driver
//! fires, or any generated machine (in a `Recorded` or not) with the guards
//! it fires by, through [`with_guards`]: a machine whose guards are passed
//! per call fires its events and timers with them. All report every firing
//! to a callback, in the order they happen, and return why they stopped: the
//! channel closed (or, in virtual time, the time given passed), or the
//! machine reached a terminal state.
//!
//! Order: timers due when an event arrives fire before it, earliest first,
//! so the machine sees time and events in the order they happened; each
//! timer fires once. The deadline is read from the machine's own clock, so a
//! machine on a [`ManualClock`] is driven by that clock.
//!
//! ```
//! use fsm_runtime::driver::{run_blocking, Step, Stopped};
//!
//! fsm_runtime::fsm! {
//!     machine Call {
//!         initial state ringing { on answer -> talking; after 30s -> missed emit voicemail; }
//!         state talking { on hang_up -> ended; }
//!         terminal state missed;
//!         terminal state ended;
//!     }
//! }
//!
//! let (events, receiver) = std::sync::mpsc::channel();
//! events.send(call::Action::Answer).unwrap();
//! events.send(call::Action::HangUp).unwrap();
//! let mut machine = call::Call::new();
//! let mut log = Vec::new();
//! let stopped = run_blocking(&mut machine, &receiver, |_, step| match step {
//!     Step::Event(Ok(fired)) => log.push(fired.to_string()),
//!     Step::Event(Err(error)) => log.push(error.to_string()),
//!     Step::Timer(Ok(fired)) => log.push(fired.to_string()),
//!     Step::Timer(Err(rejected)) => log.push(rejected.to_string()),
//! });
//! assert_eq!(stopped, Stopped::Terminal);
//! assert_eq!(log, ["`ringing` --answer--> `talking`", "`talking` --hang_up--> `ended`"]);
//! ```

use crate::clock::{Clock, ManualClock};
use crate::fire_error::FireError;
use crate::fired::Fired;
use crate::history::{Recorded, Timestamp};
use crate::machine::{Fire, FireEvent, Machine, Timed, TimedWith};
#[allow(unused_imports)]
use crate::prelude::*;
use crate::timer::{TimerFired, TimerRejected};
use core::fmt;
use core::ops::Deref;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// What a driver runs: a machine that fires an event on its own (its guards
/// live in its context, or it has none) and says when its next timer is
/// due, such a machine inside a [`Recorded`], whose history then records
/// every event and timer the driver fires, or either with its guards,
/// through [`with_guards`].
///
/// Every generated machine implements [`FireEvent`] and [`Timed`] (one
/// without timers keeps the defaults: no deadline, no timer to fire), except
/// one that takes its guards per call, which implements [`Fire<G>`](Fire)
/// and [`TimedWith<G>`](TimedWith) instead: a driver runs it with its
/// guards, as [`with_guards(&mut machine, &guards)`](with_guards). Every
/// generated machine can be driven that way, [`NoGuards`](crate::NoGuards)
/// standing for the guards of one that takes none, so generic code that
/// drives machines of every kind calls `with_guards` alone.
///
/// Sealed: it is implemented for exactly those kinds, so that a driver's
/// reports are always the machine's own.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be driven as it is",
    label = "a driver runs a generated machine that fires an event alone, the same in a `Recorded`, or either through `driver::with_guards`",
    note = "a generated machine whose guards are passed per call is driven with them: `fsm_runtime::driver::with_guards(&mut machine, &guards)`"
)]
pub trait Driven: sealed::Sealed {
    /// The machine whose results the driver reports.
    type Machine: Machine;

    /// Fire `event`, as the machine's `fire` does.
    ///
    /// # Errors
    ///
    /// When the event is not valid in the current state or no guard holds;
    /// the error hands the event back.
    fn fire(&mut self, event: EventOf<Self>) -> Result<Fired<Self::Machine>, FireError<Self::Machine>>;

    /// True when the current state is terminal.
    fn is_terminal(&self) -> bool;

    /// When the next armed timer is due; `None` when none is armed.
    fn next_deadline(&self) -> Option<Timestamp>;

    /// The time now, by the machine's clock.
    fn now(&self) -> Timestamp;

    /// Fire the earliest timer whose deadline has passed, if any.
    fn fire_next_due(&mut self) -> Option<TimerResult<Self::Machine>>;
}

mod sealed {
    use super::WithGuards;
    use crate::history::Recorded;
    use crate::machine::{Fire, FireEvent, Machine, Timed, TimedWith};

    pub trait Sealed {}

    impl<M: FireEvent + Timed> Sealed for M {}

    impl<M: FireEvent + Timed> Sealed for Recorded<M> {}

    impl<M: Machine + Fire<G> + TimedWith<G>, G: ?Sized> Sealed for WithGuards<'_, M, G> {}

    impl<M: Fire<G> + TimedWith<G>, G: ?Sized> Sealed for WithGuards<'_, Recorded<M>, G> {}
}

/// The event a driven machine fires.
pub type EventOf<D> = <<D as Driven>::Machine as Machine>::Event;

impl<M: FireEvent + Timed> Driven for M {
    type Machine = M;

    #[inline]
    fn fire(&mut self, event: M::Event) -> Result<Fired<M>, FireError<M>> {
        FireEvent::fire(self, event)
    }

    fn is_terminal(&self) -> bool {
        Machine::is_terminal(self)
    }

    fn next_deadline(&self) -> Option<Timestamp> {
        Timed::next_deadline(self)
    }

    fn now(&self) -> Timestamp {
        Timed::now(self)
    }

    fn fire_next_due(&mut self) -> Option<TimerResult<M>> {
        Timed::fire_next_due(self)
    }
}

impl<M: FireEvent + Timed> Driven for Recorded<M> {
    type Machine = M;

    #[inline]
    fn fire(&mut self, event: M::Event) -> Result<Fired<M>, FireError<M>> {
        Recorded::fire(self, event)
    }

    fn is_terminal(&self) -> bool {
        self.machine().is_terminal()
    }

    fn next_deadline(&self) -> Option<Timestamp> {
        Timed::next_deadline(self.machine())
    }

    fn now(&self) -> Timestamp {
        Timed::now(self.machine())
    }

    fn fire_next_due(&mut self) -> Option<TimerResult<M>> {
        Recorded::fire_next_due(self)
    }
}

/// A machine, or a [`Recorded`] one, driven with the guards it fires by:
/// what [`with_guards`] returns, for [`run_blocking`], [`run_virtual`] and
/// `run`.
///
/// It derefs to the machine (or the `Recorded`), so a driver's callback,
/// which gets it, reads the machine's state as it would the machine's own.
pub struct WithGuards<'a, M, G: ?Sized> {
    machine: &'a mut M,
    guards: &'a G,
}

/// `machine`, or a [`Recorded`] machine, to be driven with `guards`: every
/// event and every timer the driver fires is fired with them, as the
/// machine's own `fire(event, &guards)` and `fire_next_due(&guards)` do (or,
/// for a `Recorded` one, its `fire_with` and `fire_next_due_with`, which
/// record them).
///
/// This is how a machine whose guards are passed per call (one with guards
/// and no context) is driven. Any other generated machine can be driven
/// this way too, with [`NoGuards`](crate::NoGuards) (or any value: it
/// never looks at it), so generic code drives every kind alike.
///
/// ```
/// use fsm_runtime::driver::{run_virtual, with_guards, Step, Stopped};
/// use fsm_runtime::ManualClock;
/// use std::time::{Duration, UNIX_EPOCH};
///
/// fsm_runtime::fsm! {
///     machine Call {
///         guard reachable;
///         initial state ringing { on answer [reachable] -> talking; after 30s [reachable] -> missed; }
///         state talking { on hang_up -> ended; }
///         terminal state missed;
///         terminal state ended;
///     }
/// }
///
/// struct Network;
/// impl call::Guards for Network {
///     fn reachable(&self) -> bool {
///         true
///     }
/// }
///
/// let clock = ManualClock::new(UNIX_EPOCH);
/// let mut machine = call::Call::with_clock(clock.clone());
/// let mut log = Vec::new();
/// let stopped = run_virtual(
///     &mut with_guards(&mut machine, &Network),
///     &clock,
///     [],
///     Duration::from_secs(60),
///     |_, step| match step {
///         Step::Timer(Ok(fired)) => log.push(fired.to_string()),
///         _ => unreachable!(),
///     },
/// );
/// assert_eq!(stopped, Stopped::Terminal);
/// assert_eq!(log, ["timer 0 of `ringing` -> `missed`"]);
/// assert_eq!(machine.state(), call::State::Missed);
/// ```
pub fn with_guards<'a, M, G: ?Sized>(machine: &'a mut M, guards: &'a G) -> WithGuards<'a, M, G> {
    WithGuards { machine, guards }
}

impl<M, G: ?Sized> WithGuards<'_, M, G> {
    /// The guards it fires with.
    pub fn guards(&self) -> &G {
        self.guards
    }
}

impl<M, G: ?Sized> Deref for WithGuards<'_, M, G> {
    type Target = M;

    fn deref(&self) -> &M {
        self.machine
    }
}

impl<M: fmt::Debug, G: ?Sized> fmt::Debug for WithGuards<'_, M, G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WithGuards")
            .field("machine", &self.machine)
            .finish_non_exhaustive()
    }
}

impl<M: Machine + Fire<G> + TimedWith<G>, G: ?Sized> Driven for WithGuards<'_, M, G> {
    type Machine = M;

    #[inline]
    fn fire(&mut self, event: M::Event) -> Result<Fired<M>, FireError<M>> {
        Fire::fire(self.machine, event, self.guards)
    }

    fn is_terminal(&self) -> bool {
        Machine::is_terminal(self.machine)
    }

    fn next_deadline(&self) -> Option<Timestamp> {
        TimedWith::next_deadline(self.machine)
    }

    fn now(&self) -> Timestamp {
        TimedWith::now(self.machine)
    }

    fn fire_next_due(&mut self) -> Option<TimerResult<M>> {
        TimedWith::fire_next_due_with(self.machine, self.guards)
    }
}

impl<M: Fire<G> + TimedWith<G>, G: ?Sized> Driven for WithGuards<'_, Recorded<M>, G> {
    type Machine = M;

    #[inline]
    fn fire(&mut self, event: M::Event) -> Result<Fired<M>, FireError<M>> {
        self.machine.fire_with(event, self.guards)
    }

    fn is_terminal(&self) -> bool {
        self.machine.machine().is_terminal()
    }

    fn next_deadline(&self) -> Option<Timestamp> {
        TimedWith::<G>::next_deadline(self.machine.machine())
    }

    fn now(&self) -> Timestamp {
        TimedWith::<G>::now(self.machine.machine())
    }

    fn fire_next_due(&mut self) -> Option<TimerResult<M>> {
        self.machine.fire_next_due_with(self.guards)
    }
}

/// One firing, as a driver reports it.
pub enum Step<M: Driven> {
    /// An event from the channel, fired or rejected (a rejected event is
    /// handed back inside the error).
    Event(Result<Fired<M::Machine>, FireError<M::Machine>>),
    /// A timer that came due, fired or rejected by its guards.
    Timer(TimerResult<M::Machine>),
}

/// What firing a due timer gives: what it did, or that no guard of its
/// group held.
pub type TimerResult<M> = Result<TimerFired<M>, TimerRejected<M>>;

impl<M: Driven> fmt::Debug for Step<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Event(result) => f.debug_tuple("Event").field(result).finish(),
            Step::Timer(result) => f.debug_tuple("Timer").field(result).finish(),
        }
    }
}

/// Why a driver returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stopped {
    /// Every sender of the channel was dropped (after the events already
    /// sent were fired).
    Closed,
    /// The machine reached a terminal state: nothing more can happen to it.
    Terminal,
    /// [`run_virtual`] only: the events ran out, and the virtual time it was
    /// given passed.
    Elapsed,
}

/// Run `machine` on the calling thread: fire each event `events` delivers
/// and each timer when it comes due, reporting every firing to `on_step`
/// with the machine as it is after it. Returns when the channel is closed
/// and empty, or when the machine is in a terminal state (at once if it
/// starts in one).
///
/// While waiting it blocks on the channel with a timeout until the next
/// deadline, by the machine's clock; a deadline already past fires at once.
/// `machine` is borrowed, so the caller can snapshot it afterwards.
pub fn run_blocking<M: Driven>(
    machine: &mut M,
    events: &Receiver<EventOf<M>>,
    mut on_step: impl FnMut(&M, Step<M>),
) -> Stopped {
    loop {
        if fire_due_timers(machine, &mut on_step) {
            return Stopped::Terminal;
        }
        let event = match until_next_deadline(machine) {
            None => match events.recv() {
                Ok(event) => event,
                Err(_) => return Stopped::Closed,
            },
            Some(wait) => match events.recv_timeout(wait) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return Stopped::Closed,
            },
        };
        if fire_event(machine, event, &mut on_step) {
            return Stopped::Terminal;
        }
    }
}

/// Run `machine` in a task: fire each event `events` delivers and each
/// timer when it comes due, reporting every firing to `on_step` with the
/// machine as it is after it. Returns when the channel is closed and empty,
/// or when the machine is in a terminal state (at once if it starts in one).
///
/// It waits on the channel and the next deadline at once (a
/// `tokio::time::timeout` around `recv`, which is cancel-safe, so no event
/// is lost), with the deadline read from the machine's clock. Under tokio's
/// paused test time, a clock that reads `tokio::time::Instant` makes a
/// ten-minute timeout take no time at all.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// use fsm_runtime::driver::{self, Step, Stopped};
///
/// fsm_runtime::fsm! {
///     machine Call {
///         initial state ringing { on answer -> talking; after 30s -> missed; }
///         state talking { on hang_up -> ended; }
///         terminal state missed;
///         terminal state ended;
///     }
/// }
///
/// let (events, mut receiver) = tokio::sync::mpsc::channel(16);
/// events.send(call::Action::Answer).await.unwrap();
/// events.send(call::Action::HangUp).await.unwrap();
/// let mut machine = call::Call::new();
/// let mut fired = 0;
/// let stopped = driver::run(&mut machine, &mut receiver, |_, step| {
///     assert!(matches!(step, Step::Event(Ok(_))));
///     fired += 1;
/// })
/// .await;
/// assert_eq!((stopped, fired), (Stopped::Terminal, 2));
/// # });
/// ```
#[cfg(feature = "tokio")]
pub async fn run<M: Driven>(
    machine: &mut M,
    events: &mut tokio::sync::mpsc::Receiver<EventOf<M>>,
    mut on_step: impl FnMut(&M, Step<M>),
) -> Stopped {
    loop {
        if fire_due_timers(machine, &mut on_step) {
            return Stopped::Terminal;
        }
        let received = match until_next_deadline(machine) {
            None => events.recv().await,
            Some(wait) => match tokio::time::timeout(wait, events.recv()).await {
                Ok(received) => received,
                Err(_elapsed) => continue,
            },
        };
        let Some(event) = received else {
            return Stopped::Closed;
        };
        if fire_event(machine, event, &mut on_step) {
            return Stopped::Terminal;
        }
    }
}

/// Run `machine` in virtual time, for tests: fire `events` in order, and
/// whenever none is left, set `clock` to the next deadline and fire the
/// timers due then, until `duration` has passed on `clock` (counted from
/// the call), reporting every firing to `on_step` with the machine as it is
/// after it. Returns [`Stopped::Elapsed`] with `clock` at the end of
/// `duration` (unless a deadline already past held it later), or
/// [`Stopped::Terminal`] as soon as the machine is in a terminal state (at
/// once if it starts in one), with `clock` at the deadline that ended it.
///
/// This is the loop every test of a timed machine otherwise writes by hand
/// (queue empty: set the clock to `next_deadline()`, fire what is due), in
/// the order the other drivers keep: timers due when an event comes fire
/// before it. Events all fire at the time the call starts; to let time
/// pass between two events, call it once for each, or give it an iterator
/// that is not fused: `events` is asked again after each timer, so a
/// channel's [`try_iter`](std::sync::mpsc::Receiver::try_iter) lets
/// `on_step` queue events in answer to what fired. A machine whose timers
/// re-arm for ever (a heartbeat) stops when `duration` has passed.
///
/// `machine` must read its time from `clock` (a clone of it): build it with
/// `with_clock(clock.clone())`.
///
/// ```
/// use fsm_runtime::driver::{run_virtual, Step, Stopped};
/// use fsm_runtime::{Clock, ManualClock};
/// use std::time::{Duration, UNIX_EPOCH};
///
/// fsm_runtime::fsm! {
///     machine Call {
///         initial state ringing { on answer -> talking; after 30s -> missed; }
///         state talking { on hold -> held; on hang_up -> ended; }
///         state held { on resume -> talking; after 10m -> ended; }
///         terminal state missed;
///         terminal state ended;
///     }
/// }
///
/// let clock = ManualClock::new(UNIX_EPOCH);
/// let mut machine = call::Call::with_clock(clock.clone());
/// let mut log = Vec::new();
/// type Call = call::Call<ManualClock>;
/// let mut record = |_: &Call, step: Step<Call>| {
///     log.push(match step {
///         Step::Event(Ok(fired)) => fired.to_string(),
///         Step::Event(Err(error)) => error.to_string(),
///         Step::Timer(Ok(fired)) => fired.to_string(),
///         Step::Timer(Err(rejected)) => rejected.to_string(),
///     })
/// };
///
/// // Answered and put on hold at once; a minute passes.
/// let minute = Duration::from_secs(60);
/// let events = [call::Action::Answer, call::Action::Hold];
/// assert_eq!(run_virtual(&mut machine, &clock, events, minute, &mut record), Stopped::Elapsed);
/// // Then nobody resumes: the hold times out ten minutes after it began.
/// let hour = Duration::from_secs(3600);
/// assert_eq!(run_virtual(&mut machine, &clock, [], hour, &mut record), Stopped::Terminal);
/// assert_eq!(clock.now().to_system_time(), UNIX_EPOCH + Duration::from_secs(600));
/// assert_eq!(log, [
///     "`ringing` --answer--> `talking`",
///     "`talking` --hold--> `held`",
///     "timer 0 of `held` -> `ended`",
/// ]);
/// ```
///
/// # Panics
///
/// When `machine` does not read its time from `clock`: setting `clock` to
/// a deadline does not bring the machine's time to it, and the loop could
/// never end.
pub fn run_virtual<M: Driven>(
    machine: &mut M,
    clock: &ManualClock,
    events: impl IntoIterator<Item = EventOf<M>>,
    duration: Duration,
    mut on_step: impl FnMut(&M, Step<M>),
) -> Stopped {
    let start = clock.now();
    let millis = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
    let end =
        Timestamp::from_unix_millis(start.unix_millis().saturating_add(millis)).unwrap_or(Timestamp::MAX);
    let mut events = events.into_iter();
    loop {
        if fire_due_timers(machine, &mut on_step) {
            return Stopped::Terminal;
        }
        if let Some(event) = events.next() {
            if fire_event(machine, event, &mut on_step) {
                return Stopped::Terminal;
            }
            continue;
        }
        let now = clock.now();
        match machine.next_deadline() {
            Some(due) if due <= end => {
                if due > now {
                    clock.set(due.to_system_time());
                }
                assert!(
                    machine.now() >= due,
                    "run_virtual: the machine does not read its time from the clock it was given \
                     (the clock is at {}, the machine's time is {}); build it with a clone of that clock",
                    clock.now(),
                    machine.now()
                );
            }
            _ => {
                if end > now {
                    clock.set(end.to_system_time());
                }
                return Stopped::Elapsed;
            }
        }
    }
}

/// How long until the next deadline, by the machine's clock (zero when it
/// has passed); `None` when no timer is armed.
fn until_next_deadline<M: Driven>(machine: &M) -> Option<Duration> {
    let due = machine.next_deadline()?;
    let now = machine.now();
    Some(Duration::from_millis(
        due.unix_millis().saturating_sub(now.unix_millis()),
    ))
}

/// Fire every timer due now, earliest first; true when the machine is then
/// terminal.
fn fire_due_timers<M: Driven>(machine: &mut M, on_step: &mut impl FnMut(&M, Step<M>)) -> bool {
    while let Some(result) = machine.fire_next_due() {
        on_step(machine, Step::Timer(result));
    }
    machine.is_terminal()
}

/// Fire the timers due by now, then `event`; true when the machine is then
/// terminal.
fn fire_event<M: Driven>(machine: &mut M, event: EventOf<M>, on_step: &mut impl FnMut(&M, Step<M>)) -> bool {
    // When these end the machine, the event is still fired: the caller sees
    // its rejection (and gets it back).
    fire_due_timers(machine, on_step);
    let result = machine.fire(event);
    on_step(machine, Step::Event(result));
    machine.is_terminal()
}
