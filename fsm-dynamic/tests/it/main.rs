//! fsm-dynamic's integration tests: one test binary, one module per topic.
//! Each test binary is linked on its own (about 16 s in CI), so the tests
//! share one. Three stay binaries of their own: `nested` and `history_names`
//! count allocations through their own `#[global_allocator]`, and `tracing`
//! records events while tracing's callsite cache, which every machine of the
//! process shares, must not be settled by tests without a subscriber.

mod concurrency;
mod context;
mod definition;
mod engine;
mod error_shape;
mod history;
mod missing_timer;
mod outbox;
mod parallel;
mod readme_parallel;
mod restore_rules;
mod semantics;
mod snapshot;
mod snapshot_keys;
mod timer_rejected;
