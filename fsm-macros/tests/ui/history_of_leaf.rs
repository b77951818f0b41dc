use fsm_runtime::fsm;

fsm! {
    machine Player {
        initial state playing { on pause -> paused; }
        state paused { on resume -> playing.history; }
    }
}

fn main() {}
