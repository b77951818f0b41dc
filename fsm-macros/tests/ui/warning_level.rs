// A warning of the definition is a warning at rustc's default level, not an
// error: this build fails only on the dead code denied below (trybuild compares
// the output of failing builds only), and `spare` shows as a warning.
#![deny(dead_code)]

fsm_runtime::fsm! {
    machine Door {
        initial state closed { on open -> opened; }
        state opened { on close -> closed; }
        state spare { on open -> opened; }
    }
}

fn never_called() {}

fn main() {
    assert_eq!(door::Door::new().state(), door::State::Closed);
}
