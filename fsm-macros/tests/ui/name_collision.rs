use fsm_runtime::fsm;

fsm! {
    machine Door {
        initial state door_open { on close -> doorOpen; }
        terminal state doorOpen;
    }
}

fn main() {}
