//! The guards of the router, answered from the step count and the model's
//! decision.

use crate::context::Context;
use crate::decision::Decision;
use crate::llm::{Llm, LlmError};
use crate::router;
use crate::tools::ToolRegistry;
use std::cell::{OnceCell, RefCell};

/// The guards of one `decided` action.
///
/// The decision is asked of the model on demand, the first time a guard
/// needs it: the machine tries `[!steps_left]` first (priority 2) and
/// evaluates guards lazily, so once the step budget is spent the model is not
/// called at all. Each guard is evaluated at most once per `fire`, and the
/// decision is kept for the caller afterwards.
pub(crate) struct Routing<'a, L: Llm> {
    steps_left: bool,
    llm: RefCell<&'a mut L>,
    context: &'a Context,
    registry: &'a ToolRegistry,
    decision: OnceCell<Result<Decision, LlmError>>,
}

impl<'a, L: Llm> Routing<'a, L> {
    /// The guards for a decision when `steps_left` says whether the budget
    /// allows one more step.
    pub(crate) fn new(
        steps_left: bool,
        llm: &'a mut L,
        context: &'a Context,
        registry: &'a ToolRegistry,
    ) -> Self {
        Routing {
            steps_left,
            llm: RefCell::new(llm),
            context,
            registry,
            decision: OnceCell::new(),
        }
    }

    /// The model's decision, if a guard asked for it.
    pub(crate) fn into_decision(self) -> Option<Result<Decision, LlmError>> {
        self.decision.into_inner()
    }

    fn decision(&self) -> &Result<Decision, LlmError> {
        self.decision
            .get_or_init(|| self.llm.borrow_mut().decide(self.context))
    }
}

impl<L: Llm> router::Guards for Routing<'_, L> {
    fn steps_left(&self) -> bool {
        self.steps_left
    }

    fn ready_to_answer(&self) -> bool {
        matches!(self.decision(), Ok(decision) if decision.ready_to_answer)
    }

    fn wants_tool(&self) -> bool {
        match self.decision() {
            Ok(Decision {
                call_tool: true,
                tool_name: Some(name),
                ..
            }) => self.registry.contains(name),
            _ => false,
        }
    }
}

/// The guards of every other action. Only `decided` has guarded
/// transitions, so none of these is ever asked; they answer as if nothing
/// had been decided.
pub(crate) struct NoDecision;

impl router::Guards for NoDecision {
    fn steps_left(&self) -> bool {
        true
    }

    fn ready_to_answer(&self) -> bool {
        false
    }

    fn wants_tool(&self) -> bool {
        false
    }
}
