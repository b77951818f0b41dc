//! The guide's example of nested states (docs/nested-states.md) is this
//! test's body, so what users copy compiles and does what the guide says.

use crate::readme_common;

#[test]
fn readme_nested_states() {
    // README: nested states (from here to the end of this function)
    use fsm_runtime::Snapshot;

    fsm_runtime::fsm! {
        machine Call {
            initial state idle { on dial -> connecting; }
            state connecting { on answered -> connected; on busy -> idle; }

            /// Everything while the line is up.
            state connected {
                enter emit start_billing;
                exit emit stop_billing;
                on hang_up -> idle;             // inherited by every state inside
                on pause -> paused;

                initial state talking { on hold -> on_hold; }
                state on_hold {
                    on resume -> talking;
                    on hang_up -> idle emit log_abandoned;  // overrides `connected`'s
                }
            }
            state paused { on resume -> connected.history; }  // back where it was
        }
    }
    use call::{Action, Call, Composite, Output, State};

    let mut call = Call::new();
    call.fire(Action::Dial).unwrap();
    // Entering `connected` enters its initial child; `connected`'s hook runs.
    let fired = call.fire(Action::Answered).unwrap();
    assert_eq!(
        (fired.to, fired.outputs),
        (State::Talking, &[Output::StartBilling][..])
    );
    assert!(call.is_in(Composite::Connected));
    assert_eq!(State::OnHold.parent(), Some(Composite::Connected));
    // `talking` inherits `hang_up` and `pause` from `connected`.
    assert_eq!(
        call.valid_actions(),
        [Action::HangUp, Action::Pause, Action::Hold]
    );

    call.fire(Action::Hold).unwrap();
    call.fire(Action::Pause).unwrap();
    // The history memory is part of the machine's state, and of its snapshot.
    let snapshot: Snapshot = call.snapshot();
    assert_eq!(snapshot.current_state(), "paused");
    assert_eq!(
        snapshot.last_active().collect::<Vec<_>>(),
        [("connected", "on_hold")]
    );

    let mut restored = Call::restore(&snapshot).unwrap();
    let fired = restored.fire(Action::Resume).unwrap();
    assert_eq!(
        (fired.to, fired.outputs),
        (State::OnHold, &[Output::StartBilling][..])
    );
    // `on_hold` overrides the `hang_up` it would inherit.
    let fired = restored.fire(Action::HangUp).unwrap();
    assert_eq!(fired.outputs, [Output::StopBilling, Output::LogAbandoned]);
}

/// The README shows exactly the body above.
#[test]
fn the_readme_shows_this_example() {
    readme_common::assert_readme_shows(include_str!("readme_nested.rs"), "nested states", "Nested states");
}
