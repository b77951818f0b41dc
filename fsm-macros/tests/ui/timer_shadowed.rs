// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail. The machine itself
// generates: the only diagnostic is the warning on the shadowed timer.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    machine Call {
        initial state ringing { after 30s -> missed; after 1m -> missed; on answer -> ended; }
        terminal state missed;
        terminal state ended;
    }
}

fn main() {}
