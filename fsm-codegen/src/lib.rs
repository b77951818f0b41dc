//! `fsm-codegen`: the one code generator of fsmc.
//!
//! It turns a checked [`Model`] into Rust. The `fsm!` macro, `fsmc build` and
//! build scripts all call it, so the same `.fsm` text gives the same code
//! every way:
//!
//! - [`machine_tokens`] and [`model_tokens`] give tokens (the macro);
//! - [`render_source`] and [`render_model`] give formatted source with an
//!   `// @generated` header (`fsmc build`);
//! - [`compile`] and [`Config`] write that source into `OUT_DIR` from a build
//!   script, and [`compile_or_exit`] fails the build script with the
//!   diagnostics shown as [`fsm_grammar::report::rustc`] lays them out.
//!
//! Output is deterministic: the same input gives byte-identical tokens and
//! source.
//!
//! # What a machine becomes
//!
//! A module named after the machine in snake case (`door` for `Door`) holding:
//!
//! - `State`, `Action` and `Output` enums (variants in UpperCamelCase, the
//!   `.fsm` names in `name()`, `Display` and `FromStr`, every variant in
//!   `ALL`), each implementing `fsm_runtime::Symbol`;
//! - a `Guards` trait with one `fn name(&self) -> bool` per guard, when the
//!   machine has guards;
//! - the machine type (`Door`) with `new`, `state`, `fire`, `can_fire`,
//!   `transition`, `valid_actions`, `is_terminal`, `snapshot`, `restore` and
//!   `restore_with`, implementing `fsm_runtime::Machine`, `Fire`, `Timed`,
//!   `Persist`, `Restore` and, without guards, `FireEvent`;
//! - private `static` tables of outputs, valid actions and rejected
//!   candidates, which results and errors borrow so `fire` never allocates.
//!
//! The module's rustdoc lists the states and transitions as tables.
//!
//! A machine with parallel states gets the same enums, `Event` enum and
//! `Context` or `Guards` trait, and a machine type that holds its
//! configuration as a bit set (`Copy` without a context or timers, no
//! allocation): `configuration()` returns a `Configuration` with one enum
//! per region in `regions`, `is_in` takes any state (`AnyState`), and it
//! implements the same traits, with `Configuration` as its
//! `Machine::State`: `fire` returns the runtime's `Fired` (the
//! configurations before and after, and the outputs of the whole `fire` as
//! an `fsm_runtime::List`, a constant list or one collected in place) or
//! `FireError` (which hands the event back). With a context it owns it;
//! with timers it holds a clock and its deadlines, and has `next_deadline`
//! and `fire_due`. It steps with `fsm_runtime::__private::chart` over the plan's
//! tables ([`fsm_grammar::plan::ChartPlan`]).
//!
//! # Using it from a build script
//!
//! ```toml
//! [dependencies]
//! fsm-runtime = "0.1"
//!
//! [build-dependencies]
//! fsm-codegen = "0.1"
//! ```
//!
//! ```no_run
//! // build.rs, in `fn main`: one `door.rs` per file, into `OUT_DIR`; on an
//! // error, the diagnostics on standard error and exit status 1.
//! fsm_codegen::compile_or_exit(&["machines/door.fsm"]);
//! ```
//!
//! ```ignore
//! // src/lib.rs: the module `door` from `$OUT_DIR/door.rs`.
//! fsm_runtime::include_fsm!("door");
//! ```

#[cfg(feature = "render")]
mod build_script;
mod chain;
mod docs;
mod enums;
mod extended;
mod guards;
mod idents;
mod machine;
mod name_conflicts;
mod nested;
mod options;
mod parallel;
#[cfg(feature = "render")]
mod render;
mod snapshot;
mod stub;
mod tables;
mod transitions;
mod user_trait;
mod user_types;

#[cfg(feature = "render")]
pub use build_script::{compile, compile_or_exit, Config, Error, FileStatus, GeneratedFile};
pub use options::{Module, Options, Spans};
#[cfg(feature = "render")]
pub use render::{render_model, render_source};

use fsm_grammar::Model;
use proc_macro2::TokenStream;
use quote::quote;

/// Tokens for one checked machine: `pub mod <snake_name> { ... }`, or its
/// items in the surrounding module with [`Module::Surrounding`].
///
/// A machine named like an item of its own module (`State`), or with a
/// state, action or output named like an item of its enum (`ALL`), which the
/// front end's `name-collision` check rejects, becomes a `compile_error!`.
/// Every other machine that checks clean is generated.
///
/// The `always` and `done` steps of a machine without parallel states are
/// laid out after each step, as a tree of the leaves one `fire` can pass
/// through, with `in(...)` decided for each leaf: the machine keeps the API
/// of every other machine, and `Fired::outputs` is one static table of the
/// outputs of the whole `fire`.
///
/// A machine with parallel states gets the module of the crate docs' last
/// paragraph, rendered from the plan's tables of it.
///
/// A machine with a context, a payload or a timer gets the `Event` enum
/// (with a context or a payload), the `Context` trait or, without a
/// context, the `Guards` trait with its payload guards, and a machine type
/// that owns its context and, with timers, a clock. Any other machine gets
/// the plain module, state only, implementing `Machine` and `Fire`.
pub fn machine_tokens(machine: &fsm_grammar::model::Machine, options: &Options) -> TokenStream {
    let conflict = name_conflicts::module_item_conflict(machine)
        .or_else(|| name_conflicts::enum_item_conflict(machine))
        .or_else(|| parallel::name_conflict(machine));
    options.place(match conflict {
        Some(message) => compile_error(&message),
        None if over_configurations(machine) => parallel::parallel_module(machine, options),
        None if extended::is_extended(machine) => extended::extended_module(machine, options),
        None => machine::machine_module(machine, options),
    })
}

/// Tokens for every machine of a checked model, in order. A machine whose
/// module name an earlier machine already has becomes a `compile_error!`, and
/// so does every machine after the first with [`Module::Surrounding`].
pub fn model_tokens(model: &Model, options: &Options) -> TokenStream {
    (0..model.machines.len())
        .map(|index| {
            let refusal =
                name_conflicts::module_conflict(model, index).or_else(|| options.refusal(model, index));
            match refusal {
                Some(message) => compile_error(&message),
                None => machine_tokens(&model.machines[index], options),
            }
        })
        .collect()
}

/// A minimal, always-compiling stand-in for a machine that failed to check,
/// to emit next to its errors so the user's code that uses it does not drown
/// the real error in follow-on ones: the module, the enums, the `Guards`
/// trait and the machine type with the real signatures, as far as `partial`
/// (the front end's model of the broken machine) tells them. Nothing when
/// `machine_name` cannot be a module name.
pub fn stub_tokens(
    machine_name: &str,
    partial: Option<&fsm_grammar::model::Machine>,
    options: &Options,
) -> TokenStream {
    options.place(stub::stub_module(machine_name, partial, options))
}

/// The most steps code generation lays out after the steps of one leaf
/// ([`fsm_grammar::plan::Plan::unfolds`]); a machine with more is rendered
/// over configurations.
const UNFOLDING_LIMIT: usize = 4096;

/// True when code generation renders `machine` as a machine over
/// configurations, stepping with the runtime's chart, so that its
/// `Machine::State` is the generated `Configuration`: a machine with
/// parallel states, or one whose `always` and `done` transitions cannot be
/// laid out ahead of time (a guarded cycle of them, bounded at run time by
/// the 1,000-microstep runaway bound, or more than 4,096 ways for them to
/// follow one another). Every other machine's state is its `State` enum.
pub fn over_configurations(machine: &fsm_grammar::model::Machine) -> bool {
    machine.has_parallel() || !fsm_grammar::plan::Plan::new(machine).unfolds(machine, UNFOLDING_LIMIT)
}

fn compile_error(message: &str) -> TokenStream {
    quote!(::core::compile_error!(#message);)
}
