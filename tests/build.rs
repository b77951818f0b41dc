//! Generates the Rust of every machine the differential test drives: the
//! `.fsm` files directly under `examples/` and the example crates that have
//! their own, `tests/fixtures/ok/` and `tests/fixtures/warn/` (warnings do
//! not stop code generation). The differential test fails for an example
//! file missing here.
//!
//! Each directory's files go through `fsm_codegen::Config` into their own
//! subdirectory of `OUT_DIR`, because output files are named by the input's
//! stem and two directories may hold the same stem. Next to them goes
//! `differential_machines.rs`, which the test includes. It holds, for each
//! file, a module `file_<dir>_<stem>` wrapping that file's generated code
//! (machine modules of different files may share a name), and for each
//! machine:
//!
//! - `impl <module>::Guards for crate::engine::TestGuards`, answering guard
//!   `i` of `Machine::guards` with `self.guard(i)`;
//! - a row of `MACHINES`: the file, the machine's name, its `FINGERPRINT`
//!   constant and a constructor of a `Box<dyn Engine>` driving it.

#[path = "build/random.rs"]
mod random;
#[path = "../grammar/tests/scxml/mod.rs"]
mod scxml;

use fsm_grammar::model::{Machine, Symbol};
use fsm_grammar::naming::{escape, snake, upper_camel};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The directories whose machines are generated, relative to the workspace
/// root, with the name of their output subdirectory.
const SOURCE_DIRS: &[(&str, &str)] = &[
    ("examples", "examples"),
    ("examples/http2-stream", "examples_http2_stream"),
    ("examples/research", "examples_research"),
    ("tests/fixtures/ok", "ok"),
    ("tests/fixtures/warn", "warn"),
];

fn main() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir
        .parent()
        .expect("the tests crate lives inside the workspace")
        .to_path_buf();
    let out_dir = PathBuf::from(env("OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");

    println!("cargo:rerun-if-changed=build");

    // The random nested machines, written where `fsm_tests::random_files`
    // finds them.
    let random_dir = out_dir.join("random");
    std::fs::create_dir_all(&random_dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", random_dir.display()));
    let random: Vec<(String, String)> = random::machines().into_iter().chain(random_parallel()).collect();
    for (name, text) in &random {
        let path = random_dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        }
    }
    // A machine an earlier run wrote and this one does not (its count went
    // down) leaves the corpus, with its generated code.
    for stale in fsm_files(&random_dir) {
        let name = stale.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if !random.iter().any(|(written, _)| written == name) {
            for path in [stale.clone(), stale.with_extension("rs")] {
                let _ = std::fs::remove_file(&path);
            }
        }
    }

    let mut glue = Glue::default();
    let sources = SOURCE_DIRS
        .iter()
        .map(|&(source, out_name)| (workspace.join(source), out_name))
        .chain([(random_dir.clone(), "random")]);
    for (dir, out_name) in sources {
        let source = relative_name(&dir, &workspace);
        println!("cargo:rerun-if-changed={}", dir.display());
        let files: Vec<PathBuf> = fsm_files(&dir);
        for file in &files {
            println!("cargo:rerun-if-changed={}", file.display());
        }
        // A fixture of comments only (`ok/empty.fsm`) checks clean, but code
        // generation refuses a file that defines no machine.
        let files: Vec<PathBuf> = files
            .into_iter()
            .filter(|file| {
                let text = fsm_grammar::source::read(file).unwrap_or_else(|e| panic!("{e}"));
                !fsm_grammar::source::defines_no_machine(&fsm_grammar::check(&text))
            })
            .collect();
        let out = out_dir.join(out_name);
        std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("cannot create {}: {e}", out.display()));
        // The warn fixtures' warnings are their point: no `cargo:warning` lines.
        let generated = fsm_codegen::Config::new()
            .out_dir(&out)
            .cargo_directives(false)
            .generate(&files)
            .unwrap_or_else(|e| panic!("cannot generate the machines of `{source}`: {e}"));
        for file in generated {
            file.write_if_changed(&out)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", file.path_in(&out).display()));
            let text = std::fs::read_to_string(&file.source)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.source.display()));
            let relative = relative_name(&file.source, &workspace);
            glue.add_file(
                &relative,
                out_name,
                &file.path_in(&out),
                &fsm_grammar::check(&text).model.machines,
            );
        }
    }
    let (machines, paths) = glue.finish();
    for (name, contents) in [
        ("differential_machines.rs", machines),
        ("differential_paths.rs", paths),
    ] {
        let path = out_dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(contents.as_str()) {
            std::fs::write(&path, contents)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        }
    }
}

/// How many random machines with parallel states are generated: without
/// timers, with them, and with a context, payloads, effects and named
/// delays too.
const PARALLEL_MACHINES: usize = 40;
const TIMED_MACHINES: usize = 20;
const DATA_MACHINES: usize = 12;

/// Random machines with parallel states, `done`, `always`, `in(...)` and
/// history, from the generator of the SCXML reference (every state emits
/// `in_sK` when entered and `out_sK` when left): those that check, have
/// parallel states and are generated, from fixed seeds; then as many with
/// timers too (`timers_N.fsm`), which the reference does not run; then
/// some over a context (`data_N.fsm`), which it does not run either.
fn random_parallel() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (prefix, count, kind) in [
        ("parallel", PARALLEL_MACHINES, 0),
        ("timers", TIMED_MACHINES, 1),
        ("data", DATA_MACHINES, 2),
    ] {
        let mut seed = 0u64;
        let mut made = 0;
        while made < count {
            seed += 1;
            assert!(seed < 100_000, "too few random machines with parallel states");
            let text = match kind {
                0 => scxml::random_machine_with(seed, true),
                1 => scxml::random_machine_with_timers(seed),
                _ => scxml::random_machine_with_data(seed),
            };
            let checked = fsm_grammar::check(&text);
            let Some(m) = checked.model.machines.first() else {
                continue;
            };
            if checked.has_errors()
                || !m.has_parallel()
                || m.actions.is_empty()
                || (kind < 2 && m.timers.is_empty() == (kind == 1))
                // A machine that can run away is compared by `tests/runaway.rs`.
                || !fsm_grammar::model::cycles(&m.eventless_may_follow()).is_empty()
            {
                continue;
            }
            out.push((format!("{prefix}_{made}.fsm"), text));
            made += 1;
        }
    }
    out
}

/// The text of `differential_machines.rs` and `differential_paths.rs`, built
/// one file at a time.
#[derive(Default)]
struct Glue {
    /// The `mod file_*` wrappers, with the test types and trait impls.
    items: String,
    /// The rows of `MACHINES`.
    rows: String,
    /// The wrapper module names used so far, with the file each came from.
    modules: Vec<(String, String)>,
    /// The machines so far, numbering the adapter types.
    machines: usize,
    /// The rows of `PARALLEL`: machines with parallel states.
    parallel_rows: String,
    /// The `crate::...` type paths the machines name, with what each
    /// aliases: they must be declared at the root of the test crate.
    crate_paths: Vec<(Vec<String>, &'static str)>,
}

/// What a type a machine names is instantiated as in the test: contexts as
/// the instrumented `Ctx`, payload types other than standard ones as `Token`
/// (standard ones implement `TestPayload` themselves).
const CONTEXT: &str = "crate::data::Ctx";
const TOKEN: &str = "crate::data::Token";

/// The names of standard types a payload may use, which need no alias.
const STANDARD: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64",
    "bool", "char", "String", "Option", "Vec", "Box",
];

impl Glue {
    /// Wrap the generated code of `file` (named `relative` in messages and
    /// rows) and add its machines.
    fn add_file(&mut self, relative: &str, dir_name: &str, generated: &Path, machines: &[Machine]) {
        let stem = generated
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("generated file names are UTF-8");
        let module = format!("file_{dir_name}_{}", identifier_part(stem));
        if let Some((_, other)) = self.modules.iter().find(|(m, _)| *m == module) {
            panic!("`{other}` and `{relative}` both map to the module `{module}`; rename one of them");
        }
        self.modules.push((module.clone(), relative.to_owned()));
        // The types the machines name, declared where `use super::*` in the
        // generated modules finds them.
        let mut aliases: Vec<(String, &'static str)> = Vec::new();
        let mut alias = |path: Vec<String>, to: &'static str, glue: &mut Glue| {
            let previous = match path.as_slice() {
                [name] => aliases.iter().find(|(n, _)| n == name).map(|(_, t)| *t),
                _ => glue.crate_paths.iter().find(|(p, _)| *p == path).map(|(_, t)| *t),
            };
            match previous {
                Some(previous) if previous != to => panic!(
                    "{relative}: `{}` is used both as a context and as a payload type; the \
                     differential test cannot instantiate it as both",
                    path.join("::")
                ),
                Some(_) => {}
                None if path.len() == 1 => aliases.push((path[0].clone(), to)),
                None => glue.crate_paths.push((path, to)),
            }
        };
        for machine in machines {
            if let Some(context) = &machine.context {
                for path in named_types(&context.text, relative) {
                    alias(path, CONTEXT, self);
                }
            }
            let symbols = machine
                .actions
                .iter()
                .chain(&machine.guards)
                .chain(&machine.effects);
            for payload in symbols.filter_map(|s| s.payload.as_ref()) {
                for path in named_types(&payload.text, relative) {
                    alias(path, TOKEN, self);
                }
            }
        }
        let generated = generated.to_str().expect("OUT_DIR is UTF-8");
        let _ = writeln!(
            self.items,
            "/// The generated code of `{relative}`.\npub mod {module} {{"
        );
        for (name, to) in &aliases {
            let _ = writeln!(self.items, "    pub type {name} = {to};");
        }
        let _ = writeln!(self.items, "    include!({generated:?});\n");
        for machine in machines {
            self.add_machine(relative, &module, machine);
        }
        let _ = writeln!(self.items, "}}\n");
    }

    /// The trait impls and the adapter of `machine`, inside its file's
    /// wrapper module, and its row.
    fn add_machine(&mut self, relative: &str, file_module: &str, machine: &Machine) {
        if fsm_codegen::over_configurations(machine) {
            self.add_parallel(relative, file_module, machine);
            return;
        }
        let module = escape(&snake(&machine.name));
        let machine_type = escape(&upper_camel(&machine.name));
        let extended = is_extended(machine);
        let timers = !machine.timers.is_empty();
        let context = machine.context.is_some();
        let events = context || machine.actions.iter().any(|a| a.payload.is_some());
        let guards_arg = !context && !machine.guards.is_empty();
        let out = &mut self.items;

        // The guards (and effects and delays) over the instrumented context.
        if context || !machine.guards.is_empty() {
            context_impl(out, &module, machine);
        }
        // The guards of the first differential driver: values handed in per
        // step. It drives the machines of the plain `Fire` API only.
        if !extended && !machine.guards.is_empty() {
            test_guards_impl(out, &module, machine);
        }

        // The adapter for the timed driver.
        let adapter = format!("Timed{}", self.machines);
        self.machines += 1;
        let clock = if timers {
            "<::fsm_runtime::ManualClock>"
        } else {
            ""
        };
        let new = match (context, timers) {
            (true, true) => "with_clock(crate::data::Ctx::default(), clock.clone())",
            (true, false) => "new(crate::data::Ctx::default())",
            (false, true) => "with_clock(clock.clone())",
            (false, false) => "new()",
        };
        let input = if events {
            let arms = event_arms(&module, machine, "            ");
            format!(
                "match action {{{arms}\n            _ => panic!(\"`{{action}}` is no action of `{}`\"),\n        }}",
                machine.name
            )
        } else {
            format!("action.parse::<{module}::Action>().expect(\"an action of the machine\")")
        };
        let guards = if guards_arg || !extended {
            ", &self.guards"
        } else {
            ""
        };
        let fire = if extended {
            format!("self.machine.fire(input{guards})")
        } else {
            "::fsm_runtime::Fire::fire(&mut self.machine, input, &self.guards)".to_owned()
        };
        let (fire_due, next_deadline) = if timers {
            (
                format!(
                    "let mut fired = Vec::new();\n        self.machine.fire_due({}|result| {{\n            \
                     fired.push(match result {{\n                \
                     Ok(f) => crate::data::Due::Fired {{ from: crate::data::name(f.from).to_owned(), to: crate::data::name(f.to).to_owned(), declared_in: f.declared_in.to_owned(), timer: f.timer as usize, due: f.due.unix_millis(), outputs: crate::data::names(f.outputs), internal: f.internal }},\n                \
                     Err(r) => crate::data::Due::Rejected {{ state: crate::data::name(r.state).to_owned(), declared_in: r.declared_in.to_owned(), timer: r.timer as usize, due: r.due.unix_millis() }},\n            \
                     }});\n        }});\n        crate::data::Step::Timers(fired)",
                    if guards_arg { "&self.guards, " } else { "" }
                ),
                "self.machine.next_deadline().map(::fsm_runtime::Timestamp::unix_millis)",
            )
        } else {
            ("crate::data::Step::Timers(Vec::new())".to_owned(), "None")
        };
        let context_of = if context {
            "self.machine.context()"
        } else {
            "&self.guards"
        };
        let snapshot = match (extended, context) {
            (false, _) => {
                "::fsm_runtime::Persist::snapshot(&self.machine).expect(\"a machine without a context always snapshots\")"
            }
            (true, true) => "self.machine.snapshot().expect(\"the context serializes\")",
            (true, false) => "self.machine.snapshot()",
        };
        let policy = "::fsm_runtime::FingerprintPolicy::Strict";
        let restore = match (extended, timers) {
            (false, _) => format!("<{module}::{machine_type} as ::fsm_runtime::Restore>::restore(snapshot)?"),
            (true, true) => {
                format!("{module}::{machine_type}::restore_with(snapshot, {policy}, clock.clone())?")
            }
            (true, false) => format!("{module}::{machine_type}::restore_with(snapshot, {policy})?"),
        };
        let _ = writeln!(
            out,
            "    /// `{name}` as the timed driver drives it.\n    \
             pub struct {adapter} {{\n        machine: {module}::{machine_type}{clock},\n        \
             #[allow(dead_code)]\n        guards: crate::data::Ctx,\n    }}\n\n    \
             impl {adapter} {{\n        #[allow(unused_variables)]\n        \
             pub fn boxed(clock: &::fsm_runtime::ManualClock) -> Box<dyn crate::data::TimedEngine> {{\n            \
             Box::new({adapter} {{ machine: {module}::{machine_type}::{new}, guards: crate::data::Ctx::default() }})\n        }}\n    }}\n\n    \
             impl crate::data::TimedEngine for {adapter} {{\n        \
             fn state(&self) -> &'static str {{\n            crate::data::name(self.machine.state())\n        }}\n\n        \
             #[allow(unused_variables, unreachable_code)]\n        \
             fn fire(&mut self, action: &str, payload: u64) -> crate::data::Step {{\n            \
             let input = {input};\n            \
             match {fire} {{\n                \
             Ok(f) => crate::data::Step::Fired {{ from: crate::data::name(f.from).to_owned(), to: crate::data::name(f.to).to_owned(), outputs: crate::data::names(f.outputs) }},\n                \
             Err(_) => crate::data::Step::Rejected,\n            }}\n        }}\n\n        \
             fn fire_due(&mut self) -> crate::data::Step {{\n        {fire_due}\n        }}\n\n        \
             fn next_deadline(&self) -> Option<u64> {{\n            {next_deadline}\n        }}\n\n        \
             fn context(&self) -> &crate::data::Ctx {{\n            {context_of}\n        }}\n\n        \
             fn snapshot(&self) -> ::fsm_runtime::Snapshot {{\n            {snapshot}\n        }}\n\n        \
             #[allow(unused_variables)]\n        \
             fn restore(&self, snapshot: &::fsm_runtime::Snapshot, clock: &::fsm_runtime::ManualClock) -> Result<Box<dyn crate::data::TimedEngine>, ::fsm_runtime::RestoreError> {{\n            \
             Ok(Box::new({adapter} {{ machine: {restore}, guards: crate::data::Ctx::default() }}))\n        }}\n    }}\n",
            name = machine.name,
        );

        // With timers the machine type is generic over its clock, whose
        // default (the system clock) names it here.
        let fingerprint_type = format!("self::{file_module}::{module}::{machine_type}");
        let engine = if extended {
            "None".to_owned()
        } else {
            format!("Some(|| engine(self::{file_module}::{module}::{machine_type}::new()))")
        };
        let _ = writeln!(
            self.rows,
            "    GeneratedMachine {{\n        file: {relative:?},\n        machine: {name:?},\n        \
             fingerprint: <{fingerprint_type} as ::fsm_runtime::Machine>::FINGERPRINT,\n        \
             engine: {engine},\n        timed: self::{file_module}::{adapter}::boxed,\n    }},",
            name = machine.name,
        );
    }

    /// The `Guards` impl and the adapter of `machine`, which has parallel
    /// states, and its row of `PARALLEL`.
    fn add_parallel(&mut self, relative: &str, file_module: &str, machine: &Machine) {
        let module = escape(&snake(&machine.name));
        let machine_type = escape(&upper_camel(&machine.name));
        let out = &mut self.items;
        // A machine with a context runs the instrumented one, whose guards
        // and effects the dynamic engine's closures compute alike; the
        // others take the guard values the driver draws.
        let context = machine.context.is_some();
        let guards = if context {
            context_impl(out, &module, machine);
            ""
        } else if machine.guards.is_empty() {
            ""
        } else {
            test_guards_impl(out, &module, machine);
            ", guards"
        };
        let events = context || machine.actions.iter().any(|a| a.payload.is_some());
        let event = if events {
            let arms = event_arms(&module, machine, "                ");
            format!("match action {{{arms}\n                _ => panic!(\"no action `{{action}}`\"),\n            }}")
        } else {
            format!("action.parse::<{module}::Action>().expect(\"an action of the machine\")")
        };
        let adapter = format!("Parallel{}", self.machines);
        self.machines += 1;
        // A machine with timers runs on the driver's manual clock.
        let timed = !machine.timers.is_empty();
        let (ctx_arg, ctx_comma) = if context {
            ("crate::data::Ctx::default()", "crate::data::Ctx::default(), ")
        } else {
            ("", "")
        };
        let (ty, timer_methods, restore, new) = if timed {
            (
                format!("{module}::{machine_type}<::fsm_runtime::ManualClock>"),
                format!(
                    "fn next_deadline(&self) -> Option<::fsm_runtime::Timestamp> {{\n            self.0.next_deadline()\n        }}\n\n        \
                     fn fire_due(&mut self, guards: &crate::engine::TestGuards) -> Vec<crate::parallel::TimerStep> {{\n            \
                     let _ = guards;\n            \
                     let mut out = Vec::new();\n            \
                     self.0.fire_due({guards_arg}|r| out.push(match r {{\n                \
                     Ok(f) => crate::parallel::TimerStep::Fired {{\n                    \
                     from: f.from.leaves().map(|s| s.name().to_owned()).collect(),\n                    \
                     to: f.to.leaves().map(|s| s.name().to_owned()).collect(),\n                    \
                     declared_in: f.declared_in.to_owned(),\n                    \
                     timer: f.timer,\n                    \
                     due: f.due,\n                    \
                     outputs: f.outputs.iter().map(|o| o.name().to_owned()).collect(),\n                    \
                     internal: f.internal,\n                \
                     }},\n                \
                     Err(r) => crate::parallel::TimerStep::Rejected {{\n                    \
                     leaves: r.state.leaves().map(|s| s.name().to_owned()).collect(),\n                    \
                     declared_in: r.declared_in.to_owned(),\n                    \
                     timer: r.timer,\n                    \
                     due: r.due,\n                \
                     }},\n            }}));\n            \
                     out\n        }}\n",
                    guards_arg = if guards.is_empty() { "" } else { "guards, " },
                ),
                format!(
                    "{module}::{machine_type}::restore_with(snapshot, ::fsm_runtime::FingerprintPolicy::Strict, self.0.clock().clone())"
                ),
                format!("{module}::{machine_type}::with_clock({ctx_comma}clock.clone())"),
            )
        } else {
            (
                format!("{module}::{machine_type}"),
                String::new(),
                format!("{module}::{machine_type}::restore(snapshot)"),
                format!("{module}::{machine_type}::new({ctx_arg})"),
            )
        };
        let (snapshot, context_of) = if context {
            (
                "self.0.snapshot().expect(\"the context serializes\")",
                "fn context(&self) -> Option<crate::data::Ctx> {\n            Some(self.0.context().clone())\n        }\n\n        ",
            )
        } else {
            ("self.0.snapshot()", "")
        };
        let _ = writeln!(
            out,
            "    /// `{name}` as the parallel driver drives it.\n    \
             pub struct {adapter}(pub {ty});\n\n    \
             impl crate::parallel::ParallelEngine for {adapter} {{\n        \
             fn leaves(&self) -> Vec<String> {{\n            self.0.leaves().map(|s| s.name().to_owned()).collect()\n        }}\n\n        \
             fn valid_actions(&self) -> Vec<String> {{\n            self.0.valid_actions().iter().map(|a| a.name().to_owned()).collect()\n        }}\n\n        \
             fn is_terminal(&self) -> bool {{\n            self.0.is_terminal()\n        }}\n\n        \
             fn fire(&mut self, action: &str, payload: u64, guards: &crate::engine::TestGuards) -> crate::parallel::Step {{\n            \
             let _ = (guards, payload);\n            \
             let input = {event};\n            \
             match self.0.fire(input{guards}) {{\n                \
             Ok(f) => crate::parallel::Step::Fired {{\n                    \
             from: f.from.leaves().map(|s| s.name().to_owned()).collect(),\n                    \
             to: f.to.leaves().map(|s| s.name().to_owned()).collect(),\n                    \
             outputs: f.outputs.iter().map(|o| o.name().to_owned()).collect(),\n                    \
             internal: f.internal,\n                \
             }},\n                \
             Err(e) => crate::parallel::Step::Refused {{\n                    \
             guarded: matches!(e, ::fsm_runtime::FireError::GuardRejected(_)),\n                    \
             valid: match &e {{ ::fsm_runtime::FireError::InvalidTransition(e) => e.valid().iter().map(|a| a.name().to_owned()).collect(), ::fsm_runtime::FireError::GuardRejected(e) => <{ty} as ::fsm_runtime::Machine>::valid_actions_in(e.state()).iter().map(|a| a.name().to_owned()).collect(), ::fsm_runtime::FireError::Runaway(e) => panic!(\"{{e}}\") }},\n                \
             }},\n            }}\n        }}\n\n        \
             fn snapshot(&self) -> ::fsm_runtime::Snapshot {{\n            {snapshot}\n        }}\n\n        \
             {context_of}\
             fn restore(&mut self, snapshot: &::fsm_runtime::Snapshot) -> Result<(), String> {{\n            \
             self.0 = {restore}.map_err(|e| e.to_string())?;\n            Ok(())\n        }}\n\n        \
             {timer_methods}    }}\n",
            name = machine.name,
        );
        let _ = writeln!(
            self.parallel_rows,
            "    crate::parallel::ParallelMachine {{\n        file: {relative:?},\n        machine: {name:?},\n        \
             fingerprint: <self::{file_module}::{module}::{machine_type}>::FINGERPRINT,\n        \
             new: |clock| {{\n            let _ = clock;\n            Box::new(self::{file_module}::{adapter}(self::{file_module}::{new}))\n        }},\n    }},",
            name = machine.name,
        );
    }

    /// `differential_machines.rs` and `differential_paths.rs`.
    fn finish(self) -> (String, String) {
        let machines = format!(
            "// @generated by tests/build.rs: the machines the differential test drives.\n\n{}\
             /// Every generated machine without parallel states, in file order, then in order within its file.\n\
             pub static MACHINES: &[GeneratedMachine] = &[\n{}];\n\n\
             /// Every generated machine with parallel states, in file order.\n\
             pub static PARALLEL: &[crate::parallel::ParallelMachine] = &[\n{}];\n",
            self.items, self.rows, self.parallel_rows
        );
        let mut paths =
            String::from("// @generated by tests/build.rs: the `crate::` type paths the machines name.\n\n");
        write_paths(&mut paths, &self.crate_paths, 1, 0);
        (machines, paths)
    }
}

/// The arms of a `match` on an action's name that build its `Event`, its
/// payload from the number `payload`, each on a line indented by `indent`.
fn event_arms(module: &str, machine: &Machine, indent: &str) -> String {
    let mut arms = String::new();
    for action in &machine.actions {
        let variant = escape(&upper_camel(&action.name));
        let value = match action.payload {
            Some(_) => format!("{module}::Event::{variant}(crate::data::payload(payload))"),
            None => format!("{module}::Event::{variant}"),
        };
        let _ = write!(arms, "\n{indent}{:?} => {value},", action.name);
    }
    arms
}

/// `impl <module>::Context for crate::data::Ctx` (`Guards` for a machine
/// without a context): the guards, effects and delays of `machine` over the
/// instrumented context, as the dynamic engine's closures compute them.
fn context_impl(out: &mut String, module: &str, machine: &Machine) {
    let context = machine.context.is_some();
    let payload_arg = |symbol: &Symbol| match &symbol.payload {
        Some(ty) => format!(", payload: &{}", ty.text),
        None => String::new(),
    };
    let payload_seed = |symbol: &Symbol| match symbol.payload {
        Some(_) => "Some(crate::data::TestPayload::seed(payload))",
        None => "None",
    };
    let trait_ = if context { "Context" } else { "Guards" };
    let _ = writeln!(out, "    impl {module}::{trait_} for crate::data::Ctx {{");
    for (index, guard) in machine.guards.iter().enumerate() {
        let _ = writeln!(
            out,
            "        fn {}(&self{}) -> bool {{\n            crate::data::guard_value({index}, self, {})\n        }}",
            escape(&snake(&guard.name)),
            payload_arg(guard),
            payload_seed(guard),
        );
    }
    for effect in &machine.effects {
        let _ = writeln!(
            out,
            "        fn {}(&mut self{}) {{\n            crate::data::run_effect({:?}, self, {})\n        }}",
            escape(&snake(&effect.name)),
            payload_arg(effect),
            effect.name,
            payload_seed(effect),
        );
    }
    for (index, delay) in machine.delays.iter().enumerate() {
        let _ = writeln!(
            out,
            "        fn {}(&self) -> ::std::time::Duration {{\n            crate::data::delay_value({index}, self)\n        }}",
            escape(&snake(&delay.name)),
        );
    }
    let _ = writeln!(out, "    }}");
}

/// `impl <module>::Guards for crate::engine::TestGuards`: guard `i` of
/// `machine` is `self.guard(i)`, the value the driver hands in for the step.
fn test_guards_impl(out: &mut String, module: &str, machine: &Machine) {
    let _ = writeln!(out, "    impl {module}::Guards for crate::engine::TestGuards {{");
    for (index, guard) in machine.guards.iter().enumerate() {
        let method = escape(&snake(&guard.name));
        // A guard that reads a payload flips on odd ones.
        let (param, parity) = match &guard.payload {
            Some(ty) => (
                format!(", payload: &{}", ty.text),
                " ^ (crate::data::TestPayload::seed(payload) % 2 == 1)",
            ),
            None => (String::new(), ""),
        };
        let _ = writeln!(
            out,
            "        fn {method}(&self{param}) -> bool {{\n            self.guard({index}){parity}\n        }}"
        );
    }
    let _ = writeln!(out, "    }}");
}

/// Nested `pub mod`s declaring the paths of `paths` (each `crate`, then
/// modules, then the type) from segment `depth` on.
fn write_paths(out: &mut String, paths: &[(Vec<String>, &'static str)], depth: usize, indent: usize) {
    let pad = "    ".repeat(indent);
    let mut modules: Vec<&str> = Vec::new();
    for (path, to) in paths {
        if path.len() == depth + 1 {
            let _ = writeln!(out, "{pad}pub type {} = {to};", path[depth]);
        } else if !modules.contains(&path[depth].as_str()) {
            modules.push(&path[depth]);
        }
    }
    for module in modules {
        let _ = writeln!(out, "{pad}pub mod {module} {{");
        let inner: Vec<(Vec<String>, &'static str)> = paths
            .iter()
            .filter(|(p, _)| p.len() > depth + 1 && p[depth] == module)
            .cloned()
            .collect();
        write_paths(out, &inner, depth + 1, indent + 1);
        let _ = writeln!(out, "{pad}}}");
    }
}

/// The types `text` (a Rust type as written in a `.fsm` file) names that
/// are not standard ones, each as its path: `Decision`, `Vec<ToolResult>`,
/// `crate::call::CallContext`. A path that does not start at `crate` cannot
/// be declared by the test: it stops the build, naming the file.
fn named_types(text: &str, file: &str) -> Vec<Vec<String>> {
    let mut paths: Vec<Vec<String>> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut rest = text;
    let flush = |current: &mut Vec<String>, paths: &mut Vec<Vec<String>>| {
        if current.is_empty() {
            return;
        }
        let path = std::mem::take(current);
        match path.as_slice() {
            [name] if STANDARD.contains(&name.as_str()) => {}
            [_] => paths.push(path),
            [first, ..] if first == "crate" => paths.push(path),
            _ => panic!(
                "{file}: the type `{text}` names `{}`, which the differential test cannot \
                 declare; give it a case in tests/build.rs",
                path.join("::")
            ),
        }
    };
    while let Some(c) = rest.chars().next() {
        if c.is_alphabetic() || c == '_' {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            current.push(rest[..end].to_owned());
            rest = &rest[end..];
        } else if let Some(after) = rest.strip_prefix("::") {
            rest = after;
        } else if c.is_ascii_digit() {
            // An array length.
            let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            flush(&mut current, &mut paths);
            rest = &rest[end..];
        } else {
            flush(&mut current, &mut paths);
            rest = &rest[c.len_utf8()..];
        }
    }
    flush(&mut current, &mut paths);
    paths
}

/// Whether code generation gives `machine` the API of contexts, payloads and
/// timers (`Event`, a clock, `Context`) rather than the plain `Fire` one.
fn is_extended(machine: &Machine) -> bool {
    machine.has_data_or_timers()
}

/// `any-blocks` → `any_blocks`: a file stem as part of a Rust identifier.
fn identifier_part(stem: &str) -> String {
    stem.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// The `.fsm` files directly inside `dir`, sorted, as in `fsm_tests::fsm_files`.
fn fsm_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| {
            entry
                .unwrap_or_else(|e| panic!("cannot read an entry of {}: {e}", dir.display()))
                .path()
        })
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "fsm"))
        .collect();
    files.sort();
    files
}

/// `path` relative to `base` with `/` separators, as in `fsm_tests::relative_name`.
fn relative_name(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name} for build scripts"))
}
