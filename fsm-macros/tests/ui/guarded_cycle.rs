// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    // guarded-cycle: `always` transitions that can follow each other round a
    // cycle while their guard holds; one `fire` stops after 1,000 microsteps.
    machine Poll {
        initial state idle { on go -> checking; }
        state checking { always [busy] -> waiting; always -> finished; }
        state waiting { always [busy] -> checking; }
        terminal state finished;
    }
}

fn main() {}
