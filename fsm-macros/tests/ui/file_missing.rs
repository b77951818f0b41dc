use fsm_runtime::fsm;

fsm!(file = "machines/no_such_machine.fsm");

fn main() {}
