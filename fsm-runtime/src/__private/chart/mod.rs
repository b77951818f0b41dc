//! Steps over configurations, from tables: the semantics of parallel
//! states, `done`, `always` and `in(...)` (W3C SCXML 1.0 Appendix D with
//! fsmc's differences, docs/dsl.md "How a step runs"), laid out by the plan
//! as a [`Chart`] and run here without allocating, for every engine: the
//! one implementation of these rules, which `tests/differential` holds to
//! an independent SCXML reference.
//!
//! A configuration is a [`Bits`] set of state ids. Ids are in document order
//! (a parent before its children, siblings as written), so the states
//! inside a state are one contiguous range of ids, and what a transition
//! exits is the active part of one range ([`Transition::exits`]): exit sets,
//! conflicts and entry order are a few word operations.
//!
//! The engine answers for guards, runs effects, collects outputs and keeps
//! timers through [`Host`]; the chart decides which transitions a step takes
//! ([`select`], [`remove_conflicts`]), what it exits and enters, in which
//! order, and what it remembers ([`microstep`]), and what follows it
//! ([`settle`]).

mod bits;
mod configuration;
mod fast;
#[cfg(feature = "alloc")]
mod restore;
mod step;
mod tables;
mod timers;

pub use crate::list::Inline;
pub use bits::{Bits, Iter};
pub use configuration::Problem;
pub use fast::{fast_step, take_fast, Fast, Row};
#[cfg(feature = "alloc")]
pub use restore::{restore, Restoring};
pub use step::{microstep, remove_conflicts, select, settle, Access, Host, Settled};
pub use tables::{Chart, Hook, Kind, List, State, Transition};
pub use timers::{first_due, TimerGroup};

/// No state, no transition, no slot.
pub const NONE: u32 = u32::MAX;

/// The most microsteps one `fire` takes: past it, a guarded cycle of
/// `always` or `done` transitions stops (`Settled::Runaway`).
pub const MAX_MICROSTEPS: usize = 1000;
