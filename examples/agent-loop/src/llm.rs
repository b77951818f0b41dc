//! The LLM the agent talks to, and a scripted fake of it.

use crate::conversation::{Message, ToolCall};
use std::collections::VecDeque;

/// One event of a streamed LLM response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LlmEvent {
    /// A chunk of text.
    TextDelta(String),
    /// A tool call, streamed.
    ToolCallDelta(ToolCall),
    /// The response is complete.
    Completed,
    /// The request failed.
    Error(String),
}

/// A language model: a conversation in, a stream of events out.
pub trait Llm {
    /// Send `conversation` and return the response's events, in order.
    fn respond(&mut self, conversation: &[Message]) -> Vec<LlmEvent>;
}

/// A deterministic fake LLM: each request gets the next reply of a script.
/// It records what it was sent, so tests can check the conversation.
#[derive(Clone, Debug, Default)]
pub struct ScriptedLlm {
    replies: VecDeque<Vec<LlmEvent>>,
    requests: Vec<Vec<Message>>,
}

impl ScriptedLlm {
    /// A fake that answers the requests with `replies`, in order.
    pub fn new(replies: impl IntoIterator<Item = Vec<LlmEvent>>) -> Self {
        ScriptedLlm {
            replies: replies.into_iter().collect(),
            requests: Vec::new(),
        }
    }

    /// The conversation of every request so far, in order.
    pub fn requests(&self) -> &[Vec<Message>] {
        &self.requests
    }

    /// The replies not used yet.
    pub fn remaining(&self) -> usize {
        self.replies.len()
    }
}

impl Llm for ScriptedLlm {
    /// The next reply; once the script is used up, an error event, as a
    /// real service would fail.
    fn respond(&mut self, conversation: &[Message]) -> Vec<LlmEvent> {
        self.requests.push(conversation.to_vec());
        self.replies.pop_front().unwrap_or_else(|| {
            vec![LlmEvent::Error(format!(
                "the script has no reply for request {}",
                self.requests.len()
            ))]
        })
    }
}
