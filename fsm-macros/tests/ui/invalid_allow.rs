// Warnings are `deprecated` lints on the token; denied here because trybuild
// only compares the output of builds that fail.
#![deny(deprecated)]

use fsm_runtime::fsm;

fsm! {
    machine Door {
        initial state closed { on open -> opened; }
        #[allow(unreachable-sate)]
        terminal state opened;
    }
}

fn main() {}
