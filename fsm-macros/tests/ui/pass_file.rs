// The file form: the path is relative to the crate root (`tests/ui.rs` puts
// the fixtures of `tests/ui/machines` there).
#![deny(warnings)]

fsm_runtime::fsm!(file = "machines/door.fsm");

fn main() {
    let mut door = door::Door::new();
    door.fire(door::Action::Open).expect("opens");
    door.fire(door::Action::Remove).expect("is removed");
    assert!(door.is_terminal());
}
