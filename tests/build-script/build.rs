//! The one-liner of the build-script route, exactly as the docs show it.

fn main() {
    fsm_codegen::compile(&["machines/door.fsm"]).unwrap_or_else(|error| panic!("{error}"));
}
