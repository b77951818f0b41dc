//! The phases of a turn sit in the composite `working`: a turn paused in any
//! of them resumes in that very phase (through `working`'s history), in the
//! same process or after a restart from a checkpoint, and ends as if it had
//! never been paused; a cancelled one ends at once.

use crate::common;

use agent_loop::{
    Action, Agent, AgentContext, AgentLoop, Arrival, Checkpoint, Composite, Event, FakeClock, LlmEvent,
    Message, Output, ScriptedLlm, State, ToolCallId, ToolResult, ToolRunner, CANCELLED,
};
use common::{agent, call, error, policy, text};
use fsm_runtime::{Machine, MissingTimerPolicy, Snapshot, Timestamp};
use std::time::Duration;

/// The phases of a turn, the leaves of `working`.
/// (`processing_llm_response` is transient: a firing never ends in it.)
const PHASES: [State; 4] = [
    State::CallingLlm,
    State::ExecutingTools,
    State::PostToolsHook,
    State::Error,
];

/// A turn through every phase: tools (one of them mutating, so the hooks
/// run), a failed request, its retry after the backoff, and the answer. The
/// fourth response is there for a request sent again after a restart.
fn every_phase() -> Vec<Vec<LlmEvent>> {
    vec![
        vec![
            text("Looking."),
            call(1, "edit_file", "src/main.rs"),
            call(2, "read_file", "README.md"),
            LlmEvent::Completed,
        ],
        vec![error("503")],
        vec![text("Done."), text(" Tests pass."), LlmEvent::Completed],
        vec![text("Done."), text(" Tests pass."), LlmEvent::Completed],
    ]
}

/// Where the turn is paused in `phase`: the first time it gets there, or,
/// for `calling_llm`, in the middle of the answer's stream.
fn pause_point(agent: &Agent<ScriptedLlm, FakeClock>, phase: State) -> bool {
    agent.state() == phase
        && (phase != State::CallingLlm || agent.display().last().is_some_and(|d| d == "Done."))
}

/// Run `agent` one event at a time until it is at `phase`'s pause point.
fn run_to(agent: &mut Agent<ScriptedLlm, FakeClock>, phase: State) {
    while !pause_point(agent, phase) {
        let event = agent
            .next_event()
            .unwrap_or_else(|| panic!("the turn reaches `{phase}`"));
        agent.handle(event).unwrap();
    }
}

/// The (from, to) of every transition, events' and timers' alike, in order,
/// leaving out the pause and the resume.
fn path(agent: &Agent<ScriptedLlm, FakeClock>) -> Vec<(State, State)> {
    let mut steps: Vec<(State, State)> = agent
        .history()
        .iter()
        .filter(|fired| !matches!(fired.action, Action::Pause | Action::Resume))
        .map(|fired| (fired.from, fired.to))
        .collect();
    // The backoff timer fires once in this turn, out of `error`.
    let timer = agent.timers().iter().map(|timer| (timer.from, timer.to));
    let at = steps
        .iter()
        .position(|&(_, to)| to == State::Error)
        .map_or(steps.len(), |i| i + 1);
    steps.splice(at..at, timer);
    steps
}

/// The turn run through without a pause.
fn uninterrupted() -> Agent<ScriptedLlm, FakeClock> {
    let mut agent = agent(every_phase(), Arrival::AsFinished);
    agent.submit("Fix the typo").unwrap();
    agent
}

/// Paused, the machine remembers the phase and nothing happens: no event
/// is handled, no timer is armed, however long one waits.
fn assert_paused_in(agent: &mut Agent<ScriptedLlm, FakeClock>, phase: State) {
    assert_eq!(agent.state(), State::Paused);
    assert!(!agent.machine().is_in(Composite::Working));
    assert_eq!(agent.machine().last_active(Composite::Working), Some(phase));
    assert_eq!(agent.retry_due(), None, "paused in `{phase}`: no backoff runs");
    let handled = agent.history().len();
    agent.clock().advance(Duration::from_secs(3600));
    agent.run();
    assert!(agent.next_event().is_none());
    assert_eq!(
        agent.history().len(),
        handled,
        "paused in `{phase}`: nothing handled"
    );
    assert_eq!(agent.state(), State::Paused);
}

#[test]
fn a_turn_paused_in_any_phase_resumes_in_that_phase_and_ends_as_if_never_paused() {
    let reference = uninterrupted();
    assert_eq!(
        reference.timers().len(),
        1,
        "the reference turn fired its backoff once"
    );
    for phase in PHASES {
        let mut agent = agent(every_phase(), Arrival::AsFinished);
        agent.handle(Event::UserInput("Fix the typo".to_owned())).unwrap();
        run_to(&mut agent, phase);
        assert!(agent.machine().is_in(Composite::Working), "{phase}");

        let paused = agent.pause().unwrap();
        assert_eq!((paused.from, paused.to), (phase, State::Paused));
        assert_eq!(paused.outputs, [Output::SuspendWork]);
        assert_paused_in(&mut agent, phase);

        let resumed = agent.unpause().unwrap();
        assert_eq!(
            (resumed.from, resumed.to),
            (State::Paused, phase),
            "back to the very phase"
        );
        assert_eq!(resumed.outputs, [Output::ResumeWork]);

        assert_eq!(agent.state(), State::WaitingForUserInput, "{phase}");
        assert_eq!(path(&agent), path(&reference), "paused in `{phase}`");
        assert_eq!(
            agent.context().conversation(),
            reference.context().conversation(),
            "{phase}"
        );
        assert_eq!(agent.display(), reference.display(), "{phase}");
        // Held, not lost: nothing was asked of the LLM twice.
        assert_eq!(agent.llm().requests(), reference.llm().requests(), "{phase}");
        assert!(agent.rejected().is_empty(), "{phase}: {:?}", agent.rejected());
    }
}

#[test]
fn a_paused_turn_survives_a_checkpoint_and_resumes_in_its_phase_after_a_restart() {
    let reference = uninterrupted();
    for phase in PHASES {
        let mut first = agent(every_phase(), Arrival::AsFinished);
        first.handle(Event::UserInput("Fix the typo".to_owned())).unwrap();
        run_to(&mut first, phase);
        first.pause().unwrap();

        // The phase is the history memory of `working`, beside the leaf;
        // a paused turn has no timer armed.
        let json = first.checkpoint().unwrap().to_json().unwrap();
        assert!(json.contains(r#""current_state":"paused""#), "{json}");
        assert!(
            json.contains(&format!(r#""last_active":{{"working":"{}"}}"#, phase.name())),
            "{json}"
        );
        let checkpoint = Checkpoint::from_json(&json).unwrap();
        let memory: Vec<(&str, &str)> = checkpoint.machine.last_active().collect();
        assert_eq!(memory, [("working", phase.name())]);
        assert!(checkpoint.machine.timers().is_empty(), "{json}");

        let (llm, tools, clock) = first.into_parts();
        let mut second = Agent::resume(&checkpoint, llm, tools, clock, policy()).unwrap();
        assert_paused_in(&mut second, phase);
        assert_eq!(
            second.trace(),
            ["resumed in `paused`", &format!("  -> paused in `{phase}`")]
        );

        let resumed = second.unpause().unwrap();
        assert_eq!((resumed.from, resumed.to), (State::Paused, phase));
        assert_eq!(resumed.outputs, [Output::ResumeWork]);
        // What the old process held is lost: the phase's work is started
        // again (a streaming request is sent again, its partial answer
        // discarded; tools and hooks run again), and the turn ends as it
        // would have.
        assert!(
            second
                .trace()
                .contains(&format!("  -> resumed in `{phase}`; its work is started again")),
            "{:#?}",
            second.trace()
        );
        assert_eq!(second.state(), State::WaitingForUserInput, "{phase}");
        assert_eq!(
            second.context().conversation(),
            reference.context().conversation(),
            "{phase}"
        );
        assert!(second.rejected().is_empty(), "{phase}: {:?}", second.rejected());
        let sent_again = usize::from(phase == State::CallingLlm);
        assert_eq!(
            second.llm().requests().len(),
            reference.llm().requests().len() + sent_again,
            "{phase}"
        );
    }
}

/// The fake clock's time, `after` it started.
fn at(after: Duration) -> Timestamp {
    Timestamp::from_system_time(std::time::UNIX_EPOCH + FakeClock::START + after)
}

#[test]
fn a_backoff_interrupted_by_a_pause_starts_over_whole_on_resume() {
    let backoff = policy().delay(0);
    let mut agent = agent(every_phase(), Arrival::AsFinished);
    agent.handle(Event::UserInput("Fix the typo".to_owned())).unwrap();
    run_to(&mut agent, State::Error);
    assert_eq!(agent.retry_due(), Some(at(backoff)));

    // 60 ms of the 100 ms backoff pass, then the turn is paused for a
    // minute: the backoff's timer belongs to `error`, which the pause
    // leaves, so it is disarmed and never fires while paused.
    agent.clock().advance(Duration::from_millis(60));
    agent.pause().unwrap();
    assert_eq!(agent.retry_due(), None);
    agent.clock().advance(Duration::from_secs(60));
    agent.run();
    assert!(agent.timers().is_empty());

    // Back in `error`, the timer is armed again with the whole backoff
    // (the same retry, so the same delay), from the resume.
    let resumed_at = Duration::from_millis(60_060);
    agent.handle(Event::Resume).unwrap();
    assert_eq!(agent.state(), State::Error);
    assert_eq!(agent.retry_due(), Some(at(resumed_at + backoff)));
    agent.run();
    assert_eq!(agent.clock().sleeps(), [backoff]);
    assert_eq!(agent.timers().len(), 1);
    assert_eq!(agent.timers()[0].due, at(resumed_at + backoff));
    assert_eq!(agent.timers()[0].declared_in, "error");
    assert_eq!(agent.state(), State::WaitingForUserInput);
}

#[test]
fn the_working_composite_holds_the_phases_and_they_all_inherit_pause_and_cancel() {
    assert_eq!(Composite::ALL, [Composite::Working]);
    let inside: Vec<State> = State::ALL
        .iter()
        .copied()
        .filter(|s| s.is_in(Composite::Working))
        .collect();
    assert_eq!(
        inside,
        [
            State::CallingLlm,
            State::ProcessingLlmResponse,
            State::ExecutingTools,
            State::PostToolsHook,
            State::Error,
        ]
    );
    for &state in State::ALL {
        let working = state.is_in(Composite::Working);
        assert_eq!(state.parent(), working.then_some(Composite::Working), "{state}");
        assert_eq!(
            state.ancestors(),
            if working { &[Composite::Working][..] } else { &[] },
            "{state}"
        );
        let snapshot = Snapshot::new("AgentLoop", AgentLoop::<FakeClock>::FINGERPRINT, state.name());
        let context = AgentContext::new(policy());
        // A bare snapshot lists no timer: those armed whenever their state
        // is active are armed as entering it would.
        let machine =
            AgentLoop::restore_with_context(&snapshot, MissingTimerPolicy::Rearm, context, FakeClock::new())
                .unwrap();
        assert_eq!(machine.is_in(Composite::Working), working, "{state}");
        let valid = machine.valid_actions();
        assert_eq!(valid.contains(&Action::Pause), working, "{state}");
        assert_eq!(
            valid.contains(&Action::Cancel),
            working || state == State::Paused,
            "{state}"
        );
        assert_eq!(valid.contains(&Action::Resume), state == State::Paused, "{state}");
    }
}

#[test]
fn pause_and_resume_are_refused_outside_a_turn() {
    let mut agent = agent(every_phase(), Arrival::AsFinished);
    let refused = agent.pause().unwrap_err();
    assert_eq!(
        refused.to_string(),
        "action `pause` is not valid in state `waiting_for_user_input`; valid actions: `user_input`, \
         `shutdown_requested`"
    );
    assert!(agent.handle(Event::Resume).is_err());
    assert!(agent.cancel().is_err());

    agent.handle(Event::UserInput("Hi".to_owned())).unwrap();
    assert!(agent.handle(Event::Resume).is_err(), "not paused");
    agent.pause().unwrap();
    let refused = agent.pause().unwrap_err();
    assert_eq!(
        refused.to_string(),
        "action `pause` is not valid in state `paused`; valid actions: `shutdown_requested`, `resume`, \
         `cancel`"
    );
    let refused = agent.submit("Hello?").unwrap_err();
    assert!(refused
        .to_string()
        .starts_with("action `user_input` is not valid in state `paused`"));

    // A paused turn shuts down like any other state.
    let fired = agent.shutdown().unwrap();
    assert_eq!((fired.from, fired.to), (State::Paused, State::ShuttingDown));
    assert_eq!(fired.outputs, [Output::Shutdown]);
}

#[test]
fn a_cancelled_turn_ends_at_once_from_any_phase_or_paused() {
    for (phase, pause_first) in PHASES.iter().flat_map(|&phase| [(phase, false), (phase, true)]) {
        let mut agent = agent(every_phase(), Arrival::AsFinished);
        agent.handle(Event::UserInput("Fix the typo".to_owned())).unwrap();
        run_to(&mut agent, phase);
        let from = if pause_first {
            agent.pause().unwrap();
            State::Paused
        } else {
            phase
        };
        let requests = agent.llm().requests().len();
        let fired = agent.cancel().unwrap();
        assert_eq!((fired.from, fired.to), (from, State::WaitingForUserInput));
        assert_eq!(fired.outputs, [Output::AbortWork]);
        assert!(!agent.machine().is_in(Composite::Working));
        assert_eq!(agent.retry_due(), None, "{phase}");
        assert_eq!(agent.tools_in_flight(), 0, "{phase}");
        assert!(
            agent.next_event().is_none(),
            "{phase}: the turn's events were dropped"
        );
        assert_eq!(agent.context().retries(), 0);
        assert_eq!(agent.context().last_error(), None);

        // The next turn starts from a complete conversation: every tool
        // call has a result, and nothing of a cancelled stream is kept.
        let conversation = agent.context().conversation().to_vec();
        agent.submit("Never mind").unwrap();
        let sent = &agent.llm().requests()[requests];
        assert_eq!(sent[..conversation.len()], conversation[..]);
        let calls: Vec<ToolCallId> = conversation
            .iter()
            .flat_map(|message| match message {
                Message::Assistant { tool_calls, .. } => tool_calls.iter().map(|call| call.id).collect(),
                _ => vec![],
            })
            .collect();
        let results: Vec<ToolCallId> = conversation
            .iter()
            .filter_map(|message| match message {
                Message::Tool(result) => Some(result.id),
                _ => None,
            })
            .collect();
        assert_eq!(
            results, calls,
            "{phase}, paused first: {pause_first}: {conversation:#?}"
        );
    }
}

#[test]
fn cancelling_a_batch_keeps_the_results_that_arrived_and_cancels_the_others() {
    let mut agent = agent(
        vec![
            vec![
                call(1, "grep", "helo"),
                call(2, "read_file", "src/main.rs"),
                LlmEvent::Completed,
            ],
            vec![text("Stopped."), LlmEvent::Completed],
        ],
        // The second call reports first; the first never does.
        Arrival::Sequence(vec![ToolCallId(2)]),
    );
    agent.handle(Event::UserInput("Look".to_owned())).unwrap();
    while agent.state() != State::ExecutingTools {
        let event = agent.next_event().unwrap();
        agent.handle(event).unwrap();
    }
    let event = agent.next_event().unwrap();
    assert!(matches!(&event, Event::ToolCompleted(result) if result.id == ToolCallId(2)));
    agent.handle(event).unwrap();
    assert_eq!(agent.state(), State::ExecutingTools);

    agent.cancel().unwrap();
    let conversation = agent.context().conversation();
    assert_eq!(
        conversation[2..],
        [
            Message::Tool(ToolResult {
                id: ToolCallId(1),
                output: Err(CANCELLED.to_owned()),
            }),
            Message::Tool(ToolResult {
                id: ToolCallId(2),
                output: agent_loop::run_tool(&agent_loop::ToolCall::new(2, "read_file", "src/main.rs")),
            }),
        ]
    );
    assert!(agent.context().pending().is_empty());
    assert_eq!(agent.tools_in_flight(), 0);
    assert!(agent
        .trace()
        .contains(&"  -> turn cancelled; 0 events and 1 tool result dropped".to_owned()));
}

#[test]
fn tools_finish_while_paused_and_report_after_the_resume() {
    let mut agent = agent(every_phase(), Arrival::AsFinished);
    agent.handle(Event::UserInput("Fix the typo".to_owned())).unwrap();
    run_to(&mut agent, State::ExecutingTools);
    assert_eq!(agent.tools_in_flight(), 2);
    agent.pause().unwrap();
    assert!(agent
        .trace()
        .contains(&"  -> paused in `executing_tools`; holding 0 events, 2 tool calls in flight".to_owned()));
    // Nothing is received while paused, and nothing is run twice.
    agent.run();
    assert_eq!(agent.tools_in_flight(), 2);
    agent.unpause().unwrap();
    assert_eq!(agent.tools_in_flight(), 0);
    let started = agent
        .trace()
        .iter()
        .filter(|line| line.starts_with("  -> start "))
        .count();
    assert_eq!(started, 1, "the batch was started once");
}

#[test]
fn a_checkpoint_remembering_a_phase_outside_working_is_refused() {
    // A `last_active` naming a state outside `working` cannot be restored.
    let mut first = agent(every_phase(), Arrival::AsFinished);
    first.handle(Event::UserInput("Hi".to_owned())).unwrap();
    first.pause().unwrap();
    let json = first.checkpoint().unwrap().to_json().unwrap();
    let forged = json.replace(
        r#""working":"calling_llm""#,
        r#""working":"waiting_for_user_input""#,
    );
    assert_ne!(forged, json);
    let checkpoint = Checkpoint::from_json(&forged).unwrap();
    let tools = ToolRunner::new(agent_loop::Latency::None, Arrival::AsFinished);
    let error = Agent::resume(
        &checkpoint,
        ScriptedLlm::default(),
        tools,
        FakeClock::new(),
        policy(),
    )
    .map(|_| ())
    .unwrap_err();
    assert!(error.to_string().contains("waiting_for_user_input"), "{error}");
}
