// A misspelt path: the error suggests the file beside it, and the machines of
// that file are stubbed, so the code using them adds no error of its own
// (no `unresolved import door`).
use fsm_runtime::fsm;

fsm!(file = "machines/dor.fsm");

use door::{Action, Door};

fn main() {
    let mut door = Door::new();
    let _ = door.fire(Action::Open);
}
