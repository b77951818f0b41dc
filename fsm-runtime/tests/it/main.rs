//! fsm-runtime's integration tests: one test binary, one module per topic.
//! Each test binary is linked on its own (about 16 s in CI), so the tests
//! share one. The modules that deny `missing_docs` and `unreachable_pub` on
//! generated code are `pub`, so that its items stay reachable and documented
//! as a user's would. Two stay binaries of their own: `no_alloc` counts
//! allocations through its own `#[global_allocator]`, and `tracing` records
//! events while tracing's callsite cache, which every machine of the process
//! shares, must not be settled by tests without a subscriber.

pub mod agent;
mod configuration_snapshot;
mod context;
// Includes the generated machine of the same name, `mod door`.
#[allow(clippy::module_inception)]
pub mod door;
mod driver;
pub mod edge_cases;
mod event_traits;
pub mod generic;
mod history;
mod missing_timer;
pub mod nested;
mod no_context;
mod outbox;
mod parallel_generated;
mod parallel_restore;
mod parallel_timers;
mod readme_common;
mod readme_errors;
mod readme_nested;
mod readme_parallel;
// Includes the generated machine of the same name, `mod review`.
#[allow(clippy::module_inception)]
mod review;
// Includes the generated machine of the same name, `mod semantics`.
#[allow(clippy::module_inception)]
mod semantics;
mod shared;
pub mod stubs;
mod timer_internal;
