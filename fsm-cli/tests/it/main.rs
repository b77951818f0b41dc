//! The integration tests of `fsmc`, one binary: each file a module, run
//! against the `fsmc` this package builds (see `harness`).

mod harness;

mod build;
mod cli;
mod fleet;
mod history;
mod inspect;
mod inspect_live;
mod interchange;
mod lsp;
mod run;
mod source_files;
mod testing;
mod texts;
mod verify;
