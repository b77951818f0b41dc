//! The conversation the agent carries: messages, tool calls and results.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Identifies a tool call within a conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ToolCallId(pub u32);

/// `#7`
impl fmt::Display for ToolCallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// A tool the LLM asked to run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Its id, unique in the conversation.
    pub id: ToolCallId,
    /// The tool: `read_file`, `grep`, `edit_file`, `bash`.
    pub name: String,
    /// Its one argument: a path, a pattern, a command.
    pub input: String,
}

impl ToolCall {
    /// A call of `name` with `input`.
    pub fn new(id: u32, name: &str, input: &str) -> Self {
        ToolCall {
            id: ToolCallId(id),
            name: name.to_owned(),
            input: input.to_owned(),
        }
    }
}

/// `#3 edit_file(src/main.rs)`
impl fmt::Display for ToolCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}({})", self.id, self.name, self.input)
    }
}

/// What one tool call produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The call.
    pub id: ToolCallId,
    /// Its output, or why it failed; the LLM sees either.
    pub output: Result<String, String>,
}

/// One message of the conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// What the user said.
    User {
        /// The text.
        text: String,
    },
    /// A complete LLM response.
    Assistant {
        /// The streamed text.
        text: String,
        /// The tools it asked for.
        tool_calls: Vec<ToolCall>,
    },
    /// The result of a tool call, sent back to the LLM.
    Tool(ToolResult),
}
