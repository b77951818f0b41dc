// An impl of the generated `Context` that lacks a method: rustc points at
// the `guard`/`effect` declaration the method comes from, and its help shows
// the signature to write.
use fsm_runtime::fsm;

fsm! {
    machine Counter {
        context Count;
        guard below_limit;
        effect bump;
        effect add(u32);
        action tick;
        action grow(u32);
        action stop;
        initial state counting {
            on tick [below_limit] -> counting do bump;
            on grow -> counting do add;
            on stop -> stopped;
        }
        terminal state stopped;
    }
}

// The same for the `Guards` trait of a machine without a context.
fsm! {
    machine Door {
        guard has_key;
        initial state closed { on lock [has_key] -> locked; }
        state locked { on unlock -> closed; }
    }
}

struct Keys;

impl door::Guards for Keys {}

struct Count(u32);

impl counter::Context for Count {
    fn below_limit(&self) -> bool {
        self.0 < 10
    }
}

fn main() {
    let _ = counter::Counter::new(Count(0));
    let _ = door::Door::new().can_fire(door::Action::Lock, &Keys);
}
