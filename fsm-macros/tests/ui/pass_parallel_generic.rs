// A machine with parallel states is a machine like any other: generic code
// over `FireEvent`, and `Recorded`, take it as they take every machine.
#![deny(warnings)]

use fsm_runtime::{FireEvent, Recorded};

fsm_runtime::fsm! {
    #[allow(dead-end)]
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
    assert!(fire_one(&mut split::Split::new(), split::Action::Go));
    let mut recorded = Recorded::new(split::Split::new());
    let fired = recorded.fire(split::Action::Go).expect("both regions take `go`");
    assert_eq!(fired.to.to_string(), "l2, r2");
    assert_eq!(recorded.history().len(), 1);
}
