//! A process stops mid-conversation; a new one resumes from the checkpoint
//! (the machine's snapshot with its context and armed deadline, through
//! JSON) and finishes the turn as if nothing had happened, retrying when
//! the old process promised to.

use crate::common;

use agent_loop::{Agent, Arrival, Checkpoint, Event, FakeClock, LlmEvent, State, ToolRunner};
use common::{agent, call, error, five_tools, policy, text};
use fsm_runtime::{RestoreError, Snapshot, Timestamp};
use std::time::Duration;

/// Drive the agent one event at a time until it is in `state`.
fn run_until<L: agent_loop::Llm, C: agent_loop::Clock>(agent: &mut Agent<L, C>, state: State) {
    while agent.state() != state {
        let event = agent.next_event().expect("the agent reaches the state");
        agent.handle(event).unwrap();
    }
}

/// Through JSON, as a process would store it.
fn stored(agent: &Agent<impl agent_loop::Llm, impl agent_loop::Clock>) -> Checkpoint {
    Checkpoint::from_json(&agent.checkpoint().unwrap().to_json().unwrap()).unwrap()
}

/// The fake clock's time, `after` it started.
fn at(after: Duration) -> Timestamp {
    Timestamp::from_system_time(std::time::UNIX_EPOCH + FakeClock::START + after)
}

fn uninterrupted(script: Vec<Vec<LlmEvent>>, message: &str) -> Vec<agent_loop::Message> {
    let mut agent = agent(script, Arrival::AsFinished);
    agent.submit(message).unwrap();
    agent.context().conversation().to_vec()
}

fn retried_turn() -> Vec<Vec<LlmEvent>> {
    vec![
        vec![call(1, "grep", "helo"), LlmEvent::Completed],
        vec![error("503")],
        vec![text("Fixed."), LlmEvent::Completed],
    ]
}

#[test]
fn a_restart_while_waiting_for_a_retry_keeps_the_original_deadline() {
    let mut first = agent(retried_turn(), Arrival::AsFinished);
    first.handle(Event::UserInput("Fix it".to_owned())).unwrap();
    run_until(&mut first, State::Error);
    // The request failed at the clock's start: the retry is due one
    // backoff later.
    let due = at(policy().delay(0));
    assert_eq!(first.retry_due(), Some(due));

    let json = first.checkpoint().unwrap().to_json().unwrap();
    assert!(
        json.starts_with(r#"{"machine":{"type":"fsm","machine":"AgentLoop","fingerprint":""#),
        "{json}"
    );
    assert!(json.contains(r#""current_state":"error","context":{"#), "{json}");
    assert!(json.contains(r#""retries":0}"#), "{json}");
    assert!(
        json.ends_with(&format!(
            r#""timers":[{{"state":"error","timer":0,"due":"{due}"}}]}}}}"#
        )),
        "{json}"
    );
    let checkpoint = Checkpoint::from_json(&json).unwrap();
    assert_eq!(checkpoint, first.checkpoint().unwrap());
    assert_eq!(&checkpoint.context().unwrap(), first.context());

    // The process is down for 60 ms of the 100 ms backoff.
    let (llm, tools, clock) = first.into_parts();
    clock.advance(Duration::from_millis(60));
    let mut second = Agent::resume(&checkpoint, llm, tools, clock, policy()).unwrap();
    assert_eq!(second.state(), State::Error);
    assert_eq!(second.retry_due(), Some(due), "the deadline survived the restart");
    second.run();
    assert_eq!(second.state(), State::WaitingForUserInput);
    assert_eq!(
        second.context().conversation(),
        uninterrupted(retried_turn(), "Fix it")
    );
    // The second process waited only what was left of the backoff, not a
    // whole one, and the retry went out at the time first promised.
    assert_eq!(second.clock().sleeps(), [Duration::from_millis(40)]);
    assert_eq!(second.timers().len(), 1);
    assert_eq!(second.timers()[0].due, due);
    assert_eq!(second.context().requests(), 3);
}

#[test]
fn a_restart_after_the_deadline_retries_at_once() {
    let mut first = agent(retried_turn(), Arrival::AsFinished);
    first.handle(Event::UserInput("Fix it".to_owned())).unwrap();
    run_until(&mut first, State::Error);
    let checkpoint = stored(&first);

    // Down for longer than the backoff: the retry is overdue.
    let (llm, tools, clock) = first.into_parts();
    clock.advance(Duration::from_secs(5));
    let mut second = Agent::resume(&checkpoint, llm, tools, clock, policy()).unwrap();
    second.run();
    assert!(second.clock().sleeps().is_empty(), "no wait for an overdue retry");
    assert_eq!(second.timers()[0].due, at(policy().delay(0)));
    assert_eq!(
        second.context().conversation(),
        uninterrupted(retried_turn(), "Fix it")
    );
}

#[test]
fn a_restart_keeps_the_retry_count_and_the_next_backoff_grows() {
    let script = vec![
        vec![error("e1")],
        vec![error("e2")],
        vec![text("Back."), LlmEvent::Completed],
    ];
    let mut first = agent(script.clone(), Arrival::AsFinished);
    first.handle(Event::UserInput("Hi".to_owned())).unwrap();
    run_until(&mut first, State::Error);
    // The first retry fails too: the machine waits for the second one.
    let event = first.next_event().unwrap();
    first.handle(event).unwrap();
    assert_eq!(first.state(), State::Error);
    let checkpoint = stored(&first);
    assert_eq!(checkpoint.context().unwrap().retries(), 1);

    let (llm, tools, clock) = first.into_parts();
    let mut second = Agent::resume(&checkpoint, llm, tools, clock, policy()).unwrap();
    second.run();
    // 100 ms slept by the first process, 200 ms (the second backoff, from
    // the restored count) by the second.
    assert_eq!(second.clock().sleeps(), [policy().delay(0), policy().delay(1)]);
    assert_eq!(second.display(), ["Back."]);
    assert_eq!(second.context().retries(), 0);
}

#[test]
fn a_restart_during_tool_execution_reruns_only_the_unfinished_calls() {
    let mut first = agent(five_tools(), Arrival::Sequence(vec![]));
    first
        .handle(Event::UserInput("Where is the typo?".to_owned()))
        .unwrap();
    run_until(&mut first, State::ExecutingTools);
    // Two of the five results arrive before the process stops.
    for _ in 0..2 {
        let event = first.next_event().unwrap();
        first.handle(event).unwrap();
    }
    let checkpoint = stored(&first);
    assert!(checkpoint.machine.timers().is_empty());
    let context = checkpoint.context().unwrap();
    let pending: Vec<u32> = context.pending().iter().map(|id| id.0).collect();
    assert_eq!(pending, [3, 4, 5]);

    let (llm, _, clock) = first.into_parts();
    let tools = ToolRunner::new(agent_loop::Latency::None, Arrival::AsFinished);
    let mut second = Agent::resume(&checkpoint, llm, tools, clock, policy()).unwrap();
    assert_eq!(second.tools_in_flight(), 3);
    second.run();
    assert_eq!(second.state(), State::WaitingForUserInput);
    assert_eq!(
        second.context().conversation(),
        uninterrupted(five_tools(), "Where is the typo?")
    );
}

#[test]
fn a_restart_mid_stream_sends_the_request_again() {
    let script = vec![
        vec![text("Partial "), text("answer"), LlmEvent::Completed],
        vec![text("Whole answer."), LlmEvent::Completed],
    ];
    let mut first = agent(script, Arrival::AsFinished);
    first.handle(Event::UserInput("Hi".to_owned())).unwrap();
    let event = first.next_event().unwrap();
    first.handle(event).unwrap();
    let checkpoint = stored(&first);
    assert_eq!(checkpoint.machine.current_state(), "calling_llm");

    let (llm, tools, clock) = first.into_parts();
    let mut second = Agent::resume(&checkpoint, llm, tools, clock, policy()).unwrap();
    second.run();
    assert_eq!(
        second.context().conversation()[1],
        agent_loop::Message::Assistant {
            text: "Whole answer.".to_owned(),
            tool_calls: vec![],
        },
        "the partial response was discarded and the request sent again"
    );
    assert_eq!(second.llm().requests().len(), 2);
}

#[test]
fn a_checkpoint_of_another_machine_or_definition_is_refused() {
    let agent = agent(vec![], Arrival::AsFinished);
    let mut checkpoint = agent.checkpoint().unwrap();
    let resume = |checkpoint: &Checkpoint| {
        let tools = ToolRunner::new(agent_loop::Latency::None, Arrival::AsFinished);
        Agent::resume(
            checkpoint,
            agent_loop::ScriptedLlm::default(),
            tools,
            agent_loop::FakeClock::new(),
            policy(),
        )
        .map(|_| ())
    };

    let fingerprint = checkpoint.machine.fingerprint().to_owned();
    checkpoint.machine = Snapshot::new("Router", fingerprint.clone(), "route");
    assert!(matches!(
        resume(&checkpoint),
        Err(RestoreError::OtherMachine { .. })
    ));

    checkpoint.machine = Snapshot::new("AgentLoop", "0123456789abcdef", "error");
    let error = resume(&checkpoint).unwrap_err();
    assert!(matches!(error, RestoreError::FingerprintMismatch { .. }));
    assert!(error.to_string().contains("different definition"), "{error}");

    checkpoint.machine = Snapshot::new("AgentLoop", fingerprint.clone(), "thinking");
    let error = resume(&checkpoint).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the snapshot's state `thinking` does not exist in machine `AgentLoop`"),
        "{error}"
    );

    // A snapshot of this machine without its context cannot resume it.
    checkpoint.machine = Snapshot::new("AgentLoop", fingerprint.clone(), "error");
    assert!(resume(&checkpoint).is_err());
    // Nor one whose context does not read back; the error names the field.
    let context = serde_json::json!({"policy": {"max_retries": "three"}});
    checkpoint.machine = Snapshot::new("AgentLoop", fingerprint, "error").with_context(context);
    let error = resume(&checkpoint).unwrap_err();
    assert!(error.to_string().contains("policy.max_retries"), "{error}");
}

#[test]
fn a_checkpoint_that_is_not_json_is_an_error() {
    let error = Checkpoint::from_json(r#"{"machine": {"type": "graph"}}"#).unwrap_err();
    assert!(error.to_string().contains("not an fsm snapshot"), "{error}");
}
