//! The router's run loop: fire an event, perform the outputs, feed the
//! result back as the next event, until the machine reaches `answer` or
//! `fail`. The machine keeps the count of steps and the last decision in its
//! context; the loop only does the I/O.

use crate::context::{RouterContext, ToolStep};
use crate::decision::Decision;
use crate::llm::{Llm, LlmError};
use crate::router::{Action, Event, FireError, Output, Router, State};
use crate::tools::ToolRegistry;
use fsm_runtime::{Clock, SystemClock};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::time::Duration;

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The machine reached `answer` and the model synthesized this answer.
    Answered(String),
    /// The machine reached `fail`, for this reason.
    Failed(Failure),
}

/// `answered: ...` or `failed: ...`.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Answered(answer) => write!(f, "answered: {answer}"),
            Outcome::Failed(failure) => write!(f, "failed: {failure}"),
        }
    }
}

/// Why a run failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// `max_steps` decisions were made without an answer.
    StepBudgetSpent {
        /// The budget.
        max_steps: u32,
    },
    /// The model asked for a tool that is not registered.
    UnknownTool(String),
    /// The model neither called a tool nor was ready to answer.
    Undecided(Decision),
    /// The model did not produce a decision.
    Llm(LlmError),
    /// A tool ran longer than the tool timeout.
    ToolTimeout {
        /// The tool.
        tool: String,
        /// The timeout it outlived.
        timeout: Duration,
    },
    /// Something inside the agent failed: a tool panicked.
    Internal(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::StepBudgetSpent { max_steps } => {
                write!(f, "no answer after {max_steps} steps (max_steps)")
            }
            Failure::UnknownTool(name) => write!(f, "the model asked for unknown tool `{name}`"),
            Failure::Undecided(decision) => write!(f, "ambiguous decision: {decision}"),
            Failure::Llm(error) => write!(f, "the model failed to decide: {error}"),
            Failure::ToolTimeout { tool, timeout } => {
                write!(f, "tool `{tool}` ran longer than {timeout:?}")
            }
            Failure::Internal(message) => write!(f, "internal error: {message}"),
        }
    }
}

/// A router agent answering one query.
///
/// Each routing decision is a step; once `max_steps` of them were made the
/// machine fails the run instead of asking the model again, so a model that
/// never stops asking for tools cannot keep the agent (and the bill)
/// running. The machine counts: the agent keeps only the model, the answer
/// or failure, and a trace.
#[derive(Debug)]
pub struct Agent<L: Llm, K: Clock = SystemClock> {
    machine: Router<K>,
    llm: L,
    answer: Option<String>,
    failure: Option<Failure>,
    trace: Vec<String>,
}

impl<L: Llm> Agent<L> {
    /// The default budget: ten decisions.
    pub const DEFAULT_MAX_STEPS: u32 = RouterContext::DEFAULT_MAX_STEPS;

    /// An agent for `query`, deciding with `llm` and calling the tools of
    /// `registry`, with at most `max_steps` decisions and the default tool
    /// timeout, on the system clock.
    pub fn new(query: impl Into<String>, llm: L, registry: ToolRegistry, max_steps: u32) -> Self {
        Self::with_clock(RouterContext::new(query, registry, max_steps), llm, SystemClock)
    }
}

impl<L: Llm, K: Clock> Agent<L, K> {
    /// An agent for the run of `context`, deciding with `llm`, its tool
    /// timeouts measured on `clock`.
    pub fn with_clock(context: RouterContext, llm: L, clock: K) -> Self {
        Agent {
            machine: Router::with_clock(context, clock),
            llm,
            answer: None,
            failure: None,
            trace: Vec::new(),
        }
    }

    /// The machine's current state.
    pub fn state(&self) -> State {
        self.machine.state()
    }

    /// How many decisions were asked of the model.
    pub fn steps(&self) -> u32 {
        self.machine.context().steps_taken
    }

    /// The query, the tool calls made so far and the machine's bookkeeping.
    pub fn context(&self) -> &RouterContext {
        self.machine.context()
    }

    /// The model.
    pub fn llm(&self) -> &L {
        &self.llm
    }

    /// Every decision, transition and tool result so far, one line each.
    pub fn trace(&self) -> &[String] {
        &self.trace
    }

    /// Run until the machine reaches `answer` or `fail`.
    ///
    /// # Errors
    ///
    /// When the machine rejects an event: the run already ended.
    pub fn run(&mut self) -> Result<Outcome, FireError<K>> {
        // `start` enters `route`, which asks the model at once (or fails
        // when the budget is spent); every later step is a result fed back.
        let mut next = Some(Event::Start);
        while let Some(event) = next {
            let fired = self.machine.fire(event)?;
            self.trace.push(format!("  {fired}"));
            if fired.to == State::Fail {
                self.failure = self.failure.take().or_else(|| self.failure_of(fired.action));
            }
            next = self.perform(fired.outputs);
        }
        // Every transition into `answer` or `fail` emits the output that
        // sets the answer or reports the failure.
        Ok(match (self.answer.clone(), self.failure.clone()) {
            (Some(answer), _) => Outcome::Answered(answer),
            (None, Some(failure)) => Outcome::Failed(failure),
            (None, None) => Outcome::Failed(Failure::Internal(format!(
                "the run stopped in `{}` without a result",
                self.machine.state()
            ))),
        })
    }

    /// Why `action` led to `fail`, read from the context.
    fn failure_of(&self, action: Action) -> Option<Failure> {
        let context = self.machine.context();
        Some(match action {
            // Only `route`'s `always [!steps_left]` leads from these to `fail`.
            Action::Start | Action::ToolFinished if context.steps_taken >= context.max_steps => {
                Failure::StepBudgetSpent {
                    max_steps: context.max_steps,
                }
            }
            Action::DecisionFailed => Failure::Llm(context.error.clone()?),
            Action::Decided => {
                let decision = context.decision.clone()?;
                match &decision.tool_name {
                    Some(name) if decision.call_tool && !context.registry.contains(name) => {
                        Failure::UnknownTool(name.clone())
                    }
                    _ => Failure::Undecided(decision),
                }
            }
            Action::Start | Action::ToolFinished | Action::InternalError => return None,
        })
    }

    /// Perform `outputs` and return the event they lead to.
    fn perform(&mut self, outputs: &[Output]) -> Option<Event> {
        let mut next = None;
        for output in outputs {
            match output {
                Output::AskLlm => next = Some(self.decide()),
                Output::ExecuteTool => next = self.execute_tool(),
                Output::SynthesizeAnswer => {
                    let answer = self.llm.answer(self.machine.context());
                    self.trace.push(format!("answer: {answer}"));
                    self.answer = Some(answer);
                }
                Output::ReportTimeout => {
                    let context = self.machine.context();
                    self.failure = Some(Failure::ToolTimeout {
                        tool: context
                            .decision
                            .as_ref()
                            .and_then(|d| d.tool_name.clone())
                            .unwrap_or_default(),
                        timeout: context.tool_timeout,
                    });
                }
                Output::ReportFailure => {
                    let failure = self.failure.get_or_insert_with(|| {
                        Failure::Internal("the run failed without a reason".to_owned())
                    });
                    self.trace.push(format!("failed: {failure}"));
                }
            }
        }
        next
    }

    /// Ask the model for the decision of the step the machine just counted.
    fn decide(&mut self) -> Event {
        let step = self.machine.context().steps_taken;
        match self.llm.decide(self.machine.context()) {
            Ok(decision) => {
                self.trace.push(format!("decision {step}: {decision}"));
                Event::Decided(decision)
            }
            Err(error) => {
                self.trace.push(format!("decision {step}: error: {error}"));
                Event::DecisionFailed(error)
            }
        }
    }

    /// Run the tool of the last decision. A tool error is the call's result,
    /// for the model to see; a panic is an internal error. A tool that
    /// returns after its timeout is too late: the machine's timer fails the
    /// run first.
    fn execute_tool(&mut self) -> Option<Event> {
        let context = self.machine.context();
        // `wants_tool` only passes for decisions naming a registered tool.
        let Some((name, tool, arguments)) = context.decision.as_ref().and_then(|decision| {
            let name = decision.tool_name.clone()?;
            let tool = context.registry.get(&name)?;
            Some((name, tool, decision.arguments.clone()))
        }) else {
            self.failure = Some(Failure::Internal(
                "`execute_tool` without a registered tool".to_owned(),
            ));
            return Some(Event::InternalError);
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| tool(&arguments)));
        let mut timed_out = Vec::new();
        self.machine.fire_due(|timer| timed_out.push(timer));
        for timer in timed_out {
            match timer {
                Ok(fired) => {
                    self.trace.push(format!("  {fired}"));
                    self.perform(fired.outputs);
                }
                Err(rejected) => self.trace.push(format!("  {rejected}")),
            }
        }
        if self.machine.state() != State::CallTool {
            return None;
        }
        match result {
            Ok(result) => {
                match &result {
                    Ok(output) => self.trace.push(format!("tool {name}: {output}")),
                    Err(error) => self.trace.push(format!("tool {name} failed: {error}")),
                }
                Some(Event::ToolFinished(ToolStep {
                    tool: name,
                    arguments,
                    result,
                }))
            }
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(ToString::to_string)
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a non-string panic".to_owned());
                self.failure = Some(Failure::Internal(format!("tool `{name}` panicked: {message}")));
                Some(Event::InternalError)
            }
        }
    }
}
