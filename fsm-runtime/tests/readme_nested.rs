//! The README's "Nested states" example is this test's body, so what users
//! copy compiles and does what the README says.

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
    let test = include_str!("readme_nested.rs");
    let body = test
        .split("    // README: nested states (from here to the end of this function)\n")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .expect("the marked body");
    let shown: String = body
        .lines()
        .map(|line| line.strip_prefix("    ").unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n");
    let readme = include_str!("../../README.md");
    let section = readme
        .split("\n## Nested states\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the README has a section `## Nested states`");
    let block = section
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("the section shows a Rust block");
    assert_eq!(block, shown);
}
