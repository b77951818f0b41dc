//! The nested machine `nested_speed` measures (`bench/machines/nested_agent.fsm`):
//! the coding agent's loop with its phases nested three levels deep,
//! inherited transitions at every level, enter/exit hooks that emit outputs
//! on composites, a guarded priority interrupt on a composite, and history.
//!
//! This module is its vocabulary (the leaves, actions and outputs as plain
//! enums, and the guard values of a step), the sink each implementation
//! reports every step to, the random trace, and the list of implementations
//! (one per file). It mirrors [`crate::harness`] and [`crate::trace`], which
//! are written for the flat agent machine's vocabulary; the timed runs reuse
//! [`Tally`].

pub mod dynamic;
pub mod generated;
pub mod hand_written;
pub mod statig;

use crate::alloc_counter;
use crate::harness::Tally;
use crate::speed::{Contestant, StepRecord};
use crate::xorshift::XorShift;
use serde_json::Value;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The machine's text.
pub const SOURCE: &str = include_str!("../../machines/nested_agent.fsm");

/// The seed of the nested traces.
pub const SEED: u64 = 0x5eed_0010_4e57_ed01;

/// An enum of names from the `.fsm` file, in declaration order, with `ALL`,
/// `name()` and `named()`.
macro_rules! names {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $(#[doc = concat!("`", $text, "`.")] $variant,)*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The name in the `.fsm` file.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The value called `name`.
            ///
            /// # Panics
            ///
            /// When the machine has no such name: an implementation under
            /// test reported something the nested machine does not have.
            pub fn named(name: &str) -> $name {
                *$name::ALL
                    .iter()
                    .find(|v| v.name() == name)
                    .unwrap_or_else(|| panic!(concat!("the nested machine has no ", stringify!($name), " `{}`"), name))
            }
        }
    };
}

names! {
    /// The leaves, in declaration order: the states the machine can be in.
    State {
        WaitingForUserInput = "waiting_for_user_input",
        CallingLlm = "calling_llm",
        ProcessingLlmResponse = "processing_llm_response",
        ExecutingTools = "executing_tools",
        PostToolsHook = "post_tools_hook",
        Backoff = "backoff",
        Paused = "paused",
        ShuttingDown = "shutting_down",
    }
}

names! {
    /// The actions, in declaration order.
    Action {
        UserInput = "user_input",
        TextDelta = "text_delta",
        ToolCallDelta = "tool_call_delta",
        LlmCompleted = "llm_completed",
        LlmError = "llm_error",
        ResponseExamined = "response_examined",
        ToolCompleted = "tool_completed",
        PostToolsHookCompleted = "post_tools_hook_completed",
        RetryTimeoutFired = "retry_timeout_fired",
        Pause = "pause",
        Resume = "resume",
        Restart = "restart",
        Cancel = "cancel",
        ShutdownRequested = "shutdown_requested",
    }
}

names! {
    /// The outputs, in declaration order.
    Output {
        SendLlmRequest = "send_llm_request",
        DisplayMessage = "display_message",
        WaitForInput = "wait_for_input",
        ExecuteTools = "execute_tools",
        RunPostToolsHook = "run_post_tools_hook",
        DisplayError = "display_error",
        Shutdown = "shutdown",
        StartTurn = "start_turn",
        EndTurn = "end_turn",
        OpenStream = "open_stream",
        CloseStream = "close_stream",
        LockWorkspace = "lock_workspace",
        UnlockWorkspace = "unlock_workspace",
        CancelTools = "cancel_tools",
        SuspendWork = "suspend_work",
        ResumeWork = "resume_work",
        AbortWork = "abort_work",
    }
}

/// The value of each guard at one step of a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Guards {
    /// `retries_left`.
    pub retries_left: bool,
    /// `has_tool_calls`.
    pub has_tool_calls: bool,
    /// `tools_pending`.
    pub tools_pending: bool,
    /// `mutating_tools`.
    pub mutating_tools: bool,
    /// `forced`.
    pub forced: bool,
}

impl Guards {
    /// The guard names, in declaration order (bit `i` of [`Guards::bits`]).
    pub const NAMES: [&'static str; 5] = [
        "retries_left",
        "has_tool_calls",
        "tools_pending",
        "mutating_tools",
        "forced",
    ];

    /// The guards from five bits, bit `i` being guard `NAMES[i]`.
    pub const fn from_bits(bits: u8) -> Guards {
        Guards {
            retries_left: bits & 1 != 0,
            has_tool_calls: bits & 2 != 0,
            tools_pending: bits & 4 != 0,
            mutating_tools: bits & 8 != 0,
            forced: bits & 16 != 0,
        }
    }

    /// The five bits of [`Guards::from_bits`].
    pub const fn bits(self) -> u8 {
        self.retries_left as u8
            | (self.has_tool_calls as u8) << 1
            | (self.tools_pending as u8) << 2
            | (self.mutating_tools as u8) << 3
            | (self.forced as u8) << 4
    }

    /// These guard values as the JSON input of a closure guard
    /// (`{"retries_left": true, ...}`); the 32 possible inputs are built once.
    pub fn json(self) -> &'static Value {
        static INPUTS: OnceLock<Vec<Value>> = OnceLock::new();
        let inputs = INPUTS.get_or_init(|| {
            (0..32u8)
                .map(|bits| {
                    Value::Object(
                        Guards::NAMES
                            .iter()
                            .enumerate()
                            .map(|(i, name)| (name.to_string(), Value::Bool(bits & (1 << i) != 0)))
                            .collect(),
                    )
                })
                .collect()
        });
        &inputs[usize::from(self.bits())]
    }
}

/// Receives the outcome of each step of a trace (as [`crate::harness::Sink`]
/// for this machine's vocabulary).
pub trait Sink {
    /// The event was accepted and the machine emitted `outputs`; `state`
    /// gives the leaf after it.
    fn accepted(&mut self, outputs: impl ExactSizeIterator<Item = Output>, state: impl FnOnce() -> State);

    /// The event was rejected; `state` gives the (unchanged) leaf.
    fn rejected(&mut self, state: impl FnOnce() -> State);
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

/// Up to ten outputs in order, packed into a `u64` (6 bits each).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct OutputList(u64);

impl OutputList {
    /// The list of `outputs`.
    ///
    /// # Panics
    ///
    /// With more than ten outputs (the nested machine emits at most four).
    pub fn new(outputs: impl Iterator<Item = Output>) -> OutputList {
        let mut packed = 0u64;
        for (i, output) in outputs.enumerate() {
            assert!(i < 10, "more than 10 outputs in one step");
            let code = Output::ALL.iter().position(|&o| o == output).unwrap() as u64 + 1;
            packed |= code << (6 * i);
        }
        OutputList(packed)
    }

    /// The outputs, in order.
    pub fn iter(self) -> impl Iterator<Item = Output> {
        (0..10)
            .map(move |i| (self.0 >> (6 * i)) & 0x3f)
            .take_while(|&code| code != 0)
            .map(|code| Output::ALL[code as usize - 1])
    }
}

impl std::fmt::Debug for OutputList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().map(Output::name)).finish()
    }
}

/// What one step did, as the verification compares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The leaf after the step.
    pub state: State,
    /// Whether the event was accepted.
    pub accepted: bool,
    /// The outputs emitted, in order.
    pub outputs: OutputList,
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

/// One event of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The action fired.
    pub action: Action,
    /// The guard values at this step.
    pub guards: Guards,
}

/// A trace and what it contains.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// How many steps fire an action that is invalid in their state.
    pub rejected: usize,
}

/// A trace of `events` steps (at least 1), about `reject_percent` percent of
/// them invalid in their state, as [`crate::trace::generate`] draws the flat
/// machine's: the action of a step is, with that probability, one that is
/// not valid in the current leaf, and otherwise one of the valid actions
/// other than `shutdown_requested`, uniformly; guard values are drawn at
/// random; the last step is `shutdown_requested`. Whether an action is valid
/// does not depend on the guards in this machine (every guarded candidate
/// has an unguarded fallback), so a copy of the hand-written machine with
/// every guard false decides; the hand-written machine follows the trace to
/// know the leaf and the history memory.
pub fn generate(events: usize, reject_percent: u64, seed: u64) -> Trace {
    assert!(events > 0, "a trace has at least its final shutdown");
    let mut rng = XorShift::new(seed);
    let mut machine = hand_written::Machine::new();
    let mut steps = Vec::with_capacity(events);
    let mut rejected = 0;
    for _ in 0..events - 1 {
        let (valid, invalid): (Vec<Action>, Vec<Action>) = Action::ALL
            .iter()
            .partition(|&&a| machine.clone().step(a, &Guards::default()).is_ok());
        let action = if rng.chance(reject_percent) {
            invalid[rng.below(invalid.len())]
        } else {
            let choices: Vec<Action> = valid
                .into_iter()
                .filter(|&a| a != Action::ShutdownRequested)
                .collect();
            choices[rng.below(choices.len())]
        };
        let guards = Guards::from_bits((rng.next_u64() >> 32) as u8 & 0x1f);
        if machine.step(action, &guards).is_err() {
            rejected += 1;
        }
        steps.push(Step { action, guards });
    }
    steps.push(Step {
        action: Action::ShutdownRequested,
        guards: Guards::default(),
    });
    Trace { steps, rejected }
}

/// One implementation of the nested machine under test.
pub trait Subject {
    /// What it is fed for one step, converted before timing starts.
    type Event;

    /// The name in the result tables.
    const NAME: &'static str;

    /// The event for `step`.
    fn prepare(&self, step: &Step) -> Self::Event;

    /// Run `events` from the initial state (and empty history memory),
    /// reporting each step to `sink`.
    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S);
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
    pub fn new(subject: S, steps: &[Step]) -> Prepared<S> {
        let events = steps.iter().map(|step| subject.prepare(step)).collect();
        Prepared { subject, events }
    }
}

/// One timed pass of `subject` over `events`: the wall time and the tally.
/// Never inlined, so each implementation's loop is compiled on its own.
#[inline(never)]
pub fn timed_nested_pass<S: Subject>(subject: &S, events: &[S::Event]) -> (Duration, Tally) {
    let events = black_box(events);
    let mut tally = Tally::default();
    let start = Instant::now();
    subject.run(events, &mut tally);
    let elapsed = start.elapsed();
    (elapsed, black_box(tally))
}

impl<S: Subject> Contestant for Prepared<S> {
    type Record = Record;

    fn name(&self) -> &'static str {
        S::NAME
    }

    fn record(&self) -> Vec<Record> {
        let mut recorder = Recorder {
            records: Vec::with_capacity(self.events.len()),
        };
        self.subject.run(&self.events, &mut recorder);
        recorder.records
    }

    fn timed_pass(&self) -> (Duration, Tally) {
        timed_nested_pass(&self.subject, &self.events)
    }

    fn allocations(&self) -> (u64, Tally) {
        let mut tally = Tally::default();
        let allocations = alloc_counter::count(|| self.subject.run(black_box(&self.events), &mut tally));
        (allocations, tally)
    }
}

/// Every implementation with its events for `steps`; the hand-written
/// `match`, the reference, first.
pub fn all(steps: &[Step]) -> Vec<Box<dyn Contestant<Record = Record>>> {
    vec![
        Box::new(Prepared::new(hand_written::HandWritten, steps)),
        Box::new(Prepared::new(generated::Generated, steps)),
        Box::new(Prepared::new(statig::Statig, steps)),
        Box::new(Prepared::new(dynamic::ById::new(), steps)),
        Box::new(Prepared::new(dynamic::ByName::new(), steps)),
    ]
}
