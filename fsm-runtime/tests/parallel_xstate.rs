//! Generated code on the three classes of bugs XState's tracker shows for
//! parallel states, the cases `fsm-dynamic/tests/parallel.rs` holds the
//! dynamic engine to: a transition on the parallel state into one region
//! keeps the others (xstate#5214), history of a parallel state restores
//! every region and falls back to the default entry before the first visit
//! (xstate#3170, #4900, PR #5589), and `done` of a nested parallel state
//! bubbles up (xstate#2349, #4381).

fsm_runtime::fsm! {
    #[allow(dead-end, no-path-to-terminal)]
    machine Reset {
        initial state idle { on go -> p; }
        parallel state p {
            on reset_a -> a1;
            state a { initial state a1 { on x -> a2; } state a2; }
            state b { initial state b1 { on y -> b2; } state b2; }
        }
    }
}

fsm_runtime::fsm! {
    #[allow(dead-end, no-path-to-terminal)]
    machine Remember {
        initial state idle { on go -> p.deep_history; on shallow -> p.history; }
        parallel state p {
            on out -> idle;
            state a { initial state a1 { on x -> a2; } state a2; }
            state b { initial state b1 { on y -> b2; } state b2; }
        }
    }
}

fsm_runtime::fsm! {
    #[allow(dead-end, no-path-to-terminal)]
    machine Bubble {
        initial state idle { on go -> outer; }
        parallel state outer {
            done -> finished emit all_done;
            parallel state inner {
                state a { initial state a1 { on x -> a2; } final state a2; }
                state b { initial state b1 { on x -> b2; } final state b2; }
            }
            state c { initial state c1 { on y -> c2; } final state c2; }
        }
        state finished;
    }
}

#[test]
fn a_transition_on_the_parallel_state_into_one_region_keeps_the_others() {
    use reset::{Action, Reset, State};
    let mut machine = Reset::new();
    for action in [Action::Go, Action::X, Action::Y] {
        machine.fire(action).unwrap();
    }
    let fired = machine.fire(Action::ResetA).unwrap();
    assert_eq!(machine.leaves().collect::<Vec<_>>(), [State::A1, State::B2]);
    assert_eq!(fired.taken.len(), 1);
    assert!(!fired.internal);
}

#[test]
fn history_of_a_parallel_state_restores_every_region() {
    use remember::{Action, Remember, State};
    let mut machine = Remember::new();
    machine.fire(Action::Go).unwrap();
    assert_eq!(
        machine.leaves().collect::<Vec<_>>(),
        [State::A1, State::B1],
        "never visited: the default entry"
    );
    for action in [Action::X, Action::Y, Action::Out, Action::Go] {
        machine.fire(action).unwrap();
    }
    assert_eq!(machine.leaves().collect::<Vec<_>>(), [State::A2, State::B2]);
    machine.fire(Action::Out).unwrap();
    machine.fire(Action::Shallow).unwrap();
    assert_eq!(machine.leaves().collect::<Vec<_>>(), [State::A1, State::B1]);
}

#[test]
fn done_of_a_nested_parallel_state_bubbles_up() {
    use bubble::{Action, Bubble, Output, State};
    let mut machine = Bubble::new();
    machine.fire(Action::Go).unwrap();
    let fired = machine.fire(Action::X).unwrap();
    assert!(fired.outputs.is_empty(), "`inner` is done, `c` is not");
    assert_eq!(
        machine.leaves().collect::<Vec<_>>(),
        [State::A2, State::B2, State::C1]
    );
    let fired = machine.fire(Action::Y).unwrap();
    assert_eq!(fired.outputs[..], [Output::AllDone]);
    assert_eq!(machine.leaves().collect::<Vec<_>>(), [State::Finished]);
}
