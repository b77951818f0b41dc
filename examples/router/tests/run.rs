//! Runs of the router agent: answers, tool errors, and every way to fail.

use router::{
    Agent, Context, Decision, Failure, FireError, Llm, LlmError, Outcome, ScriptedLlm, State, ToolError,
    ToolRegistry,
};

/// The transitions of the trace, without the notes between them.
fn transitions<L: Llm>(agent: &Agent<L>) -> Vec<&str> {
    agent
        .trace()
        .iter()
        .filter_map(|line| line.strip_prefix("  "))
        .collect()
}

/// A model that keeps asking for stock prices, forever.
struct Endless {
    decisions: u32,
}

impl Llm for Endless {
    fn decide(&mut self, _context: &Context) -> Result<Decision, LlmError> {
        self.decisions += 1;
        Ok(Decision::call("get_stock_price", &[("ticker", "AAPL")]))
    }

    fn answer(&mut self, _context: &Context) -> String {
        "an endless model never gets here".to_owned()
    }
}

#[test]
fn answers_after_tool_calls() {
    let llm = ScriptedLlm::deciding([
        Decision::call("get_stock_price", &[("ticker", "AAPL")]),
        Decision::call("get_exchange_rate", &[("from", "USD"), ("to", "EUR")]),
        Decision::answer(),
    ]);
    let mut agent = Agent::new("Apple in euros?", llm, ToolRegistry::finance(), 10);
    let outcome = agent.run().unwrap();
    assert_eq!(
        outcome,
        Outcome::Answered("Apple in euros?: AAPL trades at 189.98 USD; 1 USD = 0.92 EUR.".to_owned())
    );
    assert_eq!(agent.state(), State::Answer);
    assert_eq!(agent.steps(), 3);
    assert_eq!(agent.llm().decisions(), 3);
    assert_eq!(
        transitions(&agent),
        [
            "`route` --decided--> `call_tool` (emit `execute_tool`)",
            "`call_tool` --tool_finished--> `route` (emit `request_decision`)",
            "`route` --decided--> `call_tool` (emit `execute_tool`)",
            "`call_tool` --tool_finished--> `route` (emit `request_decision`)",
            "`route` --decided--> `answer` (emit `synthesize_answer`)",
        ]
    );
    let tools: Vec<&str> = agent.context().steps.iter().map(|s| s.tool.as_str()).collect();
    assert_eq!(tools, ["get_stock_price", "get_exchange_rate"]);
}

/// A model that retries with the ticker symbol when a company name fails.
struct Analyst;

impl Llm for Analyst {
    fn decide(&mut self, context: &Context) -> Result<Decision, LlmError> {
        Ok(match context.steps.last().map(|step| &step.result) {
            None => Decision::call("get_stock_price", &[("ticker", "MICROSOFT")]),
            Some(Err(_)) => Decision::call("get_stock_price", &[("ticker", "MSFT")]),
            Some(Ok(_)) => Decision::answer(),
        })
    }

    fn answer(&mut self, context: &Context) -> String {
        ScriptedLlm::default().answer(context)
    }
}

#[test]
fn a_tool_error_routes_back_to_the_model() {
    let mut agent = Agent::new("Microsoft?", Analyst, ToolRegistry::finance(), 10);
    let outcome = agent.run().unwrap();
    assert_eq!(
        outcome,
        Outcome::Answered("Microsoft?: MSFT trades at 415.50 USD.".to_owned())
    );
    let results: Vec<_> = agent.context().steps.iter().map(|s| s.result.clone()).collect();
    assert_eq!(
        results,
        [
            Err(ToolError("unknown ticker `MICROSOFT`".to_owned())),
            Ok("MSFT trades at 415.50 USD".to_owned()),
        ]
    );
    assert_eq!(
        transitions(&agent)[1],
        "`call_tool` --tool_finished--> `route` (emit `request_decision`)"
    );
    assert!(agent
        .trace()
        .contains(&"tool get_stock_price failed: unknown ticker `MICROSOFT`".to_owned()));
}

#[test]
fn a_model_that_never_answers_is_stopped_by_max_steps() {
    let mut agent = Agent::new("Buy what?", Endless { decisions: 0 }, ToolRegistry::finance(), 4);
    let outcome = agent.run().unwrap();
    assert_eq!(
        outcome,
        Outcome::Failed(Failure::StepBudgetSpent { max_steps: 4 })
    );
    assert_eq!(agent.state(), State::Fail);
    assert_eq!(agent.steps(), 4);
    assert_eq!(agent.context().steps.len(), 4);
    // The fifth `decided` fails on `!steps_left` before the model is asked.
    assert_eq!(agent.llm().decisions, 4);
    assert_eq!(
        transitions(&agent).last().copied(),
        Some("`route` --decided--> `fail` (emit `report_failure`)")
    );
    assert_eq!(
        agent.trace().last().map(String::as_str),
        Some("failed: no answer after 4 steps (max_steps)")
    );
}

#[test]
fn the_budget_wins_over_a_late_answer() {
    let llm = ScriptedLlm::deciding([
        Decision::call("get_stock_price", &[("ticker", "AAPL")]),
        Decision::call("get_stock_price", &[("ticker", "MSFT")]),
        Decision::answer(),
    ]);
    let mut agent = Agent::new("Both?", llm, ToolRegistry::finance(), 2);
    let outcome = agent.run().unwrap();
    assert_eq!(
        outcome,
        Outcome::Failed(Failure::StepBudgetSpent { max_steps: 2 })
    );
    assert_eq!(agent.llm().decisions(), 2);
}

#[test]
fn a_zero_budget_fails_without_asking_the_model() {
    let mut agent = Agent::new("Anything?", Endless { decisions: 0 }, ToolRegistry::finance(), 0);
    assert_eq!(
        agent.run().unwrap(),
        Outcome::Failed(Failure::StepBudgetSpent { max_steps: 0 })
    );
    assert_eq!(agent.llm().decisions, 0);
}

#[test]
fn bad_decisions_fail_the_run_with_their_reason() {
    let cases = [
        (
            Ok(Decision::call("get_weather", &[("city", "Lisbon")])),
            Failure::UnknownTool("get_weather".to_owned()),
            "failed: the model asked for unknown tool `get_weather`",
        ),
        (
            Ok(Decision::undecided()),
            Failure::Undecided(Decision::undecided()),
            "failed: ambiguous decision: undecided",
        ),
        (
            Err(LlmError("the reply is not JSON".to_owned())),
            Failure::Llm(LlmError("the reply is not JSON".to_owned())),
            "failed: the model failed to decide: the reply is not JSON",
        ),
    ];
    for (decision, failure, message) in cases {
        let mut agent = Agent::new("?", ScriptedLlm::new([decision]), ToolRegistry::finance(), 10);
        let outcome = agent.run().unwrap();
        assert_eq!(outcome, Outcome::Failed(failure));
        assert_eq!(outcome.to_string(), message);
        assert_eq!(
            transitions(&agent),
            ["`route` --decided--> `fail` (emit `report_failure`)"]
        );
    }
}

#[test]
fn a_panicking_tool_is_an_internal_error() {
    let mut registry = ToolRegistry::finance();
    registry.register("explode", |_| panic!("boom"));
    let llm = ScriptedLlm::deciding([Decision::call("explode", &[])]);
    let mut agent = Agent::new("?", llm, registry, 10);
    assert_eq!(
        agent.run().unwrap(),
        Outcome::Failed(Failure::Internal("tool `explode` panicked: boom".to_owned()))
    );
    assert_eq!(
        transitions(&agent),
        [
            "`route` --decided--> `call_tool` (emit `execute_tool`)",
            "`call_tool` --internal_error--> `fail` (emit `report_failure`)",
        ]
    );
}

#[test]
fn a_finished_run_cannot_continue() {
    let mut agent = Agent::new(
        "?",
        ScriptedLlm::deciding([Decision::answer()]),
        ToolRegistry::finance(),
        10,
    );
    agent.run().unwrap();
    let error = agent.run().unwrap_err();
    assert!(matches!(error, FireError::InvalidTransition(e) if e.terminal()));
    assert_eq!(
        error.to_string(),
        "action `decided` is not valid in state `answer`: the state is terminal"
    );
}
