//! The `tracing` feature for the dynamic engine: the same events, with the
//! same fields, as generated machines log (see `fsm-runtime`'s `trace` module).

use super::fire_error::FireError;
use super::fired::{Fired, FiredTimer};
use super::timer_rejected::TimerRejected;

/// Log a transition at `DEBUG`: machine, from, action, to, outputs.
#[inline]
pub(crate) fn fired(fired: &Fired<'_>) {
    #[cfg(feature = "tracing")]
    tracing::debug!(
        target: "fsm_runtime",
        machine = fired.definition().name(),
        from = fired.from_name(),
        action = fired.action_name(),
        to = fired.to_name(),
        outputs = fired.outputs.len(),
        "transition"
    );
    #[cfg(not(feature = "tracing"))]
    let _ = fired;
}

/// Log a timer's transition at `DEBUG`: machine, from, timer (its delay),
/// the state declaring it, to, outputs.
#[inline]
pub(crate) fn fired_timer(fired: &FiredTimer<'_>) {
    #[cfg(feature = "tracing")]
    tracing::debug!(
        target: "fsm_runtime",
        machine = fired.definition().name(),
        from = fired.from_name(),
        timer = %fired.delay_text(),
        declared_in = fired.declared_in_name(),
        to = fired.to_name(),
        outputs = fired.outputs.len(),
        "timer"
    );
    #[cfg(feature = "tracing")]
    if fired.ran_away() {
        tracing::warn!(
            target: "fsm_runtime",
            machine = fired.definition().name(),
            timer = %fired.delay_text(),
            declared_in = fired.declared_in_name(),
            "runaway: the always and done transitions after the timer did not settle"
        );
    }
    #[cfg(not(feature = "tracing"))]
    let _ = fired;
}

/// Log a timer group that came due with no guard holding at `DEBUG`:
/// machine, state, the state declaring it, timer, as generated machines do.
#[inline]
pub(crate) fn timer_rejected(rejected: &TimerRejected<'_>) {
    #[cfg(feature = "tracing")]
    tracing::debug!(
        target: "fsm_runtime",
        machine = rejected.definition().name(),
        state = rejected.state_name(),
        declared_in = rejected.declared_in_name(),
        timer = rejected.timer,
        "timer rejected"
    );
    #[cfg(not(feature = "tracing"))]
    let _ = rejected;
}

/// Log a rejected action at `DEBUG`: machine, state, action, and why. An
/// unknown action is refused before the state is read, and is logged
/// without one.
#[inline]
pub(crate) fn rejected(error: &FireError) {
    #[cfg(feature = "tracing")]
    match error {
        FireError::UnknownAction(e) => tracing::debug!(
            target: "fsm_runtime",
            machine = e.definition.name(),
            action = e.action(),
            error = %error,
            "rejected"
        ),
        FireError::InvalidTransition(super::fire_error::InvalidTransition {
            state,
            action,
            definition,
            ..
        })
        | FireError::GuardRejected(super::fire_error::GuardRejected {
            state,
            action,
            definition,
            ..
        }) => tracing::debug!(
            target: "fsm_runtime",
            machine = definition.name(),
            state = definition.state_name(*state),
            action = definition.action_name(*action),
            error = %error,
            "rejected"
        ),
        FireError::Runaway(e) => tracing::warn!(
            target: "fsm_runtime",
            machine = e.definition.name(),
            action = e.definition.action_name(e.action),
            error = %error,
            "runaway"
        ),
    }
    #[cfg(not(feature = "tracing"))]
    let _ = error;
}
