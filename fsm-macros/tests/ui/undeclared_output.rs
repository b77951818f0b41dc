use fsm_runtime::fsm;

fsm! {
    machine Door {
        output ring;
        initial state closed { on open -> opened emit ring, chime; }
        terminal state opened;
    }
}

fn main() {}
