//! Whole turns: tool calls, post-tool hooks, retries with backoff, giving up.

use crate::common;

use agent_loop::{Arrival, Latency, LlmEvent, Message, RetryPolicy, State, ToolCall, ToolResult, ToolRunner};
use common::{agent, agent_with, call, error, policy, text};
use std::time::Duration;

/// The (from, to) of every transition.
fn path<L, C: agent_loop::Clock>(agent: &agent_loop::Agent<L, C>) -> Vec<(State, State)> {
    agent
        .history()
        .iter()
        .map(|fired| (fired.from, fired.to))
        .collect()
}

fn ms(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

#[test]
fn a_turn_with_tool_calls_sends_the_results_back_in_call_order() {
    let mut agent = agent(
        vec![
            vec![
                text("Let me "),
                text("check."),
                call(1, "read_file", "src/main.rs"),
                call(2, "grep", "helo"),
                LlmEvent::Completed,
            ],
            vec![text("It says helo."), LlmEvent::Completed],
        ],
        // The second call reports first.
        Arrival::Sequence(vec![agent_loop::ToolCallId(2), agent_loop::ToolCallId(1)]),
    );
    agent.submit("What does main print?").unwrap();

    use State::*;
    assert_eq!(
        path(&agent),
        [
            (WaitingForUserInput, CallingLlm),
            (CallingLlm, CallingLlm),
            (CallingLlm, CallingLlm),
            (CallingLlm, CallingLlm),
            (CallingLlm, CallingLlm),
            (CallingLlm, ExecutingTools),
            (ExecutingTools, ExecutingTools),
            (ExecutingTools, CallingLlm),
            (CallingLlm, CallingLlm),
            (CallingLlm, WaitingForUserInput),
        ]
    );
    assert_eq!(common::arrival_order(&agent), [2, 1]);
    let calls = vec![
        ToolCall::new(1, "read_file", "src/main.rs"),
        ToolCall::new(2, "grep", "helo"),
    ];
    let expected = vec![
        Message::User {
            text: "What does main print?".to_owned(),
        },
        Message::Assistant {
            text: "Let me check.".to_owned(),
            tool_calls: calls.clone(),
        },
        Message::Tool(ToolResult {
            id: calls[0].id,
            output: agent_loop::run_tool(&calls[0]),
        }),
        Message::Tool(ToolResult {
            id: calls[1].id,
            output: agent_loop::run_tool(&calls[1]),
        }),
        Message::Assistant {
            text: "It says helo.".to_owned(),
            tool_calls: vec![],
        },
    ];
    assert_eq!(agent.context().conversation(), expected);
    // The second request carried the tool results.
    assert_eq!(agent.llm().requests().len(), 2);
    assert_eq!(agent.llm().requests()[1], expected[..4]);
    assert_eq!(agent.display(), ["Let me ", "check.", "It says helo."]);
    assert!(agent.rejected().is_empty());
    assert!(agent.clock().sleeps().is_empty());
}

#[test]
fn mutating_tools_run_the_post_tool_hooks_first() {
    let mut agent = agent(
        vec![
            vec![
                call(1, "edit_file", "src/main.rs"),
                call(2, "read_file", "README.md"),
                LlmEvent::Completed,
            ],
            vec![text("Done."), LlmEvent::Completed],
        ],
        Arrival::AsFinished,
    );
    agent.submit("Fix it").unwrap();
    let into_hook = agent
        .history()
        .iter()
        .position(|fired| fired.to == State::PostToolsHook)
        .expect("the hooks ran");
    let fired = agent.history()[into_hook + 1];
    assert_eq!((fired.from, fired.to), (State::PostToolsHook, State::CallingLlm));
    assert!(agent
        .trace()
        .contains(&"  -> auto-commit after edit_file(src/main.rs)".to_owned()));
    assert_eq!(agent.state(), State::WaitingForUserInput);
}

#[test]
fn a_failing_tool_reports_its_error_to_the_llm() {
    let mut agent = agent(
        vec![
            vec![call(1, "deploy", "prod"), LlmEvent::Completed],
            vec![text("I can't deploy."), LlmEvent::Completed],
        ],
        Arrival::AsFinished,
    );
    agent.submit("Ship it").unwrap();
    assert_eq!(
        agent.context().conversation()[2],
        Message::Tool(ToolResult {
            id: agent_loop::ToolCallId(1),
            output: Err("unknown tool `deploy`".to_owned()),
        })
    );
    assert_eq!(agent.state(), State::WaitingForUserInput);
}

#[test]
fn a_retry_that_succeeds_continues_the_turn() {
    let mut agent = agent(
        vec![
            vec![error("503")],
            vec![text("Hel"), error("connection reset")],
            vec![text("Hello!"), LlmEvent::Completed],
        ],
        Arrival::AsFinished,
    );
    agent.submit("Hi").unwrap();
    assert_eq!(agent.clock().sleeps(), [ms(100), ms(200)]);
    // The machine's timer fired each retry, at the deadline it armed: the
    // failure's time (nothing else advances the fake clock) plus the delay.
    let start = agent_loop::FakeClock::START.as_millis() as u64;
    let due: Vec<u64> = agent
        .timers()
        .iter()
        .map(|timer| timer.due.unix_millis() - start)
        .collect();
    assert_eq!(due, [100, 300]);
    assert_eq!(agent.retry_due(), None, "no timer is left armed");
    assert_eq!(agent.state(), State::WaitingForUserInput);
    assert_eq!(
        agent.context().retries(),
        0,
        "a completed response resets the count"
    );
    // The partial response of the failed attempt was displayed while it
    // streamed but is not part of the conversation.
    assert_eq!(
        agent.context().conversation()[1],
        Message::Assistant {
            text: "Hello!".to_owned(),
            tool_calls: vec![],
        }
    );
    assert_eq!(agent.llm().requests().len(), 3);
    assert!(agent.llm().requests().iter().all(|request| request.len() == 1));
}

#[test]
fn exhausted_retries_display_the_error_and_wait_for_the_user() {
    let mut agent = agent(
        vec![
            vec![error("e1")],
            vec![error("e2")],
            vec![error("e3")],
            vec![error("e4")],
            vec![error("e5")],
            vec![text("Back."), LlmEvent::Completed],
        ],
        Arrival::AsFinished,
    );
    agent.submit("Hi").unwrap();
    assert_eq!(agent.clock().sleeps(), policy().schedule());
    assert_eq!(agent.clock().sleeps(), [ms(100), ms(200), ms(400)]);
    assert_eq!(agent.state(), State::WaitingForUserInput);
    assert_eq!(agent.llm().requests().len(), 4, "one attempt and three retries");
    assert_eq!(
        agent.display(),
        ["error: the LLM request failed after 3 retries: e4"]
    );
    let last = agent.history().last().unwrap();
    assert_eq!(last.outputs, [agent_loop::Output::DisplayError]);

    // The next turn starts with a fresh count: one retry, from the base delay.
    agent.submit("Again").unwrap();
    assert_eq!(agent.clock().sleeps()[3..], [ms(100)]);
    assert_eq!(agent.display().last().unwrap(), "Back.");
}

#[test]
fn the_backoff_doubles_up_to_the_cap() {
    let policy = RetryPolicy {
        max_retries: 5,
        base_delay: ms(100),
        max_delay: ms(250),
    };
    assert_eq!(policy.schedule(), [ms(100), ms(200), ms(250), ms(250), ms(250)]);
    assert_eq!(policy.delay(u32::MAX), ms(250), "no overflow");
    let failing = (0..6).map(|i| vec![error(&format!("e{i}"))]).collect();
    let mut agent = agent_with(
        failing,
        ToolRunner::new(Latency::None, Arrival::AsFinished),
        policy,
    );
    agent.submit("Hi").unwrap();
    assert_eq!(agent.clock().sleeps(), policy.schedule());
}

#[test]
fn zero_retries_give_up_at_once() {
    let policy = RetryPolicy {
        max_retries: 0,
        ..policy()
    };
    let mut agent = agent_with(
        vec![vec![error("down")]],
        ToolRunner::new(Latency::None, Arrival::AsFinished),
        policy,
    );
    agent.submit("Hi").unwrap();
    assert!(agent.clock().sleeps().is_empty());
    assert_eq!(
        agent.display(),
        ["error: the LLM request failed after 0 retries: down"]
    );
}

#[test]
fn user_input_during_a_turn_is_rejected_with_the_valid_actions() {
    let mut agent = agent(vec![vec![error("503")]], Arrival::AsFinished);
    agent
        .handle(agent_loop::Event::UserInput("Hi".to_owned()))
        .unwrap();
    let error = agent.submit("Hello?").unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `user_input` is not valid in state `calling_llm`; valid actions: `text_delta`, \
         `tool_call_delta`, `llm_completed`, `llm_error`, `shutdown_requested`, `pause`, `cancel`"
    );
    assert_eq!(agent.rejected(), std::slice::from_ref(&error));
    assert_eq!(agent.state(), State::CallingLlm);
    // The message is handed back, not lost.
    assert!(
        matches!(error.into_event(), agent_loop::Event::UserInput(text) if text == "Hello?"),
        "the rejected event carries the user's message"
    );
}
