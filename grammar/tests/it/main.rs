//! fsm-grammar's integration tests: one test binary, one module per topic.
//! Each test binary is linked on its own (about 16 s in CI), so the tests
//! share one. `memory` stays a binary of its own: it measures the heap
//! through its own `#[global_allocator]`.

mod checks_scale;
mod context_and_timers;
mod hostile;
mod interchange;
mod scxml;
mod xstate;
mod xstate_import;
