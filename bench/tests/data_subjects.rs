//! Every implementation of the data-carrying agent machine agrees with the
//! hand-written `match` step by step and on the context at the end, the
//! trace exercises every guard both ways, and only the string-keyed design
//! allocates per event.
//!
//! One test function: the allocation counter is global, so nothing else may
//! run beside it in this binary.

use fsm_bench::agent::{Action, State};
use fsm_bench::alloc_counter::CountingAllocator;
use fsm_bench::data::{self, literal::Literal, DataSubject as _};
use fsm_bench::harness::first_difference;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn every_implementation_agrees_on_steps_and_context() {
    for reject_percent in [0, 10, 50] {
        let trace = data::generate(20_000, reject_percent, data::SEED);
        let all = data::all(&trace.steps);
        let (expected, context) = all[0].record();
        assert_eq!(expected.len(), trace.steps.len());
        let rejected = expected.iter().filter(|r| !r.accepted).count();
        assert_eq!(rejected, trace.rejected, "the trace counts its own rejections");
        // The data decides: retries run out, tools run and modify files.
        assert!(context.retries_total > 0 && context.given_up > 0, "{context:?}");
        assert!(
            context.tool_failures > 0 && context.conversation.len > 100,
            "{context:?}"
        );
        let visited = |state: State| expected.iter().filter(|r| r.accepted && r.state == state).count();
        assert!(visited(State::PostToolsHook) > 0 && visited(State::Error) > 0);
        assert!(trace.steps.iter().any(|s| s.action == Action::ToolCompleted));
        for contestant in &all {
            let (records, end) = contestant.record();
            let difference = first_difference(&expected, &records);
            assert!(
                difference.is_none(),
                "{} at {reject_percent}%: {difference:?}",
                contestant.name()
            );
            assert_eq!(end, context, "{}", contestant.name());
            let (allocations, tally) = contestant.allocations();
            assert_eq!(tally.rejected as usize, rejected, "{}", contestant.name());
            if contestant.name() == Literal::NAME {
                assert!(allocations >= 2 * trace.steps.len() as u64, "{allocations}");
            } else if contestant.name().starts_with("dynamic engine") {
                // Built once per pass (a handful of allocations); nothing
                // allocates per event.
                assert!(allocations < 16, "{} allocates {allocations}", contestant.name());
            } else {
                assert_eq!(allocations, 0, "{} allocates", contestant.name());
            }
        }
    }
}
