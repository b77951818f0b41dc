//! What the agent knows during a run: the query and every tool call so far.

use crate::decision::Arguments;
use crate::tools::ToolError;

/// The user's query and the history of tool calls and results: what the
/// model sees at every decision.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// The user's question.
    pub query: String,
    /// The tool calls made so far, in order.
    pub steps: Vec<ToolStep>,
}

impl Context {
    /// The context of a new run for `query`.
    pub fn new(query: impl Into<String>) -> Self {
        Context {
            query: query.into(),
            steps: Vec::new(),
        }
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
