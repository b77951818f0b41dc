// A machine with nested states builds without a warning under
// `deny(warnings)` and runs: `State` lists the leaves, `Composite` the
// composites, inherited transitions fire from every leaf inside, and
// `-> connected.history` goes back to the child last active.
#![deny(warnings, missing_docs)]
//! A phone call.

use fsm_runtime::fsm;

fsm! {
    /// A phone call.
    machine Call {
        /// Waiting.
        initial state idle { on dial -> connected; }
        /// The line is up.
        state connected {
            enter emit start_billing;
            exit emit stop_billing;
            on hang_up -> idle;
            on pause -> paused;
            /// Talking.
            initial state talking { on hold -> on_hold; }
            /// On hold.
            state on_hold {
                on resume -> talking;
                on hang_up -> idle emit log_abandoned;
            }
        }
        /// Paused.
        state paused { on resume -> connected.history; }
    }
}

fn main() {
    use call::{Action, Call, Composite, Output, State};
    let mut call = Call::new();
    let fired = call.fire(Action::Dial).expect("dials");
    assert_eq!((fired.to, fired.outputs), (State::Talking, &[Output::StartBilling][..]));
    assert!(call.is_in(Composite::Connected));
    assert_eq!(State::OnHold.parent(), Some(Composite::Connected));
    assert_eq!(call.valid_actions(), [Action::HangUp, Action::Pause, Action::Hold]);
    call.fire(Action::Hold).expect("holds");
    call.fire(Action::Pause).expect("pauses");
    assert_eq!(call.last_active(Composite::Connected), Some(State::OnHold));
    let fired = call.fire(Action::Resume).expect("resumes");
    assert_eq!(fired.to, State::OnHold);
    let fired = call.fire(Action::HangUp).expect("the child's own");
    assert_eq!(fired.outputs, [Output::StopBilling, Output::LogAbandoned]);
    let snapshot = call.snapshot();
    assert_eq!(snapshot.last_active().collect::<Vec<_>>(), [("connected", "on_hold")]);
    assert_eq!(Call::restore(&snapshot).expect("restores"), call);
}
