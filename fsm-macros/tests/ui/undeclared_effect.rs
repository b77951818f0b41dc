use fsm_runtime::fsm;

fsm! {
    machine Retry {
        context Attempts;
        effect count_attempt;
        initial state waiting { on fail -> waiting do count_attempt, log_failure; on done -> finished; }
        terminal state finished;
    }
}

fn main() {}
