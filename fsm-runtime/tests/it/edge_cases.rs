//! Degenerate machines compile without warnings and work.

#![deny(warnings, missing_docs, rust_2018_idioms, unreachable_pub)]

include!("../generated/edge_cases.rs");

#[test]
fn idle_has_no_actions() {
    let idle = idle::Idle::new();
    assert_eq!(idle.state(), idle::State::Only);
    assert!(idle.valid_actions().is_empty());
    assert!(idle::Action::ALL.is_empty());
    assert!(idle::Output::ALL.is_empty());
    assert!(!idle.is_terminal());
    assert_eq!(idle.snapshot().current_state(), "only");
}

#[test]
fn sink_is_terminal_from_the_start() {
    let mut sink = sink::Sink::new();
    assert!(sink.is_terminal());
    struct Unasked;
    impl sink::Guards for Unasked {
        fn never_asked(&self) -> bool {
            unreachable!("no transition uses the guard")
        }
    }
    let error = sink.fire(sink::Action::Poke, &Unasked).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `poke` is not valid in state `done`: the state is terminal"
    );
}

#[test]
fn total_needs_no_fallback() {
    let mut total = total::Total::new();
    assert_eq!(total.fire(total::Action::Toggle).unwrap().to, total::State::Off);
    assert_eq!(total.fire(total::Action::Toggle).unwrap().to, total::State::On);
}

#[test]
fn acronyms_and_shared_prefixes() {
    use acronyms::{Acronyms, Action, State};
    let mut machine = Acronyms::new();
    assert_eq!(machine.state(), State::HTTPWaiting);
    machine.fire(Action::HTTPGo).unwrap();
    assert_eq!(machine.state().name(), "HTTP_sending");
}
