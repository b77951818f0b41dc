//! The runtime of fsmc state machines.
//!
//! A machine is written in the `.fsm` language and turned into Rust by
//! `fsm-codegen`, reached through the [`fsm!`] macro, `fsmc build`, or a build
//! script. The generated code is a module holding `State`, `Action` and
//! `Output` enums, a `Guards` trait when the machine has guards, and the
//! machine type; this crate holds what all machines share:
//!
//! - [`Machine`], the trait every generated machine implements, whatever it
//!   declares (context, payloads, timers, nested states), and the traits
//!   that fire, time and store it: [`FireEvent`] (`fire(event)`, every
//!   machine that does not take its guards per call) or [`Fire`]
//!   (`fire(event, &guards)`), [`Timed`] (or [`TimedWith`], timers fired
//!   with guards passed per call), [`Persist`] and [`Restore`]
//!   (with a context, under the `serde` feature); each trait's page says
//!   which machines implement it;
//! - [`Fired`], what a successful `fire` reports, and [`FireError`], why an
//!   event did not fire, holding the event. The same types for every
//!   machine, and neither allocates;
//! - [`Snapshot`], a machine's state stored with the machine's name and the
//!   fingerprint of its definition, [`RestoreError`], and [`RestorePolicy`],
//!   what a restore accepts;
//! - [`History`], the transitions a machine took, with their times (every
//!   one or the last N), which a [`Snapshot`] can carry; [`Recorded`], a
//!   machine that records its own;
//! - [`Shared`], a machine many threads fire at atomically, recording a
//!   history in the order the machine really moved;
//! - [`Symbol`], the generated enums seen generically;
//! - [`driver`], the loops that feed a machine its events and fire its
//!   timers when they come due, blocking or (feature `tokio`) async;
//! - the step over configurations (parallel states, `done`, `always`,
//!   `in(...)`) that generated code and the dynamic engine run over the
//!   plan's tables, without allocating; it is not part of the public API
//!   and may change in any release.
//!
//! The machine performs no I/O and calls nothing but its guards and, with a
//! context, its effects and delays, which the caller implements. The caller
//! fires an action, performs the outputs it gets back, and feeds the results
//! in as further actions.
//!
//! # Features
//!
//! - `std` (default, implies `alloc`): [`SystemClock`] and [`ManualClock`],
//!   [`Shared`], the [`driver`]s, and the constructors that time a history by
//!   the system clock ([`History::new`], [`Recorded::new`]). `serde`,
//!   `tracing` and `tokio` imply it.
//! - `alloc`: [`Snapshot`], [`History`] and [`Recorded`], and every
//!   machine's `snapshot` and `restore`, without the standard library.
//! - `macros` (default): re-export [`fsm!`], so a machine needs this one
//!   dependency.
//! - `serde`: `Serialize` and `Deserialize` for [`Snapshot`], by name for
//!   every generated `State`, `Action` and `Output`, and for every generated
//!   `Event` whose payload types have them; `snapshot`, `restore` and
//!   `restore_with` of a machine with a context, whose snapshot carries the
//!   context as JSON (without the feature a call to them fails to compile,
//!   saying so).
//! - `tracing`: log every transition (machine, from, action, to) and every
//!   rejected action at `DEBUG`, with target `fsm_runtime`. Without it the
//!   logging compiles to nothing.
//! - `tokio`: `driver::run`, the async driver, which waits on a tokio
//!   channel and the next timer's deadline at once.
//! - `inspect`: the module `inspect`, every step of a machine sent to
//!   `fsmc inspect --listen ADDR` as it happens, from a background thread
//!   that never blocks the machine: `inspect::Observed` wraps a generated
//!   machine.
//!
//! # Beside this crate
//!
//! - `fsm-dynamic`: machines loaded at run time (from `.fsm` text, JSON or a
//!   builder) and run by an interpreter with the semantics of generated
//!   code, without generated code.
//! - `fsm-store`: durable snapshots by instance id: the `Store` trait, whose
//!   saves are compare-and-swaps on a version, `FileStore` (one JSON file per
//!   instance) and `PgStore` (feature `postgres`, one PostgreSQL table).
//!
//! # Without the standard library
//!
//! The crate is `#![no_std]`. With `default-features = false, features =
//! ["macros"]` a generated machine works in full without `std` or an
//! allocator: guards, a context, payloads, effects, nested states, history
//! targets, `fire`, `can_fire`, `valid_actions`, and errors that implement
//! `core::error::Error` and format without allocating. Timers run on a clock
//! the caller supplies, any [`Clock`]: there is no system clock, so a machine
//! with timers is built with `with_clock` (`Job::<Ticks>::with_clock(context,
//! Ticks)`), and its [`Timestamp`]s are whatever the clock counts, for
//! instance milliseconds since boot. A machine without timers does not
//! implement [`Timed`] there (it would need a clock to say the time).
//!
//! Add `alloc` for snapshots and history: [`History::timed_by`] takes the
//! clock, and [`Recorded::with_history`] and [`Recorded::restore_with`] take
//! the history. `Shared` (a mutex), the drivers, `tracing` and `serde` (and
//! with it a machine with a context's snapshots, which carry the context as
//! JSON) need `std`.
//!
//! A small machine costs little: `Door::fire` of a three-state, four-action
//! machine compiles to 112 bytes of x86-64 (with `opt-level = "s"`, inlined
//! into an exported wrapper that also converts its arguments), and `fire` of
//! a nested machine with a context, payloads, a guard, effects and two timers
//! to 417 bytes. `tests/no-std` in the repository builds both as a
//! `#![no_std]` static library with its own panic handler and runs them.
//!
//! # Generated code from a build script
//!
//! `fsm_codegen::compile(&["machines/door.fsm"])` in `build.rs` writes
//! `door.rs` into `OUT_DIR`; [`include_fsm!`]`("door")` brings it in.

// The crate docs link `fsm!`, which exists only with the `macros` feature,
// and what needs `std`; `cargo doc --all-features` (as docs.rs builds)
// checks every link.
#![cfg_attr(
    not(all(feature = "macros", feature = "std")),
    allow(rustdoc::broken_intra_doc_links)
)]
#![no_std]

#[cfg(feature = "alloc")]
#[macro_use]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[macro_use]
mod value_traits;
#[macro_use]
mod features;
#[cfg(feature = "alloc")]
mod prelude;

pub mod clock;
#[cfg(feature = "std")]
pub mod driver;
mod event;
mod fire_error;
mod fired;
#[cfg(feature = "alloc")]
mod history;
#[cfg(feature = "inspect")]
pub mod inspect;
mod list;
mod machine;
#[cfg(feature = "alloc")]
mod outbox;
#[cfg(feature = "std")]
mod shared;
#[cfg(feature = "alloc")]
mod snapshot;
mod state;
mod symbol;
mod symbol_serde;
mod timer;
mod timestamp;
mod trace;

pub use clock::Clock;
#[cfg(feature = "std")]
pub use clock::{ManualClock, SystemClock};
pub use fire_error::{Candidate, FireError, GuardRejected, InvalidTransition, Runaway};
pub use fired::Fired;
#[cfg(feature = "alloc")]
pub use history::{History, HistoryEntry, Recorded, Retention};
pub use list::List;
pub use machine::{Fire, FireEvent, Machine, NoGuards, Timed, TimedWith};
#[cfg(feature = "alloc")]
pub use machine::{Persist, Restore};
#[cfg(feature = "alloc")]
pub use outbox::{OutputKey, Pending};
#[cfg(feature = "std")]
pub use shared::Shared;
#[cfg(feature = "alloc")]
pub use snapshot::{ArmedTimer, FingerprintPolicy, RestoreError, Snapshot, SnapshotError};
#[cfg(feature = "alloc")]
pub use snapshot::{MissingTimerPolicy, RestorePolicy};
pub use state::MachineState;
pub use symbol::{ParseSymbolError, Symbol, SymbolKind};
pub use timer::{TimerFired, TimerRejected};
pub use timestamp::{ParseTimestampError, Timestamp};

/// Define state machines in the `.fsm` language, inline or from a file.
///
/// Each machine becomes a module named after it (`door`) holding its
/// `State`, `Action` and `Output` enums, its `Guards` trait and the machine
/// type (`Door`):
///
/// ```
/// fsm_runtime::fsm! {
///     machine Door {
///         initial state closed { on open -> opened; on lock [has_key] -> locked emit engage_bolt; }
///         state opened { on close -> closed; }
///         state locked { on unlock -> closed; }
///     }
/// }
///
/// struct Keys { has_key: bool }
///
/// impl door::Guards for Keys {
///     fn has_key(&self) -> bool {
///         self.has_key
///     }
/// }
///
/// let mut door = door::Door::new();
/// let fired = door.fire(door::Action::Lock, &Keys { has_key: true })?;
/// assert_eq!(fired.outputs, [door::Output::EngageBolt]);
/// assert_eq!(door.state(), door::State::Locked);
///
/// let error = door.fire(door::Action::Open, &Keys { has_key: true }).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "action `open` is not valid in state `locked`; valid actions: `unlock`"
/// );
/// # Ok::<(), door::FireError>(())
/// ```
///
/// `fsm_runtime::fsm!(file = "machines/door.fsm");` reads the definition
/// from a file instead, with the path relative to the crate root; editing
/// the file rebuilds the crate.
///
/// The generated code names this crate by `$crate`, so it works under any
/// name: a renamed dependency (`rt = { package = "fsm-runtime" }`, then
/// `rt::fsm!`), or a crate that re-exports this one.
#[cfg(feature = "macros")]
#[macro_export]
macro_rules! fsm {
    // The proc macro takes the path of this crate first; the definition's
    // tokens go on as they are, so its diagnostics keep their exact spans.
    ($($definition:tt)*) => {
        $crate::__private::fsm_impl! { @runtime($crate) $($definition)* }
    };
}

/// Include the Rust that `fsm_codegen::compile` wrote into `OUT_DIR` for the
/// `.fsm` file of this stem: `include_fsm!("door")` for `machines/door.fsm`.
///
/// ```ignore
/// fsm_runtime::include_fsm!("door");
///
/// let mut door = door::Door::new();
/// ```
#[macro_export]
macro_rules! include_fsm {
    ($stem:literal) => {
        ::core::include!(::core::concat!(::core::env!("OUT_DIR"), "/", $stem, ".rs"));
    };
}

/// What generated code names, and nothing else names: generated code reaches
/// everything, even `Option` and `Result`, through this path, so that the
/// user's own items (a machine called `Result`) cannot change its meaning.
/// Also what the sibling crates `fsm-dynamic` and `fsm-store` share with
/// this one (the one deadline rule, the one way to list names, to shorten a
/// key in a message and to resume a history's numbering).
/// Not part of the public API.
#[doc(hidden)]
pub mod __private {
    // The step over configurations, from the plan's tables, that generated
    // code of machines with parallel states and the dynamic engine run: in
    // `src/__private/chart/`, split by job.
    pub mod chart;

    pub use crate::__if_alloc as if_alloc;
    pub use crate::__if_serde as if_serde;
    pub use crate::__if_std as if_std;
    pub use crate::__symbol_serde as symbol_serde;
    pub use crate::__without_serde as without_serde;
    pub use crate::clock::DefaultClock;
    pub use crate::event::{DebugPayload, PayloadDebug, PayloadOpaque};
    #[cfg(feature = "alloc")]
    pub use crate::history::next_seq_after;
    #[cfg(feature = "alloc")]
    pub use crate::outbox::{ack as outbox_ack, push_step as outbox_push};
    pub use crate::symbol::write_names;

    /// `items` as a slice: generated code's `static` tables, unsized where
    /// a machine's `Outputs` or `Valid` (`&'static [T]`) is expected, which
    /// a coercion does not reach through the associated type.
    #[inline(always)]
    pub const fn slice<T>(items: &'static [T]) -> &'static [T] {
        items
    }
    pub use crate::symbol_serde::NeedsSerdeFeature;
    pub use crate::timer::deadline;
    pub use crate::trace::Traced;
    #[cfg(feature = "std")]
    pub use crate::SystemClock;
    #[cfg(feature = "alloc")]
    pub use crate::{ArmedTimer, FingerprintPolicy, Persist, Restore, RestoreError, Snapshot, SnapshotError};
    pub use crate::{
        Candidate, Clock, Fire, FireError, FireEvent, Fired, List, Machine, MachineState, NoGuards,
        ParseSymbolError, Symbol, SymbolKind, Timed, TimedWith, TimerFired, TimerRejected, Timestamp,
    };
    #[cfg(feature = "alloc")]
    pub use crate::{MissingTimerPolicy, RestorePolicy};
    pub use core::convert::{From, Into};
    pub use core::iter::Iterator;
    pub use core::ops::FnMut;
    pub use core::time::Duration;
    // Traits and, under the same names, their derive macros.
    pub use core::clone::Clone;
    pub use core::cmp::{Eq, Ord, PartialEq, PartialOrd};
    pub use core::default::Default;
    pub use core::fmt::{self, Debug};
    pub use core::hash::{Hash, Hasher};
    pub use core::marker::{Copy, Sized};
    pub use core::option::Option::{self, None, Some};
    pub use core::result::Result::{self, Err, Ok};
    pub use core::str::FromStr;
    pub use core::{include_str, matches};

    /// The proc macro behind [`fsm!`](crate::fsm), which passes it this
    /// crate's path.
    #[cfg(feature = "macros")]
    pub use fsm_macros::fsm as fsm_impl;

    #[cfg(feature = "serde")]
    pub use crate::event::{deserialize_event, EventVariants};
    #[cfg(feature = "serde")]
    pub use crate::snapshot::Shortened;
    #[cfg(feature = "serde")]
    pub use crate::symbol_serde::{deserialize_symbol, serialize_symbol};
    #[cfg(feature = "serde")]
    pub use serde;
    #[cfg(feature = "serde")]
    pub use serde::{de::DeserializeOwned, Serialize};

    /// The body of every method of a stub machine, emitted next to the
    /// `compile_error!` of a definition that failed to check. The build fails,
    /// so it never runs.
    #[cold]
    pub const fn stub() -> ! {
        panic!("this machine's definition has errors; this is a stub that never runs")
    }
}
