// A warning in a file is a `deprecated` lint on the path literal; denied here
// because trybuild only compares the output of builds that fail.
#![deny(deprecated)]

fsm_runtime::fsm!(file = "machines/door_dead_end.fsm");

fn main() {}
