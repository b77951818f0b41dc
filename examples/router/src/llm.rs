//! The model behind the router, and a scripted fake of it.

use crate::context::RouterContext;
use crate::decision::Decision;
use std::collections::VecDeque;
use std::fmt;

/// What the agent asks of a language model.
pub trait Llm {
    /// The next step, given everything so far.
    ///
    /// # Errors
    ///
    /// When the model's reply is not a valid decision.
    fn decide(&mut self, context: &RouterContext) -> Result<Decision, LlmError>;

    /// The final answer, synthesized from the collected context.
    fn answer(&mut self, context: &RouterContext) -> String;
}

/// The model failed to produce a decision (a malformed reply, a timeout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlmError(pub String);

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LlmError {}

/// A deterministic fake model: it replays a script of decisions, one per
/// `decide`, and answers by summarizing the tool results.
#[derive(Clone, Debug, Default)]
pub struct ScriptedLlm {
    script: VecDeque<Result<Decision, LlmError>>,
    decisions: u32,
}

impl ScriptedLlm {
    /// A model that replays `script` in order.
    pub fn new(script: impl IntoIterator<Item = Result<Decision, LlmError>>) -> Self {
        ScriptedLlm {
            script: script.into_iter().collect(),
            decisions: 0,
        }
    }

    /// A model that makes these decisions, in order.
    pub fn deciding(decisions: impl IntoIterator<Item = Decision>) -> Self {
        Self::new(decisions.into_iter().map(Ok))
    }

    /// How many decisions were asked for.
    pub fn decisions(&self) -> u32 {
        self.decisions
    }
}

impl Llm for ScriptedLlm {
    fn decide(&mut self, _context: &RouterContext) -> Result<Decision, LlmError> {
        self.decisions += 1;
        self.script
            .pop_front()
            .unwrap_or_else(|| Err(LlmError(format!("the script has no decision {}", self.decisions))))
    }

    fn answer(&mut self, context: &RouterContext) -> String {
        let facts: Vec<&str> = context
            .steps
            .iter()
            .filter_map(|step| step.result.as_deref().ok())
            .collect();
        if facts.is_empty() {
            format!("{}: I found nothing to go on.", context.query)
        } else {
            format!("{}: {}.", context.query, facts.join("; "))
        }
    }
}
