//! The implementations of the agent machine that `runtime_speed` compares,
//! one per file, each written the way a user of its library writes it.

pub mod dynamic;
pub mod generated;
pub mod hand_written;
pub mod literal;
pub mod rust_fsm;
pub mod smlang;
pub mod statig;

use crate::harness::{Prepared, Record, Sink};
use crate::speed::Contestant;
use crate::trace::Step;

/// One implementation of the agent machine under test.
pub trait Subject {
    /// What the implementation is fed for one step of a trace: its own
    /// action type (and guard input), converted before timing starts.
    type Event;

    /// The name in the result tables.
    const NAME: &'static str;

    /// The event for `step`.
    fn prepare(&self, step: &Step) -> Self::Event;

    /// Run `events` from the initial state, reporting each step to `sink`.
    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S);
}

/// Every implementation, each with its events for `steps`; the hand-written
/// `match`, the reference, comes first.
pub fn all(steps: &[Step]) -> Vec<Box<dyn Contestant<Record = Record>>> {
    vec![
        Box::new(Prepared::new(hand_written::HandWritten, steps)),
        Box::new(Prepared::new(generated::Generated, steps)),
        Box::new(Prepared::new(smlang::Smlang, steps)),
        Box::new(Prepared::new(statig::Statig, steps)),
        Box::new(Prepared::new(rust_fsm::RustFsm, steps)),
        Box::new(Prepared::new(dynamic::ById::new(), steps)),
        Box::new(Prepared::new(dynamic::ByName::new(), steps)),
        Box::new(Prepared::new(literal::Literal::new(), steps)),
    ]
}
