// A machine with guards is not `Unguarded`: the error says so, and says how
// it fires.

use fsm_runtime::Unguarded;

fsm_runtime::fsm! {
    machine Door {
        initial state closed { on lock [has_key] -> locked; }
        state locked { on unlock -> closed; }
    }
}

fn fire_one<M: Unguarded>(machine: &mut M, action: M::Action) -> bool {
    machine.fire(action).is_ok()
}

fn main() {
    fire_one(&mut door::Door::new(), door::Action::Lock);
}
