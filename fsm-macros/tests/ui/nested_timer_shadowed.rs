// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail. A composite's timer
// is armed when it is entered, at or before any state inside it: its shorter
// timer leaving it always fires before the longer one of `thinking`.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    machine Agent {
        initial state idle { on start -> working; }
        state working {
            on stop -> idle;
            after 5m -> failed;
            initial state thinking { on act -> acting; after 10m -> acting; }
            state acting { on done -> thinking; }
        }
        terminal state failed;
    }
}

fn main() {}
