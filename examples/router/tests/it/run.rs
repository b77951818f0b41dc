//! Runs of the router agent: answers, tool errors, and every way to fail.

use fsm_runtime::ManualClock;
use router::{
    Agent, Decision, Event, Failure, Llm, LlmError, Outcome, Router, RouterContext, ScriptedLlm, State,
    ToolError, ToolRegistry,
};
use std::time::{Duration, UNIX_EPOCH};

/// The transitions of the trace, without the notes between them.
fn transitions<L: Llm, K: fsm_runtime::Clock>(agent: &Agent<L, K>) -> Vec<&str> {
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
    fn decide(&mut self, _context: &RouterContext) -> Result<Decision, LlmError> {
        self.decisions += 1;
        Ok(Decision::call("get_stock_price", &[("ticker", "AAPL")]))
    }

    fn answer(&mut self, _context: &RouterContext) -> String {
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
            "`ready` --start--> `deciding` (emit `ask_llm`)",
            "`deciding` --decided--> `call_tool` (emit `execute_tool`)",
            "`call_tool` --tool_finished--> `deciding` (emit `ask_llm`)",
            "`deciding` --decided--> `call_tool` (emit `execute_tool`)",
            "`call_tool` --tool_finished--> `deciding` (emit `ask_llm`)",
            "`deciding` --decided--> `answer` (emit `synthesize_answer`)",
        ]
    );
    let tools: Vec<&str> = agent.context().steps.iter().map(|s| s.tool.as_str()).collect();
    assert_eq!(tools, ["get_stock_price", "get_exchange_rate"]);
    // The machine kept the last decision in its context.
    assert_eq!(agent.context().decision, Some(Decision::answer()));
    assert_eq!(agent.context().steps_taken, 3);
}

/// A model that retries with the ticker symbol when a company name fails.
struct Analyst;

impl Llm for Analyst {
    fn decide(&mut self, context: &RouterContext) -> Result<Decision, LlmError> {
        Ok(match context.steps.last().map(|step| &step.result) {
            None => Decision::call("get_stock_price", &[("ticker", "MICROSOFT")]),
            Some(Err(_)) => Decision::call("get_stock_price", &[("ticker", "MSFT")]),
            Some(Ok(_)) => Decision::answer(),
        })
    }

    fn answer(&mut self, context: &RouterContext) -> String {
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
        transitions(&agent)[2],
        "`call_tool` --tool_finished--> `deciding` (emit `ask_llm`)"
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
    // Back in `route` after the fourth tool, `!steps_left` fails the run
    // before the model is asked a fifth time, in the same firing.
    assert_eq!(agent.llm().decisions, 4);
    assert_eq!(
        transitions(&agent).last().copied(),
        Some("`call_tool` --tool_finished--> `fail` (emit `report_failure`)")
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
            "decided",
        ),
        (
            Ok(Decision::undecided()),
            Failure::Undecided(Decision::undecided()),
            "failed: ambiguous decision: undecided",
            "decided",
        ),
        (
            Err(LlmError("the reply is not JSON".to_owned())),
            Failure::Llm(LlmError("the reply is not JSON".to_owned())),
            "failed: the model failed to decide: the reply is not JSON",
            "decision_failed",
        ),
    ];
    for (decision, failure, message, action) in cases {
        let mut agent = Agent::new("?", ScriptedLlm::new([decision]), ToolRegistry::finance(), 10);
        let outcome = agent.run().unwrap();
        assert_eq!(outcome, Outcome::Failed(failure));
        assert_eq!(outcome.to_string(), message);
        assert_eq!(
            transitions(&agent),
            [
                "`ready` --start--> `deciding` (emit `ask_llm`)".to_owned(),
                format!("`deciding` --{action}--> `fail` (emit `report_failure`)"),
            ]
        );
        assert_eq!(agent.steps(), 1);
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
            "`ready` --start--> `deciding` (emit `ask_llm`)",
            "`deciding` --decided--> `call_tool` (emit `execute_tool`)",
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
    assert!(matches!(&error, fsm_runtime::FireError::InvalidTransition(e) if e.terminal()));
    assert_eq!(
        error.to_string(),
        "action `start` is not valid in state `answer`: the state is terminal"
    );
    // The rejected event is handed back.
    assert!(matches!(error.into_event(), Event::Start));
}

thread_local! {
    /// The clock of a timeout test (each runs on its own thread): a tool
    /// advances it by how long it ran.
    static CLOCK: ManualClock = ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_768_037_535));
}

fn clock() -> ManualClock {
    CLOCK.with(ManualClock::clone)
}

fn slow_search(_: &router::Arguments) -> Result<String, ToolError> {
    clock().advance(Duration::from_secs(45));
    Ok("found it, too late".to_owned())
}

fn quick_search(_: &router::Arguments) -> Result<String, ToolError> {
    clock().advance(Duration::from_secs(29));
    Ok("found it".to_owned())
}

fn timed_agent(tool: &str) -> Agent<ScriptedLlm, ManualClock> {
    let mut registry = ToolRegistry::finance();
    registry.register("slow_search", slow_search);
    registry.register("quick_search", quick_search);
    let context = RouterContext::new("Search?", registry, 10).with_tool_timeout(Duration::from_secs(30));
    let llm = ScriptedLlm::deciding([Decision::call(tool, &[]), Decision::answer()]);
    Agent::with_clock(context, llm, clock())
}

#[test]
fn a_tool_that_outlives_its_timeout_fails_the_run() {
    let mut agent = timed_agent("slow_search");
    assert_eq!(
        agent.run().unwrap(),
        Outcome::Failed(Failure::ToolTimeout {
            tool: "slow_search".to_owned(),
            timeout: Duration::from_secs(30),
        })
    );
    assert_eq!(
        transitions(&agent),
        [
            "`ready` --start--> `deciding` (emit `ask_llm`)",
            "`deciding` --decided--> `call_tool` (emit `execute_tool`)",
            "timer 0 of `call_tool` -> `fail` (emit `report_timeout`, `report_failure`)",
        ]
    );
    assert_eq!(
        agent.trace().last().map(String::as_str),
        Some("failed: tool `slow_search` ran longer than 30s")
    );
    // Its late result was not recorded, and the model was not asked again.
    assert!(agent.context().steps.is_empty());
    assert_eq!(agent.llm().decisions(), 1);
}

#[test]
fn a_tool_within_its_timeout_routes_back() {
    let mut agent = timed_agent("quick_search");
    assert_eq!(
        agent.run().unwrap(),
        Outcome::Answered("Search?: found it.".to_owned())
    );
    assert_eq!(agent.context().steps.len(), 1);
}

/// The machine alone, without the agent: the budget, the decision and the
/// tool results are in its context.
#[test]
fn the_machine_keeps_the_books() {
    let context = RouterContext::new("Apple?", ToolRegistry::finance(), 1);
    let mut router = Router::new(context);
    let fired = router.fire(Event::Start).unwrap();
    // `route` asked the model in the same firing.
    assert_eq!(fired.to, State::Deciding);
    assert_eq!(fired.outputs, [router::Output::AskLlm]);
    let decision = Decision::call("get_stock_price", &[("ticker", "AAPL")]);
    router.fire(Event::Decided(decision.clone())).unwrap();
    assert_eq!(router.state(), State::CallTool);
    assert_eq!(router.context().decision.as_ref(), Some(&decision));
    assert!(router.next_deadline().is_some());
    let step = router::ToolStep {
        tool: "get_stock_price".to_owned(),
        arguments: decision.arguments.clone(),
        result: Ok("AAPL trades at 189.98 USD".to_owned()),
    };
    // One step of one: back in `route`, the spent budget fails the run in
    // the same firing.
    let fired = router.fire(Event::ToolFinished(step.clone())).unwrap();
    assert_eq!(router.context().steps, [step]);
    assert_eq!(router.next_deadline(), None);
    assert_eq!(fired.to, State::Fail);
    assert_eq!(fired.outputs, [router::Output::ReportFailure]);
    assert_eq!(router.context().steps_taken, 1);
    // A decision the machine does not expect is handed back, payload and all.
    let error = router.fire(Event::Decided(Decision::answer())).unwrap_err();
    assert!(matches!(error.into_event(), Event::Decided(d) if d == Decision::answer()));
}
