//! The quickstart: define a machine inline, fire two actions, print what each
//! transition asks the caller to do. Run it with `cargo run -p quickstart`.

fsm_runtime::fsm! {
    machine Door {
        initial state closed { on open -> opened emit light_on; }
        state opened { on close -> closed emit light_off; }
    }
}

fn main() -> Result<(), door::FireError> {
    let mut door = door::Door::new();
    for action in [door::Action::Open, door::Action::Close] {
        let fired = door.fire(action)?;
        println!("{fired}");
    }
    Ok(())
}
