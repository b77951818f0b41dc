use fsm_runtime::fsm;

fsm! {
    machine Door {
        guard has_key;
        initial state closed {
            on open -> opened;
            on open [has_key] -> opened;
        }
        terminal state opened;
    }
}

fn main() {}
