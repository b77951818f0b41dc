//! The stubs emitted next to the errors of a broken definition compile
//! without warnings and keep the machine's API, so code using the machine
//! raises no follow-on errors. They are never run.

#![deny(warnings, missing_docs, rust_2018_idioms, unreachable_pub)]

include!("../generated/broken.rs");

use fsm_runtime::{Fire, FireError, Fired, Machine, NoGuards, Snapshot};

/// Code a user would have written against the real machine.
#[allow(dead_code)]
fn use_broken<G: broken::Guards>(guards: &G) -> Result<Fired<broken::Broken>, FireError<broken::Broken>> {
    let mut machine = broken::Broken::new();
    let _: broken::State = machine.state();
    let _: bool = machine.can_fire(broken::Action::Stop, guards);
    let _: &'static [broken::Action] = machine.valid_actions();
    let _: Snapshot = machine.snapshot();
    machine.fire(broken::Action::Go, guards)
}

#[allow(dead_code)]
fn use_colliding() -> Result<Fired<colliding::Colliding>, FireError<colliding::Colliding>> {
    // The second of two colliding states is dropped; the first stays usable.
    colliding::Colliding::from_state(colliding::State::WaitingInput).fire(colliding::Action::Go)
}

#[allow(dead_code)]
fn use_sized(guards: &dyn sized::Guards) -> bool {
    // `Sized` is the machine; its methods still take unsized guards.
    sized::Sized::new().can_fire(sized::Action::Go, guards)
}

#[allow(dead_code)]
fn use_unparsed<M: Machine + Fire>(machine: &mut M, action: M::Event) -> bool {
    machine.fire(action, &NoGuards).is_ok()
}

#[test]
fn stubs_keep_the_names_and_signatures() {
    assert_eq!(broken::State::ALL, [broken::State::Idle, broken::State::Busy]);
    assert_eq!(<broken::Broken as Machine>::NAME, "Broken");
    assert_eq!(colliding::State::ALL.len(), 1);
    assert_eq!(unparsed::State::ALL.len(), 1, "a stub always has a state to hold");
    // Names that become the reserved `ALL` are left out.
    assert_eq!(sized::State::ALL, [sized::State::Open]);
    assert_eq!(sized::Action::ALL, [sized::Action::Close, sized::Action::Go]);
    assert!(sized::Output::ALL.is_empty());
    let _: fn(&mut unparsed::Unparsed, unparsed::Action) -> bool = use_unparsed::<unparsed::Unparsed>;
}

#[test]
#[should_panic(expected = "this machine's definition has errors")]
fn stub_methods_never_run() {
    let _ = broken::Broken::transition(broken::State::Idle, broken::Action::Go, &Ready);
}

struct Ready;

impl broken::Guards for Ready {
    fn ready(&self) -> bool {
        true
    }
}
