//! The router's run loop: fire an action, perform the outputs, feed the
//! result back as the next action, until the machine reaches `answer` or
//! `fail`.

use crate::context::{Context, ToolStep};
use crate::decision::Decision;
use crate::llm::{Llm, LlmError};
use crate::router::{Action, FireError, Fired, Output, Router, State};
use crate::routing::{NoDecision, Routing};
use crate::tools::ToolRegistry;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};

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
            Failure::Internal(message) => write!(f, "internal error: {message}"),
        }
    }
}

/// A router agent answering one query.
///
/// Each routing decision is a step; after `max_steps` of them the next
/// `decided` fails the run, so a model that never stops asking for tools
/// cannot keep the agent (and the bill) running.
#[derive(Debug)]
pub struct Agent<L: Llm> {
    machine: Router,
    llm: L,
    registry: ToolRegistry,
    max_steps: u32,
    steps: u32,
    context: Context,
    decision: Option<Decision>,
    answer: Option<String>,
    failure: Option<Failure>,
    trace: Vec<String>,
}

impl<L: Llm> Agent<L> {
    /// The default budget: ten decisions.
    pub const DEFAULT_MAX_STEPS: u32 = 10;

    /// An agent for `query`, deciding with `llm` and calling the tools of
    /// `registry`, with at most `max_steps` decisions.
    pub fn new(query: impl Into<String>, llm: L, registry: ToolRegistry, max_steps: u32) -> Self {
        Agent {
            machine: Router::new(),
            llm,
            registry,
            max_steps,
            steps: 0,
            context: Context::new(query),
            decision: None,
            answer: None,
            failure: None,
            trace: Vec::new(),
        }
    }

    /// The machine's current state.
    pub fn state(&self) -> State {
        self.machine.state()
    }

    /// How many decisions were made.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// The query and the tool calls made so far.
    pub fn context(&self) -> &Context {
        &self.context
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
    /// When the machine rejects an action: the run already ended.
    pub fn run(&mut self) -> Result<Outcome, FireError> {
        // `route` has no enter output: the first decision is the caller's
        // to request.
        let mut next = Some(Action::Decided);
        while let Some(action) = next {
            let fired = self.fire(action)?;
            next = self.perform(&fired);
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

    fn fire(&mut self, action: Action) -> Result<Fired, FireError> {
        let fired = if action == Action::Decided {
            self.route()?
        } else {
            self.machine.fire(action, &NoDecision)?
        };
        self.trace.push(format!("  {fired}"));
        Ok(fired)
    }

    /// Fire `decided`, asking the model only if the budget allows a step.
    fn route(&mut self) -> Result<Fired, FireError> {
        let steps_left = self.steps < self.max_steps;
        let routing = Routing::new(steps_left, &mut self.llm, &self.context, &self.registry);
        let result = self.machine.fire(Action::Decided, &routing);
        let decision = routing.into_decision();
        if let Some(decision) = &decision {
            self.steps += 1;
            match decision {
                Ok(decision) => self.trace.push(format!("decision {}: {decision}", self.steps)),
                Err(error) => self
                    .trace
                    .push(format!("decision {}: error: {error}", self.steps)),
            }
        }
        let fired = result?;
        if fired.to == State::Fail {
            self.failure = Some(match decision {
                None => Failure::StepBudgetSpent {
                    max_steps: self.max_steps,
                },
                Some(Err(error)) => Failure::Llm(error),
                Some(Ok(decision)) => match &decision.tool_name {
                    Some(name) if decision.call_tool && !self.registry.contains(name) => {
                        Failure::UnknownTool(name.clone())
                    }
                    _ => Failure::Undecided(decision),
                },
            });
        } else {
            self.decision = decision.and_then(Result::ok);
        }
        Ok(fired)
    }

    /// Perform the outputs of `fired` and return the action they lead to.
    fn perform(&mut self, fired: &Fired) -> Option<Action> {
        let mut next = None;
        for output in fired.outputs {
            match output {
                Output::ExecuteTool => next = Some(self.execute_tool()),
                Output::RequestDecision => next = Some(Action::Decided),
                Output::SynthesizeAnswer => {
                    let answer = self.llm.answer(&self.context);
                    self.trace.push(format!("answer: {answer}"));
                    self.answer = Some(answer);
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

    /// Run the tool of the current decision. A tool error is the call's
    /// result, for the model to see; a panic is an internal error.
    fn execute_tool(&mut self) -> Action {
        let Some(Decision {
            tool_name: Some(name),
            arguments,
            ..
        }) = self.decision.take()
        else {
            self.failure = Some(Failure::Internal("`execute_tool` without a tool call".to_owned()));
            return Action::InternalError;
        };
        // `wants_tool` only passes for registered tools.
        let Some(tool) = self.registry.get(&name) else {
            self.failure = Some(Failure::UnknownTool(name));
            return Action::InternalError;
        };
        match panic::catch_unwind(AssertUnwindSafe(|| tool(&arguments))) {
            Ok(result) => {
                match &result {
                    Ok(output) => self.trace.push(format!("tool {name}: {output}")),
                    Err(error) => self.trace.push(format!("tool {name} failed: {error}")),
                }
                self.context.steps.push(ToolStep {
                    tool: name,
                    arguments,
                    result,
                });
                Action::ToolFinished
            }
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(ToString::to_string)
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a non-string panic".to_owned());
                self.failure = Some(Failure::Internal(format!("tool `{name}` panicked: {message}")));
                Action::InternalError
            }
        }
    }
}
