use fsm_runtime::fsm;

fsm! {
    // Only a comment: rustc drops it, and nothing is left.
}

fn main() {}
