//! Three runs of the router, traced step by step: an answer after two tool
//! calls, a tool error the model recovers from, and a model that never stops
//! asking for tools, cut off by `max_steps`. Run it with `cargo run -p router`.

use router::{Agent, Decision, ScriptedLlm, ToolRegistry};

fn main() {
    run(
        "What does one Apple share cost in euros?",
        [
            Decision::call("get_stock_price", &[("ticker", "AAPL")]),
            Decision::call("get_exchange_rate", &[("from", "USD"), ("to", "EUR")]),
            Decision::answer(),
        ],
        Agent::<ScriptedLlm>::DEFAULT_MAX_STEPS,
    );
    run(
        "What does Microsoft trade at?",
        [
            Decision::call("get_stock_price", &[("ticker", "MICROSOFT")]),
            Decision::call("get_stock_price", &[("ticker", "MSFT")]),
            Decision::answer(),
        ],
        Agent::<ScriptedLlm>::DEFAULT_MAX_STEPS,
    );
    run(
        "Which stock should I buy?",
        ["AAPL", "MSFT", "NVDA", "AAPL", "MSFT"]
            .map(|ticker| Decision::call("get_stock_price", &[("ticker", ticker)])),
        3,
    );
}

fn run(query: &str, decisions: impl IntoIterator<Item = Decision>, max_steps: u32) {
    println!("query: {query} (max_steps {max_steps})");
    let llm = ScriptedLlm::deciding(decisions);
    let mut agent = Agent::new(query, llm, ToolRegistry::finance(), max_steps);
    let outcome = agent.run();
    for line in agent.trace() {
        println!("  {line}");
    }
    match &outcome {
        Ok(outcome) => println!("  => {outcome} ({} steps)", agent.steps()),
        Err(error) => println!("  => error: {error}"),
    }
    println!();
}
