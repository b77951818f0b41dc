//! What the caller carries between events: the context each state of the
//! loop works with (conversation, retries, tool executions), kept next to
//! the machine.

use crate::agent::Event;
use crate::agent_loop::{Fired, State};
use crate::backoff::RetryPolicy;
use crate::conversation::{Message, ToolCall, ToolCallId, ToolResult};
use crate::llm::LlmEvent;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::time::Duration;

/// The agent's memory. The machine holds only the state; everything the
/// guards are answered from, and everything the outputs need, is here.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Context {
    conversation: Vec<Message>,
    /// LLM requests sent in the session, retries included.
    requests: u32,
    retries: u32,
    last_error: Option<String>,
    /// The response being streamed.
    response_text: String,
    response_calls: Vec<ToolCall>,
    /// The tool calls executing, and those not finished yet.
    batch: Vec<ToolCall>,
    pending: BTreeSet<ToolCallId>,
    results: Vec<ToolResult>,
    /// The backoff delay before the next retry, while one is scheduled.
    retry_timer: Option<Duration>,
}

impl Context {
    /// The messages so far.
    pub fn conversation(&self) -> &[Message] {
        &self.conversation
    }

    /// LLM requests sent so far, retries included.
    pub fn requests(&self) -> u32 {
        self.requests
    }

    /// Retries made for the current LLM request.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// Why the last LLM request failed.
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }

    /// The tool calls of the current (or last) batch.
    pub fn batch(&self) -> &[ToolCall] {
        &self.batch
    }

    /// The calls of the batch that have not finished.
    pub fn pending(&self) -> &BTreeSet<ToolCallId> {
        &self.pending
    }

    /// The delay before the scheduled retry, if one is scheduled.
    pub fn retry_timer(&self) -> Option<Duration> {
        self.retry_timer
    }

    /// The tool calls of the last assistant message.
    pub(crate) fn requested_tool_calls(&self) -> &[ToolCall] {
        match self.conversation.last() {
            Some(Message::Assistant { tool_calls, .. }) => tool_calls,
            _ => &[],
        }
    }

    /// Count one more LLM request and return its number.
    pub(crate) fn count_request(&mut self) -> u32 {
        self.requests += 1;
        self.requests
    }

    /// Record what `event` changed, once the machine accepted it as `fired`.
    pub(crate) fn apply(&mut self, event: &Event, fired: &Fired, policy: &RetryPolicy) {
        match event {
            Event::UserInput(text) => {
                self.conversation.push(Message::User { text: text.clone() });
                self.retries = 0;
                self.last_error = None;
            }
            Event::Llm(LlmEvent::TextDelta(text)) => self.response_text.push_str(text),
            Event::Llm(LlmEvent::ToolCallDelta(call)) => self.response_calls.push(call.clone()),
            Event::Llm(LlmEvent::Completed) => {
                self.conversation.push(Message::Assistant {
                    text: std::mem::take(&mut self.response_text),
                    tool_calls: std::mem::take(&mut self.response_calls),
                });
                self.retries = 0;
                self.last_error = None;
            }
            Event::Llm(LlmEvent::Error(error)) => {
                // A failed response is discarded whole; the retry starts over.
                self.response_text.clear();
                self.response_calls.clear();
                self.last_error = Some(error.clone());
                if fired.to == State::Error {
                    self.retry_timer = Some(policy.delay(self.retries));
                }
            }
            Event::ResponseExamined => {
                if fired.to == State::ExecutingTools {
                    self.batch = self.requested_tool_calls().to_vec();
                    self.pending = self.batch.iter().map(|call| call.id).collect();
                    self.results.clear();
                }
            }
            Event::ToolCompleted(result) => {
                self.pending.remove(&result.id);
                self.results.push(result.clone());
                if self.pending.is_empty() {
                    // Results go back to the LLM in call order, whatever
                    // order the threads finished in.
                    let mut results = std::mem::take(&mut self.results);
                    for call in &self.batch {
                        if let Some(i) = results.iter().position(|r| r.id == call.id) {
                            self.conversation.push(Message::Tool(results.swap_remove(i)));
                        }
                    }
                }
            }
            Event::RetryTimeoutFired => {
                self.retries += 1;
                self.retry_timer = None;
            }
            Event::PostToolsHookCompleted => {}
            Event::ShutdownRequested => self.retry_timer = None,
        }
    }

    /// Forget a response that was streaming when the process stopped: it is
    /// requested again on resume.
    pub(crate) fn discard_partial_response(&mut self) {
        self.response_text.clear();
        self.response_calls.clear();
    }

    /// Schedule the retry again if a restore found none.
    pub(crate) fn ensure_retry_timer(&mut self, policy: &RetryPolicy) -> Duration {
        *self.retry_timer.get_or_insert_with(|| policy.delay(self.retries))
    }
}
