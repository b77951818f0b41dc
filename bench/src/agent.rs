//! The coding agent's loop (`bench/machines/agent_loop.fsm`) as the runtime
//! benchmark sees it: plain enums for its states, actions and outputs, and a
//! struct of its guard values.
//!
//! These are the trace's vocabulary: every implementation under
//! [`crate::subjects`] maps its own types to these, outside the timed loop,
//! so the verification pass can compare them step by step. The hand-written
//! implementation uses them directly.

use serde_json::Value;
use std::sync::OnceLock;

/// The machine's text, for the implementations that load it at run time.
///
/// The benchmark keeps its own copy: the guards-only version of
/// `examples/agent_loop.fsm` from before that example moved its data into a
/// context (the data-carrying version is [`crate::data`]'s).
pub const SOURCE: &str = include_str!("../machines/agent_loop.fsm");

/// The states, in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// `waiting_for_user_input` (initial).
    WaitingForUserInput,
    /// `calling_llm`.
    CallingLlm,
    /// `processing_llm_response`.
    ProcessingLlmResponse,
    /// `executing_tools`.
    ExecutingTools,
    /// `post_tools_hook`.
    PostToolsHook,
    /// `error`.
    Error,
    /// `shutting_down` (terminal).
    ShuttingDown,
}

impl State {
    /// Every state, in declaration order.
    pub const ALL: [State; 7] = [
        State::WaitingForUserInput,
        State::CallingLlm,
        State::ProcessingLlmResponse,
        State::ExecutingTools,
        State::PostToolsHook,
        State::Error,
        State::ShuttingDown,
    ];

    /// The name in the `.fsm` file.
    pub const fn name(self) -> &'static str {
        match self {
            State::WaitingForUserInput => "waiting_for_user_input",
            State::CallingLlm => "calling_llm",
            State::ProcessingLlmResponse => "processing_llm_response",
            State::ExecutingTools => "executing_tools",
            State::PostToolsHook => "post_tools_hook",
            State::Error => "error",
            State::ShuttingDown => "shutting_down",
        }
    }

    /// The state called `name`.
    ///
    /// # Panics
    ///
    /// When the machine has no such state: an implementation under test
    /// reported a state the agent machine does not have.
    pub fn named(name: &str) -> State {
        *State::ALL
            .iter()
            .find(|s| s.name() == name)
            .unwrap_or_else(|| panic!("the agent machine has no state `{name}`"))
    }
}

/// The actions, in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// `user_input`.
    UserInput,
    /// `text_delta`.
    TextDelta,
    /// `tool_call_delta`.
    ToolCallDelta,
    /// `llm_completed`.
    LlmCompleted,
    /// `llm_error`.
    LlmError,
    /// `response_examined`.
    ResponseExamined,
    /// `tool_completed`.
    ToolCompleted,
    /// `post_tools_hook_completed`.
    PostToolsHookCompleted,
    /// `retry_timeout_fired`.
    RetryTimeoutFired,
    /// `shutdown_requested`.
    ShutdownRequested,
}

impl Action {
    /// Every action, in declaration order.
    pub const ALL: [Action; 10] = [
        Action::UserInput,
        Action::TextDelta,
        Action::ToolCallDelta,
        Action::LlmCompleted,
        Action::LlmError,
        Action::ResponseExamined,
        Action::ToolCompleted,
        Action::PostToolsHookCompleted,
        Action::RetryTimeoutFired,
        Action::ShutdownRequested,
    ];

    /// The name in the `.fsm` file.
    pub const fn name(self) -> &'static str {
        match self {
            Action::UserInput => "user_input",
            Action::TextDelta => "text_delta",
            Action::ToolCallDelta => "tool_call_delta",
            Action::LlmCompleted => "llm_completed",
            Action::LlmError => "llm_error",
            Action::ResponseExamined => "response_examined",
            Action::ToolCompleted => "tool_completed",
            Action::PostToolsHookCompleted => "post_tools_hook_completed",
            Action::RetryTimeoutFired => "retry_timeout_fired",
            Action::ShutdownRequested => "shutdown_requested",
        }
    }
}

/// The outputs, in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Output {
    /// `send_llm_request`.
    SendLlmRequest,
    /// `display_message`.
    DisplayMessage,
    /// `wait_for_input`.
    WaitForInput,
    /// `execute_tools`.
    ExecuteTools,
    /// `run_post_tools_hook`.
    RunPostToolsHook,
    /// `display_error`.
    DisplayError,
    /// `shutdown`.
    Shutdown,
}

impl Output {
    /// Every output, in declaration order.
    pub const ALL: [Output; 7] = [
        Output::SendLlmRequest,
        Output::DisplayMessage,
        Output::WaitForInput,
        Output::ExecuteTools,
        Output::RunPostToolsHook,
        Output::DisplayError,
        Output::Shutdown,
    ];

    /// The name in the `.fsm` file.
    pub const fn name(self) -> &'static str {
        match self {
            Output::SendLlmRequest => "send_llm_request",
            Output::DisplayMessage => "display_message",
            Output::WaitForInput => "wait_for_input",
            Output::ExecuteTools => "execute_tools",
            Output::RunPostToolsHook => "run_post_tools_hook",
            Output::DisplayError => "display_error",
            Output::Shutdown => "shutdown",
        }
    }

    /// The output called `name`.
    ///
    /// # Panics
    ///
    /// When the machine has no such output.
    pub fn named(name: &str) -> Output {
        *Output::ALL
            .iter()
            .find(|o| o.name() == name)
            .unwrap_or_else(|| panic!("the agent machine has no output `{name}`"))
    }
}

/// The value of each guard at one step of a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Guards {
    /// `retries_left`.
    pub retries_left: bool,
    /// `has_tool_calls`.
    pub has_tool_calls: bool,
    /// `tools_pending`.
    pub tools_pending: bool,
    /// `mutating_tools`.
    pub mutating_tools: bool,
}

impl Guards {
    /// The guard names, in declaration order (bit `i` of [`Guards::bits`]).
    pub const NAMES: [&'static str; 4] = [
        "retries_left",
        "has_tool_calls",
        "tools_pending",
        "mutating_tools",
    ];

    /// The guards from four bits, bit `i` being guard `NAMES[i]`.
    pub const fn from_bits(bits: u8) -> Guards {
        Guards {
            retries_left: bits & 1 != 0,
            has_tool_calls: bits & 2 != 0,
            tools_pending: bits & 4 != 0,
            mutating_tools: bits & 8 != 0,
        }
    }

    /// The four bits of [`Guards::from_bits`].
    pub const fn bits(self) -> u8 {
        self.retries_left as u8
            | (self.has_tool_calls as u8) << 1
            | (self.tools_pending as u8) << 2
            | (self.mutating_tools as u8) << 3
    }

    /// These guard values as the JSON input of a closure guard
    /// (`{"retries_left": true, ...}`), for the implementations whose guards
    /// are `Fn(&serde_json::Value) -> bool`. The 16 possible inputs are built
    /// once, so a trace step refers to one without allocating.
    pub fn json(self) -> &'static Value {
        static INPUTS: OnceLock<Vec<Value>> = OnceLock::new();
        let inputs = INPUTS.get_or_init(|| {
            (0..16u8)
                .map(|bits| {
                    let guards = Guards::from_bits(bits);
                    let values = [
                        guards.retries_left,
                        guards.has_tool_calls,
                        guards.tools_pending,
                        guards.mutating_tools,
                    ];
                    Value::Object(
                        Guards::NAMES
                            .iter()
                            .zip(values)
                            .map(|(name, value)| (name.to_string(), Value::Bool(value)))
                            .collect(),
                    )
                })
                .collect()
        });
        &inputs[usize::from(self.bits())]
    }
}

/// A closure guard's reading of its input: the boolean field `name`, false
/// when absent. What a user of a `Fn(&Value) -> bool` guard API writes.
pub fn json_flag(input: &Value, name: &str) -> bool {
    input.get(name).and_then(Value::as_bool).unwrap_or(false)
}
