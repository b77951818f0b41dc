// A terminal state cannot have a timer either: the machine has ended there.
use fsm_runtime::fsm;

fsm! {
    machine Job {
        initial state running { on finish -> done; }
        terminal state done {
            enter emit report;
            after 10m -> running;
        }
    }
}

fn main() {}
