//! The build-script route as users take it: `build.rs` calls
//! `fsm_codegen::compile`, and the generated door is included with
//! `fsm_runtime::include_fsm!` into a private module, of which this crate
//! uses only a part. `#![deny(warnings)]` makes any warning the generated code
//! causes there (an unused `restore_with`, say) fail the build.

#![deny(warnings)]

// Macros named like those `include_fsm!` expands to, in scope where it is
// invoked: it must reach the real ones through `::core`.
#[allow(unused_macros)]
macro_rules! include {
    ($($t:tt)*) => {
        compile_error!("`include_fsm!` used the crate's own `include!`");
    };
}
#[allow(unused_macros)]
macro_rules! concat {
    ($($t:tt)*) => {
        compile_error!("`include_fsm!` used the crate's own `concat!`");
    };
}
#[allow(unused_macros)]
macro_rules! env {
    ($($t:tt)*) => {
        compile_error!("`include_fsm!` used the crate's own `env!`");
    };
}

mod machines {
    fsm_runtime::include_fsm!("door");
}

use fsm_runtime::Machine;
use machines::door::{Action, Door};

/// The fingerprint of `machines/door.fsm` as the build-script route generated it.
pub const DOOR_FINGERPRINT: &str = <Door as Machine>::FINGERPRINT;

/// The names of the states a door passes through when opened and closed.
pub fn open_and_close() -> Vec<&'static str> {
    let mut door = Door::new();
    let mut path = vec![door.state().name()];
    for action in [Action::Open, Action::Close] {
        let fired = door
            .fire(action, &NoKey)
            .unwrap_or_else(|error| panic!("{error}"));
        path.push(fired.to.name());
    }
    path
}

/// Guards for a caller without the key.
struct NoKey;

impl machines::door::Guards for NoKey {
    fn has_key(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fires_the_included_machine() {
        assert_eq!(super::open_and_close(), ["closed", "opened", "closed"]);
    }
}
