//! Every implementation of the nested machine agrees with the hand-written
//! `match` step by step and allocates nothing per event
//! (`nested_semantics.rs` checks the reference itself).
//!
//! One test function for the agreement: the allocation counter is global,
//! so nothing else may allocate beside it in this binary while it counts.

use fsm_bench::alloc_counter::CountingAllocator;
use fsm_bench::nested::{self, Action, State};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn every_implementation_agrees_and_allocates_nothing_per_event() {
    for reject_percent in [0, 10, 50] {
        let trace = nested::generate(20_000, reject_percent, nested::SEED);
        let all = nested::all(&trace.steps);
        let expected = all[0].record();
        assert_eq!(expected.len(), trace.steps.len());
        let rejected = expected.iter().filter(|r| !r.accepted).count();
        assert_eq!(rejected, trace.rejected, "the trace counts its own rejections");
        // The trace reaches every leaf and goes back through both histories.
        for leaf in State::ALL {
            assert!(
                expected.iter().any(|r| r.state == *leaf),
                "{leaf:?} never reached"
            );
        }
        for action in [Action::Resume, Action::Restart] {
            assert!(trace.steps.iter().any(|s| s.action == action));
        }
        for contestant in &all {
            let difference = fsm_bench::harness::first_difference(&expected, &contestant.record());
            assert!(
                difference.is_none(),
                "{} at {reject_percent}% rejected: {difference:?}",
                contestant.name()
            );
            let (allocations, tally) = contestant.allocations();
            assert_eq!(tally.rejected as usize, rejected, "{}", contestant.name());
            // The dynamic engine restores its initial snapshot once per pass.
            assert!(
                allocations <= 1,
                "{} allocates {allocations} times",
                contestant.name()
            );
        }
    }
}
