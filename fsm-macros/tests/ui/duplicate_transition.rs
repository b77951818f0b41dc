use fsm_runtime::fsm;

fsm! {
    machine Door {
        initial state closed {
            on open -> opened;
            on open -> opened;
        }
        terminal state opened;
    }
}

fn main() {}
