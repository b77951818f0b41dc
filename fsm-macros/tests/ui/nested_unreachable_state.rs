// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail. Reachability is
// judged over leaves: a composite none of whose states can be reached is
// reported once, on its name, and not for each state inside it.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    machine Agent {
        initial state idle { on start -> working; }
        state working {
            on stop -> idle;
            initial state thinking { on act -> acting; }
            state acting { on done -> thinking; }
        }
        state orphan {
            initial state lost { on go -> idle; }
            state gone { on go -> lost; }
        }
    }
}

fn main() {}
