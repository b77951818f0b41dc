//! The workspace-level tests that need no generated code: one test binary,
//! one module per file (each test binary is linked on its own, about 16 s in
//! CI). The differential test, which includes the machines `build.rs`
//! generates at its crate root, is a binary of its own.

mod docs;
mod fixtures;
mod generated_code;
mod properties;
mod runaway;
mod sequences;
