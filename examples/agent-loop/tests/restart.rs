//! A process stops mid-conversation; a new one resumes from the checkpoint
//! (the machine's snapshot and the context, through JSON) and finishes the
//! turn as if nothing had happened.

mod common;

use agent_loop::{Agent, Arrival, Checkpoint, Event, LlmEvent, State, ToolRunner};
use common::{agent, call, error, five_tools, policy, text};
use fsm_runtime::{RestoreError, Snapshot};

/// Drive the agent one event at a time until it is in `state`.
fn run_until<L: agent_loop::Llm, C: agent_loop::Clock>(agent: &mut Agent<L, C>, state: State) {
    while agent.state() != state {
        let event = agent.next_event().expect("the agent reaches the state");
        agent.handle(event).unwrap();
    }
}

/// Through JSON, as a process would store it.
fn stored(agent: &Agent<impl agent_loop::Llm, impl agent_loop::Clock>) -> Checkpoint {
    Checkpoint::from_json(&agent.checkpoint().to_json().unwrap()).unwrap()
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
fn a_restart_while_waiting_for_a_retry_resumes_the_retry() {
    let mut first = agent(retried_turn(), Arrival::AsFinished);
    first.handle(Event::UserInput("Fix it".to_owned())).unwrap();
    run_until(&mut first, State::Error);

    let json = first.checkpoint().to_json().unwrap();
    assert!(
        json.starts_with(r#"{"machine":{"type":"fsm","machine":"AgentLoop","fingerprint":""#),
        "{json}"
    );
    assert!(json.contains(r#""current_state":"error"}"#), "{json}");
    let checkpoint = Checkpoint::from_json(&json).unwrap();
    assert_eq!(checkpoint, first.checkpoint());

    let (llm, tools, clock) = first.into_parts();
    let mut second = Agent::resume(&checkpoint, llm, tools, clock, policy()).unwrap();
    assert_eq!(second.state(), State::Error);
    second.run();
    assert_eq!(second.state(), State::WaitingForUserInput);
    assert_eq!(
        second.context().conversation(),
        uninterrupted(retried_turn(), "Fix it")
    );
    // One backoff in all, slept by the second process.
    assert_eq!(second.clock().sleeps(), [policy().delay(0)]);
    assert_eq!(second.context().requests(), 3);
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
    let pending: Vec<u32> = checkpoint.context.pending().iter().map(|id| id.0).collect();
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
    let mut checkpoint = agent.checkpoint();
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

    checkpoint.machine = Snapshot::new("AgentLoop", fingerprint, "thinking");
    let error = resume(&checkpoint).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the snapshot's state `thinking` does not exist in machine `AgentLoop`"),
        "{error}"
    );
}

#[test]
fn a_checkpoint_that_is_not_json_is_an_error() {
    let error = Checkpoint::from_json(r#"{"machine": {"type": "graph"}}"#).unwrap_err();
    assert!(error.to_string().contains("not an fsm snapshot"), "{error}");
}
