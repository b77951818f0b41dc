//! The research pipeline of seed 001, rebuilt so that it survives `kill -9`.
//!
//! The seed's first pipeline lost updates: two workers finished at once, both
//! rewrote `status.json`, and one completion vanished, and the pipeline then
//! stalled silently until a timeout. Its fix has these parts, each a piece
//! of this crate:
//!
//! - **one writer**: only the [orchestrator] writes statuses, and every
//!   write is a compare-and-swap through a [`FileStore`](fsm_runtime::store::FileStore)
//!   ([`status`]), so even a second orchestrator cannot overwrite an update
//!   it has not seen;
//! - **state outside the process**: the statuses are machines from
//!   `.fsm` files ([`machines`]), stored after every transition; workers are
//!   separate processes ([`worker`]) whose liveness is a lock they hold
//!   ([`session`]);
//! - **reconciliation on every trigger**: the orchestrator keeps nothing in
//!   memory between triggers: it reloads, reconciles, and consults the
//!   [decision table](decision);
//! - **completion from files that exist**: a worker is done when its output
//!   file exists, and outputs appear whole ([`atomic_file`]).
//! - **failures surface at once**: a worker that exits without its output
//!   fails its phase at the next trigger, not at the phase's timeout, and the
//!   workers of a failed phase are killed ([`session::kill`]); the user is
//!   told, nothing is retried.
//!
//! The definition comes from `workflows.json` in the seed's shape
//! ([`workflow`]); a run lives in one directory ([`run_dir`]).
//!
//! `cargo run -p pipeline -- --dir DIR` runs the pipeline; running the same
//! command again, after any crash, resumes it.

pub mod atomic_file;
pub mod decision;
pub mod error;
pub mod machines;
pub mod orchestrator;
pub mod run_dir;
pub mod session;
pub mod status;
pub mod worker;
pub mod workflow;

pub use error::Error;

/// The seed's `workflows.json`, used unless `--workflows` names another.
pub const WORKFLOWS: &str = include_str!("../workflows.json");
