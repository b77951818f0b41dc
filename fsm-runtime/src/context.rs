//! What the generated code of a machine with a context, payloads or timers
//! reports: an event handed back with its rejection, and what a timer did.

use crate::fire_error::FireError;
use crate::history::Timestamp;
use crate::machine::Machine;
use std::fmt;

/// An event a machine did not fire, handed back with the reason, so that
/// no payload is lost: [`Rejected::into_event`] returns it to retry, queue
/// or log.
///
/// It displays as its [`FireError`], and [`Rejected::error`] reaches that.
/// Generated code names it `FireError` in the machine's module.
pub struct Rejected<M: Machine, E> {
    error: FireError<M>,
    event: E,
}

impl<M: Machine, E> Rejected<M, E> {
    /// `event`, rejected for `error`. For generated code.
    pub const fn new(error: FireError<M>, event: E) -> Self {
        Rejected { error, event }
    }

    /// Why the event did not fire.
    pub fn error(&self) -> FireError<M> {
        self.error
    }

    /// The event, borrowed.
    pub fn event(&self) -> &E {
        &self.event
    }

    /// The event, with its payload.
    pub fn into_event(self) -> E {
        self.event
    }

    /// The reason and the event.
    pub fn into_parts(self) -> (FireError<M>, E) {
        (self.error, self.event)
    }

    /// The state in which the event was fired.
    pub fn state(&self) -> M::State {
        self.error.state()
    }

    /// The action of the event.
    pub fn action(&self) -> M::Action {
        self.error.action()
    }
}

impl<M: Machine, E> fmt::Display for Rejected<M, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl<M: Machine, E: fmt::Debug> fmt::Debug for Rejected<M, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rejected")
            .field("error", &self.error)
            .field("event", &self.event)
            .finish()
    }
}

impl<M: Machine, E: fmt::Debug> std::error::Error for Rejected<M, E> {}

/// A timer that fired: its state left (or kept, for an internal timer) and
/// the outputs for the caller to perform, in the order of a fired action's
/// (the exit outputs of the states left, innermost first, the timer's own
/// `emit`, the enter outputs of the states entered, outermost first).
pub struct TimerFired<M: Machine> {
    /// The state the machine was in when the timer fired.
    pub from: M::State,
    /// The state after; `from` for an internal timer (no target).
    pub to: M::State,
    /// The name of the state whose `after` this is: `from` or, with nested
    /// states, one of the states holding it.
    pub declared_in: &'static str,
    /// The timer's index among `declared_in`'s timers, in declaration order.
    pub timer: u32,
    /// The deadline it was due at.
    pub due: Timestamp,
    /// The outputs to perform, in order.
    pub outputs: &'static [M::Output],
    /// True for an internal timer (`after 5s do tick;`, no target): no
    /// state was exited or entered, so no hook ran and no timer was
    /// re-armed. False for a timer with a target, one back to its own state
    /// included, which exits and re-enters (and re-arms). As
    /// [`Fired::internal`](crate::Fired::internal).
    pub internal: bool,
}

/// Timers of one state with the same delay that came due together, none of
/// whose guards held: they are disarmed and nothing else happened.
pub struct TimerRejected<M: Machine> {
    /// The state the machine was in when the timers came due.
    pub state: M::State,
    /// The name of the state whose `after`s these are: `state` or, with
    /// nested states, one of the states holding it.
    pub declared_in: &'static str,
    /// The index of the first of them (highest priority, then declaration
    /// order) among `declared_in`'s timers.
    pub timer: u32,
    /// The deadline they were due at.
    pub due: Timestamp,
}

impl_value_traits! {
    TimerFired { from, to, declared_in, timer, due, outputs, internal }
    TimerRejected { state, declared_in, timer, due }
}

/// `` timer 0 of `call_tool` -> `fail` (emit `report_timeout`) ``, or with
/// nested states `` timer 0 of `connected` (in `talking`) -> `idle` ``.
impl<M: Machine> fmt::Display for TimerFired<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "timer {} of `{}`", self.timer, self.declared_in)?;
        if self.declared_in != crate::Symbol::name(self.from) {
            write!(f, " (in `{}`)", self.from)?;
        }
        write!(f, " -> `{}`", self.to)?;
        if !self.outputs.is_empty() {
            f.write_str(" (emit ")?;
            crate::symbol::write_names(f, self.outputs.iter().map(|o| crate::Symbol::name(*o)))?;
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl<M: Machine> fmt::Display for TimerRejected<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "timer {} of `{}`", self.timer, self.declared_in)?;
        if self.declared_in != crate::Symbol::name(self.state) {
            write!(f, " (in `{}`)", self.state)?;
        }
        write!(f, " came due at {} and no guard of its group held", self.due)
    }
}

/// The deadline `delay` after `now`, rounded up to the millisecond and at
/// least one later (a timer never fires before its delay has passed), the
/// latest timestamp if that is past it: the one deadline rule, used by
/// generated code and the dynamic engine alike.
#[doc(hidden)]
pub fn deadline(now: Timestamp, delay: core::time::Duration) -> Timestamp {
    let millis = delay.as_millis() + u128::from(!delay.subsec_nanos().is_multiple_of(1_000_000));
    let millis = u64::try_from(millis).unwrap_or(u64::MAX).max(1);
    Timestamp::from_unix_millis(now.unix_millis().saturating_add(millis)).unwrap_or(Timestamp::MAX)
}
