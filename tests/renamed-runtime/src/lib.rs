//! `fsm!` through a renamed dependency: this crate knows the runtime only as
//! `rt`, so `::fsm_runtime` does not resolve here, and the generated code
//! must name the runtime the way the macro was reached (`$crate`).

#![deny(warnings)]

rt::fsm! {
    /// A switch.
    machine Switch {
        initial state off { on flip -> on emit light; }
        state on { on flip -> off emit dark; }
    }
}

mod file {
    // The file form, in a private module, using part of the API.
    rt::fsm!(file = "../build-script/machines/door.fsm");
}

/// The outputs of flipping a switch twice.
pub fn flip_twice() -> Vec<switch::Output> {
    let mut switch = switch::Switch::new();
    let mut outputs = Vec::new();
    for _ in 0..2 {
        let fired = switch
            .fire(switch::Action::Flip)
            .unwrap_or_else(|error| panic!("{error}"));
        outputs.extend_from_slice(fired.outputs);
    }
    outputs
}

/// Whether a door opens.
pub fn door_opens() -> bool {
    struct NoKey;
    impl file::door::Guards for NoKey {
        fn has_key(&self) -> bool {
            false
        }
    }
    file::door::Door::new().can_fire(file::door::Action::Open, &NoKey)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_machines_work_through_the_renamed_runtime() {
        use super::switch::Output;
        assert_eq!(super::flip_twice(), [Output::Light, Output::Dark]);
        assert!(super::door_opens());
    }
}
