//! Machines without generated code: definitions loaded at run time and run
//! by an interpreter with the semantics of generated code.
//!
//! For an orchestrator that loads workflow definitions at run time, machines
//! stored in a database, or definitions written by other tools. A machine
//! known when the program is built needs none of this: the `fsm!` macro of
//! [`fsm_runtime`] generates it, and the program does not carry the front
//! end. This crate builds on `fsm-runtime`, whose [`Snapshot`], [`History`],
//! [`Clock`] and error messages it shares with generated code, and on
//! `fsm-grammar`, the one front end of `fsmc`, which everything goes through:
//!
//! - a [`Definition`] comes from `.fsm` text ([`Definition::from_fsm`]), from
//!   the JSON format of `fsmc export` ([`Definition::from_json`]), from a
//!   [`DefinitionBuilder`], or from a checked model
//!   ([`Definition::from_machine`]). Each passes the checks of `fsmc check`
//!   and fails with its diagnostics ([`DefinitionError`]);
//! - an [`Engine`] owns a context (a [`serde_json::Value`] by default, any
//!   type with [`Engine::with_context`]) and binds each guard, effect and
//!   delay the definition names to a closure: guards over the payload
//!   ([`EngineBuilder::guard`]) or the context and the payload
//!   ([`EngineBuilder::context_guard`]), effects that update the context
//!   ([`EngineBuilder::effect`]), delays computed from it
//!   ([`EngineBuilder::delay`]). One left unbound fails when the engine is
//!   built ([`BindError`]). Payloads are [`serde_json::Value`]s;
//! - timers run on the engine's clock ([`EngineBuilder::clock`], a
//!   [`ManualClock`](fsm_runtime::ManualClock) in tests):
//!   [`Engine::next_deadline`] says when the next is due and
//!   [`Engine::fire_due`] fires every due one, each once ([`FiredTimer`]),
//!   and reports a due group none of whose guards held ([`TimerRejected`]);
//! - [`Engine::fire`] takes `&self`, is atomic, and may be called from many
//!   threads. It chooses transitions exactly as generated code does, reports
//!   the same [`Fired`] information, and fails with errors whose messages are
//!   word for word those of generated code ([`FireError`]), plus
//!   [`UnknownAction`] for a name the definition has never heard of;
//! - [`Engine::snapshot`] and [`Engine::restore`] use the [`Snapshot`]
//!   format, machine name and fingerprint of generated code, so a snapshot
//!   moves freely between a generated machine and an engine for the same
//!   source. Snapshots carry the context (of a machine that declares one),
//!   the armed timers' absolute deadlines, which a restore keeps, and the
//!   history memory of nested states.
//!
//! # Nested states
//!
//! Machines with nested states run with the semantics of generated code
//! (docs/dsl.md, "Nested states"), computed once, when the definition is
//! built, from the model's own helpers:
//!
//! - the engine is always in one *leaf*: [`Engine::state`], [`Fired::from`]
//!   and [`Fired::to`], errors and snapshots name leaves, never a composite.
//!   [`Engine::is_in`] says whether the engine is inside a composite, and
//!   [`Engine::ancestors`] lists the composites holding the leaf;
//! - a leaf's candidates for an action are its own transitions, its
//!   ancestors' and `any`'s, by priority, then innermost first, then
//!   declaration order; [`Engine::valid_actions`] includes the inherited ones;
//! - a transition exits the states below its domain innermost first, runs its
//!   own effects and outputs, and enters the states down to the target's
//!   leaf outermost first: [`Fired::outputs`] are the exit outputs, the
//!   transition's own, then the enter outputs, and effects run in the same
//!   order. A transition declared on a composite to a state inside it does
//!   not leave the composite; one to the state declaring it leaves and
//!   re-enters it;
//! - `-> X.history` and `-> X.deep_history` enter the child, or the leaf,
//!   last active inside `X` (its initial descent the first time). That
//!   memory is part of the engine's state and of its snapshots
//!   ([`Snapshot::last_active`](fsm_runtime::Snapshot::last_active));
//! - a composite's timers are armed when it is entered and stay armed while
//!   the engine moves inside it; [`FiredTimer::declared_in`] names the state
//!   whose `after` fired.
//!
//! Each leaf's inherited candidates, and what each of them exits, enters,
//! emits, runs and arms from that leaf, are flattened into tables when the
//! definition is built, so a nested machine fires as a flat one does: one
//! table lookup, without walking the tree or allocating.
//!
//! Internally every name is interned: firing by name costs one hash lookup
//! of the action's name, and [`Engine::fire_id`] none.
//!
//! # Example
//!
//! ```
//! use fsm_dynamic::{Definition, Engine};
//! use serde_json::json;
//!
//! let definition = Definition::builder("Review")
//!     .initial("idle")
//!     .state("running")
//!     .state("revising")
//!     .terminal("done")
//!     .transition("idle", "start", "running")
//!     .guarded_transition("running", "review", "done", "quality_guard", 1)
//!     .transition("running", "review", "revising")
//!     .transition("revising", "restart", "running")
//!     .build()?;
//!
//! let engine = Engine::builder(definition)
//!     .guard("quality_guard", |input| input["score"].as_u64().is_some_and(|s| s >= 8))
//!     .build()?;
//!
//! engine.fire("start", &json!({}))?;
//! let fired = engine.fire("review", &json!({"score": 5}))?;
//! assert_eq!((fired.from_name(), fired.to_name()), ("running", "revising"));
//!
//! let error = engine.fire("review", &json!({})).unwrap_err();
//! assert_eq!(error.to_string(), "action `review` is not valid in state `revising`; valid actions: `restart`");
//!
//! let error = engine.fire("restrat", &json!({})).unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "unknown action `restrat` in machine `Review`; expected one of `start`, `review`, `restart` \
//!      (did you mean `restart`?)"
//! );
//!
//! engine.fire("restart", &json!({}))?;
//! engine.fire("review", &json!({"score": 9}))?;
//! assert!(engine.is_terminal());
//!
//! let snapshot = engine.snapshot();
//! assert_eq!(snapshot.current_state(), "done");
//! assert_eq!(snapshot.fingerprint(), engine.definition().fingerprint());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! - `tracing`: log every transition, every timer and every rejected action
//!   at `DEBUG`, with the same events and fields, and the same target
//!   `fsm_runtime`, as generated machines under `fsm-runtime`'s `tracing`
//!   (which it turns on). Without it the logging compiles to nothing.
//!
//! [`Snapshot`]: fsm_runtime::Snapshot
//! [`History`]: fsm_runtime::History
//! [`Clock`]: fsm_runtime::Clock

mod bind_error;
mod builder;
mod builder_problem;
mod condition;
mod definition;
mod definition_error;
mod engine;
mod engine_builder;
mod fire_error;
mod fired;
mod ids;
mod json;
mod name_index;
#[cfg(feature = "inspect")]
mod observed;
mod tables;
mod timer_rejected;
mod trace;

pub use bind_error::{BindError, BindProblem, Binding};
pub use builder::{DefinitionBuilder, TransitionDef};
pub use builder_problem::{BuilderProblem, NameKind, StateUse};
pub use definition::Definition;
pub use definition_error::DefinitionError;
pub use engine::Engine;
pub use engine_builder::EngineBuilder;
pub use fire_error::{Candidate, FireError, GuardRejected, InvalidTransition, Runaway, UnknownAction};
pub use fired::{Fired, FiredTimer, Taken, TakenKind};
pub use fsm_grammar::model::HistoryKind;
pub use fsm_runtime::RestoreError;
pub use ids::{ActionId, OutputId, StateId};
#[cfg(feature = "inspect")]
pub use observed::ObservedEngine;
pub use timer_rejected::TimerRejected;
