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
//!   stopped and retries when first promised.
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
//! # Ok::<(), agent_loop::FireError>(())
//! ```

mod agent;
mod backoff;
mod checkpoint;
mod context;
mod conversation;
mod llm;
mod tools;

fsm_runtime::fsm!(file = "../agent_loop.fsm");

pub use crate::agent_loop::{Action, AgentLoop, Core, Event, FireError, Fired, Output, State, TimerFired};
pub use agent::Agent;
pub use backoff::{Clock, FakeClock, RetryPolicy, SystemClock};
pub use checkpoint::Checkpoint;
pub use context::AgentContext;
pub use conversation::{Message, ToolCall, ToolCallId, ToolResult};
pub use llm::{Llm, LlmEvent, ScriptedLlm};
pub use tools::{is_mutating, run_tool, Arrival, Latency, ToolRunner};
