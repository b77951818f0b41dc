// A machine that takes its guards per call is not `FireEvent`: the error says
// so, and says how it fires.

use fsm_runtime::FireEvent;

fsm_runtime::fsm! {
    machine Door {
        initial state closed { on lock [has_key] -> locked; }
        state locked { on unlock -> closed; }
    }
}

fn fire_one<M: FireEvent>(machine: &mut M, action: M::Event) -> bool {
    machine.fire(action).is_ok()
}

fn main() {
    fire_one(&mut door::Door::new(), door::Action::Lock);
}
