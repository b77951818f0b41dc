use fsm_runtime::fsm;

fsm! {
    machine Job {
        initial state queued { on start -> running; }
        terminal state running {
            initial state working { on finish -> done; }
            terminal state done;
        }
    }
}

fn main() {}
