use fsm_runtime::fsm;

fsm! {
    machine Door {
        guard has_key;
        initial state closed { on open [has_key || has_code] -> opened; }
        terminal state opened;
    }
}

fn main() {}
