// A machine with parallel states does not implement the machine traits yet:
// the errors say so, and say what to call instead, rather than only that a
// bound is not satisfied.

use fsm_runtime::{FireEvent, Recorded};

fsm_runtime::fsm! {
    machine Split {
        initial parallel state both {
            state left { initial state l1 { on go -> l2; } state l2; }
            state right { initial state r1 { on go -> r2; } state r2; }
        }
    }
}

fn fire_one<M: FireEvent>(machine: &mut M, action: M::Event) -> bool {
    machine.fire(action).is_ok()
}

fn main() {
    fire_one(&mut split::Split::new(), split::Action::Go);
    let _ = Recorded::new(split::Split::new());
}
