//! What the implementations report each step to, and how they are timed.
//!
//! Every implementation runs the trace through one generic loop
//! ([`crate::subjects::Subject::run`]) and reports each step to a [`Sink`].
//! The timed runs use a [`Tally`], which counts accepted events and outputs
//! and never asks for the state, so the compiler drops the work of naming
//! it; the verification run uses a [`Recorder`], which records the state,
//! the outcome and the outputs of every step to compare implementations.

use crate::agent::{Output, State};
use crate::alloc_counter;
use crate::speed::{Contestant, StepRecord};
use crate::subjects::Subject;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Receives the outcome of each step of a trace.
pub trait Sink {
    /// The event was accepted, and the machine emitted `outputs`; `state`
    /// gives the state after it.
    fn accepted(&mut self, outputs: impl ExactSizeIterator<Item = Output>, state: impl FnOnce() -> State);

    /// The event was rejected; `state` gives the (unchanged) state.
    fn rejected(&mut self, state: impl FnOnce() -> State);
}

/// The timed runs' sink: counts, nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Events accepted.
    pub accepted: u64,
    /// Events rejected.
    pub rejected: u64,
    /// Outputs emitted.
    pub outputs: u64,
}

impl Sink for Tally {
    #[inline(always)]
    fn accepted(&mut self, outputs: impl ExactSizeIterator<Item = Output>, _state: impl FnOnce() -> State) {
        self.accepted += 1;
        self.outputs += outputs.len() as u64;
    }

    #[inline(always)]
    fn rejected(&mut self, _state: impl FnOnce() -> State) {
        self.rejected += 1;
    }
}

/// What one step did, as the verification compares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The state after the step.
    pub state: State,
    /// Whether the event was accepted.
    pub accepted: bool,
    /// The outputs emitted, in order.
    pub outputs: OutputList,
}

/// Up to eight outputs in order, packed into a `u32` (4 bits each), so a
/// million records need no allocation each.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct OutputList(u32);

impl OutputList {
    /// The list of `outputs`.
    ///
    /// # Panics
    ///
    /// With more than eight outputs (the agent machine emits at most one).
    pub fn new(outputs: impl Iterator<Item = Output>) -> OutputList {
        let mut packed = 0u32;
        for (i, output) in outputs.enumerate() {
            assert!(i < 8, "more than 8 outputs in one step");
            let code = Output::ALL.iter().position(|&o| o == output).unwrap() as u32 + 1;
            packed |= code << (4 * i);
        }
        OutputList(packed)
    }

    /// The outputs, in order.
    pub fn iter(self) -> impl Iterator<Item = Output> {
        (0..8)
            .map(move |i| (self.0 >> (4 * i)) & 0xf)
            .take_while(|&code| code != 0)
            .map(|code| Output::ALL[code as usize - 1])
    }
}

impl std::fmt::Debug for OutputList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().map(Output::name)).finish()
    }
}

/// The verification run's sink: every step's [`Record`].
#[derive(Debug, Default)]
pub struct Recorder {
    /// One record per step, in order.
    pub records: Vec<Record>,
}

impl Sink for Recorder {
    fn accepted(&mut self, outputs: impl ExactSizeIterator<Item = Output>, state: impl FnOnce() -> State) {
        self.records.push(Record {
            state: state(),
            accepted: true,
            outputs: OutputList::new(outputs),
        });
    }

    fn rejected(&mut self, state: impl FnOnce() -> State) {
        self.records.push(Record {
            state: state(),
            accepted: false,
            outputs: OutputList::default(),
        });
    }
}

/// Every step's record of `subject` on `events`.
pub fn record<S: Subject>(subject: &S, events: &[S::Event]) -> Vec<Record> {
    let mut recorder = Recorder {
        records: Vec::with_capacity(events.len()),
    };
    subject.run(events, &mut recorder);
    recorder.records
}

/// The index and both records of the first step where `actual` differs from
/// `expected`, or where one ends before the other; `None` when they agree.
pub fn first_difference<R: PartialEq + Copy>(
    expected: &[R],
    actual: &[R],
) -> Option<(usize, Option<R>, Option<R>)> {
    let common = expected.len().min(actual.len());
    (0..common)
        .find(|&i| expected[i] != actual[i])
        .or((expected.len() != actual.len()).then_some(common))
        .map(|i| (i, expected.get(i).copied(), actual.get(i).copied()))
}

/// One timed pass of `subject` over `events`: the wall time and the tally.
/// Never inlined, so each implementation's loop is compiled on its own.
#[inline(never)]
pub fn timed_pass<S: Subject>(subject: &S, events: &[S::Event]) -> (Duration, Tally) {
    let events = black_box(events);
    let mut tally = Tally::default();
    let start = Instant::now();
    subject.run(events, &mut tally);
    let elapsed = start.elapsed();
    (elapsed, black_box(tally))
}

/// The heap allocations one untimed pass of `subject` over `events` makes,
/// counted by [`alloc_counter`], with the tally.
pub fn allocations<S: Subject>(subject: &S, events: &[S::Event]) -> (u64, Tally) {
    let mut tally = Tally::default();
    let allocations = alloc_counter::count(|| subject.run(black_box(events), &mut tally));
    (allocations, tally)
}

/// The median of `values` (the upper one for an even count).
///
/// # Panics
///
/// When `values` is empty.
pub fn median<T: Copy + PartialOrd>(values: &[T]) -> T {
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    sorted[sorted.len() / 2]
}

impl StepRecord for Record {
    fn accepted(&self) -> bool {
        self.accepted
    }
}

/// A [`Subject`] with its events prepared from a trace.
pub struct Prepared<S: Subject> {
    subject: S,
    events: Vec<S::Event>,
}

impl<S: Subject> Prepared<S> {
    /// `subject` with its events for `steps`.
    pub fn new(subject: S, steps: &[crate::trace::Step]) -> Prepared<S> {
        let events = steps.iter().map(|step| subject.prepare(step)).collect();
        Prepared { subject, events }
    }
}

impl<S: Subject> Contestant for Prepared<S> {
    type Record = Record;

    fn name(&self) -> &'static str {
        S::NAME
    }

    fn record(&self) -> Vec<Record> {
        record(&self.subject, &self.events)
    }

    fn timed_pass(&self) -> (Duration, Tally) {
        timed_pass(&self.subject, &self.events)
    }

    fn allocations(&self) -> (u64, Tally) {
        allocations(&self.subject, &self.events)
    }
}
