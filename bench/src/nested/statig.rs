//! The nested machine in statig 0.4 (blocking), with statig's own hierarchy:
//! `working`, `llm` and `tools` are superstates (`llm` and `tools` inside
//! `working`), their hooks are statig entry and exit actions, and statig
//! computes the exit/entry path between two leaves.
//!
//! What statig cannot express is emulated, as in [`crate::subjects::statig`]:
//!
//! - `any` is a superstate, `active`, above every non-terminal state; it
//!   handles `shutdown_requested` and records the rejection of every event
//!   nobody handles (statig silently drops those); the terminal state
//!   records the rejection of everything.
//! - **Priority interrupt.** statig asks the leaf first, then each
//!   superstate outwards: depth alone decides. `working`'s forced `cancel`
//!   (priority 1) must pre-empt `tools`' own `cancel`, so `tools` checks the
//!   interrupt's guard and defers it (`Super`) to `working`.
//! - **Output order.** statig runs the handler (the transition's own
//!   outputs) before the exit actions, and fsmc's order is exits, the
//!   transition, entries. The handler puts its outputs in a pending slot,
//!   which the first entry action (or the caller, when nothing is entered)
//!   appends after the exits' outputs.
//! - **History.** statig has none. Each leaf inside `working` notes itself
//!   as the leaf being left in its exit action, `working`'s exit action
//!   keeps that as its memory, and `paused` transitions to the leaf the
//!   memory gives (the leaf itself for `deep_history`, its phase's initial
//!   leaf for `history`).
//! - Outputs are performed on the context; here performing records them,
//!   and the benchmark reads them back after each event.

use super::{Action, Guards, Output, Sink, State as NestedState, Step, Subject};
use ::statig::blocking::*;

/// An event of the nested machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
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
    /// `pause`.
    Pause,
    /// `resume`.
    Resume,
    /// `restart`.
    Restart,
    /// `cancel`.
    Cancel,
    /// `shutdown_requested`.
    ShutdownRequested,
}

/// The caller's side: the guard values it answers, the outputs the last
/// event performed, and whether it was rejected.
#[derive(Debug, Default)]
pub struct Context {
    guards: Guards,
    outputs: [Option<Output>; 8],
    len: usize,
    /// The transition's own output, waiting for the exits to run.
    pending: Option<Output>,
    rejected: bool,
}

impl Context {
    #[inline]
    fn push(&mut self, output: Output) {
        self.outputs[self.len] = Some(output);
        self.len += 1;
    }

    /// A transition's own output: after the exits' outputs.
    #[inline]
    fn emit(&mut self, output: Output) {
        debug_assert!(self.pending.is_none(), "one output per transition");
        self.pending = Some(output);
    }

    /// An entry action's output: after the transition's.
    #[inline]
    fn enter(&mut self, output: Output) {
        self.flush();
        self.push(output);
    }

    #[inline]
    fn flush(&mut self) {
        if let Some(output) = self.pending.take() {
            self.push(output);
        }
    }

    /// The outputs of the event just handled, in order.
    #[inline]
    fn outputs(&mut self) -> impl ExactSizeIterator<Item = Output> + '_ {
        self.flush();
        self.outputs[..self.len].iter().map(|o| o.expect("pushed"))
    }
}

/// statig's shared storage: `working`'s history memory.
#[derive(Debug, Default)]
pub struct Agent {
    /// The leaf inside `working` being exited.
    leaving: Option<State>,
    /// The leaf last active inside `working` when it was last left.
    last_working: Option<State>,
}

#[state_machine(
    initial = "State::waiting_for_user_input()",
    state(derive(Debug, Clone, Copy, PartialEq, Eq))
)]
impl Agent {
    #[state(superstate = "active")]
    fn waiting_for_user_input(event: &Event) -> Outcome<State> {
        match event {
            Event::UserInput => Transition(State::calling_llm()),
            _ => Super,
        }
    }

    #[state(
        superstate = "llm",
        entry_action = "enter_calling_llm",
        exit_action = "leave_calling_llm"
    )]
    fn calling_llm(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            Event::TextDelta => {
                context.emit(Output::DisplayMessage);
                Handled
            }
            Event::ToolCallDelta => {
                context.emit(Output::WaitForInput);
                Handled
            }
            Event::LlmCompleted => Transition(State::processing_llm_response()),
            _ => Super,
        }
    }

    #[state(superstate = "llm", exit_action = "leave_processing_llm_response")]
    fn processing_llm_response(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            Event::ResponseExamined if context.guards.has_tool_calls => {
                context.emit(Output::ExecuteTools);
                Transition(State::executing_tools())
            }
            Event::ResponseExamined => {
                context.emit(Output::WaitForInput);
                Transition(State::waiting_for_user_input())
            }
            _ => Super,
        }
    }

    #[state(superstate = "tools", exit_action = "leave_executing_tools")]
    fn executing_tools(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            Event::ToolCompleted if context.guards.tools_pending => {
                context.emit(Output::WaitForInput);
                Handled
            }
            Event::ToolCompleted if context.guards.mutating_tools => {
                context.emit(Output::RunPostToolsHook);
                Transition(State::post_tools_hook())
            }
            Event::ToolCompleted => Transition(State::calling_llm()),
            _ => Super,
        }
    }

    #[state(superstate = "tools", exit_action = "leave_post_tools_hook")]
    fn post_tools_hook(event: &Event) -> Outcome<State> {
        match event {
            Event::PostToolsHookCompleted => Transition(State::calling_llm()),
            _ => Super,
        }
    }

    #[state(superstate = "working", exit_action = "leave_backoff")]
    fn backoff(event: &Event) -> Outcome<State> {
        match event {
            Event::RetryTimeoutFired => Transition(State::calling_llm()),
            _ => Super,
        }
    }

    #[state(superstate = "active")]
    fn paused(&mut self, context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            // working.deep_history
            Event::Resume => {
                context.emit(Output::ResumeWork);
                Transition(self.last_working.unwrap_or(State::calling_llm()))
            }
            // working.history
            Event::Restart => {
                context.emit(Output::ResumeWork);
                Transition(match self.last_working {
                    Some(State::ExecutingTools {} | State::PostToolsHook {}) => State::executing_tools(),
                    Some(State::Backoff {}) => State::backoff(),
                    _ => State::calling_llm(),
                })
            }
            Event::Cancel => {
                context.emit(Output::AbortWork);
                Transition(State::waiting_for_user_input())
            }
            _ => Super,
        }
    }

    /// Terminal: every event is rejected.
    #[state]
    fn shutting_down(context: &mut Context) -> Outcome<State> {
        context.rejected = true;
        Handled
    }

    #[superstate(superstate = "working", entry_action = "enter_llm", exit_action = "exit_llm")]
    fn llm(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            Event::LlmError if context.guards.retries_left => {
                context.emit(Output::WaitForInput);
                Transition(State::backoff())
            }
            Event::LlmError => {
                context.emit(Output::DisplayError);
                Transition(State::waiting_for_user_input())
            }
            _ => Super,
        }
    }

    #[superstate(
        superstate = "working",
        entry_action = "enter_tools",
        exit_action = "exit_tools"
    )]
    fn tools(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            // `working`'s forced cancel has priority 1: an interrupt.
            Event::Cancel if context.guards.forced => Super,
            Event::Cancel => {
                context.emit(Output::CancelTools);
                Handled
            }
            _ => Super,
        }
    }

    #[superstate(
        superstate = "active",
        entry_action = "enter_working",
        exit_action = "exit_working"
    )]
    fn working(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            Event::Cancel => {
                context.emit(Output::AbortWork);
                Transition(State::waiting_for_user_input())
            }
            Event::Pause => {
                context.emit(Output::SuspendWork);
                Transition(State::paused())
            }
            _ => Super,
        }
    }

    /// The `.fsm` `any` block, and the rejection of what no state handles.
    #[superstate]
    fn active(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            Event::ShutdownRequested => {
                context.emit(Output::Shutdown);
                Transition(State::shutting_down())
            }
            _ => {
                context.rejected = true;
                Handled
            }
        }
    }

    #[action]
    fn enter_calling_llm(context: &mut Context) {
        context.enter(Output::SendLlmRequest);
    }

    #[action]
    fn enter_llm(context: &mut Context) {
        context.enter(Output::OpenStream);
    }

    #[action]
    fn exit_llm(context: &mut Context) {
        context.push(Output::CloseStream);
    }

    #[action]
    fn enter_tools(context: &mut Context) {
        context.enter(Output::LockWorkspace);
    }

    #[action]
    fn exit_tools(context: &mut Context) {
        context.push(Output::UnlockWorkspace);
    }

    #[action]
    fn enter_working(context: &mut Context) {
        context.enter(Output::StartTurn);
    }

    #[action]
    fn exit_working(&mut self, context: &mut Context) {
        self.last_working = self.leaving;
        context.push(Output::EndTurn);
    }

    #[action]
    fn leave_calling_llm(&mut self) {
        self.leaving = Some(State::calling_llm());
    }

    #[action]
    fn leave_processing_llm_response(&mut self) {
        self.leaving = Some(State::processing_llm_response());
    }

    #[action]
    fn leave_executing_tools(&mut self) {
        self.leaving = Some(State::executing_tools());
    }

    #[action]
    fn leave_post_tools_hook(&mut self) {
        self.leaving = Some(State::post_tools_hook());
    }

    #[action]
    fn leave_backoff(&mut self) {
        self.leaving = Some(State::backoff());
    }
}

fn state(state: &State) -> NestedState {
    match state {
        State::WaitingForUserInput {} => NestedState::WaitingForUserInput,
        State::CallingLlm {} => NestedState::CallingLlm,
        State::ProcessingLlmResponse {} => NestedState::ProcessingLlmResponse,
        State::ExecutingTools {} => NestedState::ExecutingTools,
        State::PostToolsHook {} => NestedState::PostToolsHook,
        State::Backoff {} => NestedState::Backoff,
        State::Paused {} => NestedState::Paused,
        State::ShuttingDown {} => NestedState::ShuttingDown,
    }
}

fn event(action: Action) -> Event {
    match action {
        Action::UserInput => Event::UserInput,
        Action::TextDelta => Event::TextDelta,
        Action::ToolCallDelta => Event::ToolCallDelta,
        Action::LlmCompleted => Event::LlmCompleted,
        Action::LlmError => Event::LlmError,
        Action::ResponseExamined => Event::ResponseExamined,
        Action::ToolCompleted => Event::ToolCompleted,
        Action::PostToolsHookCompleted => Event::PostToolsHookCompleted,
        Action::RetryTimeoutFired => Event::RetryTimeoutFired,
        Action::Pause => Event::Pause,
        Action::Resume => Event::Resume,
        Action::Restart => Event::Restart,
        Action::Cancel => Event::Cancel,
        Action::ShutdownRequested => Event::ShutdownRequested,
    }
}

/// The statig machine.
pub struct Statig;

impl Subject for Statig {
    type Event = (Event, Guards);

    const NAME: &'static str = "statig 0.4 (superstates)";

    fn prepare(&self, step: &Step) -> Self::Event {
        (event(step.action), step.guards)
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) {
        let mut context = Context::default();
        let mut machine = Agent::default()
            .uninitialized_state_machine()
            .init_with_context(&mut context);
        for (event, guards) in events {
            context.guards = *guards;
            context.rejected = false;
            context.len = 0;
            machine.handle_with_context(event, &mut context);
            if context.rejected {
                sink.rejected(|| state(machine.state()));
            } else {
                sink.accepted(context.outputs(), || state(machine.state()));
            }
        }
    }
}
