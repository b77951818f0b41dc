use fsm_runtime::fsm;

fsm! {
    machine Call {
        initial state ringing { after 30sec -> missed; on answer -> talking; }
        state talking { after 0ms -> ended; }
        terminal state missed;
        terminal state ended;
    }
}

fn main() {}
