//! The loop of a coding agent whose control flow is a synchronous, pure state
//! machine, driven by a caller that owns every piece of I/O.
//!
//! The machine comes from `examples/agent_loop.fsm`, shared with `fsmc check`
//! and the workspace tests. It only decides; this crate is the caller:
//!
//! - [`AgentLoop`] owns an [`AgentContext`]: the conversation, the retry
//!   count and the tool batch. Its guards read it, its effects grow the
//!   conversation from the events' payloads (the user's message, the LLM's
//!   text and tool calls, the tools' results), and its `after backoff`
//!   timer waits the retry policy's exponential delay before a retry;
//! - [`Agent`] fires an [`Event`] at a time, performs the outputs it gets
//!   back (asks the LLM, starts tools, displays text, runs hooks), turns
//!   their results into further events, and sleeps until the backoff timer
//!   is due;
//! - [`ScriptedLlm`] is a deterministic fake LLM replaying a script of
//!   streamed events;
//! - [`ToolRunner`] runs each tool call on its own thread; results come back
//!   through a channel in whatever order the calls finish;
//! - [`RetryPolicy`] bounds the retries of a failed LLM request and spaces
//!   them with exponential backoff, timed on a [`Clock`] ([`FakeClock`] in
//!   tests);
//! - [`Checkpoint`] stores the machine's snapshot (state, context and the
//!   backoff's deadline), so a restarted process resumes where the old one
//!   stopped and retries when first promised;
//! - a turn can be paused in any phase and resumed in that phase, or
//!   cancelled (below).
//!
//! # Pausing and cancelling a turn
//!
//! The phases of a turn (`calling_llm`, `processing_llm_response`, which
//! the machine passes through within the firing that completes a response,
//! `executing_tools`, `post_tools_hook` and `error`, the backoff before a
//! retry) are the states of the composite `working`, which declares `pause`
//! and `cancel` once for all of them. [`State`] lists the leaves and
//! [`Composite`] the composite: `agent.machine().is_in(Composite::Working)`
//! is true while a turn is under way.
//!
//! - [`Agent::pause`] moves to `paused` (output `suspend_work`) from any
//!   phase. The events of the work in flight wait: the rest of the LLM's
//!   stream, the results of tools already running (they finish, and are not
//!   run twice), the hooks' completion. Nothing new starts.
//! - [`Agent::unpause`] fires `resume`, which goes to `working.history`: the
//!   very phase the turn was paused in (output `resume_work`), and the held
//!   events are delivered; the turn ends as if it had never been paused.
//!   The machine remembers that phase as `last_active(Composite::Working)`.
//! - **The backoff starts over.** The retry timer is `error`'s, so pausing
//!   in `error` leaves it and disarms the timer, however much of the backoff
//!   had passed; resuming re-enters `error` and arms it again with the whole
//!   backoff (the same retry, so the same delay), counted from the resume.
//!   Nothing fires while paused, however long the pause.
//! - **A pause survives a restart.** A checkpoint of a paused agent holds
//!   `"current_state": "paused"`, no timer, and the phase as history memory:
//!   `"last_active": {"working": "executing_tools"}`. [`Agent::resume`]
//!   restores it paused; what the old process held is lost with it, so
//!   [`Agent::unpause`] starts that phase's work again (the request is sent
//!   again, unfinished tools and the hooks run again).
//! - [`Agent::cancel`], from any phase or paused, ends the turn (output
//!   `abort_work`): the work in flight is stopped and its events dropped, and
//!   every tool call without a result gets one, [`CANCELLED`] unless it had
//!   finished, so the next request's conversation is complete.
//!
//! One turn: the LLM asks for a tool, gets its result, and answers.
//!
//! ```
//! use agent_loop::{
//!     Agent, Arrival, FakeClock, Latency, LlmEvent, RetryPolicy, ScriptedLlm, State, ToolCall, ToolRunner,
//! };
//!
//! let llm = ScriptedLlm::new([
//!     vec![LlmEvent::ToolCallDelta(ToolCall::new(1, "grep", "helo")), LlmEvent::Completed],
//!     vec![LlmEvent::TextDelta("It is in src/main.rs.".to_owned()), LlmEvent::Completed],
//! ]);
//! let tools = ToolRunner::new(Latency::None, Arrival::AsFinished);
//! let mut agent = Agent::new(llm, tools, FakeClock::new(), RetryPolicy::default());
//!
//! agent.submit("Where is the typo?")?;
//! assert_eq!(agent.state(), State::WaitingForUserInput);
//! assert_eq!(agent.display(), ["It is in src/main.rs."]);
//! // The user's message, the tool call, its result, the answer.
//! assert_eq!(agent.context().conversation().len(), 4);
//! # Ok::<(), agent_loop::FireError<FakeClock>>(())
//! ```

mod agent;
mod backoff;
mod checkpoint;
mod context;
mod conversation;
mod llm;
mod tools;

fsm_runtime::fsm!(file = "../agent_loop.fsm");

pub use crate::agent_loop::{
    Action, AgentLoop, Composite, Event, FireError, Fired, Output, State, TimerFired,
};
pub use agent::Agent;
pub use backoff::{Clock, FakeClock, RetryPolicy, SystemClock};
pub use checkpoint::Checkpoint;
pub use context::{AgentContext, CANCELLED};
pub use conversation::{Message, ToolCall, ToolCallId, ToolResult};
pub use llm::{Llm, LlmEvent, ScriptedLlm};
pub use tools::{is_mutating, run_tool, Arrival, Latency, ToolRunner};
