//! The one step of every fsmc machine: the semantics of a step over a
//! configuration (W3C SCXML 1.0 Appendix D with fsmc's differences,
//! docs/dsl.md "How a step runs"), from tables the plan lays out
//! ([`Chart`]), without allocating.
//!
//! Every engine runs it. Generated code and the dynamic engine call it
//! (through `fsm_runtime::__private::chart`) for the steps that depend on
//! the rest of the configuration; the plan (`fsm_grammar::plan`) calls it
//! ahead of time for every step that does not, and writes those steps out,
//! so that a rule of a step (which transitions are taken, what they exit
//! and enter and in which order, what they output, what history
//! remembers) is written here and nowhere else. `tests/differential` holds
//! it to an independent SCXML reference.
//!
//! A configuration is a [`Bits`] set of state ids. Ids are in document order
//! (a parent before its children, siblings as written), so the states
//! inside a state are one contiguous range of ids, and what a transition
//! exits is the active part of one range ([`Transition::exits`]): exit sets,
//! conflicts and entry order are a few word operations.
//!
//! The engine answers for guards, runs effects, collects outputs and keeps
//! timers through [`Host`]; the step decides which transitions are taken
//! ([`select`], [`remove_conflicts`]), what they exit and enter, in which
//! order, and what they remember ([`microstep`]), and what follows
//! ([`settle`]).
//!
//! Not a public API of fsmc: its items change with the plan that lays out
//! the tables.

#![no_std]

#[cfg(test)]
extern crate std;

mod bits;
mod configuration;
mod fast;
mod step;
mod tables;

pub use bits::{Bits, Iter};
pub use configuration::Problem;
pub use fast::{fast_step, take_fast, Fast, Row};
pub use step::{configuration_of, microstep, remove_conflicts, select, settle, Access, Host, Settled};
pub use tables::{Chart, Hook, Kind, List, State, Transition};

/// No state, no transition, no slot.
pub const NONE: u32 = u32::MAX;

/// The most microsteps one `fire` takes: past it, a guarded cycle of
/// `always` or `done` transitions stops (`Settled::Runaway`).
pub const MAX_MICROSTEPS: usize = 1000;

/// `$body` with `$w` a `const` of as many 64-bit words as `$words`
/// (configurations of `64 * $words` states) need, rounded up to a power of
/// two, so that each is a fixed array: `1`, `2`, `4`, ... up to
/// [`MAX_WORDS`] (for any larger `$words` too, which a caller refuses
/// first). Every operation on a configuration costs its width, so the
/// width follows the machine.
#[macro_export]
macro_rules! by_width {
    ($words:expr, $w:ident => $body:expr) => {
        $crate::by_width!(@ $words, $w => $body; 1 2 4 8 16 32 64 128 256 512)
    };
    (@ $words:expr, $w:ident => $body:expr; $($width:literal)*) => {{
        let words: usize = $words;
        'width: {
            $(
                if words <= $width {
                    const $w: usize = $width;
                    break 'width $body;
                }
            )*
            const $w: usize = $crate::MAX_WORDS;
            $body
        }
    }};
}
/// The widest configuration [`by_width!`] lays out, in 64-bit words: a
/// machine of at most `64 * MAX_WORDS` (65,536) states.
pub const MAX_WORDS: usize = 1024;

/// The most states of a machine whose steps this crate takes.
pub const MAX_STATES: usize = 64 * MAX_WORDS;
