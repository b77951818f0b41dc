// With `module = self` a definition holds one machine: a second one would
// define a second `State` in the same module. The error is on its name, and
// the first machine is still generated, so code that uses it builds.
mod pair {
    fsm_runtime::fsm! {
        module = self;
        machine Door { initial state closed { on open -> opened; } state opened; }
        machine Lamp { initial state off { on switch -> on; } state on; }
    }
}

fn main() {
    let _ = pair::Door::new();
}
