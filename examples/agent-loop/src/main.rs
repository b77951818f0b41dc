//! A scripted session of the agent loop, traced event by event: a turn with
//! concurrent tools, paused and resumed while they run, a failed request retried after a backoff, post-tool
//! hooks, a restart from a checkpoint, a request that fails for good, and a
//! shutdown. Run it with `cargo run -p agent-loop`.
//!
//! The LLM is a script and the tools are fakes, but the tools really run on
//! threads and the machine's backoff timer really waits (a few
//! milliseconds); the output is the same on every run.

use agent_loop::{
    Agent, Arrival, Checkpoint, Clock, Event, Latency, LlmEvent, RetryPolicy, ScriptedLlm, State,
    SystemClock, ToolCall, ToolRunner,
};
use clap::Parser;
use std::time::Duration;

/// Runs a scripted session of the agent loop and prints its trace: a turn
/// with concurrent tools, paused and resumed while they run, a failed request retried after a backoff, post-tool
/// hooks, a restart from a checkpoint, a request that fails for good, and a
/// shutdown.
///
/// The LLM is a script and the tools are fakes; the output is the same on
/// every run. The demo takes no arguments.
#[derive(Parser)]
#[command(version)]
struct Cli {}

fn main() {
    // `--help` and `--version` print and exit; anything else is refused
    // with the usage, rather than ignored.
    let Cli {} = Cli::parse();
    let policy = RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(40),
    };
    let tools = ToolRunner::new(Latency::PerTool, Arrival::ByLatency);
    let mut agent = Agent::new(script(), tools, SystemClock, policy);
    let mut printed = 0;

    // The first turn is paused while its tools run, and resumed: the
    // tools finish meanwhile, and their results are delivered after.
    if let Err(error) = agent.handle(Event::UserInput("Fix the typo in src/main.rs".to_owned())) {
        println!("error: {error}");
    }
    run_until(&mut agent, State::ExecutingTools);
    if let Err(error) = agent.pause() {
        println!("error: {error}");
    }
    if let Err(error) = agent.unpause() {
        println!("error: {error}");
    }
    printed = print_trace(&agent, printed);

    // The next turn stops mid-request: the LLM failed and a retry is
    // scheduled when the process goes down.
    if let Err(error) = agent.handle(Event::UserInput("Add a changelog entry".to_owned())) {
        println!("error: {error}");
    }
    run_until(&mut agent, State::Error);
    print_trace(&agent, printed);
    let json = match agent.checkpoint().map(|checkpoint| checkpoint.to_json()) {
        Ok(Ok(json)) => json,
        Ok(Err(error)) => return println!("error: {error}"),
        Err(error) => return println!("error: {error}"),
    };
    let checkpoint = match Checkpoint::from_json(&json) {
        Ok(checkpoint) => checkpoint,
        Err(error) => return println!("error: {error}"),
    };
    let context = match checkpoint.context() {
        Ok(context) => context,
        Err(error) => return println!("error: {error}"),
    };
    // The deadline is a wall-clock time, different on every run: the
    // trace says only that it is there.
    let snapshot = &checkpoint.machine;
    println!("--- restart: {} bytes of checkpoint", json.len());
    println!(
        "    machine: `{}` in `{}`; armed: {}",
        snapshot.machine(),
        snapshot.current_state(),
        match snapshot.timers() {
            [] => "nothing".to_owned(),
            [timer] => format!(
                "timer {} of `{}`, with its deadline",
                timer.timer(),
                timer.state()
            ),
            timers => format!("{} timers", timers.len()),
        }
    );
    println!(
        "    context: {} messages, {} retries made",
        context.conversation().len(),
        context.retries()
    );

    let (llm, tools, clock) = agent.into_parts();
    let mut agent = match Agent::resume(&checkpoint, llm, tools, clock, policy) {
        Ok(agent) => agent,
        Err(error) => return println!("error: {error}"),
    };
    agent.run();
    printed = print_trace(&agent, 0);

    if let Err(error) = agent.submit("Release it") {
        println!("error: {error}");
    }
    printed = print_trace(&agent, printed);

    if let Err(error) = agent.shutdown() {
        println!("error: {error}");
    }
    let _ = agent.submit("Are you there?");
    print_trace(&agent, printed);
}

/// Handle events until the agent is in `state`, or has nothing to do.
fn run_until<L: agent_loop::Llm, C: agent_loop::Clock>(agent: &mut Agent<L, C>, state: State) {
    while agent.state() != state {
        match agent.next_event() {
            Some(event) => {
                let _ = agent.handle(event);
            }
            None => break,
        }
    }
}

/// Print the trace lines after the first `from`; return the new count.
fn print_trace<L, C: Clock>(agent: &Agent<L, C>, from: usize) -> usize {
    for line in &agent.trace()[from..] {
        println!("{line}");
    }
    agent.trace().len()
}

fn script() -> ScriptedLlm {
    use LlmEvent::{Completed, Error, TextDelta, ToolCallDelta};
    let text = |text: &str| TextDelta(text.to_owned());
    ScriptedLlm::new([
        vec![
            text("I'll look at the file first."),
            ToolCallDelta(ToolCall::new(1, "read_file", "src/main.rs")),
            ToolCallDelta(ToolCall::new(2, "grep", "helo")),
            Completed,
        ],
        vec![Error("503 Service Unavailable".to_owned())],
        vec![
            text("Found \"helo\"; fixing it and running the tests."),
            ToolCallDelta(ToolCall::new(3, "edit_file", "src/main.rs")),
            ToolCallDelta(ToolCall::new(4, "bash", "cargo test")),
            Completed,
        ],
        vec![text("Fixed the typo; the tests pass."), Completed],
        vec![Error("timeout after 30s".to_owned())],
        vec![text("Added an entry to CHANGELOG.md."), Completed],
        vec![Error("429 Too Many Requests".to_owned())],
        vec![Error("429 Too Many Requests".to_owned())],
        vec![Error("429 Too Many Requests".to_owned())],
        vec![Error("429 Too Many Requests".to_owned())],
    ])
}
