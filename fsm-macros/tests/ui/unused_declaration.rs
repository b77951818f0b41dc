// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    machine Door {
        action open, knock;
        initial state closed { on open -> opened; }
        terminal state opened;
    }
}

fn main() {}
