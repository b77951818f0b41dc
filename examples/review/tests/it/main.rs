//! The review example's integration tests: one test binary, one module per topic
//! (each test binary is linked on its own, about 16 s in CI).

mod demo;
mod machine;
mod session;
