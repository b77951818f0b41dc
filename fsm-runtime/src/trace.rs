//! The `tracing` feature: every transition and every rejection is logged.
//!
//! Generated code cannot see this crate's features, so the logging lives
//! here, in functions that [`Fire::fire`](crate::Fire::fire) calls. Without
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
            from = fired.from.name(),
            action = fired.action.name(),
            to = fired.to.name(),
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
            state = error.state().name(),
            action = error.action().name(),
            error = %error,
            "rejected"
        );
    }
    #[cfg(not(feature = "tracing"))]
    let _ = error;
}
