//! The caller of the machine: it fires events, performs the outputs, feeds
//! the results back as events, and waits for the machine's backoff timer.

use crate::agent_loop::{Composite, Event, FireError, Fired, Output, State, TimerFired};
use crate::backoff::{Clock, RetryPolicy};
use crate::checkpoint::Checkpoint;
use crate::context::AgentContext;
use crate::conversation::ToolCall;
use crate::llm::{Llm, LlmEvent};
use crate::tools::{is_mutating, ToolRunner};
use crate::AgentLoop;
use fsm_runtime::{FingerprintPolicy, RestoreError, SnapshotError, Timestamp};
use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

/// A streamed LLM event is the machine's event carrying it.
impl From<LlmEvent> for Event {
    fn from(event: LlmEvent) -> Event {
        match event {
            LlmEvent::TextDelta(text) => Event::TextDelta(text),
            LlmEvent::ToolCallDelta(call) => Event::ToolCallDelta(call),
            LlmEvent::Completed => Event::LlmCompleted,
            LlmEvent::Error(error) => Event::LlmError(error),
        }
    }
}

/// One line per event in the trace: `user: Fix the typo`.
impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::UserInput(text) => write!(f, "user: {text}"),
            Event::TextDelta(text) => write!(f, "llm: text {text:?}"),
            Event::ToolCallDelta(call) => write!(f, "llm: tool call {call}"),
            Event::LlmCompleted => f.write_str("llm: completed"),
            Event::LlmError(error) => write!(f, "llm: error: {error}"),
            Event::ToolCompleted(result) => match &result.output {
                Ok(output) => {
                    let first_line = output.lines().next().unwrap_or_default();
                    write!(f, "tool {} finished: {first_line}", result.id)
                }
                Err(error) => write!(f, "tool {} failed: {error}", result.id),
            },
            Event::PostToolsHookCompleted => f.write_str("post-tool hooks finished"),
            Event::ShutdownRequested => f.write_str("shutdown requested"),
            Event::Pause => f.write_str("user: pause"),
            Event::Resume => f.write_str("user: resume"),
            Event::Cancel => f.write_str("user: cancel"),
        }
    }
}

/// A coding agent: the [`AgentLoop`] machine and the caller around it.
///
/// The machine owns the [`AgentContext`] (conversation, retry count, tool
/// batch) and the backoff timer; the agent owns the I/O. [`Agent::handle`]
/// fires one event and performs its outputs; the events those produce (the
/// LLM's stream, tool results) wait in [`Agent::next_event`], which also
/// waits for the backoff timer and fires it when it comes due.
/// [`Agent::run`] alternates the two until nothing is left to do, which is
/// when the machine waits for the user again, or the turn is paused.
///
/// [`Agent::pause`] holds a turn in whatever phase it is in: the events of
/// the work in flight (the rest of the LLM's stream, tool results, the
/// hooks' completion) wait, tools already running finish, nothing new
/// starts, and a backoff before a retry is disarmed. [`Agent::unpause`]
/// goes back to that very phase, delivers what was held and goes on; a
/// backoff starts over, whole. [`Agent::cancel`] ends the turn instead.
pub struct Agent<L, C: Clock> {
    machine: AgentLoop<C>,
    llm: L,
    tools: ToolRunner,
    queue: VecDeque<Event>,
    /// Paused in a checkpoint that this agent resumed from: the events held
    /// by the old process are lost, and its work is started again on
    /// [`Agent::unpause`].
    held_work_lost: bool,
    history: Vec<Fired<C>>,
    timers: Vec<TimerFired<C>>,
    rejected: Vec<FireError<C>>,
    display: Vec<String>,
    trace: Vec<String>,
}

/// The machine (state, context, deadline) and what the agent recorded.
impl<L: fmt::Debug, C: Clock> fmt::Debug for Agent<L, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("machine", &self.machine)
            .field("llm", &self.llm)
            .field("tools", &self.tools)
            .field("queue", &self.queue)
            .field("history", &self.history)
            .field("timers", &self.timers)
            .field("rejected", &self.rejected)
            .field("display", &self.display)
            .finish_non_exhaustive()
    }
}

impl<L, C: Clock> Agent<L, C> {
    /// Every transition an event made, in order.
    pub fn history(&self) -> &[Fired<C>] {
        &self.history
    }

    /// Every backoff timer that fired, in order.
    pub fn timers(&self) -> &[TimerFired<C>] {
        &self.timers
    }

    /// Why each rejected event was rejected, in order, with the event.
    pub fn rejected(&self) -> &[FireError<C>] {
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

    /// Tool calls whose results have not arrived.
    pub fn tools_in_flight(&self) -> usize {
        self.tools.in_flight()
    }

    /// The machine's snapshot (state, context and the deadline of an
    /// armed backoff), to store and [`Agent::resume`] from.
    ///
    /// # Errors
    ///
    /// Never in practice: the context serializes to JSON with string keys.
    /// The error is the runtime's, passed on.
    pub fn checkpoint(&self) -> Result<Checkpoint, SnapshotError> {
        Ok(Checkpoint {
            machine: self.machine.snapshot()?,
        })
    }

    /// Take the agent apart, to hand its services to a resumed one.
    pub fn into_parts(self) -> (L, ToolRunner, C) {
        let clock = self.machine.clock().clone();
        (self.llm, self.tools, clock)
    }

    /// The machine's current state.
    pub fn state(&self) -> State {
        self.machine.state()
    }

    /// The machine itself, to ask it more than its state: whether a turn
    /// is under way (`is_in(Composite::Working)`), the phase a paused turn
    /// will resume in (`last_active(Composite::Working)`), its valid actions.
    pub fn machine(&self) -> &AgentLoop<C> {
        &self.machine
    }

    /// The machine's context: the conversation, retries and tool batch.
    pub fn context(&self) -> &AgentContext {
        self.machine.context()
    }

    /// When the armed backoff timer is due; `None` when no retry waits.
    pub fn retry_due(&self) -> Option<Timestamp> {
        self.machine.next_deadline()
    }

    /// The clock.
    pub fn clock(&self) -> &C {
        self.machine.clock()
    }
}

impl<L: Llm, C: Clock> Agent<L, C> {
    /// An agent waiting for the user, asking `llm`, running tools with
    /// `tools`, and retrying failed requests by `policy`, its backoff timed
    /// on `clock`.
    pub fn new(llm: L, tools: ToolRunner, clock: C, policy: RetryPolicy) -> Self {
        Self::around(
            AgentLoop::with_clock(AgentContext::new(policy), clock),
            llm,
            tools,
        )
    }

    fn around(machine: AgentLoop<C>, llm: L, tools: ToolRunner) -> Self {
        Agent {
            machine,
            llm,
            tools,
            queue: VecDeque::new(),
            held_work_lost: false,
            history: Vec::new(),
            timers: Vec::new(),
            rejected: Vec::new(),
            display: Vec::new(),
            trace: Vec::new(),
        }
    }

    /// An agent resumed from `checkpoint`, retrying by `policy` from now
    /// on, and restarting the I/O its state was waiting on: a request in
    /// flight is sent again, unfinished tool calls run again (tools must
    /// tolerate that), hooks run again. A backoff armed before the restart
    /// keeps its deadline: the retry is sent when first promised, or at
    /// once if that time has passed. A paused turn stays paused, and
    /// remembers the phase it was paused in; [`Agent::unpause`] restarts
    /// that phase's I/O then. Calls still running on `tools` are awaited and
    /// their results dropped.
    ///
    /// # Errors
    ///
    /// When the checkpoint is of another machine, of another definition of
    /// this one, names a state it does not have, or carries no context or
    /// one that does not read back (the error names the field).
    pub fn resume(
        checkpoint: &Checkpoint,
        llm: L,
        mut tools: ToolRunner,
        clock: C,
        policy: RetryPolicy,
    ) -> Result<Self, RestoreError> {
        let mut machine = AgentLoop::restore_with(&checkpoint.machine, FingerprintPolicy::Strict, clock)?;
        machine.context_mut().set_policy(policy);
        // Results of calls the old process started are not this one's.
        tools.shutdown();
        let mut agent = Agent::around(machine, llm, tools);
        let state = agent.machine.state();
        agent.trace.push(format!("resumed in `{state}`"));
        match state {
            State::Error => {
                let retry = agent.machine.context().retries() + 1;
                agent.note(format!(
                    "retry {retry} still due at the deadline set before the restart"
                ));
            }
            State::Paused => {
                agent.held_work_lost = true;
                if let Some(phase) = agent.machine.last_active(Composite::Working) {
                    agent.note(format!("paused in `{phase}`"));
                }
            }
            phase => agent.restart_work(phase),
        }
        Ok(agent)
    }

    /// Send the user's message and run until the turn ends.
    ///
    /// # Errors
    ///
    /// When the machine does not accept user input now (it is shutting
    /// down, or a turn is still running); the message is in the error.
    pub fn submit(&mut self, text: &str) -> Result<(), FireError<C>> {
        self.handle(Event::UserInput(text.to_owned()))?;
        self.run();
        Ok(())
    }

    /// Pause the turn in the phase it is in.
    ///
    /// # Errors
    ///
    /// When no turn is under way (the agent waits for the user, is paused
    /// already, or shuts down).
    pub fn pause(&mut self) -> Result<Fired<C>, FireError<C>> {
        self.handle(Event::Pause)
    }

    /// Resume the paused turn in the phase it was paused in, and run until
    /// the turn ends (or is paused again).
    ///
    /// # Errors
    ///
    /// When the turn is not paused.
    pub fn unpause(&mut self) -> Result<Fired<C>, FireError<C>> {
        let fired = self.handle(Event::Resume)?;
        self.run();
        Ok(fired)
    }

    /// Abandon the turn, paused or not: the work in flight is stopped and
    /// its events dropped, and the agent waits for the user. Tool calls the
    /// LLM asked for and that have no result get one saying they were
    /// cancelled ([`CANCELLED`](crate::CANCELLED)), so the next request's
    /// conversation is complete.
    ///
    /// # Errors
    ///
    /// When no turn is under way.
    pub fn cancel(&mut self) -> Result<Fired<C>, FireError<C>> {
        self.handle(Event::Cancel)
    }

    /// Request a shutdown.
    ///
    /// # Errors
    ///
    /// When the agent is already shutting down.
    pub fn shutdown(&mut self) -> Result<Fired<C>, FireError<C>> {
        self.handle(Event::ShutdownRequested)
    }

    /// Handle events until none is left: no queued event, no armed backoff,
    /// no tool in flight, or the turn is paused. Events the machine rejects
    /// are recorded in [`Agent::rejected`] and skipped.
    pub fn run(&mut self) {
        while let Some(event) = self.next_event() {
            // A rejection is recorded by `handle`; the loop goes on.
            let _ = self.handle(event);
        }
    }

    /// The next event to handle: a queued one, else the next tool result
    /// (blocking until a thread reports). The backoff timer fires on the
    /// way: when it is due, at once; when nothing is queued, after sleeping
    /// until its deadline. Its retry request queues the LLM's events.
    /// `None` when there is nothing to wait for, and while the turn is
    /// paused: its events are held until it resumes.
    pub fn next_event(&mut self) -> Option<Event> {
        loop {
            if self.machine.state() == State::Paused {
                return None;
            }
            self.fire_due_timers();
            if let Some(event) = self.queue.pop_front() {
                return Some(event);
            }
            let Some(due) = self.machine.next_deadline() else {
                return self.tools.recv().map(Event::ToolCompleted);
            };
            let now = fsm_runtime::Clock::now(self.machine.clock());
            let wait = due.unix_millis().saturating_sub(now.unix_millis());
            if wait > 0 {
                self.machine.clock().sleep(Duration::from_millis(wait));
            }
        }
    }

    /// Fire `event`; on success perform the outputs.
    ///
    /// # Errors
    ///
    /// When the machine rejects the event; nothing changes then, the
    /// event is handed back in the error, and why is also kept in
    /// [`Agent::rejected`].
    pub fn handle(&mut self, event: Event) -> Result<Fired<C>, FireError<C>> {
        self.trace.push(event.to_string());
        let text = match &event {
            Event::TextDelta(text) => Some(text.clone()),
            _ => None,
        };
        let fired = match self.machine.fire(event) {
            Ok(fired) => fired,
            Err(rejected) => {
                self.note(format!("rejected: {rejected}"));
                self.rejected.push(rejected.clone());
                return Err(rejected);
            }
        };
        self.trace.push(format!("  {fired}"));
        self.history.push(fired);
        for &output in fired.outputs {
            self.perform(output, text.as_deref());
        }
        self.entered(fired.from, fired.to);
        Ok(fired)
    }

    /// Fire the backoff timer if it is due, and perform its outputs.
    fn fire_due_timers(&mut self) {
        while let Some(result) = self.machine.fire_next_due() {
            match result {
                Ok(timer) => {
                    self.trace.push("backoff elapsed".to_owned());
                    self.trace.push(format!("  {timer}"));
                    self.timers.push(timer);
                    for &output in timer.outputs {
                        self.perform(output, None);
                    }
                    self.entered(timer.from, timer.to);
                }
                // The backoff timer has no guard; kept for completeness.
                Err(rejected) => self.note(format!("{rejected}")),
            }
        }
    }

    /// What the agent does on its own when the machine moves `from` `to`.
    fn entered(&mut self, from: State, to: State) {
        if from != to && to == State::Error {
            let context = self.machine.context();
            let retry = context.retries() + 1;
            let max = context.policy().max_retries;
            // The delay the machine just armed its timer with.
            let delay = crate::agent_loop::Context::backoff(context);
            self.note(format!("retry {retry} of {max} in {delay:?}"));
        }
    }

    fn perform(&mut self, output: Output, text: Option<&str>) {
        match output {
            Output::SendLlmRequest => self.send_llm_request(),
            Output::DisplayMessage => {
                if let Some(text) = text {
                    self.note(format!("display {text:?}"));
                    self.display.push(text.to_owned());
                }
            }
            Output::WaitForInput => {}
            Output::ExecuteTools => {
                let batch = self.machine.context().batch().to_vec();
                self.execute_tools(&batch);
            }
            Output::RunPostToolsHook => self.run_post_tools_hook(),
            Output::DisplayError => {
                let context = self.machine.context();
                let message = format!(
                    "error: the LLM request failed after {} retries: {}",
                    context.retries(),
                    context.last_error().unwrap_or("unknown error")
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
            Output::SuspendWork => {
                let phase = self.machine.last_active(Composite::Working);
                let phase = phase.map_or_else(String::new, |phase| format!(" in `{phase}`"));
                let events = plural(self.queue.len(), "event");
                let tools = plural(self.tools.in_flight(), "tool call");
                self.note(format!("paused{phase}; holding {events}, {tools} in flight"));
            }
            Output::ResumeWork => {
                let phase = self.machine.state();
                if std::mem::take(&mut self.held_work_lost) {
                    self.note(format!("resumed in `{phase}`; its work is started again"));
                    self.restart_work(phase);
                } else {
                    let events = plural(self.queue.len(), "held event");
                    let tools = plural(self.tools.in_flight(), "tool call");
                    self.note(format!("resumed in `{phase}`; {events}, {tools} in flight"));
                }
            }
            Output::AbortWork => {
                let events = plural(self.queue.len(), "event");
                let tools = plural(self.tools.in_flight(), "tool result");
                self.tools.shutdown();
                self.queue.clear();
                self.held_work_lost = false;
                self.note(format!("turn cancelled; {events} and {tools} dropped"));
            }
        }
    }

    /// Start again the I/O that `phase` waits on, which a restart lost: a
    /// request in flight is sent again (what streamed of it is discarded),
    /// unfinished tool calls run again (tools must tolerate that), hooks
    /// run again.
    fn restart_work(&mut self, phase: State) {
        match phase {
            State::CallingLlm => {
                self.machine.context_mut().discard_partial_response();
                self.send_llm_request();
            }
            State::ExecutingTools => {
                let context = self.machine.context();
                let unfinished: Vec<ToolCall> = context
                    .batch()
                    .iter()
                    .filter(|call| context.pending().contains(&call.id))
                    .cloned()
                    .collect();
                self.execute_tools(&unfinished);
            }
            State::PostToolsHook => self.run_post_tools_hook(),
            // The machine arms the backoff; nothing else waits (a firing
            // never ends in `processing_llm_response`).
            State::Error
            | State::ProcessingLlmResponse
            | State::WaitingForUserInput
            | State::Paused
            | State::ShuttingDown => {}
        }
    }

    fn send_llm_request(&mut self) {
        let request = self.machine.context_mut().count_request();
        let conversation = self.machine.context().conversation();
        let messages = plural(conversation.len(), "message");
        let events = self.llm.respond(conversation);
        self.note(format!("LLM request {request} ({messages})"));
        self.queue.extend(events.into_iter().map(Event::from));
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
            .machine
            .context()
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
