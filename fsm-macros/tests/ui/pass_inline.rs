// A clean machine compiles without a warning under `deny(warnings)` and runs.
// `//` comments like this one are dropped by rustc; the `///` docs below
// reach the generated code (`missing_docs` would fail otherwise).
#![deny(warnings, missing_docs)]
//! A door.

use fsm_runtime::fsm;

fsm! {
    /// A door with a lock.
    machine Door {
        guard has_key;
        output engage_bolt;

        /// Shut.
        initial state closed {
            on open -> opened;            // a comment rustc drops
            on lock [has_key] -> locked emit engage_bolt;
        }
        /// Open.
        state opened { on close -> closed; }
        /// Locked.
        state locked { on unlock -> closed; }
        /// Never entered.
        #[allow(unreachable-state)]
        state spare { on close -> closed; }
        /// Gone.
        terminal state removed;
        any { on remove -> removed; }
    }
}

struct Keys(bool);

impl door::Guards for Keys {
    fn has_key(&self) -> bool {
        self.0
    }
}

fn main() {
    let mut door = door::Door::new();
    assert_eq!(door.state(), door::State::Closed);
    assert!(door.fire(door::Action::Lock, &Keys(false)).is_err());
    let fired = door.fire(door::Action::Lock, &Keys(true)).expect("locks with a key");
    assert_eq!(fired.to, door::State::Locked);
    assert_eq!(fired.outputs, [door::Output::EngageBolt]);
    door.fire(door::Action::Unlock, &Keys(true)).expect("unlocks");
    door.fire(door::Action::Remove, &Keys(true)).expect("any applies");
    assert!(door.is_terminal());
}
