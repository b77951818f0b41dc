//! Whatever the model decides, a run ends within `max_steps` decisions, and
//! it ends the way a step-by-step reading of the decisions says it should.

use proptest::prelude::*;
use router::{Agent, Decision, Failure, Llm, LlmError, Outcome, RouterContext, State, ToolRegistry};

/// A model that cycles through its decisions forever.
struct Cycling {
    decisions: Vec<Decision>,
    asked: usize,
}

impl Llm for Cycling {
    fn decide(&mut self, _context: &RouterContext) -> Result<Decision, LlmError> {
        let decision = self.decisions[self.asked % self.decisions.len()].clone();
        self.asked += 1;
        Ok(decision)
    }

    fn answer(&mut self, _context: &RouterContext) -> String {
        "done".to_owned()
    }
}

fn decision() -> impl Strategy<Value = Decision> {
    let tool = prop::sample::select(vec!["get_stock_price", "get_exchange_rate", "get_weather"]);
    let ticker = prop::sample::select(vec!["AAPL", "NOPE"]);
    (any::<bool>(), tool, ticker, any::<bool>()).prop_map(|(call_tool, tool, ticker, ready)| Decision {
        ready_to_answer: ready,
        ..if call_tool {
            Decision::call(tool, &[("ticker", ticker)])
        } else {
            Decision::undecided()
        }
    })
}

/// What the run must end with: the first decision that is not a call of a
/// registered tool ends it, unless the budget runs out first.
fn expected(decisions: &[Decision], max_steps: u32, registry: &ToolRegistry) -> (Outcome, u32) {
    for step in 0..max_steps {
        let decision = &decisions[step as usize % decisions.len()];
        let steps = step + 1;
        if decision.ready_to_answer {
            return (Outcome::Answered("done".to_owned()), steps);
        }
        match &decision.tool_name {
            Some(name) if decision.call_tool && registry.contains(name) => continue,
            Some(name) if decision.call_tool => {
                return (Outcome::Failed(Failure::UnknownTool(name.clone())), steps)
            }
            _ => return (Outcome::Failed(Failure::Undecided(decision.clone())), steps),
        }
    }
    (Outcome::Failed(Failure::StepBudgetSpent { max_steps }), max_steps)
}

proptest! {
    #[test]
    fn every_run_ends_within_max_steps(
        decisions in prop::collection::vec(decision(), 1..6),
        max_steps in 0u32..15,
    ) {
        let registry = ToolRegistry::finance();
        let (outcome, steps) = expected(&decisions, max_steps, &registry);
        let llm = Cycling { decisions, asked: 0 };
        let mut agent = Agent::new("?", llm, registry, max_steps);
        let result = agent.run();
        prop_assert_eq!(result.as_ref().ok(), Some(&outcome));
        prop_assert!(matches!(agent.state(), State::Answer | State::Fail));
        prop_assert_eq!(agent.steps(), steps);
        prop_assert_eq!(agent.llm().asked, steps as usize);
        prop_assert!(agent.context().steps.len() <= max_steps as usize);
    }
}
