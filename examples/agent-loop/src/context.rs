//! The machine's context: what the loop remembers between events (the
//! conversation, the retry count, the tool batch), read by its guards and
//! delay and changed by its effects.

use crate::agent_loop;
use crate::backoff::RetryPolicy;
use crate::conversation::{Message, ToolCall, ToolCallId, ToolResult};
use crate::tools::is_mutating;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::time::Duration;

/// The agent's memory, owned by the [`AgentLoop`](crate::AgentLoop) machine.
/// Its guards are answered from it, its effects are the only way it changes
/// during a turn, and the backoff before a retry is computed from it; the
/// caller only reads it, to perform the outputs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentContext {
    /// How often, and how far apart, failed requests are retried.
    policy: RetryPolicy,
    conversation: Vec<Message>,
    /// LLM requests sent in the session, retries included.
    requests: u32,
    /// Retries made for the current request.
    retries: u32,
    last_error: Option<String>,
    /// The response being streamed.
    response_text: String,
    response_calls: Vec<ToolCall>,
    /// The tool calls executing, and those not finished yet.
    batch: Vec<ToolCall>,
    pending: BTreeSet<ToolCallId>,
    results: Vec<ToolResult>,
}

/// The result of a tool call that a cancelled turn did not let finish.
pub const CANCELLED: &str = "cancelled by the user";

impl AgentContext {
    /// An empty conversation, retried by `policy`.
    pub fn new(policy: RetryPolicy) -> Self {
        AgentContext {
            policy,
            ..AgentContext::default()
        }
    }

    /// The retry policy.
    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

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

    /// The tool calls of the last assistant message.
    pub fn requested_tool_calls(&self) -> &[ToolCall] {
        match self.conversation.last() {
            Some(Message::Assistant { tool_calls, .. }) => tool_calls,
            _ => &[],
        }
    }

    /// Retry with `policy` from now on (a resumed agent takes the policy of
    /// the process that resumes it).
    pub(crate) fn set_policy(&mut self, policy: RetryPolicy) {
        self.policy = policy;
    }

    /// Count one more LLM request and return its number. The caller counts
    /// the requests it sends; the machine does not know about them.
    pub(crate) fn count_request(&mut self) -> u32 {
        self.requests += 1;
        self.requests
    }

    /// Forget a response that was streaming when the process stopped: it is
    /// requested again on resume.
    pub(crate) fn discard_partial_response(&mut self) {
        self.response_text.clear();
        self.response_calls.clear();
    }
}

impl agent_loop::Context for AgentContext {
    fn retries_left(&self) -> bool {
        self.retries < self.policy.max_retries
    }

    fn has_tool_calls(&self) -> bool {
        !self.requested_tool_calls().is_empty()
    }

    /// Guards read the context before the effects run, so the call that
    /// just finished is still pending: it does not count.
    fn tools_pending(&self, finished: &ToolResult) -> bool {
        self.pending.iter().any(|&id| id != finished.id)
    }

    fn mutating_tools(&self) -> bool {
        self.batch.iter().any(|call| is_mutating(&call.name))
    }

    fn add_user_message(&mut self, text: &String) {
        self.conversation.push(Message::User { text: text.clone() });
        self.retries = 0;
        self.last_error = None;
    }

    fn append_text(&mut self, text: &String) {
        self.response_text.push_str(text);
    }

    fn add_tool_call(&mut self, call: &ToolCall) {
        self.response_calls.push(call.clone());
    }

    fn complete_response(&mut self) {
        self.conversation.push(Message::Assistant {
            text: std::mem::take(&mut self.response_text),
            tool_calls: std::mem::take(&mut self.response_calls),
        });
        self.retries = 0;
        self.last_error = None;
    }

    fn record_error(&mut self, error: &String) {
        // A failed response is discarded whole; the retry starts over.
        self.discard_partial_response();
        self.last_error = Some(error.clone());
    }

    fn count_retry(&mut self) {
        self.retries += 1;
    }

    fn start_batch(&mut self) {
        self.batch = self.requested_tool_calls().to_vec();
        self.pending = self.batch.iter().map(|call| call.id).collect();
        self.results.clear();
    }

    fn store_result(&mut self, result: &ToolResult) {
        self.pending.remove(&result.id);
        self.results.push(result.clone());
        if self.pending.is_empty() {
            // Results go back to the LLM in call order, whatever order the
            // threads finished in.
            let mut results = std::mem::take(&mut self.results);
            for call in &self.batch {
                if let Some(i) = results.iter().position(|r| r.id == call.id) {
                    self.conversation.push(Message::Tool(results.swap_remove(i)));
                }
            }
        }
    }

    fn abandon_turn(&mut self) {
        self.discard_partial_response();
        self.retries = 0;
        self.last_error = None;
        // Tool results are appended once the whole batch finished, so a
        // last message that asks for tools is one whose calls have no
        // results yet: its batch is still running, or never started. Each
        // call gets the result it finished with, if it did, or a
        // cancellation, in call order.
        let calls = self.requested_tool_calls().to_vec();
        let mut finished = std::mem::take(&mut self.results);
        for call in calls {
            let result = match finished.iter().position(|result| result.id == call.id) {
                Some(i) => finished.swap_remove(i),
                None => ToolResult {
                    id: call.id,
                    output: Err(CANCELLED.to_owned()),
                },
            };
            self.conversation.push(Message::Tool(result));
        }
        self.pending.clear();
    }

    fn backoff(&self) -> Duration {
        self.policy.delay(self.retries)
    }
}
