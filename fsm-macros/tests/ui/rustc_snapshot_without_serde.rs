// A machine with a context snapshots its context as JSON, which needs
// `fsm-runtime`'s `serde` feature: without it (as here) a call to `snapshot`
// or `restore` fails on a bound whose message names the feature, not with
// "no method named `snapshot`" and the advice to implement `Machine`.
use fsm_runtime::fsm;

fsm! {
    machine Counter {
        context Count;
        effect bump;
        initial state counting { on tick -> counting do bump; on stop -> stopped; }
        terminal state stopped;
    }
}

struct Count(u32);

impl counter::Context for Count {
    fn bump(&mut self) {
        self.0 += 1;
    }
}

fn main() {
    let machine = counter::Counter::new(Count(0));
    let snapshot = machine.snapshot().unwrap();
    let _ = counter::Counter::restore(&snapshot);
}
