use fsm_runtime::fsm;

fsm!(file = machines::door);

fsm!(file = b"machines/door.fsm");

fn main() {}
