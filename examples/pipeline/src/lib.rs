//! A multi-agent research pipeline, built so that it survives `kill -9`.
//!
//! A pipeline whose workers update a shared `status.json` themselves loses
//! updates: two workers finish at once, both rewrite `status.json`, one
//! completion vanishes, and the pipeline then stalls silently until a
//! timeout. The fix has these parts, each a piece of this crate:
//!
//! - **one writer**: only the [orchestrator] writes statuses, and every
//!   write is a compare-and-swap through a [`FileStore`](fsm_store::FileStore)
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
//! The definition comes from `workflows.json`, the pipelines with their
//! phases and each phase's workers ([`workflow`]); a run lives in one
//! directory ([`run_dir`]).
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

/// The built-in `workflows.json` (one `research` pipeline: two researchers
/// in parallel, then a synthesizer), used unless `--workflows` names another.
pub const WORKFLOWS: &str = include_str!("../workflows.json");
