//! Scripts and agents shared by the test modules.

use agent_loop::{
    Agent, Arrival, Clock, FakeClock, Latency, LlmEvent, RetryPolicy, ScriptedLlm, ToolCall, ToolRunner,
};
use std::time::Duration;

/// The LLM streams `text`.
pub fn text(text: &str) -> LlmEvent {
    LlmEvent::TextDelta(text.to_owned())
}

/// The LLM streams a call of `name` with `input`.
pub fn call(id: u32, name: &str, input: &str) -> LlmEvent {
    LlmEvent::ToolCallDelta(ToolCall::new(id, name, input))
}

/// The LLM request fails with `message`.
pub fn error(message: &str) -> LlmEvent {
    LlmEvent::Error(message.to_owned())
}

/// 3 retries, 100 ms doubling, at most 1 s.
pub fn policy() -> RetryPolicy {
    RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(100),
        max_delay: Duration::from_secs(1),
    }
}

/// An agent on a fake clock, with instant tools reporting in `arrival`
/// order.
pub fn agent(script: Vec<Vec<LlmEvent>>, arrival: Arrival) -> Agent<ScriptedLlm, FakeClock> {
    agent_with(script, ToolRunner::new(Latency::None, arrival), policy())
}

/// An agent on a fake clock with these tools and this policy.
pub fn agent_with(
    script: Vec<Vec<LlmEvent>>,
    tools: ToolRunner,
    policy: RetryPolicy,
) -> Agent<ScriptedLlm, FakeClock> {
    Agent::new(ScriptedLlm::new(script), tools, FakeClock::new(), policy)
}

/// A turn with five concurrent read-only tools, then a text answer.
pub fn five_tools() -> Vec<Vec<LlmEvent>> {
    vec![
        vec![
            text("Let me look around."),
            call(1, "read_file", "src/main.rs"),
            call(2, "grep", "helo"),
            call(3, "read_file", "README.md"),
            call(4, "grep", "TODO"),
            call(5, "read_file", "Cargo.toml"),
            LlmEvent::Completed,
        ],
        vec![text("Found it."), LlmEvent::Completed],
    ]
}

/// The ids of the tool results in the order the agent received them.
pub fn arrival_order<L, C: Clock>(agent: &Agent<L, C>) -> Vec<u32> {
    agent
        .trace()
        .iter()
        .filter_map(|line| line.strip_prefix("tool #"))
        .filter_map(|rest| rest.split(' ').next()?.parse().ok())
        .collect()
}
