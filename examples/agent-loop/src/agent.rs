//! The caller of the machine: it turns events into actions, performs the
//! outputs, and feeds the results back as events.

use crate::agent_loop::{Action, AgentLoop, FireError, Fired, Output, State};
use crate::backoff::{Clock, RetryPolicy};
use crate::checkpoint::Checkpoint;
use crate::context::Context;
use crate::conversation::{ToolCall, ToolResult};
use crate::facts::Facts;
use crate::llm::{Llm, LlmEvent};
use crate::tools::{is_mutating, ToolRunner};
use fsm_runtime::RestoreError;
use std::collections::VecDeque;
use std::fmt;

/// Something that happened, for the agent to act on. Each one is fired as
/// one action of the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The user sent a message.
    UserInput(String),
    /// The LLM streamed an event.
    Llm(LlmEvent),
    /// The agent examined a completed response. It fires this itself, at
    /// once, whenever the machine enters `processing_llm_response`.
    ResponseExamined,
    /// A tool call finished.
    ToolCompleted(ToolResult),
    /// The post-tool hooks finished.
    PostToolsHookCompleted,
    /// The backoff before a retry elapsed.
    RetryTimeoutFired,
    /// Something asked the agent to stop.
    ShutdownRequested,
}

impl Event {
    /// The machine's action for this event.
    pub fn action(&self) -> Action {
        match self {
            Event::UserInput(_) => Action::UserInput,
            Event::Llm(LlmEvent::TextDelta(_)) => Action::TextDelta,
            Event::Llm(LlmEvent::ToolCallDelta(_)) => Action::ToolCallDelta,
            Event::Llm(LlmEvent::Completed) => Action::LlmCompleted,
            Event::Llm(LlmEvent::Error(_)) => Action::LlmError,
            Event::ResponseExamined => Action::ResponseExamined,
            Event::ToolCompleted(_) => Action::ToolCompleted,
            Event::PostToolsHookCompleted => Action::PostToolsHookCompleted,
            Event::RetryTimeoutFired => Action::RetryTimeoutFired,
            Event::ShutdownRequested => Action::ShutdownRequested,
        }
    }
}

/// One line per event in the trace: `user: Fix the typo`.
impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::UserInput(text) => write!(f, "user: {text}"),
            Event::Llm(LlmEvent::TextDelta(text)) => write!(f, "llm: text {text:?}"),
            Event::Llm(LlmEvent::ToolCallDelta(call)) => write!(f, "llm: tool call {call}"),
            Event::Llm(LlmEvent::Completed) => f.write_str("llm: completed"),
            Event::Llm(LlmEvent::Error(error)) => write!(f, "llm: error: {error}"),
            Event::ResponseExamined => f.write_str("response examined"),
            Event::ToolCompleted(result) => match &result.output {
                Ok(output) => {
                    let first_line = output.lines().next().unwrap_or_default();
                    write!(f, "tool {} finished: {first_line}", result.id)
                }
                Err(error) => write!(f, "tool {} failed: {error}", result.id),
            },
            Event::PostToolsHookCompleted => f.write_str("post-tool hooks finished"),
            Event::RetryTimeoutFired => f.write_str("retry timer fired"),
            Event::ShutdownRequested => f.write_str("shutdown requested"),
        }
    }
}

/// A coding agent: the [`AgentLoop`] machine and the caller around it.
///
/// [`Agent::handle`] fires one event and performs its outputs; the events
/// those produce (the LLM's stream, tool results, the retry timer) wait in
/// [`Agent::next_event`]. [`Agent::run`] alternates the two until nothing is
/// left to do, which is when the machine waits for the user again.
#[derive(Debug)]
pub struct Agent<L, C> {
    machine: AgentLoop,
    context: Context,
    policy: RetryPolicy,
    llm: L,
    tools: ToolRunner,
    clock: C,
    queue: VecDeque<Event>,
    history: Vec<Fired>,
    rejected: Vec<FireError>,
    display: Vec<String>,
    trace: Vec<String>,
}

impl<L, C> Agent<L, C> {
    /// The machine's state and the context, to store and [`Agent::resume`]
    /// from.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            machine: self.machine.snapshot(),
            context: self.context.clone(),
        }
    }

    /// Take the agent apart, to hand its services to a resumed one.
    pub fn into_parts(self) -> (L, ToolRunner, C) {
        (self.llm, self.tools, self.clock)
    }

    /// The machine's current state.
    pub fn state(&self) -> State {
        self.machine.state()
    }

    /// The conversation, retries and tool batch.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Every transition so far, in order.
    pub fn history(&self) -> &[Fired] {
        &self.history
    }

    /// Every rejected event's error, in order.
    pub fn rejected(&self) -> &[FireError] {
        &self.rejected
    }

    /// What the user was shown: streamed text and errors.
    pub fn display(&self) -> &[String] {
        &self.display
    }

    /// Events, transitions and the I/O performed, one line each.
    pub fn trace(&self) -> &[String] {
        &self.trace
    }

    /// The LLM.
    pub fn llm(&self) -> &L {
        &self.llm
    }

    /// The clock.
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// Tool calls whose results have not arrived.
    pub fn tools_in_flight(&self) -> usize {
        self.tools.in_flight()
    }
}

impl<L: Llm, C: Clock> Agent<L, C> {
    /// An agent waiting for the user, asking `llm`, running tools with
    /// `tools`, and sleeping backoff delays on `clock`.
    pub fn new(llm: L, tools: ToolRunner, clock: C, policy: RetryPolicy) -> Self {
        Agent {
            machine: AgentLoop::new(),
            context: Context::default(),
            policy,
            llm,
            tools,
            clock,
            queue: VecDeque::new(),
            history: Vec::new(),
            rejected: Vec::new(),
            display: Vec::new(),
            trace: Vec::new(),
        }
    }

    /// An agent resumed from `checkpoint`, restarting the I/O its state was
    /// waiting on: a request in flight is sent again, unfinished tool calls
    /// run again (tools must tolerate that), hooks run again, and a
    /// scheduled retry is scheduled again. Calls still running on `tools`
    /// are awaited and their results dropped.
    ///
    /// # Errors
    ///
    /// When the checkpoint is of another machine, of another definition of
    /// this one, or names a state it does not have.
    pub fn resume(
        checkpoint: &Checkpoint,
        llm: L,
        tools: ToolRunner,
        clock: C,
        policy: RetryPolicy,
    ) -> Result<Self, RestoreError> {
        let machine = AgentLoop::restore(&checkpoint.machine)?;
        let mut agent = Agent::new(llm, tools, clock, policy);
        // Results of calls the old process started are not this one's.
        agent.tools.shutdown();
        agent.machine = machine;
        agent.context = checkpoint.context.clone();
        let state = agent.machine.state();
        agent.trace.push(format!("resumed in `{state}`"));
        match state {
            State::CallingLlm => {
                agent.context.discard_partial_response();
                agent.send_llm_request();
            }
            State::ProcessingLlmResponse => agent.queue.push_back(Event::ResponseExamined),
            State::ExecutingTools => {
                let unfinished: Vec<ToolCall> = agent
                    .context
                    .batch()
                    .iter()
                    .filter(|call| agent.context.pending().contains(&call.id))
                    .cloned()
                    .collect();
                agent.execute_tools(&unfinished);
            }
            State::PostToolsHook => agent.run_post_tools_hook(),
            State::Error => {
                let delay = agent.context.ensure_retry_timer(&agent.policy);
                agent.note(format!("retry scheduled in {delay:?}"));
            }
            State::WaitingForUserInput | State::ShuttingDown => {}
        }
        Ok(agent)
    }

    /// Send the user's message and run until the turn ends.
    ///
    /// # Errors
    ///
    /// When the machine does not accept user input now (it is shutting
    /// down, or a turn is still running).
    pub fn submit(&mut self, text: &str) -> Result<(), FireError> {
        self.handle(Event::UserInput(text.to_owned()))?;
        self.run();
        Ok(())
    }

    /// Request a shutdown.
    ///
    /// # Errors
    ///
    /// When the agent is already shutting down.
    pub fn shutdown(&mut self) -> Result<Fired, FireError> {
        self.handle(Event::ShutdownRequested)
    }

    /// Handle events until none is left: no queued event, no scheduled
    /// retry, no tool in flight. Events the machine rejects are recorded in
    /// [`Agent::rejected`] and skipped.
    pub fn run(&mut self) {
        while let Some(event) = self.next_event() {
            // A rejection is recorded by `handle`; the loop goes on.
            let _ = self.handle(event);
        }
    }

    /// The next event to handle: a queued one, else the scheduled retry
    /// (after sleeping its backoff), else the next tool result (blocking
    /// until a thread reports). `None` when there is nothing to wait for.
    pub fn next_event(&mut self) -> Option<Event> {
        if let Some(event) = self.queue.pop_front() {
            return Some(event);
        }
        if let (State::Error, Some(delay)) = (self.machine.state(), self.context.retry_timer()) {
            self.clock.sleep(delay);
            return Some(Event::RetryTimeoutFired);
        }
        self.tools.recv().map(Event::ToolCompleted)
    }

    /// Fire `event`'s action with the guards answered from the context;
    /// on success record the event in the context and perform the outputs.
    ///
    /// # Errors
    ///
    /// When the machine rejects the action; nothing changes then, and the
    /// error is also kept in [`Agent::rejected`].
    pub fn handle(&mut self, event: Event) -> Result<Fired, FireError> {
        self.trace.push(event.to_string());
        let facts = Facts::at(&event, &self.context, &self.policy);
        let fired = match self.machine.fire(event.action(), &facts) {
            Ok(fired) => fired,
            Err(error) => {
                self.note(format!("rejected: {error}"));
                self.rejected.push(error);
                return Err(error);
            }
        };
        self.trace.push(format!("  {fired}"));
        self.history.push(fired);
        self.context.apply(&event, &fired, &self.policy);
        for &output in fired.outputs {
            self.perform(output, &event);
        }
        match fired.to {
            // Transient: the response is examined at once.
            State::ProcessingLlmResponse if fired.from != fired.to => {
                let calls = plural(self.context.requested_tool_calls().len(), "tool call");
                self.note(format!("the response asks for {calls}"));
                self.queue.push_front(Event::ResponseExamined);
            }
            State::Error if fired.from != fired.to => {
                if let Some(delay) = self.context.retry_timer() {
                    let retry = self.context.retries() + 1;
                    let max = self.policy.max_retries;
                    self.note(format!("retry {retry} of {max} in {delay:?}"));
                }
            }
            _ => {}
        }
        Ok(fired)
    }

    fn perform(&mut self, output: Output, event: &Event) {
        match output {
            Output::SendLlmRequest => self.send_llm_request(),
            Output::DisplayMessage => {
                if let Event::Llm(LlmEvent::TextDelta(text)) = event {
                    self.note(format!("display {text:?}"));
                    self.display.push(text.clone());
                }
            }
            Output::WaitForInput => {}
            Output::ExecuteTools => {
                let batch = self.context.batch().to_vec();
                self.execute_tools(&batch);
            }
            Output::RunPostToolsHook => self.run_post_tools_hook(),
            Output::DisplayError => {
                let message = format!(
                    "error: the LLM request failed after {} retries: {}",
                    self.context.retries(),
                    self.context.last_error().unwrap_or("unknown error")
                );
                self.note(format!("display {message:?}"));
                self.display.push(message);
            }
            Output::Shutdown => {
                let dropped = plural(self.tools.in_flight(), "tool result");
                self.tools.shutdown();
                self.queue.clear();
                self.note(format!("shut down; {dropped} dropped"));
            }
        }
    }

    fn send_llm_request(&mut self) {
        let request = self.context.count_request();
        let messages = plural(self.context.conversation().len(), "message");
        self.note(format!("LLM request {request} ({messages})"));
        let events = self.llm.respond(self.context.conversation());
        self.queue.extend(events.into_iter().map(Event::Llm));
    }

    fn execute_tools(&mut self, calls: &[ToolCall]) {
        let list: Vec<String> = calls.iter().map(ToString::to_string).collect();
        let threads = plural(calls.len(), "thread");
        self.note(format!("start {} on {threads}", list.join(", ")));
        self.tools.spawn(calls);
    }

    /// The fake hook: an auto-commit of what the mutating tools changed.
    fn run_post_tools_hook(&mut self) {
        let changes: Vec<String> = self
            .context
            .batch()
            .iter()
            .filter(|call| is_mutating(&call.name))
            .map(|call| format!("{}({})", call.name, call.input))
            .collect();
        self.note(format!("auto-commit after {}", changes.join(", ")));
        self.queue.push_back(Event::PostToolsHookCompleted);
    }

    fn note(&mut self, line: String) {
        self.trace.push(format!("  -> {line}"));
    }
}

/// `1 message`, `2 messages`.
fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}
