//! fsm-fleet's integration tests, one binary: each file a module, most run
//! on both backends through `support`'s `on_both_backends!`. `chaos.rs`
//! keeps a binary of its own, since it runs itself again as the workers it
//! kills.

#[path = "../support/mod.rs"]
#[macro_use]
mod support;

mod claims;
mod fleet;
mod inspect;
mod kinds;
mod race;
mod users;
