//! The machine the page simulates: a `fsmc run` session, the steps taken
//! so far (each with the checkpoint taken before it, to go back to), and
//! the file it came from, reloaded when it changes on disk.

use crate::checked_source;
use crate::exit::Exit;
use crate::run::{self, Checkpoint, Output, Session, Sink, TakenEdge};
use fsm_dynamic::Definition;
use fsm_grammar::model::Machine;
use fsm_grammar::report::{self, JsonDiagnostic};
use fsm_grammar::source;
use fsm_runtime::{FingerprintPolicy, MissingTimerPolicy, RestorePolicy, Snapshot};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// The most steps a timeline holds: each keeps a snapshot to go back to,
/// so memory stays bounded.
pub const MAX_STEPS: usize = 100_000;

/// The most bytes a timeline's steps may hold (their lines, outputs and
/// snapshots, as JSON): a context is carried in every snapshot, so a large
/// one fills it in fewer steps.
pub const MAX_TIMELINE_BYTES: usize = 256 << 20;

/// How many of the last steps the page's state carries; the earlier ones
/// are asked for a page at a time ([`Simulation::steps`]), so that a step
/// costs the same however long the timeline is.
pub const TIMELINE_WINDOW: usize = 500;

/// One step of the timeline: an input line of `fsmc run` and the line it
/// printed.
struct Step {
    line: String,
    output: String,
    applied: bool,
    /// Where everything was before the line: going back to this step
    /// rewinds to it.
    before: Checkpoint,
    /// The transitions the line took, by the diagram's names.
    taken: Vec<TakenEdge>,
    /// The timers armed after it, as the snapshot lists them.
    timers: Value,
    /// What it holds, about: its line, output and snapshot as JSON.
    size: usize,
}

/// A machine that loaded, and the session that runs it.
struct Ready {
    machine: Machine,
    machines: Vec<String>,
    /// The diagram, or why it cannot be drawn.
    svg: Result<String, String>,
    /// The warnings of the file.
    warnings: Vec<JsonDiagnostic>,
    context: Value,
    delays: Vec<Duration>,
    session: Session,
    sink: Sink,
    steps: Vec<Step>,
    /// What the steps hold, about (see [`MAX_TIMELINE_BYTES`]).
    bytes: usize,
    /// Counts the times steps were dropped (going back, starting over), so
    /// that the page knows when the steps it asked for earlier may be gone.
    epoch: u64,
}

/// Why the file gives no machine to run: its diagnostics, or a message.
struct Broken {
    diagnostics: Vec<JsonDiagnostic>,
    /// The diagnostics as `fsmc check` prints them, or the message.
    text: String,
}

/// What the last reload said.
struct Reload {
    ok: bool,
    text: String,
}

/// The simulation the page drives.
pub struct Simulation {
    file: PathBuf,
    machine_name: Option<String>,
    context_path: Option<PathBuf>,
    delay_flags: Vec<String>,
    /// The file's modification time and length when last read.
    stamp: Option<(SystemTime, u64)>,
    /// Counts every change, so that the page polls cheaply.
    version: u64,
    /// Counts the times the file was read: the diagram changes only then.
    loads: u64,
    loaded: Result<Box<Ready>, Broken>,
    /// The last snapshot of a machine that ran, to restore after a reload.
    last: Option<Kept>,
    reload: Option<Reload>,
}

/// What a reload carries over from the machine before it.
struct Kept {
    snapshot: Snapshot,
    now_millis: u64,
    guards: Vec<(String, bool)>,
}

/// The outcome of one line, for the page.
pub struct LineOutcome {
    pub output: String,
    pub applied: bool,
}

impl Simulation {
    /// Read the file. A file that cannot be read, an unknown `--machine`,
    /// and a bad `--context` or `--delay` are usage errors (reported; status
    /// 2); a file with errors opens, and the page shows its diagnostics.
    pub fn open(
        file: PathBuf,
        machine_name: Option<String>,
        context_path: Option<PathBuf>,
        delay_flags: Vec<String>,
    ) -> Result<Simulation, Exit> {
        let mut simulation = Simulation {
            file,
            machine_name,
            context_path,
            delay_flags,
            stamp: None,
            version: 0,
            loads: 0,
            loaded: Err(Broken {
                diagnostics: Vec::new(),
                text: String::new(),
            }),
            last: None,
            reload: None,
        };
        simulation.stamp = simulation.current_stamp();
        let text = crate::files::read(&simulation.file).map_err(|error| {
            crate::console::error(error);
            Exit::Trouble
        })?;
        simulation.loaded = simulation.load(&text)?;
        Ok(simulation)
    }

    /// The file's name, as given.
    pub fn file_name(&self) -> String {
        self.file.display().to_string()
    }

    /// The machine's name, once it loaded.
    pub fn machine_name(&self) -> Option<&str> {
        match &self.loaded {
            Ok(ready) => Some(&ready.machine.name),
            Err(_) => self.machine_name.as_deref(),
        }
    }

    fn current_stamp(&self) -> Option<(SystemTime, u64)> {
        let metadata = std::fs::metadata(&self.file).ok()?;
        Some((metadata.modified().ok()?, metadata.len()))
    }

    /// Check `text` and start its machine. `Err` only for the usage errors
    /// [`Simulation::open`] names; a reload turns those into [`Broken`].
    fn load(&self, text: &str) -> Result<Result<Box<Ready>, Broken>, Exit> {
        let name = self.file_name();
        let checked = fsm_grammar::check(text);
        let diagnostics = report::json(&name, text, &checked.diagnostics);
        if checked.has_errors() {
            return Ok(Err(Broken {
                text: report::human(&name, text, &checked.diagnostics, 100, false),
                diagnostics,
            }));
        }
        if source::defines_no_machine(&checked) {
            return Ok(Err(Broken {
                diagnostics,
                text: format!("`{name}` defines no machine\nhelp: {}", source::NO_MACHINE_HELP),
            }));
        }
        let model = checked.model;
        let machines: Vec<String> = model.machines.iter().map(|m| m.name.clone()).collect();
        let machine = match (&self.machine_name, model.machines.as_slice()) {
            (None, [one]) => one,
            (None, _) => {
                crate::console::error(format_args!(
                    "`{name}` defines {}; choose one with --machine",
                    checked_source::machine_list(&model)
                ));
                return Err(Exit::Trouble);
            }
            (Some(wanted), all) => match all.iter().find(|m| &m.name == wanted) {
                Some(machine) => machine,
                None => {
                    checked_source::machine(&model, wanted, &self.file)?;
                    return Err(Exit::Trouble);
                }
            },
        };
        let context = match &self.context_path {
            None => Value::Null,
            Some(path) => run::read_context(machine, path)?,
        };
        let delays = run::delay_values(machine, &self.delay_flags)?;
        let definition = match Definition::try_from_machine(machine) {
            Ok(definition) => definition,
            Err(error) => {
                return Ok(Err(Broken {
                    diagnostics,
                    text: format!("`{name}`: {error}"),
                }))
            }
        };
        let svg = fsm_diagram::svg(machine)
            .map_err(|too_large| format!("machine `{}` is too large to draw: {too_large}", machine.name));
        let sink = Sink::default();
        let session = new_session(definition, &context, &delays, &sink);
        Ok(Ok(Box::new(Ready {
            machine: machine.clone(),
            machines,
            svg,
            warnings: diagnostics,
            context,
            delays,
            session,
            sink,
            steps: Vec::new(),
            bytes: 0,
            epoch: 0,
        })))
    }

    /// Reload the file when it changed on disk; true when it did.
    pub fn poll(&mut self) -> bool {
        let stamp = self.current_stamp();
        if stamp == self.stamp {
            return false;
        }
        self.stamp = stamp;
        self.version += 1;
        self.loads += 1;
        if let Ok(ready) = &self.loaded {
            self.last = Some(kept(ready));
        }
        let text = match std::fs::read_to_string(&self.file) {
            Ok(text) => text,
            Err(error) => {
                self.reload = Some(Reload {
                    ok: false,
                    text: format!("cannot read `{}`: {error}", self.file_name()),
                });
                self.loaded = Err(Broken {
                    diagnostics: Vec::new(),
                    text: format!("cannot read `{}`: {error}", self.file_name()),
                });
                return true;
            }
        };
        self.loaded = match self.load(&text) {
            Ok(loaded) => loaded,
            Err(_) => Err(Broken {
                diagnostics: Vec::new(),
                text: "the machine cannot start (the terminal running `fsmc inspect` says why)".to_owned(),
            }),
        };
        let Ok(ready) = &mut self.loaded else {
            self.reload = Some(Reload {
                ok: false,
                text: "The file changed and has errors: the machine stays where it was until they are fixed."
                    .to_owned(),
            });
            return true;
        };
        self.reload = Some(match &self.last {
            None => Reload {
                ok: true,
                text: "The file changed: the machine starts from its initial state.".to_owned(),
            },
            Some(kept) => carry_over(ready, kept),
        });
        true
    }

    /// Apply one line of `fsmc run`'s input as the next step.
    pub fn apply(&mut self, line: &str) -> Result<LineOutcome, String> {
        let ready = self.ready_mut()?;
        apply(ready, line)
    }

    /// Go back to before step `index` (counting from 0): the steps from it
    /// on are dropped.
    pub fn back(&mut self, index: usize) -> Result<(), String> {
        let ready = self.ready_mut()?;
        let Some(step) = ready.steps.get(index) else {
            return Err(format!(
                "there is no step {index}: the timeline has {} steps",
                ready.steps.len()
            ));
        };
        ready.session.rewind(&step.before)?;
        ready.steps.truncate(index);
        ready.epoch += 1;
        ready.bytes = ready.steps.iter().map(|s| s.size).sum();
        Ok(())
    }

    /// Start over: the initial state, no step.
    pub fn reset(&mut self) -> Result<(), String> {
        let ready = self.ready_mut()?;
        reset(ready);
        Ok(())
    }

    /// Start over and apply every line of `script` (blank lines skipped).
    pub fn replay(&mut self, script: &str) -> Result<(), String> {
        let ready = self.ready_mut()?;
        reset(ready);
        for line in script.lines() {
            if line.trim().is_empty() {
                continue;
            }
            apply(ready, line)?;
        }
        Ok(())
    }

    /// The steps' input lines: a `fsmc run` script.
    pub fn script(&self) -> String {
        match &self.loaded {
            Ok(ready) => ready.steps.iter().map(|s| format!("{}\n", s.line)).collect(),
            Err(_) => String::new(),
        }
    }

    /// The snapshot now, as `restore` takes it.
    pub fn snapshot(&self) -> Result<String, String> {
        match &self.loaded {
            Ok(ready) => {
                serde_json::to_string_pretty(&ready.session.engine().snapshot()).map_err(|e| e.to_string())
            }
            Err(_) => Err(no_machine()),
        }
    }

    /// The diagram, when the machine loaded.
    pub fn svg(&self) -> Result<&str, String> {
        match &self.loaded {
            Ok(ready) => ready.svg.as_deref().map_err(Clone::clone),
            Err(_) => Err(no_machine()),
        }
    }

    /// Up to [`TIMELINE_WINDOW`] steps of the timeline from step `from`
    /// (counting from 0), for a page going back further than
    /// [`Simulation::state`]'s last steps.
    pub fn steps(&self, from: usize) -> Result<Value, String> {
        let ready = match &self.loaded {
            Ok(ready) => ready,
            Err(_) => return Err(no_machine()),
        };
        let total = ready.steps.len();
        if from > total {
            return Err(format!("there is no step {from}: the timeline has {total} steps"));
        }
        let to = (from + TIMELINE_WINDOW).min(total);
        Ok(json!({
            "from": from,
            "steps": steps_json(ready, from, to),
            "steps_total": total,
            "timeline": ready.epoch,
            "loads": self.loads,
        }))
    }

    /// A number that changes whenever [`Simulation::state`] does.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Note a change.
    pub fn changed(&mut self) {
        self.version += 1;
    }

    fn ready_mut(&mut self) -> Result<&mut Ready, String> {
        match &mut self.loaded {
            Ok(ready) => Ok(ready),
            Err(_) => Err(no_machine()),
        }
    }

    /// Everything the page shows, as JSON.
    pub fn state(&self) -> Value {
        let reload = self.reload.as_ref().map(|r| json!({"ok": r.ok, "text": r.text}));
        let base = json!({
            "file": self.file_name(),
            "version": self.version,
            "loads": self.loads,
            "reload": reload,
        });
        let mut state = match &self.loaded {
            Err(broken) => json!({
                "machine": self.machine_name,
                "diagnostics": broken.diagnostics,
                "report": broken.text,
            }),
            Ok(ready) => ready_state(ready),
        };
        if let (Value::Object(state), Value::Object(base)) = (&mut state, base) {
            state.extend(base);
        }
        state
    }
}

fn no_machine() -> String {
    "the file has errors, so there is no machine to run; fix them and the page reloads it".to_owned()
}

fn new_session(definition: Definition, context: &Value, delays: &[Duration], sink: &Sink) -> Session {
    Session::new(
        definition,
        context.clone(),
        delays.to_vec(),
        Output::json_into(Box::new(sink.clone())),
        RestorePolicy::default(),
    )
    // Each step's output is kept for the page: one advance line adds at
    // most this many timers' lines to it.
    .with_advance_limit(ADVANCE_LIMIT)
}

/// The most timers one `advance` of the page fires.
const ADVANCE_LIMIT: usize = 10_000;

fn reset(ready: &mut Ready) {
    let definition = Definition::clone(ready.session.definition());
    ready.session = new_session(definition, &ready.context, &ready.delays, &ready.sink);
    ready.sink.take();
    ready.steps.clear();
    ready.bytes = 0;
    ready.epoch += 1;
}

fn apply(ready: &mut Ready, line: &str) -> Result<LineOutcome, String> {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.contains('\n') {
        return Err("one line at a time: the step has a line break in it".to_owned());
    }
    if line.trim().is_empty() {
        return Err(
            "the step is blank: write a line of `fsmc run`'s input, like {\"fire\": \"start\"}".to_owned(),
        );
    }
    if ready.steps.len() >= MAX_STEPS || ready.bytes >= MAX_TIMELINE_BYTES {
        return Err(format!(
            "the timeline is full ({} steps, {} MiB with their snapshots, the most it keeps); go back, or download the script and start over",
            ready.steps.len(),
            ready.bytes >> 20
        ));
    }
    let before = ready.session.checkpoint();
    let number = ready.steps.len() as u64 + 1;
    let applied = ready.session.apply_line(number, line.as_bytes()).unwrap_or(false);
    let output = ready.sink.take();
    let mut snapshot = serde_json::to_value(ready.session.engine().snapshot()).unwrap_or(Value::Null);
    // The checkpoint before the step holds a snapshot as large, and parsed
    // values take more than their text: the snapshot counts three times.
    let size = line.len() + output.len() + 3 * snapshot.to_string().len();
    ready.bytes += size;
    let timers = snapshot
        .get_mut("timers")
        .map(Value::take)
        .unwrap_or_else(|| json!([]));
    ready.steps.push(Step {
        line: line.to_owned(),
        output: output.clone(),
        applied,
        before,
        taken: ready.session.taken_edges().to_vec(),
        timers,
        size,
    });
    Ok(LineOutcome { output, applied })
}

/// What a reload keeps of `ready`.
fn kept(ready: &Ready) -> Kept {
    let guards = ready
        .machine
        .guards
        .iter()
        .zip(ready.session.guard_values())
        .map(|(g, v)| (g.name.clone(), v))
        .collect();
    Kept {
        snapshot: ready.session.engine().snapshot(),
        now_millis: ready.session.now().unix_millis(),
        guards,
    }
}

/// Bring what `kept` holds into the machine just reloaded, as steps of
/// its timeline (so that the script still replays): the guards that still
/// exist, then the snapshot, restored if it still restores, and the clock.
fn carry_over(ready: &mut Ready, kept: &Kept) -> Reload {
    let policy = RestorePolicy {
        fingerprint: FingerprintPolicy::Ignore,
        missing_timers: MissingTimerPolicy::Refuse,
    };
    // The snapshot again, as this definition takes it (its fingerprint).
    let restored = ready
        .session
        .restore_quietly(&kept.snapshot, policy)
        .map(|()| ready.session.engine().snapshot());
    reset(ready);
    let guards: serde_json::Map<String, Value> = kept
        .guards
        .iter()
        .filter(|(name, value)| *value && ready.machine.guards.iter().any(|g| &g.name == name))
        .map(|(name, value)| (name.clone(), Value::Bool(*value)))
        .collect();
    if !guards.is_empty() {
        let _ = apply(ready, &json!({ "guards": guards }).to_string());
    }
    match restored {
        Ok(snapshot) => {
            let line = json!({ "restore": snapshot }).to_string();
            let _ = apply(ready, &line);
            if kept.now_millis > 0 {
                let _ = apply(ready, &json!({ "advance": format!("{}ms", kept.now_millis) }).to_string());
            }
            Reload {
                ok: true,
                text: "The file changed: the snapshot still restores, and the machine goes on from it.".to_owned(),
            }
        }
        Err(reason) => Reload {
            ok: false,
            text: format!(
                "The file changed: the snapshot no longer restores ({reason}), so the machine starts over from its initial state."
            ),
        },
    }
}

/// The page's view of a machine that runs.
fn ready_state(ready: &Ready) -> Value {
    let session = &ready.session;
    let definition: &Arc<Definition> = session.definition();
    let engine = session.engine();
    let leaves = engine.configuration();
    let mut active: Vec<&str> = Vec::new();
    for &leaf in &leaves {
        for &ancestor in definition.ancestors(leaf) {
            let name = definition.state_name(ancestor);
            if !active.contains(&name) {
                active.push(name);
            }
        }
        active.push(definition.state_name(leaf));
    }
    let ancestors: serde_json::Map<String, Value> = definition
        .states()
        .map(|s| {
            let names: Vec<&str> = definition
                .ancestors(s)
                .iter()
                .map(|&a| definition.state_name(a))
                .collect();
            (definition.state_name(s).to_owned(), json!(names))
        })
        .collect();
    let valid = engine.valid_actions();
    let actions: Vec<Value> = definition
        .actions()
        .map(|a| {
            let payload = ready
                .machine
                .actions
                .get(a.index())
                .and_then(|s| s.payload.as_ref());
            json!({
                "name": definition.action_name(a),
                "valid": valid.contains(&a),
                "payload": payload.map(|t| t.text.as_str()),
            })
        })
        .collect();
    let guards: Vec<Value> = ready
        .machine
        .guards
        .iter()
        .zip(session.guard_values())
        .map(|(g, value)| json!({"name": g.name, "value": value}))
        .collect();
    let delays: Vec<Value> = ready
        .machine
        .delays
        .iter()
        .zip(session.delay_values())
        .map(|(d, value)| json!({"name": d.name, "value": fsm_grammar::model::duration_text(value)}))
        .collect();
    let now = session.now();
    let deadline = engine.next_deadline();
    let from = ready.steps.len().saturating_sub(TIMELINE_WINDOW);
    let steps = steps_json(ready, from, ready.steps.len());
    json!({
        "machine": ready.machine.name,
        "machines": ready.machines,
        "diagnostics": ready.warnings,
        "diagram_error": ready.svg.as_ref().err(),
        "place": session.place_json(),
        "active": active,
        "ancestors": ancestors,
        "leaves": leaves.iter().map(|&s| definition.state_name(s)).collect::<Vec<_>>(),
        "terminal": engine.is_terminal(),
        "actions": actions,
        "guards": guards,
        "delays": delays,
        "now": now.to_string(),
        "now_millis": now.unix_millis(),
        "next_deadline": deadline.map(|d| d.to_string()),
        "next_deadline_in_ms": deadline.map(|d| d.unix_millis().saturating_sub(now.unix_millis())),
        "steps": steps,
        "steps_from": from,
        "steps_total": ready.steps.len(),
        "timeline": ready.epoch,
    })
}

/// Steps `from` to `to` (not included), as the page shows them: each with
/// the timers it armed (those armed after it and not before it).
fn steps_json(ready: &Ready, from: usize, to: usize) -> Vec<Value> {
    let timers = |i: usize| -> &[Value] { ready.steps[i].timers.as_array().map_or(&[], Vec::as_slice) };
    (from..to)
        .map(|i| {
            let step = &ready.steps[i];
            let before = i.checked_sub(1).map_or(&[][..], timers);
            let armed: Vec<&Value> = timers(i).iter().filter(|t| !before.contains(t)).collect();
            json!({
                "line": step.line,
                "output": step.output,
                "applied": step.applied,
                "taken": step.taken,
                "timers": step.timers,
                "armed": armed,
            })
        })
        .collect()
}
