//! fsm-codegen's integration tests: one test binary, one module per topic.
//! Each test binary is linked on its own (about 16 s in CI), so the tests
//! share one. `build_script` stays a binary of its own: it sets `OUT_DIR` in
//! its process and runs its own binary again as a build script.

mod docs;
mod generated_files;
mod module_items;
mod render;
mod source_files;
