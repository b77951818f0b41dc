//! A fleet of fsmc machines: many instances of generated machines kept in
//! one database, and stepped by any number of worker processes, which share
//! nothing but the database.
//!
//! - **Instances** ([`Fleet::create`]): each row holds the machine's
//!   snapshot (context, deadlines, history memory, recent history), a
//!   version and its *next wake*, the earliest armed deadline. Timers start
//!   at creation (see [`Fleet::create`] for starting one later).
//! - **Events** ([`Fleet::send`], [`Fleet::send_batch`], or [`send`] inside
//!   the caller's own transaction): appended to the instance's inbox, and
//!   nothing else written, so a sender never waits for a worker; a repeated
//!   deduplication key is accepted once, so at-least-once senders are safe.
//!   Those take any value that serializes (JSON from other languages);
//!   [`Fleet::send_to`], [`Fleet::send_batch_to`] and [`send_to`] take only
//!   a machine's events, and refuse an instance of another machine. Ids and
//!   keys are bounded alike on both backends ([`MAX_INSTANCE_ID_BYTES`],
//!   [`MAX_DEDUP_KEY_BYTES`]).
//! - **Workers** ([`Fleet::work`]): take the instances whose next wake has
//!   passed or that have events waiting and, in one transaction each batch,
//!   consume their events in
//!   order (per sender), fire their due timers at their original deadlines, save the
//!   snapshot with a version check, re-arm the next wake and write every
//!   output to the outbox. A worker killed at any moment leaves each
//!   instance before or after a whole step, never between.
//! - **The outbox** ([`Fleet::claim_outputs`]): every output with its
//!   idempotency key, `instance/step/index`; handlers claim, perform and
//!   mark them done, with retries and backoff, one at a time or a batch in
//!   one transaction ([`Fleet::outputs_done`], [`Fleet::outputs_failed`]).
//!   Delivery is at least once, in order per instance.
//! - **Retention** ([`Fleet::prune`]): nothing is deleted until a prune's
//!   rules say so ([`Prune`]: events consumed, outputs done, instances
//!   finished, dead rows, each older than an age), in bounded batches. An
//!   event's row is its deduplication key's memory: once pruned, a repeat
//!   of the key is accepted again.
//!
//! Two backends hold the same tables and run the same statements:
//! - **SQLite** ([`Fleet::open`]), compiled in: one file holds a fleet on
//!   one machine, and several processes share it;
//! - **PostgreSQL** ([`Fleet::connect`], the `postgres` feature): workers on
//!   any number of machines claim disjoint batches (`FOR UPDATE SKIP
//!   LOCKED`).
//!
//! The schema is created and checked when a fleet is opened, and versioned
//! ([`SCHEMA_VERSION`]).
//!
//! ```
//! use fsm_fleet::{Fleet, Machines, Sent};
//!
//! fsm_runtime::fsm! {
//!     machine Order {
//!         initial state placed { on pay -> paid emit charge; }
//!         terminal state paid;
//!     }
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let mut fleet = Fleet::open(dir.path().join("fleet.db"))?;
//! fleet.create("order-17", order::Order::new())?;
//! assert_eq!(fleet.send("order-17", &order::Action::Pay, "pay-1")?, Sent::Accepted);
//! assert_eq!(fleet.send("order-17", &order::Action::Pay, "pay-1")?, Sent::Duplicate);
//!
//! let machines = Machines::new().with::<order::Order>();
//! let worked = fleet.work(&machines, 100)?;
//! assert_eq!((worked.instances, worked.events, worked.outputs), (1, 1, 1));
//! assert_eq!(fleet.instance("order-17")?.unwrap().state, "paid");
//!
//! let claimed = fleet.claim_outputs(10, std::time::Duration::from_secs(30))?;
//! assert_eq!((claimed[0].key.as_str(), claimed[0].output.as_str()), ("order-17/0/0", "charge"));
//! assert!(fleet.output_done(&claimed[0])?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// Without the `postgres` feature, `Fleet::connect` does not exist: its links
// go to these docs, which say what the feature adds.
#![cfg_attr(not(feature = "postgres"), doc = "\n[`Fleet::connect`]: crate")]

mod db;
mod error;
mod fleet;
pub mod inspect;
mod machines;
mod prune;
mod schema;
mod stored;
mod worker;

pub use db::{Client, DatabaseError};
pub use error::FleetError;
pub use fleet::{
    send, send_to, ClaimedOutput, Failed, Fleet, Instance, Parked, Sent, Worked, MAX_DEDUP_KEY_BYTES,
    MAX_INSTANCE_ID_BYTES,
};
pub use machines::Machines;
pub use prune::{Prune, Pruned, TerminalStates, PRUNE_BATCH};
pub use schema::SCHEMA_VERSION;
#[doc(hidden)]
pub use worker::{timers_claim_settings, timers_claim_statement};
