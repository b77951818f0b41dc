//! The one-liner of the build-script route, exactly as docs/rust.md shows it
//! (`tests/readme.rs` holds the two to each other).

fn main() {
    fsm_codegen::compile_or_exit(&["machines/door.fsm"]);
}
