use fsm_runtime::fsm;

fsm! {
    machine Door {
        guard has_key;
        initial state closed { on open [true] -> opened; on lock [has_key] -> closed; }
        terminal state opened;
    }
}

fn main() {}
