// A machine without guards fires as `fire(action)` inherently and, in
// generic code, through `FireEvent`; one with guards as `fire(action, &g)`.
// Both traits are imported, and no call is ambiguous.
#![deny(warnings)]

use fsm_runtime::{Fire, FireEvent, NoGuards};

fsm_runtime::fsm! {
    machine Turnstile {
        initial state locked { on coin -> unlocked; }
        state unlocked { on push -> locked; }
    }
}

fsm_runtime::fsm! {
    machine Door {
        initial state closed { on lock [has_key] -> locked; }
        state locked { on unlock -> closed; }
    }
}

struct Keys;

impl door::Guards for Keys {
    fn has_key(&self) -> bool {
        true
    }
}

fn unguarded<M: FireEvent>(machine: &mut M, event: M::Event) -> bool {
    machine.can_fire(&event) && machine.fire(event).is_ok()
}

fn guarded<M: Fire<G>, G: ?Sized>(machine: &mut M, event: M::Event, guards: &G) -> bool {
    machine.can_fire(&event, guards) && machine.fire(event, guards).is_ok()
}

fn main() {
    use turnstile::{Action, State, Turnstile};
    let mut gate = Turnstile::new();
    assert!(gate.fire(Action::Coin).is_ok());
    assert!((&mut gate).fire(Action::Push).is_ok());
    assert!(unguarded(&mut gate, Action::Coin));
    assert!(guarded(&mut gate, Action::Push, &NoGuards));
    assert_eq!(
        Turnstile::transition(State::Locked, Action::Coin).map(|f| f.to),
        Ok(State::Unlocked)
    );
    assert_eq!(gate.state(), State::Locked);

    let mut door = door::Door::new();
    assert!(door.fire(door::Action::Lock, &Keys).is_ok());
    assert!(guarded(&mut door, door::Action::Unlock, &Keys));
    assert_eq!(door.state(), door::State::Closed);
}
