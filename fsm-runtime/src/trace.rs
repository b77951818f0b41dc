//! The `tracing` feature: every transition and every rejection is logged.
//!
//! Generated code cannot see this crate's features, so the logging lives
//! here, in functions that generated `fire`s call. Without
//! the feature their bodies are empty and inlined away.

use crate::fire_error::FireError;
use crate::fired::Fired;
use crate::machine::Machine;

/// Log a transition at `DEBUG`: machine, from, action, to.
#[inline]
pub(crate) fn fired<M: Machine>(fired: &Fired<M>) {
    #[cfg(feature = "tracing")]
    {
        use crate::symbol::Symbol;
        tracing::debug!(
            target: "fsm_runtime",
            machine = M::NAME,
            from = %fired.from,
            action = fired.action.name(),
            to = %fired.to,
            outputs = fired.outputs.len(),
            "transition"
        );
    }
    #[cfg(not(feature = "tracing"))]
    let _ = fired;
}

/// Log a rejected action at `DEBUG`: machine, state, action, and why.
#[inline]
pub(crate) fn rejected<M: Machine>(error: &FireError<M>) {
    #[cfg(feature = "tracing")]
    {
        use crate::symbol::Symbol;
        tracing::debug!(
            target: "fsm_runtime",
            machine = M::NAME,
            state = %error.state(),
            action = error.action().name(),
            error = %error,
            "rejected"
        );
    }
    #[cfg(not(feature = "tracing"))]
    let _ = error;
}

/// What generated code logs after a firing, through one call whatever the
/// result's type: `__fsm::Traced::trace(&result)`. Without the `tracing`
/// feature it is empty and inlined away.
#[doc(hidden)]
pub trait Traced {
    /// Log the result at `DEBUG`.
    fn trace(&self);
}

impl<M: Machine> Traced for Result<Fired<M>, FireError<M>> {
    #[inline]
    fn trace(&self) {
        match self {
            Ok(f) => fired(f),
            Err(e) => rejected(e),
        }
    }
}

impl<M: Machine> Traced for Option<Result<crate::timer::TimerFired<M>, crate::timer::TimerRejected<M>>> {
    /// A timer that fired, or a group none of whose guards held; nothing
    /// when no timer was due.
    #[inline]
    fn trace(&self) {
        #[cfg(feature = "tracing")]
        {
            match self {
                Some(Ok(f)) => tracing::debug!(
                    target: "fsm_runtime",
                    machine = M::NAME,
                    from = %f.from,
                    declared_in = f.declared_in,
                    timer = f.timer,
                    to = %f.to,
                    outputs = f.outputs.len(),
                    "timer"
                ),
                Some(Err(r)) => tracing::debug!(
                    target: "fsm_runtime",
                    machine = M::NAME,
                    state = %r.state,
                    declared_in = r.declared_in,
                    timer = r.timer,
                    "timer rejected"
                ),
                None => {}
            }
        }
    }
}
