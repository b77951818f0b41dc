// Errors in a file: each is shown on the path literal, with its place in the
// file and the source lines. (trybuild normalizes message lines that look like
// rustc's own `-->` and `N |` lines, so in the `.stderr` some lose their
// indentation; rustc indents every line of a message alike.)
fsm_runtime::fsm!(file = "machines/door_typo.fsm");

fn main() {
    // The stub keeps this from adding errors of its own.
    let _door = door::Door::new();
}
