use fsm_runtime::fsm;

fsm! {
    machine Retry {
        effect count_attempt;
        initial state waiting { on fail -> waiting do count_attempt; on done -> finished; }
        terminal state finished;
    }
}

fn main() {}
