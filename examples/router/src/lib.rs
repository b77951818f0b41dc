//! A tool-calling router agent: the LLM decides *transitions* within a rigid
//! structure instead of deciding everything.
//!
//! The machine comes from `examples/router.fsm`: `route` decides, `call_tool`
//! executes, `answer` and `fail` end the run. This crate is the caller around
//! it:
//!
//! - [`Llm`], what the agent asks of a model: a structured [`Decision`] and a
//!   final answer; [`ScriptedLlm`] is a deterministic fake;
//! - [`ToolRegistry`], the tools a decision may name, with a fake finance set;
//! - [`RouterContext`], the machine's context: the query, the tool calls so
//!   far, the step count against `max_steps`, the last decision and the tool
//!   timeout. The machine's guards read it and its effects update it, so a
//!   run ends after at most `max_steps` decisions, whatever the model says;
//! - [`Agent`], the loop: it fires the model's decisions and the tools'
//!   results as events carrying them, and performs the outputs.
//!
//! ```
//! use router::{Agent, Decision, Outcome, ScriptedLlm, ToolRegistry};
//!
//! let llm = ScriptedLlm::deciding([
//!     Decision::call("get_stock_price", &[("ticker", "AAPL")]),
//!     Decision::answer(),
//! ]);
//! let mut agent = Agent::new("Apple?", llm, ToolRegistry::finance(), 10);
//! let outcome = agent.run()?;
//! assert_eq!(outcome, Outcome::Answered("Apple?: AAPL trades at 189.98 USD.".to_owned()));
//! assert_eq!(agent.steps(), 2);
//! # Ok::<(), router::FireError>(())
//! ```

mod agent;
mod context;
mod decision;
mod llm;
mod tools;

fsm_runtime::fsm!(file = "../router.fsm");

pub use crate::router::{Action, Event, FireError, Fired, Output, Router, State};
pub use agent::{Agent, Failure, Outcome};
pub use context::{RouterContext, ToolStep};
pub use decision::{Arguments, Decision};
pub use llm::{Llm, LlmError, ScriptedLlm};
pub use tools::{Tool, ToolError, ToolRegistry};
