use fsm_runtime::fsm;

fsm! {
    machine Door {
        initial state closed { on open -> opened }
        terminal state opened;
    }
}

fn main() {
    // The machine is stubbed by its name, so this adds no error of its own.
    let _door = door::Door::new();
}
