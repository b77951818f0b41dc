//! Benchmarks of fsmc, each a binary under `src/bin/`:
//!
//! - `check_throughput`: the front end (`fsm_grammar::check`, `parse`,
//!   `format`) on large generated machines ([`generator`]), and with
//!   `--adversarial`, on the shapes that once made it quadratic
//!   ([`adversarial`]);
//! - `runtime_speed`: ns per event of the coding agent's loop in the
//!   generated code, a hand-written `match`, smlang, statig, rust-fsm, the
//!   dynamic engine and a literal rendering of the string-keyed strategy design
//!   ([`subjects`]), over one random [`trace`];
//! - `data_speed`: ns per event of the agent's loop with its data in the
//!   machine (a context, payloads, effects: [`data`]) in the generated code,
//!   a hand-written `match`, smlang, statig, the dynamic engine with a typed
//!   context and the string-keyed design given the same closures;
//! - `compile_time`: the incremental `cargo build` of a crate holding a
//!   200-state, 1,000-transition machine through `fsm!` against the same
//!   machine in smlang ([`compile_bench`]);
//! - `nested_speed`: ns per event of a nested machine (inherited transitions,
//!   hooks on composites, a priority interrupt, history) in the generated
//!   code, a hand-written flat `match`, statig with superstates and the
//!   dynamic engine ([`nested`]).

pub mod adversarial;
pub mod agent;
pub mod alloc_counter;
pub mod compile_bench;
pub mod data;
pub mod generator;
pub mod harness;
pub mod host;
pub mod nested;
pub mod speed;
pub mod speed_cli;
pub mod subjects;
pub mod table;
pub mod trace;
pub mod xorshift;
