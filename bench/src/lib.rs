//! Workloads for the front-end benchmark: a deterministic generator of large,
//! realistic `.fsm` machines that check clean.
//!
//! The benchmark binary is `check_throughput` (`src/bin/check_throughput.rs`).

pub mod generator;
