//! A multi-agent research pipeline on a fleet: many runs at once, in one
//! database, driven by any number of orchestrator processes, each of which
//! may be killed with `kill -9` at any moment.
//!
//! - **A run is a fleet instance** of the `Pipeline` machine
//!   (`examples/pipeline.fsm`, [`machines`]): its context holds the run's
//!   definition from `workflows.json` ([`workflow`]), the current phase and
//!   the agents done. [`runs::start`] creates runs; the fleet keeps them
//!   ([`fsm_fleet::Fleet`], SQLite by default).
//! - **Orchestrators** ([`orchestrator`]) share nothing but the database:
//!   each steps the runs that are due (the agents' reports, the runs' time
//!   limits) and performs the outputs it claims from the fleet's outbox:
//!   starting agents, delivering the result, telling the user of a failure.
//!   Every step and its outputs are saved in one transaction, so a killed
//!   orchestrator loses nothing, and an output it claimed is claimed again
//!   once its lease runs out.
//! - **Handlers are idempotent by what they make**: an agent is started only
//!   if none ever started for its role ([`session`]: a lock the agent holds
//!   while it runs, and a start marker it writes under that lock), and the
//!   result is delivered by creating `final.md` with a hard link, which never
//!   replaces a file ([`atomic_file`]). A repeated output therefore starts no
//!   agent twice and delivers nothing twice.
//! - **Agents report once** ([`agent`]): an agent is its own process, which
//!   writes its output and exits; it never opens the fleet, so the database
//!   sees one connection per orchestrator however many agents run. An
//!   orchestrator reports each agent that exited: `agent_done` if its output
//!   exists, else `agent_failed`, with a deduplication key derived from the
//!   key of the output that started it. The orchestrator that started it
//!   reports it while it lives (it saw the exit status, which becomes the
//!   cause in the run's `failure.md`); any other does once that one is gone
//!   ([`session::Presence`]). The fleet accepts a key once.
//! - **Bounded**: each orchestrator runs at most `--max-agents` agents at
//!   once (16 unless told otherwise); a phase that finds no room waits.
//!
//! ```text
//! pipeline start --dir DIR --count 10     # ten runs of `research`
//! pipeline run --dir DIR --workers 3      # three orchestrators, until all are finished
//!                                         # and the outbox holds nothing to perform
//! pipeline status --dir DIR               # the runs, as JSON
//! ```

pub mod agent;
pub mod atomic_file;
pub mod error;
pub mod machines;
pub mod orchestrator;
pub mod runs;
pub mod session;
pub mod workflow;

pub use error::Error;

/// The built-in `workflows.json` (one `research` pipeline: two researchers
/// in parallel, then a synthesizer), used unless `--workflows` names another.
pub const WORKFLOWS: &str = include_str!("../workflows.json");
