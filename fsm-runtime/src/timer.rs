//! What a machine's timers report, and the deadline rule.

use crate::machine::Machine;
use crate::state::MachineState;
use crate::timestamp::Timestamp;
use core::fmt;

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
    pub outputs: M::Outputs,
    /// True for an internal timer (`after 5s do tick;`, no target): no
    /// state was exited or entered, so no hook ran and no timer was
    /// re-armed. False for a timer with a target, one back to its own state
    /// included, which exits and re-enters (and re-arms). As
    /// [`Fired::internal`](crate::Fired::internal).
    pub internal: bool,
    /// What a history records as the timer's action: `after 30s`, or
    /// `after budget` for a named delay, as the dynamic engine records it.
    pub label: &'static str,
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
    TimerFired { from, to, declared_in, timer, due, outputs, internal, label }
    TimerRejected { state, declared_in, timer, due }
}

/// `` timer 0 of `call_tool` -> `fail` (emit `report_timeout`) ``, or with
/// nested states `` timer 0 of `connected` (in `talking`) -> `idle` ``.
impl<M: Machine> fmt::Display for TimerFired<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "timer {} of `{}`", self.timer, self.declared_in)?;
        if self.from.leaf().map(crate::Symbol::name) != Some(self.declared_in) {
            f.write_str(" (in ")?;
            crate::state::write_state(f, &self.from)?;
            f.write_str(")")?;
        }
        f.write_str(" -> ")?;
        crate::state::write_state(f, &self.to)?;
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
        if self.state.leaf().map(crate::Symbol::name) != Some(self.declared_in) {
            f.write_str(" (in ")?;
            crate::state::write_state(f, &self.state)?;
            f.write_str(")")?;
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
