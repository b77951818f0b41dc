// A warning in a file is a lint on the path literal; denied here, as
// `-D warnings` does, because trybuild only compares the output of builds that fail.
#![deny(warnings)]

fsm_runtime::fsm!(file = "machines/door_dead_end.fsm");

fn main() {}
