//! Every implementation of the agent machine agrees with the hand-written
//! `match` step by step, and allocates only where the design forces it.
//!
//! One test function: the allocation counter is global, so nothing else may
//! run beside it in this binary.

use fsm_bench::alloc_counter::CountingAllocator;
use fsm_bench::harness::first_difference;
use fsm_bench::subjects::{self, literal::Literal, Subject as _};
use fsm_bench::trace;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn every_implementation_agrees_and_only_the_seed_design_allocates() {
    for reject_percent in [0, 10, 50] {
        let trace = trace::generate(20_000, reject_percent, trace::SEED);
        let all = subjects::all(&trace.steps);
        let expected = all[0].record();
        assert_eq!(expected.len(), trace.steps.len());
        let rejected = expected.iter().filter(|r| !r.accepted).count();
        assert_eq!(rejected, trace.rejected, "the trace counts its own rejections");
        for contestant in &all {
            let difference = first_difference(&expected, &contestant.record());
            assert!(
                difference.is_none(),
                "{} at {reject_percent}% rejected: {difference:?}",
                contestant.name()
            );
            let (allocations, tally) = contestant.allocations();
            assert_eq!(tally.rejected as usize, rejected, "{}", contestant.name());
            if contestant.name() == Literal::NAME {
                assert!(allocations >= 2 * trace.steps.len() as u64, "{allocations}");
            } else {
                assert_eq!(allocations, 0, "{} allocates", contestant.name());
            }
        }
    }
}
