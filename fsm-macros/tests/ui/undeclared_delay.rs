use fsm_runtime::fsm;

fsm! {
    machine Retry {
        context Attempts;
        delay backoff;
        initial state waiting { after backof -> trying; on done -> finished; }
        state trying { on fail -> waiting; }
        terminal state finished;
    }
}

fn main() {}
