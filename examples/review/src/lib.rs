//! A guarded review step, the example machine of the string-keyed strategy
//! design (an agent's action strategy, `FsmStrategy`, whose transitions sit
//! in a table keyed by state and action name): an agent runs, its work is
//! reviewed, and it revises until the review passes.
//!
//! The machine comes from `examples/review.fsm`, shared with `fsmc check` and
//! the workspace tests. `review` carries the [`Draft`] under review and has
//! two transitions out of `running`: the one guarded by `quality_guard`, which
//! reads the draft from the event, has priority 1 and is tried first; the
//! unguarded one is the fallback. This crate adds what that design puts around
//! the table:
//!
//! - [`QualityCheck`], the guard, answered from the draft's score;
//! - [`Reviewer`], the caller's loop: review each draft, revise until one
//!   passes or the revision budget is spent;
//! - [`Strategy`], the machine behind a mutex, so that several threads (the
//!   agent runner, a stop signal) can fire events atomically.
//!
//! ```
//! use review::{Draft, Event, QualityCheck, Review, State};
//!
//! let check = QualityCheck { threshold: 80 };
//! let mut review = Review::new();
//! review.fire(Event::Start, &check)?;
//! let draft = Draft::new("plan: rewrite everything", 40);
//! assert_eq!(review.fire(Event::Review(draft), &check)?.to, State::Revising);
//!
//! let error = review.fire(Event::Finish, &check).unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "action `finish` is not valid in state `revising`; valid actions: `restart`"
//! );
//! # Ok::<(), review::FireError>(())
//! ```

mod quality;
mod reviewer;
mod strategy;

fsm_runtime::fsm!(file = "../review.fsm");

pub use crate::review::{Action, Event, FireError, Fired, Review, State};
pub use quality::QualityCheck;
pub use reviewer::{Draft, Outcome, Reviewer};
pub use strategy::Strategy;
