// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail. A leaf counts the
// transitions it inherits: `acting` leaves by `working`'s `quit`, but nothing
// leads out of `queued` or the state holding it.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    machine Agent {
        initial state idle { on start -> working; }
        state working {
            on quit -> idle;
            initial state thinking { on act -> acting; on ask -> waiting; }
            state acting;
        }
        state waiting {
            initial state queued;
        }
    }
}

fn main() {}
