// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    machine Door {
        initial state closed { on open -> opened; }
        state opened { on close -> closed; }
        never in(closed) && in(opened);
    }
}

fn main() {}
