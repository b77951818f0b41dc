//! What the machine owns during a run: the query, the tools it may call,
//! every tool call so far, and its bookkeeping (the step count against
//! `max_steps`, the last decision, the tool timeout).

use crate::decision::{Arguments, Decision};
use crate::llm::LlmError;
use crate::router;
use crate::tools::{ToolError, ToolRegistry};
use std::time::Duration;

/// The context of one run, owned by the [`Router`](crate::Router) machine.
///
/// The LLM sees it at every decision. The machine's guards read it and its
/// effects update it: a step is counted when the LLM is asked for a
/// decision, each decision is kept, and each tool call is appended.
#[derive(Clone, Debug)]
pub struct RouterContext {
    /// The user's question.
    pub query: String,
    /// The tools a decision may call.
    pub registry: ToolRegistry,
    /// The tool calls made so far, in order.
    pub steps: Vec<ToolStep>,
    /// How many decisions the LLM may make.
    pub max_steps: u32,
    /// How many decisions it was asked for.
    pub steps_taken: u32,
    /// The last decision it made.
    pub decision: Option<Decision>,
    /// Why it last failed to decide.
    pub error: Option<LlmError>,
    /// How long a tool may run before the run fails.
    pub tool_timeout: Duration,
}

impl RouterContext {
    /// The default budget: ten decisions.
    pub const DEFAULT_MAX_STEPS: u32 = 10;

    /// The default tool timeout: thirty seconds.
    pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(30);

    /// The context of a new run for `query`, calling the tools of `registry`,
    /// with at most `max_steps` decisions and the default tool timeout.
    pub fn new(query: impl Into<String>, registry: ToolRegistry, max_steps: u32) -> Self {
        RouterContext {
            query: query.into(),
            registry,
            steps: Vec::new(),
            max_steps,
            steps_taken: 0,
            decision: None,
            error: None,
            tool_timeout: Self::DEFAULT_TOOL_TIMEOUT,
        }
    }

    /// The same context with `timeout` for each tool call.
    #[must_use]
    pub fn with_tool_timeout(self, timeout: Duration) -> Self {
        RouterContext {
            tool_timeout: timeout,
            ..self
        }
    }
}

impl router::Context for RouterContext {
    fn steps_left(&self) -> bool {
        self.steps_taken < self.max_steps
    }

    fn ready_to_answer(&self, decision: &Decision) -> bool {
        decision.ready_to_answer
    }

    fn wants_tool(&self, decision: &Decision) -> bool {
        match decision {
            Decision {
                call_tool: true,
                tool_name: Some(name),
                ..
            } => self.registry.contains(name),
            _ => false,
        }
    }

    fn count_step(&mut self) {
        self.steps_taken += 1;
    }

    fn record(&mut self, decision: &Decision) {
        self.decision = Some(decision.clone());
    }

    fn record_error(&mut self, error: &LlmError) {
        self.error = Some(error.clone());
    }

    fn store_result(&mut self, step: &ToolStep) {
        self.steps.push(step.clone());
    }

    fn tool_timeout(&self) -> Duration {
        self.tool_timeout
    }
}

/// One tool call and its outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolStep {
    /// The tool called.
    pub tool: String,
    /// Its arguments.
    pub arguments: Arguments,
    /// What it returned, or why it failed.
    pub result: Result<String, ToolError>,
}
