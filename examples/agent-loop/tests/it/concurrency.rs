//! Tools run on their own threads and report in any order; the agent waits
//! for all of them and always sends the same conversation back.

use crate::common;

use agent_loop::{Arrival, Latency, Message, State, ToolCallId, ToolRunner};
use common::{agent, agent_with, five_tools, policy};
use proptest::prelude::*;
use std::time::Duration;

/// The conversation after the five-tool turn, with results in call order.
fn reference() -> Vec<Message> {
    let mut agent = agent(five_tools(), Arrival::AsFinished);
    agent.submit("Where is the typo?").unwrap();
    agent.context().conversation().to_vec()
}

/// The states around the batch: four results keep the agent waiting, the
/// fifth sends the results to the LLM.
fn check_batch<L, C: agent_loop::Clock>(agent: &agent_loop::Agent<L, C>) {
    let batch: Vec<_> = agent
        .history()
        .iter()
        .filter(|fired| fired.action == agent_loop::Action::ToolCompleted)
        .map(|fired| fired.to)
        .collect();
    assert_eq!(
        batch,
        [
            State::ExecutingTools,
            State::ExecutingTools,
            State::ExecutingTools,
            State::ExecutingTools,
            State::CallingLlm,
        ]
    );
    assert_eq!(agent.state(), State::WaitingForUserInput);
    assert_eq!(agent.tools_in_flight(), 0);
}

#[test]
fn the_reference_turn_has_every_result_in_call_order() {
    let conversation = reference();
    let tool_ids: Vec<u32> = conversation
        .iter()
        .filter_map(|message| match message {
            Message::Tool(result) => Some(result.id.0),
            _ => None,
        })
        .collect();
    assert_eq!(tool_ids, [1, 2, 3, 4, 5]);
    assert_eq!(conversation.len(), 1 + 1 + 5 + 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Every order of arrival: the agent sees them in that order, and the
    /// conversation does not depend on it.
    #[test]
    fn any_arrival_order_gives_the_same_conversation(
        order in Just((1..=5).collect::<Vec<u32>>()).prop_shuffle(),
        seed in any::<u64>(),
    ) {
        // Jittered latencies so the threads finish in an order unrelated to
        // the one they report in.
        let tools = ToolRunner::new(
            Latency::Jitter { seed, max: Duration::from_millis(2) },
            Arrival::Sequence(order.iter().copied().map(ToolCallId).collect()),
        );
        let mut agent = agent_with(five_tools(), tools, policy());
        agent.submit("Where is the typo?").unwrap();
        prop_assert_eq!(common::arrival_order(&agent), order);
        prop_assert_eq!(agent.context().conversation(), &reference()[..]);
        check_batch(&agent);
    }
}

#[test]
fn tools_reporting_as_they_finish_give_the_same_conversation() {
    // Real races: each run draws other latencies, and the threads report
    // in whatever order the scheduler lets them finish.
    let reference = reference();
    let mut orders = Vec::new();
    for seed in 0..12 {
        let tools = ToolRunner::new(
            Latency::Jitter {
                seed,
                max: Duration::from_millis(3),
            },
            Arrival::AsFinished,
        );
        let mut agent = agent_with(five_tools(), tools, policy());
        agent.submit("Where is the typo?").unwrap();
        assert_eq!(agent.context().conversation(), reference, "seed {seed}");
        check_batch(&agent);
        let mut order = common::arrival_order(&agent);
        orders.push(order.clone());
        order.sort_unstable();
        assert_eq!(order, [1, 2, 3, 4, 5], "seed {seed}: every result arrived once");
    }
    assert!(
        orders.iter().any(|order| order != &[1, 2, 3, 4, 5]),
        "the jitter never reordered the results: {orders:?}"
    );
}

#[test]
fn the_last_call_can_report_first_because_all_run_at_once() {
    // Call 1 cannot report until call 5 has: if the calls ran one after the
    // other, this would never finish.
    let order = [5, 4, 3, 2, 1].map(ToolCallId).to_vec();
    let mut agent = agent(five_tools(), Arrival::Sequence(order));
    agent.submit("Where is the typo?").unwrap();
    assert_eq!(common::arrival_order(&agent), [5, 4, 3, 2, 1]);
    assert_eq!(agent.context().conversation(), reference());
}

#[test]
fn by_latency_reports_in_the_order_of_the_fake_latencies() {
    let tools = ToolRunner::new(Latency::PerTool, Arrival::ByLatency);
    let mut agent = agent_with(five_tools(), tools, policy());
    agent.submit("Where is the typo?").unwrap();
    // grep (10 ms) before read_file (30 ms), ties in call order.
    assert_eq!(common::arrival_order(&agent), [2, 4, 1, 3, 5]);
}
