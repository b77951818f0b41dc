//! The agent loop's integration tests: one test binary, one module per topic
//! (each test binary is linked on its own, about 16 s in CI).

mod cli;
mod common;
mod concurrency;
mod demo;
mod pause;
mod restart;
mod shutdown;
mod turns;
