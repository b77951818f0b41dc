//! The `inspect` feature: send every step of a machine to `fsmc inspect
//! --listen ADDR`, which shows the live instances of a running program in
//! the browser.
//!
//! An [`Observer`] is a connection to the inspector, made and remade by a
//! background thread; a [`Probe`] is one machine instance seen through it
//! (its name, instance id and fingerprint, and optionally its definition);
//! [`Observed`] is a generated machine that reports its own steps through a
//! probe, as [`Recorded`](crate::Recorded) records them. The dynamic engine
//! has its twin, `fsm_dynamic::ObservedEngine`.
//!
//! Observing never blocks the machine. A step is handed to a bounded queue
//! with `try_send`: when the queue is full (the inspector is slow) or no
//! inspector listens, the step is dropped and counted, per instance
//! ([`Probe::dropped`]) and in all ([`Observer::dropped`]), and the next step
//! that gets through carries the count, so the page says how many it missed.
//! The background thread reconnects on its own, and says hello again for
//! every live instance.
//!
//! Nothing of an event's payload or a machine's context leaves the program
//! unless a sanitizer says what: [`Observed::sanitize_event`] and
//! [`Observed::sanitize_context`] map them to the JSON the inspector shows,
//! as XState's `sanitizeEvent` and `sanitizeContext` do, so that secrets can
//! be masked or left out.
//!
//! ```no_run
//! use fsm_runtime::inspect::{Observed, Observer};
//!
//! fsm_runtime::fsm! {
//!     machine Door {
//!         initial state closed { on open -> opened; }
//!         state opened { on close -> closed; }
//!     }
//! }
//!
//! let observer = Observer::connect("127.0.0.1:7171")?;
//! let mut door = Observed::new(door::Door::new(), &observer, "front-door");
//! door.fire(door::Action::Open)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! docs/inspecting.md describes the protocol, one JSON object a line.

mod observed;
mod observer;
mod step;

pub use observed::Observed;
pub use observer::{Observer, Probe, DEFAULT_CAPACITY};
pub use step::{Step, StepKind};
