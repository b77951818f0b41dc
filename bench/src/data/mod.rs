//! The data-carrying trace: the coding agent's loop with its bookkeeping
//! inside the machine (`bench/machines/agent_data.fsm`).
//!
//! The machine has the states, actions and outputs of the plain agent
//! machine ([`crate::agent`]), so the harness's [`Sink`] and records serve
//! both. What changes is where the guards come from: no longer a random
//! value drawn per step, but the machine's own [`AgentContext`] (a retry
//! counter, the tool calls of the response being streamed, the tools still
//! running, whether one of them modified files) and the event's payload
//! (a [`ToolOutcome`] says whether that tool modified files). Effects update
//! the context: they count retries and tool calls, and append the user's
//! message, the completed response and each tool's outcome to the
//! [`Conversation`].
//!
//! Allocation is kept out of the measurement on purpose, so that the
//! machines' own work is what is timed: payload texts are `&'static str`
//! slices of a pool built once ([`Text`]), and the conversation is a
//! fixed-capacity ring of the last [`Conversation::CAPACITY`] turns (role
//! and length) with running totals, updated in place.
//!
//! Every implementation owns an `AgentContext` and runs the same inherent
//! methods on it, so they do the same work and their final contexts can be
//! compared for equality.

pub mod dynamic;
pub mod generated;
pub mod hand_written;
pub mod literal;
pub mod smlang;
pub mod statig;

use crate::agent::{Action, State};
use crate::alloc_counter;
use crate::harness::{Record, Recorder, Sink, Tally};
use crate::subjects::hand_written::step as plain_step;
use crate::xorshift::XorShift;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The machine's text.
pub const SOURCE: &str = include_str!("../../machines/agent_data.fsm");

/// The seed of the data traces.
pub const SEED: u64 = 0x5eed_0009_da7a_0001;

/// A text payload: a slice of the pool [`text_pool`] builds once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text(pub &'static str);

impl Text {
    /// Its length in bytes, as the conversation counts it.
    #[inline]
    pub fn bytes(self) -> u32 {
        self.0.len() as u32
    }
}

/// The outcome of one tool execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolOutcome {
    /// The tool succeeded.
    pub ok: bool,
    /// The tool modified files (`edit_file`, `bash`).
    pub mutating: bool,
    /// What it printed.
    pub output: Text,
}

/// Who said something in the conversation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Role {
    /// Nobody: an empty slot.
    #[default]
    None,
    /// The user.
    User,
    /// The LLM.
    Assistant,
    /// A tool.
    Tool,
}

/// One turn of the conversation: who, and how many bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Turn {
    /// Who.
    pub role: Role,
    /// How many bytes.
    pub bytes: u32,
}

/// The conversation: the last [`Self::CAPACITY`] turns in a ring, and
/// running totals. Appending never allocates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conversation {
    turns: [Turn; Conversation::CAPACITY],
    /// Turns appended since the start.
    pub len: u64,
    /// Bytes appended since the start.
    pub bytes: u64,
}

impl Conversation {
    /// How many turns are kept.
    pub const CAPACITY: usize = 16;

    /// Append a turn, forgetting the oldest one when full.
    #[inline]
    pub fn push(&mut self, role: Role, bytes: u32) {
        self.turns[(self.len % Self::CAPACITY as u64) as usize] = Turn { role, bytes };
        self.len += 1;
        self.bytes += u64::from(bytes);
    }

    /// The most recent turn.
    pub fn last(&self) -> Option<Turn> {
        (self.len > 0).then(|| self.turns[((self.len - 1) % Self::CAPACITY as u64) as usize])
    }
}

/// The agent's data, which the machine owns: what its guards read and its
/// effects update. Every implementation calls these same methods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentContext {
    /// Retries allowed per request.
    pub max_retries: u32,
    /// Retries made for the current request.
    pub retries: u32,
    /// Retries made since the start.
    pub retries_total: u32,
    /// Requests given up on.
    pub given_up: u32,
    /// Tool calls in the response being streamed.
    pub tool_calls: u32,
    /// Tools of the current batch still running.
    pub pending: u32,
    /// A tool of the current batch modified files.
    pub mutated: bool,
    /// Bytes of the response being streamed.
    pub streamed: u32,
    /// Tools that failed since the start.
    pub tool_failures: u32,
    /// The conversation.
    pub conversation: Conversation,
}

impl Default for AgentContext {
    fn default() -> Self {
        AgentContext {
            max_retries: 3,
            retries: 0,
            retries_total: 0,
            given_up: 0,
            tool_calls: 0,
            pending: 0,
            mutated: false,
            streamed: 0,
            tool_failures: 0,
            conversation: Conversation::default(),
        }
    }
}

impl AgentContext {
    /// Guard `retries_left`.
    #[inline]
    pub fn retries_left(&self) -> bool {
        self.retries < self.max_retries
    }
    /// Guard `has_tool_calls`.
    #[inline]
    pub fn has_tool_calls(&self) -> bool {
        self.tool_calls > 0
    }
    /// Guard `tools_pending`: tools other than the one that just completed
    /// are still running.
    #[inline]
    pub fn tools_pending(&self) -> bool {
        self.pending > 1
    }
    /// Guard `mutating_tools(ToolOutcome)`.
    #[inline]
    pub fn mutating_tools(&self, outcome: &ToolOutcome) -> bool {
        self.mutated || outcome.mutating
    }
    /// Effect `append_user(Text)`.
    #[inline]
    pub fn append_user(&mut self, text: &Text) {
        self.append_user_bytes(text.bytes());
    }
    /// [`Self::append_user`] of a message of `bytes` bytes.
    #[inline]
    pub fn append_user_bytes(&mut self, bytes: u32) {
        self.conversation.push(Role::User, bytes);
    }
    /// Effect `append_text(Text)`.
    #[inline]
    pub fn append_text(&mut self, text: &Text) {
        self.append_text_bytes(text.bytes());
    }
    /// [`Self::append_text`] of a chunk of `bytes` bytes.
    #[inline]
    pub fn append_text_bytes(&mut self, bytes: u32) {
        self.streamed += bytes;
    }
    /// Effect `count_tool_call`.
    #[inline]
    pub fn count_tool_call(&mut self) {
        self.tool_calls += 1;
    }
    /// Effect `finish_response`.
    #[inline]
    pub fn finish_response(&mut self) {
        self.conversation.push(Role::Assistant, self.streamed);
        self.streamed = 0;
        self.retries = 0;
    }
    /// Effect `count_retry`.
    #[inline]
    pub fn count_retry(&mut self) {
        self.retries += 1;
        self.retries_total += 1;
        self.streamed = 0;
        self.tool_calls = 0;
    }
    /// Effect `give_up`.
    #[inline]
    pub fn give_up(&mut self) {
        self.retries = 0;
        self.given_up += 1;
        self.streamed = 0;
        self.tool_calls = 0;
    }
    /// Effect `start_tools`.
    #[inline]
    pub fn start_tools(&mut self) {
        self.pending = self.tool_calls;
        self.tool_calls = 0;
        self.mutated = false;
    }
    /// Effect `record_tool(ToolOutcome)`.
    #[inline]
    pub fn record_tool(&mut self, outcome: &ToolOutcome) {
        self.record_tool_parts(outcome.ok, outcome.mutating, outcome.output.bytes());
    }
    /// [`Self::record_tool`] of an outcome given by its parts.
    #[inline]
    pub fn record_tool_parts(&mut self, ok: bool, mutating: bool, bytes: u32) {
        self.pending = self.pending.saturating_sub(1);
        self.mutated |= mutating;
        self.tool_failures += u32::from(!ok);
        self.conversation.push(Role::Tool, bytes);
    }
}

/// What a step carries besides its action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    /// Nothing.
    None,
    /// A text (`user_input`, `text_delta`).
    Text(Text),
    /// A tool's outcome (`tool_completed`).
    Tool(ToolOutcome),
}

/// One event of a data trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataStep {
    /// The action fired.
    pub action: Action,
    /// Its payload: the one its action declares (a rejected event carries
    /// its action's payload too).
    pub payload: Payload,
}

/// A data trace and what it contains.
#[derive(Clone, Debug)]
pub struct DataTrace {
    /// The steps, in order.
    pub steps: Vec<DataStep>,
    /// How many steps fire an action that is invalid in their state.
    pub rejected: usize,
}

/// The texts payloads are drawn from: 64 strings of 1 to 400 bytes, built
/// once and kept for the life of the process.
pub fn text_pool() -> &'static [&'static str] {
    static POOL: OnceLock<Vec<&'static str>> = OnceLock::new();
    POOL.get_or_init(|| {
        let mut rng = XorShift::new(SEED ^ 0x7e47);
        (0..64)
            .map(|i| {
                let len = 1 + rng.below(400);
                let text: String = (0..len).map(|j| (b'a' + ((i + j) % 26) as u8) as char).collect();
                &*Box::leak(text.into_boxed_str())
            })
            .collect()
    })
}

/// The payload `action` carries, drawn from `rng`.
fn payload(action: Action, rng: &mut XorShift) -> Payload {
    let pool = text_pool();
    let mut text = || Text(pool[rng.below(pool.len())]);
    match action {
        Action::UserInput | Action::TextDelta => Payload::Text(text()),
        Action::ToolCompleted => {
            let output = text();
            Payload::Tool(ToolOutcome {
                ok: rng.chance(90),
                mutating: rng.chance(25),
                output,
            })
        }
        _ => Payload::None,
    }
}

/// A data trace of `events` steps (at least 1), about `reject_percent`
/// percent of them invalid in their state. As the plain trace
/// ([`crate::trace::generate`]): valid actions other than
/// `shutdown_requested` are drawn uniformly, and the last step is
/// `shutdown_requested`. Whether an action is valid in a state does not
/// depend on guards in this machine (every guarded action has an unguarded
/// fallback), so the plain machine's table decides; the hand-written data
/// machine ([`hand_written::step`]) follows the trace to know the state.
pub fn generate(events: usize, reject_percent: u64, seed: u64) -> DataTrace {
    assert!(events > 0, "a trace has at least its final shutdown");
    let mut rng = XorShift::new(seed);
    let mut state = State::WaitingForUserInput;
    let mut context = AgentContext::default();
    let mut steps = Vec::with_capacity(events);
    let mut rejected = 0;
    let any_guards = crate::agent::Guards::default();
    for _ in 0..events - 1 {
        let (valid, invalid): (Vec<Action>, Vec<Action>) = Action::ALL
            .into_iter()
            .partition(|&a| plain_step(state, a, &any_guards).is_ok());
        let action = if rng.chance(reject_percent) {
            invalid[rng.below(invalid.len())]
        } else {
            let choices: Vec<Action> = valid
                .into_iter()
                .filter(|&a| a != Action::ShutdownRequested)
                .collect();
            choices[rng.below(choices.len())]
        };
        let step = DataStep {
            action,
            payload: payload(action, &mut rng),
        };
        match hand_written::step(state, &mut context, &hand_written::event(&step)) {
            Ok((to, _)) => state = to,
            Err(()) => rejected += 1,
        }
        steps.push(step);
    }
    steps.push(DataStep {
        action: Action::ShutdownRequested,
        payload: Payload::None,
    });
    DataTrace { steps, rejected }
}

/// One implementation of the data-carrying agent machine.
pub trait DataSubject {
    /// Its event type, converted from a step before timing.
    type Event;

    /// The name in the result tables.
    const NAME: &'static str;

    /// The event for `step`.
    fn prepare(&self, step: &DataStep) -> Self::Event;

    /// Run `events` from the initial state and a default context, reporting
    /// each step to `sink`; the context at the end.
    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) -> AgentContext;
}

/// A data subject with its events, behind a trait object.
pub trait DataContestant {
    /// The subject's name.
    fn name(&self) -> &'static str;
    /// Every step's record, and the context at the end.
    fn record(&self) -> (Vec<Record>, AgentContext);
    /// One timed pass: wall time, tally and the context at the end.
    fn timed_pass(&self) -> (Duration, Tally, AgentContext);
    /// The allocations of one pass, with its tally.
    fn allocations(&self) -> (u64, Tally);
}

/// A [`DataSubject`] with its events prepared from a trace.
pub struct PreparedData<S: DataSubject> {
    subject: S,
    events: Vec<S::Event>,
}

impl<S: DataSubject> PreparedData<S> {
    /// `subject` with its events for `steps`.
    pub fn new(subject: S, steps: &[DataStep]) -> Self {
        let events = steps.iter().map(|step| subject.prepare(step)).collect();
        PreparedData { subject, events }
    }
}

/// One timed pass of `subject`; never inlined, so each subject's loop is
/// compiled on its own. The context is returned through `black_box`, so
/// the effects cannot be optimized away.
#[inline(never)]
pub fn timed_data_pass<S: DataSubject>(subject: &S, events: &[S::Event]) -> (Duration, Tally, AgentContext) {
    let events = black_box(events);
    let mut tally = Tally::default();
    let start = Instant::now();
    let context = subject.run(events, &mut tally);
    let elapsed = start.elapsed();
    (elapsed, black_box(tally), black_box(context))
}

impl<S: DataSubject> DataContestant for PreparedData<S> {
    fn name(&self) -> &'static str {
        S::NAME
    }

    fn record(&self) -> (Vec<Record>, AgentContext) {
        let mut recorder = Recorder {
            records: Vec::with_capacity(self.events.len()),
        };
        let context = self.subject.run(&self.events, &mut recorder);
        (recorder.records, context)
    }

    fn timed_pass(&self) -> (Duration, Tally, AgentContext) {
        timed_data_pass(&self.subject, &self.events)
    }

    fn allocations(&self) -> (u64, Tally) {
        let mut tally = Tally::default();
        let allocations = alloc_counter::count(|| {
            black_box(self.subject.run(black_box(&self.events), &mut tally));
        });
        (allocations, tally)
    }
}

/// Every implementation with its events for `steps`; the hand-written
/// `match`, the reference, first.
pub fn all(steps: &[DataStep]) -> Vec<Box<dyn DataContestant>> {
    vec![
        Box::new(PreparedData::new(hand_written::HandWritten, steps)),
        Box::new(PreparedData::new(generated::Generated, steps)),
        Box::new(PreparedData::new(smlang::Smlang, steps)),
        Box::new(PreparedData::new(statig::Statig, steps)),
        Box::new(PreparedData::new(dynamic::ByName::new(), steps)),
        Box::new(PreparedData::new(dynamic::ById::new(), steps)),
        Box::new(PreparedData::new(literal::Literal::new(), steps)),
    ]
}
