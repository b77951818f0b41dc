//! The one step over configurations (the `fsm-step` crate, re-exported
//! here for generated code, which reaches nothing but this crate), with
//! what it needs of this crate's types: timer groups (`first_due`) and
//! restoring a snapshot (`restore`).

#[cfg(feature = "alloc")]
mod restore;
mod timers;

pub use crate::list::Inline;
pub use fsm_step::*;
#[cfg(feature = "alloc")]
pub use restore::{restore, Restoring};
#[cfg(feature = "alloc")]
pub use timers::armed_timers;
pub use timers::{first_due, TimerGroup};
