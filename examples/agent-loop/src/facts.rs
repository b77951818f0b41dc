//! The machine's guards, answered from the caller's context.

use crate::agent::Event;
use crate::agent_loop;
use crate::backoff::RetryPolicy;
use crate::context::Context;
use crate::tools::is_mutating;

/// The answers to the machine's four guards at one event.
///
/// The agent computes them from its [`Context`] *before* firing, as the
/// context will be once the event is recorded (a completed tool no longer
/// counts as pending), and records the event only if the machine accepts
/// it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Facts {
    /// Fewer retries than the policy's maximum were made.
    pub retries_left: bool,
    /// The last LLM response asked for tools.
    pub has_tool_calls: bool,
    /// Tool calls of the batch are still running.
    pub tools_pending: bool,
    /// The batch has a tool that changes files.
    pub mutating_tools: bool,
}

impl Facts {
    /// The facts at `event`, given `context` and `policy`.
    pub fn at(event: &Event, context: &Context, policy: &RetryPolicy) -> Self {
        let finishing = match event {
            Event::ToolCompleted(result) => Some(result.id),
            _ => None,
        };
        Facts {
            retries_left: context.retries() < policy.max_retries,
            has_tool_calls: !context.requested_tool_calls().is_empty(),
            tools_pending: context.pending().iter().any(|&id| Some(id) != finishing),
            mutating_tools: context.batch().iter().any(|call| is_mutating(&call.name)),
        }
    }
}

impl agent_loop::Guards for Facts {
    fn retries_left(&self) -> bool {
        self.retries_left
    }

    fn has_tool_calls(&self) -> bool {
        self.has_tool_calls
    }

    fn tools_pending(&self) -> bool {
        self.tools_pending
    }

    fn mutating_tools(&self) -> bool {
        self.mutating_tools
    }
}
