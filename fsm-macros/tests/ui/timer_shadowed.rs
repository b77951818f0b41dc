use fsm_runtime::fsm;

fsm! {
    machine Call {
        initial state ringing { after 30s -> missed; after 1m -> missed; on answer -> ended; }
        terminal state missed;
        terminal state ended;
    }
}

fn main() {}
