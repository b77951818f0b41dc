// A machine with a warning (`spare` is unreachable) still builds: warnings are
// `deprecated` lints, not errors.

fsm_runtime::fsm! {
    machine Door {
        initial state closed { on open -> opened; }
        state opened { on close -> closed; }
        state spare { on open -> opened; }
    }
}

fn main() {
    assert_eq!(door::Door::new().state(), door::State::Closed);
}
