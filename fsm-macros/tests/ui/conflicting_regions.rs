// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    // conflicting-regions: both regions leave `connected` on `fail` at priority 0,
    // so when both can, the one written first wins. `close` is not reported: the
    // regions give it different priorities.
    machine Connection {
        initial state closed { on open -> connected; }
        state broken { on reset -> closed; }
        parallel state connected {
            state reading {
                initial state read_idle {
                    on data -> read_busy;
                    on fail -> broken;
                    on close priority 1 -> closed emit flush_reads;
                }
                state read_busy { on read_done -> read_idle; }
            }
            state writing {
                initial state write_idle {
                    on send -> write_busy;
                    on fail -> closed emit drop_writes;
                    on close -> closed;
                }
                state write_busy { on write_done -> write_idle; }
            }
        }
    }
}

fn main() {}
