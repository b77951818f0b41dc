//! `fsmc run`: run a machine on the dynamic engine, driven by JSON lines.
//!
//! Each input line is one command (`fire`, `guards`, `delays`, `advance`,
//! `snapshot`, `restore`) and gives exactly one output line, in order;
//! docs/run.md is the reference. Guards read a table the input sets, effects
//! are no-ops that are recorded, named delays come from `--delay` or a
//! `delays` line, and time is a manual clock starting at the Unix epoch that
//! only `advance` moves. Input is read a line at a time and output written
//! as it is made, so memory stays proportional to the longest line.

use crate::checked_source;
use crate::console;
use crate::exit::Exit;
use crate::files;
use clap::{Args, ValueEnum};
use fsm_dynamic::{Definition, Engine, FireError, FiredTimer, StateId, Taken, TakenKind, TimerRejected};
use fsm_grammar::duration;
use fsm_grammar::model::{self, Machine};
use fsm_runtime::{
    Clock, FingerprintPolicy, ManualClock, MissingTimerPolicy, RestoreError, RestorePolicy, Snapshot,
    Timestamp,
};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, UNIX_EPOCH};

/// Arguments of `fsmc run`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Reads one JSON object per line from standard input (or --events) and writes one JSON object per \
line to standard output, in order:

  {\"fire\": \"dial\"}  {\"fire\": \"add\", \"payload\": 3}   fire an action
  {\"guards\": {\"has_key\": true}}                       set what guards return (all false at first)
  {\"delays\": {\"backoff\": \"30s\"}}                      set named delays, for timers armed later
  {\"advance\": \"90s\"}                                  move the clock, firing the timers due
  {\"snapshot\": true}                                  print the snapshot
  {\"restore\": {...}}                                  replace the machine with a snapshot

Effects do nothing and are listed in the output. The clock starts at 1970-01-01T00:00:00.000Z. A \
line that cannot be read or applied gives {\"error\": \"...\", \"line\": N} and the run goes on; \
blank lines are skipped. docs/run.md describes every input and output.

A file with several machines needs --machine to choose one.

Exit status:
  0  every input line was applied (refused actions and timers included)
  1  the file has errors or defines no machine (nothing runs), or some input line could not be
     read or applied
  2  usage errors, a missing or unknown --machine, --context for a machine without a context, a \
named delay without a value, and files that cannot be read")]
pub struct RunArgs {
    /// The `.fsm` file that defines the machine.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// The machine to run (required when the file has several).
    #[arg(long, value_name = "NAME")]
    machine: Option<String>,

    /// Read the input lines from this file instead of stdin (`-` is stdin).
    #[arg(long, value_name = "FILE")]
    events: Option<PathBuf>,

    /// The machine's context: a JSON file (the context is `null` without it).
    #[arg(long, value_name = "FILE")]
    context: Option<PathBuf>,

    /// The value of a named delay, in fsmc's duration syntax (`--delay backoff=30s`); every
    /// delay the machine declares needs one.
    #[arg(long = "delay", value_name = "NAME=DURATION")]
    delays: Vec<String>,

    /// How each step is printed.
    #[arg(long, value_enum, default_value_t = RunFormat::Json)]
    format: RunFormat,

    /// What `restore` does with a snapshot taken from a different definition of the machine
    /// (another fingerprint): refuse it, or accept it when its states and timers still exist.
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = FingerprintFlag::Strict)]
    fingerprint: FingerprintFlag,

    /// What `restore` does with a snapshot that arms no timer of a group armed whenever its
    /// state is active (a lost timer): refuse it, or arm it from the time of the restore.
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = MissingTimersFlag::Refuse)]
    missing_timers: MissingTimersFlag,
}

/// `--fingerprint`: [`FingerprintPolicy`] in the shell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FingerprintFlag {
    /// Refuse a snapshot of another definition.
    Strict,
    /// Accept it when what it names still exists.
    Ignore,
}

/// `--missing-timers`: [`MissingTimerPolicy`] in the shell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum MissingTimersFlag {
    /// Refuse a snapshot that lost a timer.
    Refuse,
    /// Arm the lost timer from the time of the restore.
    Rearm,
}

impl RunArgs {
    /// What `restore` accepts, from `--fingerprint` and `--missing-timers`.
    fn restore_policy(&self) -> RestorePolicy {
        RestorePolicy {
            fingerprint: match self.fingerprint {
                FingerprintFlag::Strict => FingerprintPolicy::Strict,
                FingerprintFlag::Ignore => FingerprintPolicy::Ignore,
            },
            missing_timers: match self.missing_timers {
                MissingTimersFlag::Refuse => MissingTimerPolicy::Refuse,
                MissingTimersFlag::Rearm => MissingTimerPolicy::Rearm,
            },
        }
    }
}

/// The output formats of `fsmc run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum RunFormat {
    /// One JSON object per input line.
    Json,
    /// A readable line per step.
    Human,
}

/// Run the machine; see [`RunArgs`] for the exit status.
pub fn run(args: &RunArgs) -> Exit {
    match start(args) {
        Ok((mut session, input)) => session.run(input),
        Err(exit) => exit,
    }
}

/// Everything before the first input line: the machine, its context and
/// delays, the engine, and where the input comes from.
fn start(args: &RunArgs) -> Result<(Session, Box<dyn BufRead>), Exit> {
    let model = checked_source::load_machines(&args.file, "run")?;
    let machine = checked_source::chosen_machine(&model, args.machine.as_deref(), &args.file)?;
    let context = match &args.context {
        None => Value::Null,
        Some(path) => read_context(machine, path)?,
    };
    let delays = delay_values(machine, &args.delays)?;
    let input: Box<dyn BufRead> = match &args.events {
        None => Box::new(io::stdin().lock()),
        Some(path) if files::is_stdin(path) => Box::new(io::stdin().lock()),
        Some(path) => match std::fs::File::open(path) {
            Ok(file) => Box::new(BufReader::new(file)),
            Err(error) => {
                console::error(format_args!("cannot read `{}`: {error}", path.display()));
                return Err(Exit::Trouble);
            }
        },
    };
    let definition = Definition::try_from_machine(machine).map_err(|error| {
        console::error(format_args!("`{}`: {error}", args.file.display()));
        Exit::Problems
    })?;
    let out = Output::new(args.format, Box::new(io::stdout().lock()));
    let session = Session::new(definition, context, delays, out, args.restore_policy());
    Ok((session, input))
}

/// The JSON of `--context FILE`, for a machine that declares a context.
pub(crate) fn read_context(machine: &Machine, path: &Path) -> Result<Value, Exit> {
    if machine.context.is_none() {
        console::error(format_args!(
            "machine `{}` declares no context, so --context has nothing to set\nhelp: declare one \
             with `context Type;` in the machine, or leave out --context",
            machine.name
        ));
        return Err(Exit::Trouble);
    }
    let text = files::read(path).map_err(|error| {
        console::error(error);
        Exit::Trouble
    })?;
    fsm_store::json::from_str(&text).map_err(|error| {
        console::error(format_args!(
            "`{}` is not a JSON context: {error}",
            path.display()
        ));
        Exit::Trouble
    })
}

/// The value of each of the machine's named delays, in declaration order,
/// from `--delay NAME=DURATION` flags. Every delay needs one.
pub(crate) fn delay_values(machine: &Machine, flags: &[String]) -> Result<Vec<Duration>, Exit> {
    let mut values: Vec<Option<Duration>> = vec![None; machine.delays.len()];
    for flag in flags {
        let fail = |message: String| {
            console::error(format_args!("--delay {flag}: {message}"));
            Exit::Trouble
        };
        let Some((name, text)) = flag.split_once('=') else {
            return Err(fail("expected NAME=DURATION, like `--delay backoff=30s`".into()));
        };
        let index = delay_index(machine, name).map_err(fail)?;
        let value = parse_delay(text).map_err(fail)?;
        if values[index].replace(value).is_some() {
            return Err(fail(format!("delay `{name}` is given twice")));
        }
    }
    let missing: Vec<&str> = machine
        .delays
        .iter()
        .zip(&values)
        .filter(|(_, value)| value.is_none())
        .map(|(delay, _)| delay.name.as_str())
        .collect();
    if let Some(first) = missing.first() {
        let names: Vec<String> = missing.iter().map(|name| format!("`{name}`")).collect();
        let (noun, pronoun) = match missing.len() {
            1 => ("delay", "it"),
            _ => ("delays", "each"),
        };
        console::error(format_args!(
            "machine `{}` declares the named {noun} {}, which Rust code computes and `fsmc run` \
             cannot; give {pronoun} a value\nhelp: add `--delay {first}=30s` (durations are \
             written like `250ms`, `30s`, `10m`, `2h`)",
            machine.name,
            names.join(", ")
        ));
        return Err(Exit::Trouble);
    }
    Ok(values.into_iter().flatten().collect())
}

/// The index of the delay called `name`, or why there is none.
fn delay_index(machine: &Machine, name: &str) -> Result<usize, String> {
    if let Some(index) = machine.delays.iter().position(|d| d.name == name) {
        return Ok(index);
    }
    let names = machine.delays.iter().map(|d| d.name.as_str());
    Err(unknown_name(&machine.name, "delay", "delays", name, names))
}

/// `machine `M` has no guard `x`; did you mean `y`?`, or the list of names.
fn unknown_name<'n>(
    machine: &str,
    kind: &str,
    plural: &str,
    name: &str,
    names: impl Iterator<Item = &'n str> + Clone,
) -> String {
    let mut message = format!("machine `{machine}` has no {kind} `{name}`");
    if let Some(close) = fsm_grammar::closest(name, names.clone()) {
        message.push_str(&format!("; did you mean `{close}`?"));
        return message;
    }
    let listed: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    match listed.as_slice() {
        [] => message.push_str(&format!("; it has no {plural}")),
        _ => message.push_str(&format!("; its {plural} are {}", listed.join(", "))),
    }
    message
}

/// A named delay's value: fsmc's duration syntax, as in `after 30s`.
fn parse_delay(text: &str) -> Result<Duration, String> {
    duration::parse(text).map_err(|problem| {
        format!("`{text}` is not a duration like `250ms`, `30s`, `10m` or `2h`: {problem}")
    })
}

/// How far `advance` moves the clock: digits then `ms`, `s`, `m` or `h`, as
/// a timer's delay is written, zero and more than a week included.
fn parse_advance(text: &str) -> Result<u64, String> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let per_unit: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => {
            return Err(format!(
                "`advance` takes a duration like `90s` (digits, then `ms`, `s`, `m` or `h`), not `{text}`"
            ))
        }
    };
    if number.is_empty() {
        return Err(format!("`advance` takes a duration like `90s`, not `{text}`"));
    }
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(per_unit))
        .ok_or_else(|| format!("`{text}` is too long to advance by"))
}

/// One input line's command.
enum Command {
    Fire { action: String, payload: Value },
    Guards(Map<String, Value>),
    Delays(Map<String, Value>),
    Advance(String),
    Snapshot,
    Restore(Value),
}

/// The commands, as their keys.
const COMMANDS: [&str; 6] = ["fire", "guards", "delays", "advance", "snapshot", "restore"];

/// `` `fire`, `guards`, ... or `restore` ``.
fn command_list() -> String {
    let names: Vec<String> = COMMANDS.iter().map(|c| format!("`{c}`")).collect();
    let (last, init) = names.split_last().expect("commands");
    format!("{} or {last}", init.join(", "))
}

/// The command of an input line, or why it is not one.
fn parse_line(line: &str) -> Result<Command, String> {
    let value = fsm_store::json::from_str(line).map_err(|error| {
        let message = error.to_string();
        let at = format!(" at line {} column {}", error.line(), error.column());
        let message = message.strip_suffix(&at).unwrap_or(&message);
        format!("not JSON: {message} at column {}", error.column())
    })?;
    let Value::Object(mut object) = value else {
        return Err(format!(
            "expected a JSON object with one of {}, like {{\"fire\": \"start\"}}",
            command_list()
        ));
    };
    let commands: Vec<&str> = COMMANDS
        .iter()
        .copied()
        .filter(|c| object.contains_key(*c))
        .collect();
    let command = match commands.as_slice() {
        [] => {
            return Err(format!(
                "expected one of {}, like {{\"fire\": \"start\"}}",
                command_list()
            ))
        }
        [one] => *one,
        [first, second, ..] => {
            return Err(format!(
                "one command per line: this one has both `{first}` and `{second}`"
            ))
        }
    };
    if let Some(extra) = object
        .keys()
        .find(|key| *key != command && !(command == "fire" && *key == "payload"))
    {
        let others = match command {
            "fire" => "has only `fire` and `payload`",
            _ => "has no other key",
        };
        return Err(format!(
            "unknown key `{extra}` (a line with `{command}` {others})"
        ));
    }
    let value = object.remove(command).expect("the command's key");
    match command {
        "fire" => match value {
            Value::String(action) => Ok(Command::Fire {
                action,
                payload: object.remove("payload").unwrap_or(Value::Null),
            }),
            _ => Err("`fire` takes an action's name, like {\"fire\": \"start\"}".into()),
        },
        "guards" => match value {
            Value::Object(table) => Ok(Command::Guards(table)),
            _ => Err("`guards` takes an object of guard names and values, like {\"guards\": {\"ready\": true}}".into()),
        },
        "delays" => match value {
            Value::Object(table) => Ok(Command::Delays(table)),
            _ => Err("`delays` takes an object of delay names and durations, like {\"delays\": {\"backoff\": \"30s\"}}".into()),
        },
        "advance" => match value {
            Value::String(by) => Ok(Command::Advance(by)),
            _ => Err("`advance` takes a duration as a string, like {\"advance\": \"90s\"}".into()),
        },
        "snapshot" => match value {
            Value::Bool(true) => Ok(Command::Snapshot),
            _ => Err("write {\"snapshot\": true} to print the snapshot".into()),
        },
        _ => Ok(Command::Restore(value)),
    }
}

/// A running machine and what its closures read and record.
pub(crate) struct Session {
    definition: Arc<Definition>,
    engine: Engine,
    clock: ManualClock,
    /// What each guard returns, by index.
    guards: Arc<[AtomicBool]>,
    /// Each named delay's value in milliseconds, by index.
    delays: Arc<[AtomicU64]>,
    /// The effects run since the log was last taken, by index.
    effects: Arc<Mutex<Vec<usize>>>,
    /// True for a machine with parallel states: states print as lists of
    /// leaves, and steps list the transitions they took.
    parallel: bool,
    /// What `restore` accepts (`--fingerprint`, `--missing-timers`).
    restore_policy: RestorePolicy,
    out: Output,
    /// The transitions the last line took (its fire, or its timers), for
    /// `fsmc inspect` to highlight.
    taken: Vec<TakenEdge>,
    /// The most timers one `advance` line fires ([`ADVANCE_LIMIT`]).
    advance_limit: usize,
}

/// The most timers one `advance` line fires: past it the advance stops at
/// the last one's time, says so, and another `advance` goes on. A timer
/// that re-arms itself every millisecond would otherwise fire billions of
/// times for `{"advance": "1000h"}` before the line ends.
pub(crate) const ADVANCE_LIMIT: usize = 1_000_000;

/// A transition a line took, by the names the SVG diagram gives its edges
/// (`data-from`, `data-to`, `data-trigger`): the declaring state (`any` for
/// an `any` transition), the target (none for an internal transition), and
/// the action's name or `after`, `done`, `always`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct TakenEdge {
    pub from: String,
    pub to: Option<String>,
    pub trigger: String,
}

/// Everything a line can change, so that `fsmc inspect` can go back to
/// before it: the machine's snapshot, the clock, and the guard and delay
/// tables.
pub(crate) struct Checkpoint {
    snapshot: Snapshot,
    now: Timestamp,
    guards: Vec<bool>,
    delays: Vec<u64>,
}

impl Session {
    pub(crate) fn new(
        definition: Definition,
        context: Value,
        delays: Vec<Duration>,
        out: Output,
        restore_policy: RestorePolicy,
    ) -> Session {
        let definition = Arc::new(definition);
        let machine = definition.machine();
        let machine_parallel = machine.has_parallel();
        let clock = ManualClock::new(UNIX_EPOCH);
        let guards: Arc<[AtomicBool]> = machine.guards.iter().map(|_| AtomicBool::new(false)).collect();
        let delays: Arc<[AtomicU64]> = delays
            .iter()
            .map(|d| AtomicU64::new(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)))
            .collect();
        let effects = Arc::new(Mutex::new(Vec::new()));
        let mut builder = Engine::builder(Arc::clone(&definition))
            .context(context)
            .clock(clock.clone());
        for (index, guard) in machine.guards.iter().enumerate() {
            let guards = Arc::clone(&guards);
            builder = builder.guard(&guard.name, move |_| guards[index].load(Ordering::Relaxed));
        }
        for (index, effect) in machine.effects.iter().enumerate() {
            let effects = Arc::clone(&effects);
            builder = builder.effect(&effect.name, move |_, _| {
                effects.lock().unwrap_or_else(PoisonError::into_inner).push(index);
            });
        }
        for (index, delay) in machine.delays.iter().enumerate() {
            let delays = Arc::clone(&delays);
            builder = builder.delay(&delay.name, move |_| {
                Duration::from_millis(delays[index].load(Ordering::Relaxed))
            });
        }
        let engine = builder
            .build()
            .expect("every guard, effect and delay of the machine is bound");
        Session {
            definition,
            engine,
            clock,
            guards,
            delays,
            effects,
            parallel: machine_parallel,
            restore_policy,
            out,
            taken: Vec::new(),
            advance_limit: ADVANCE_LIMIT,
        }
    }

    /// Fire at most `limit` timers per `advance` line, not [`ADVANCE_LIMIT`].
    pub(crate) fn with_advance_limit(mut self, limit: usize) -> Session {
        self.advance_limit = limit;
        self
    }

    /// The definition it runs.
    pub(crate) fn definition(&self) -> &Arc<Definition> {
        &self.definition
    }

    /// The engine, to read where it is and what it can do.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The clock's time.
    pub(crate) fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Each guard's value, in declaration order.
    pub(crate) fn guard_values(&self) -> Vec<bool> {
        self.guards.iter().map(|g| g.load(Ordering::Relaxed)).collect()
    }

    /// Each named delay's value, in declaration order.
    pub(crate) fn delay_values(&self) -> Vec<Duration> {
        self.delays
            .iter()
            .map(|d| Duration::from_millis(d.load(Ordering::Relaxed)))
            .collect()
    }

    /// The transitions the last line took.
    pub(crate) fn taken_edges(&self) -> &[TakenEdge] {
        &self.taken
    }

    /// Where the machine is, as a line's `to` prints it.
    pub(crate) fn place_json(&self) -> Value {
        let leaves = self.engine.configuration();
        serde_json::to_value(self.place(&leaves)).expect("a place serializes")
    }

    /// What [`Session::rewind`] goes back to.
    pub(crate) fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            snapshot: self.engine.snapshot(),
            now: self.clock.now(),
            guards: self.guard_values(),
            delays: self.delays.iter().map(|d| d.load(Ordering::Relaxed)).collect(),
        }
    }

    /// Go back to `checkpoint`, taken of this session: its clock, tables
    /// and snapshot.
    pub(crate) fn rewind(&mut self, checkpoint: &Checkpoint) -> Result<(), String> {
        self.clock.set(checkpoint.now.to_system_time());
        for (guard, &value) in self.guards.iter().zip(&checkpoint.guards) {
            guard.store(value, Ordering::Relaxed);
        }
        for (delay, &value) in self.delays.iter().zip(&checkpoint.delays) {
            delay.store(value, Ordering::Relaxed);
        }
        self.taken.clear();
        self.engine
            .restore(&checkpoint.snapshot)
            .map(|_| ())
            .map_err(|e| restore_error_text(&e))
    }

    /// Restore `snapshot` with `policy` (`fsmc inspect` after the file
    /// changed), writing nothing.
    pub(crate) fn restore_quietly(
        &mut self,
        snapshot: &Snapshot,
        policy: RestorePolicy,
    ) -> Result<(), String> {
        self.engine
            .restore_with(snapshot, policy)
            .map(|_| ())
            .map_err(|e| restore_error_text(&e))
    }

    /// Apply input line `number` (its bytes, without the newline), writing
    /// its output line: `None` for a blank line (skipped, nothing written),
    /// else whether it was applied.
    pub(crate) fn apply_line(&mut self, number: u64, line: &[u8]) -> Option<bool> {
        self.taken.clear();
        let outcome = match std::str::from_utf8(line) {
            Ok(line) if line.trim().is_empty() => return None,
            Ok(line) => parse_line(line).and_then(|command| self.apply(command)),
            Err(error) => Err(format!(
                "the line is not UTF-8 (byte {} is not)",
                error.valid_up_to() + 1
            )),
        };
        let applied = match outcome {
            Ok(()) => true,
            Err(message) => {
                self.out.error(number, &message);
                false
            }
        };
        self.out.flush();
        Some(applied)
    }

    /// `taken` by the names of the diagram's edges.
    fn record_taken(&mut self, taken: &[Taken], action: Option<&str>) {
        for t in taken {
            let trigger = match t.kind {
                TakenKind::Action => action.unwrap_or("").to_owned(),
                TakenKind::Timer => "after".to_owned(),
                TakenKind::Done => "done".to_owned(),
                TakenKind::Always => "always".to_owned(),
            };
            self.taken.push(TakenEdge {
                from: t.source_name(&self.definition).to_owned(),
                to: t.target.map(|s| self.definition.state_name(s).to_owned()),
                trigger,
            });
        }
    }

    /// Apply every input line; see [`RunArgs`] for the exit status.
    fn run(&mut self, mut input: Box<dyn BufRead>) -> Exit {
        let mut exit = Exit::Clean;
        let mut bytes = Vec::new();
        let mut number = 0u64;
        loop {
            bytes.clear();
            match input.read_until(b'\n', &mut bytes) {
                Ok(0) => break,
                Ok(_) => {}
                Err(error) => {
                    self.out.flush();
                    console::error(format_args!("cannot read the input: {error}"));
                    return Exit::Trouble;
                }
            }
            number += 1;
            let line = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if self.apply_line(number, line) == Some(false) {
                exit.raise(Exit::Problems);
            }
        }
        self.out.flush();
        exit
    }

    /// Apply one command, writing its output; or say why it cannot be
    /// applied (having written nothing).
    fn apply(&mut self, command: Command) -> Result<(), String> {
        match command {
            Command::Fire { action, payload } => self.fire(&action, &payload),
            Command::Guards(table) => self.set_guards(table),
            Command::Delays(table) => self.set_delays(table),
            Command::Advance(by) => self.advance(&by),
            Command::Snapshot => {
                let snapshot = self.engine.snapshot();
                self.out.snapshot(&snapshot);
                Ok(())
            }
            Command::Restore(value) => {
                let snapshot = self.snapshot_of(value)?;
                self.engine
                    .restore_with(&snapshot, self.restore_policy)
                    .map_err(|e| format!("cannot restore: {}", restore_error_text(&e)))?;
                let leaves = self.engine.configuration();
                let state = self.place(&leaves);
                self.out.restored(&state);
                Ok(())
            }
        }
    }

    /// The snapshot `restore` was given, or why it is none, naming the
    /// fields this machine's snapshots have.
    fn snapshot_of(&self, value: Value) -> Result<Snapshot, String> {
        let state_field = if self.parallel {
            "`configuration` (its active leaves)"
        } else {
            "`current_state`"
        };
        if !value.is_object() {
            return Err(format!(
                "not a snapshot: `restore` takes an object as `{{\"snapshot\": true}}` prints it, with \
                 `type`, `machine`, `fingerprint` and {state_field} for machine `{}`, not {}",
                self.definition.machine().name,
                json_kind(&value)
            ));
        }
        Snapshot::deserialize(value).map_err(|e| format!("not a snapshot: {e}"))
    }

    /// Where the machine is, as `fsmc run` prints it: the leaf's name, or
    /// for a machine with parallel states the leaves' names.
    fn place(&self, leaves: &[StateId]) -> Place {
        place(&self.definition, self.parallel, leaves)
    }

    /// The transitions taken, for a machine with parallel states.
    fn taken(&self, taken: &[Taken]) -> Option<Vec<TakenJson>> {
        self.parallel.then(|| {
            taken
                .iter()
                .map(|t| TakenJson {
                    source: t.source_name(&self.definition).to_owned(),
                    target: t.target_text(&self.definition),
                })
                .collect()
        })
    }

    /// The effects run since the last call, by name.
    fn take_effects(&self) -> Vec<usize> {
        std::mem::take(&mut *self.effects.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn fire(&mut self, action: &str, payload: &Value) -> Result<(), String> {
        let result = self.engine.fire(action, payload);
        let effects = self.take_effects();
        match result {
            Ok(fired) => {
                let step = FireStep {
                    ok: true,
                    from: self.place(fired.from_leaves()),
                    to: self.place(fired.to_leaves()),
                    taken: self.taken(fired.taken()),
                    outputs: fired.output_names().collect(),
                    effects: effect_names(&self.definition, &effects),
                };
                let steps = eventless_lines(&self.definition, fired.taken());
                self.out.fired(&step, &fired.to_string(), &steps);
                // A machine whose `fire` takes exactly one transition
                // lists none: it is the one from the leaf (or from `any`,
                // which the page finds by its target and action).
                let taken = match fired.taken() {
                    [] => vec![Taken {
                        kind: TakenKind::Action,
                        source: Some(fired.from),
                        target: (!fired.internal).then_some(fired.to),
                        history: None,
                    }],
                    taken => taken.to_vec(),
                };
                drop(fired);
                self.record_taken(&taken, Some(action));
                Ok(())
            }
            Err(error) => match Refusal::of(&error, self.parallel) {
                Some(refusal) => {
                    self.out.refused(&refusal, &error.to_string());
                    Ok(())
                }
                // Not an action of the machine: the line is wrong, and the
                // machine never saw it.
                None => Err(error.to_string()),
            },
        }
    }

    fn set_guards(&mut self, table: Map<String, Value>) -> Result<(), String> {
        let machine = self.definition.machine();
        let mut updates = Vec::new();
        for (name, value) in &table {
            let Some(index) = machine.guards.iter().position(|g| &g.name == name) else {
                let names = machine.guards.iter().map(|g| g.name.as_str());
                return Err(unknown_name(&machine.name, "guard", "guards", name, names));
            };
            let Value::Bool(value) = value else {
                return Err(format!("guard `{name}` is true or false, not {value}"));
            };
            updates.push((index, *value));
        }
        for (index, value) in updates {
            self.guards[index].store(value, Ordering::Relaxed);
        }
        let table: Vec<(&str, bool)> = machine
            .guards
            .iter()
            .zip(self.guards.iter())
            .map(|(guard, value)| (guard.name.as_str(), value.load(Ordering::Relaxed)))
            .collect();
        self.out.guards(&table);
        Ok(())
    }

    fn set_delays(&mut self, table: Map<String, Value>) -> Result<(), String> {
        let machine = self.definition.machine();
        let mut updates = Vec::new();
        for (name, value) in &table {
            let index = delay_index(machine, name)?;
            let Value::String(text) = value else {
                return Err(format!(
                    "delay `{name}` takes a duration as a string, like \"30s\", not {value}"
                ));
            };
            let value = parse_delay(text).map_err(|e| format!("delay `{name}`: {e}"))?;
            updates.push((index, value));
        }
        for (index, value) in updates {
            self.delays[index].store(value.as_millis() as u64, Ordering::Relaxed);
        }
        let table: Vec<(&str, String)> = machine
            .delays
            .iter()
            .zip(self.delays.iter())
            .map(|(delay, value)| {
                let value = Duration::from_millis(value.load(Ordering::Relaxed));
                (delay.name.as_str(), model::duration_text(value))
            })
            .collect();
        self.out.delays(&table);
        Ok(())
    }

    /// Move the clock forward by `by`, stopping at each deadline on the way
    /// to fire what is due there.
    fn advance(&mut self, by: &str) -> Result<(), String> {
        let millis = parse_advance(by)?;
        let now = self.clock.now();
        let last_time = last_time();
        let end = now
            .unix_millis()
            .checked_add(millis)
            .and_then(Timestamp::from_unix_millis)
            .filter(|&end| end <= last_time)
            .ok_or_else(|| {
                format!(
                    "advancing by {by} from {now} would pass {last_time}, the last time a run \
                     reaches (a week before the last timestamp, so that every deadline fits)"
                )
            })?;
        self.out.advance_start(end);
        let mut last: Option<Timestamp> = None;
        let mut fired_count = 0usize;
        while let Some(deadline) = self.engine.next_deadline() {
            if fired_count >= self.advance_limit {
                // Stop at the last timer's time, the line well formed.
                let at = self.clock.now();
                self.out.advance_end(at);
                return Err(format!(
                    "the advance stopped at {at} after firing {} timers, the most one line \
                     fires; advance again to go on",
                    self.advance_limit
                ));
            }
            // Every deadline armed here is later than the time it was armed
            // at (`last_time` keeps them from stopping at the last
            // timestamp), so each turn moves the clock forward.
            if deadline > end || last.is_some_and(|last| deadline <= last) {
                break;
            }
            let at = deadline.max(self.clock.now());
            self.clock.set(at.to_system_time());
            let outcomes = self.engine.fire_due();
            if outcomes.is_empty() {
                break;
            }
            fired_count += outcomes.len();
            let effects = self.take_effects();
            let mut effects = effects.as_slice();
            let mut taken_here: Vec<Taken> = Vec::new();
            for outcome in &outcomes {
                match outcome {
                    Ok(fired) => {
                        let count = fired.effects_ran().min(effects.len());
                        let (own, rest) = effects.split_at(count);
                        effects = rest;
                        let step = TimerStep {
                            ok: true,
                            timer: true,
                            from: self.place(fired.from_leaves()),
                            to: self.place(fired.to_leaves()),
                            taken: self.taken(fired.taken()),
                            outputs: fired.output_names().collect(),
                            effects: effect_names(&self.definition, own),
                            due: fired.due.to_string(),
                            after: fired.delay_text(),
                            declared_in: fired.declared_in_name(),
                            ran_away: fired.ran_away(),
                        };
                        let steps = eventless_lines(&self.definition, fired.taken());
                        self.out.timer_fired(&step, fired, &steps);
                        match fired.taken() {
                            [] => taken_here.push(Taken {
                                kind: TakenKind::Timer,
                                source: Some(fired.declared_in),
                                target: (!fired.internal).then_some(fired.to),
                                history: None,
                            }),
                            taken => taken_here.extend_from_slice(taken),
                        }
                    }
                    Err(rejected) => {
                        let refusal = TimerRefusal::of(rejected, self.place(rejected.leaves()));
                        self.out.timer_rejected(&refusal, rejected);
                    }
                }
            }
            drop(outcomes);
            self.record_taken(&taken_here, None);
            last = Some(at);
        }
        self.clock.set(end.to_system_time());
        self.out.advance_end(end);
        Ok(())
    }
}

/// The latest time a run's clock reaches: a week (the longest delay)
/// before [`Timestamp::MAX`], so a timer armed at any time of the run has a
/// deadline after it. At `Timestamp::MAX` deadlines would stop growing, and
/// a timer that re-arms itself would be due again at the instant it fired.
fn last_time() -> Timestamp {
    let week = u64::try_from(duration::MAX.as_millis()).expect("a week in milliseconds");
    Timestamp::from_unix_millis(Timestamp::MAX.unix_millis() - week).expect("a timestamp")
}

/// The names of `effects`, given by index.
fn effect_names<'d>(definition: &'d Definition, effects: &[usize]) -> Vec<&'d str> {
    let machine = definition.machine();
    effects
        .iter()
        .map(|&e| machine.effects[e].name.as_str())
        .collect()
}

/// Where the machine is: one leaf, or for a machine with parallel states
/// its active leaves.
#[derive(Serialize)]
#[serde(untagged)]
enum Place {
    Leaf(String),
    Leaves(Vec<String>),
}

/// `leaves` as `fsmc run` prints them (see [`Session::place`]).
fn place(definition: &Definition, parallel: bool, leaves: &[StateId]) -> Place {
    let mut names: Vec<String> = leaves
        .iter()
        .map(|&s| definition.state_name(s).to_owned())
        .collect();
    match (parallel, names.len()) {
        (false, 1) => Place::Leaf(names.pop().expect("one leaf")),
        _ => Place::Leaves(names),
    }
}

/// A refused restore in words, its hints given as the flags of `fsmc run`
/// (the runtime's name the Rust policies).
fn restore_error_text(error: &RestoreError) -> String {
    match error {
        RestoreError::FingerprintMismatch {
            machine,
            expected,
            found,
        } => format!(
            "the snapshot of machine `{machine}` was taken from a different definition \
             (fingerprint {found}, this one has {expected}); run with `--fingerprint ignore` to \
             accept it"
        ),
        RestoreError::MissingTimer {
            machine,
            state,
            timer,
        } => format!(
            "the snapshot of machine `{machine}` arms no timer `{timer}` of state `{state}`, which \
             is armed whenever `{state}` is active; run with `--missing-timers rearm` to arm it \
             from the time of the restore"
        ),
        other => other.to_string(),
    }
}

/// What a JSON value is, for an error: `a number`, `a string`, ...
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The `always` and `done` steps among `taken`, one line each, for the
/// human format: `  then `check` --always--> `fast``.
fn eventless_lines(definition: &Definition, taken: &[Taken]) -> String {
    let mut out = String::new();
    for t in taken {
        let keyword = match t.kind {
            TakenKind::Done => "done",
            TakenKind::Always => "always",
            TakenKind::Action | TakenKind::Timer => continue,
        };
        let target = t
            .target_text(definition)
            .map_or_else(|| "(internal)".to_owned(), |target| format!("`{target}`"));
        out.push_str(&format!(
            "\n  then `{}` --{keyword}--> {target}",
            t.source_name(definition)
        ));
    }
    out
}

/// A transition taken, in `taken`.
#[derive(Serialize)]
struct TakenJson {
    source: String,
    target: Option<String>,
}

/// A fire that stepped.
#[derive(Serialize)]
struct FireStep<'a> {
    ok: bool,
    from: Place,
    to: Place,
    #[serde(skip_serializing_if = "Option::is_none")]
    taken: Option<Vec<TakenJson>>,
    outputs: Vec<&'a str>,
    effects: Vec<&'a str>,
}

/// A timer that fired, in `advance`'s `fired`.
#[derive(Serialize)]
struct TimerStep<'a> {
    ok: bool,
    timer: bool,
    from: Place,
    to: Place,
    #[serde(skip_serializing_if = "Option::is_none")]
    taken: Option<Vec<TakenJson>>,
    outputs: Vec<&'a str>,
    effects: Vec<&'a str>,
    due: String,
    after: String,
    declared_in: &'a str,
    /// Present, and true, when the `always` and `done` steps after the
    /// timer's did not settle within the bound.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    ran_away: bool,
}

/// A fire that was refused.
#[derive(Serialize)]
#[serde(tag = "error", rename_all = "kebab-case")]
enum RefusalKind<'a> {
    InvalidTransition {
        state: Place,
        action: &'a str,
        valid: Vec<&'a str>,
    },
    GuardRejected {
        state: Place,
        action: &'a str,
        candidates: Vec<CandidateJson<'a>>,
    },
    /// The action fired, and the `always` and `done` transitions after it
    /// did not settle: the machine moved, and these outputs were emitted.
    Runaway {
        from: Place,
        state: Place,
        action: &'a str,
        /// The states of the cycle that kept going, in order; empty when
        /// the steps repeated none (more than 1,000 distinct steps).
        cycle: Vec<&'a str>,
        outputs: Vec<&'a str>,
        /// The error in words: the cycle, or "more than 1,000 steps".
        message: String,
    },
}

#[derive(Serialize)]
struct Refusal<'a> {
    ok: bool,
    #[serde(flatten)]
    kind: RefusalKind<'a>,
}

#[derive(Serialize)]
struct CandidateJson<'a> {
    guard: &'a str,
    /// As written: `p.history` for a history target.
    target: Option<String>,
}

impl<'a> Refusal<'a> {
    /// The refusal `error` reports; `None` for an unknown action, which is
    /// an input error instead.
    fn of(error: &'a FireError, parallel: bool) -> Option<Refusal<'a>> {
        let kind = match error {
            FireError::InvalidTransition(e) => {
                let definition = e.definition();
                RefusalKind::InvalidTransition {
                    state: place(definition, parallel, e.leaves()),
                    action: definition.action_name(e.action()),
                    valid: e.valid().iter().map(|&a| definition.action_name(a)).collect(),
                }
            }
            FireError::GuardRejected(e) => {
                let definition = e.definition();
                RefusalKind::GuardRejected {
                    state: place(definition, parallel, e.leaves()),
                    action: definition.action_name(e.action()),
                    candidates: e
                        .candidates()
                        .map(|c| CandidateJson {
                            guard: c.guard(),
                            target: c.target_text(definition),
                        })
                        .collect(),
                }
            }
            FireError::Runaway(e) => {
                let definition = e.definition();
                let names = |ids: &'a [StateId]| ids.iter().map(|&s| definition.state_name(s)).collect();
                RefusalKind::Runaway {
                    from: place(definition, parallel, e.from_leaves()),
                    state: place(definition, parallel, e.to_leaves()),
                    action: definition.action_name(e.action()),
                    cycle: names(e.cycle()),
                    outputs: e.outputs().iter().map(|&o| definition.output_name(o)).collect(),
                    message: e.to_string(),
                }
            }
            FireError::UnknownAction(_) => return None,
        };
        Some(Refusal { ok: false, kind })
    }
}

/// A timer group that came due with no guard holding.
#[derive(Serialize)]
struct TimerRefusal<'a> {
    ok: bool,
    timer: bool,
    error: &'static str,
    state: Place,
    due: String,
    after: String,
    declared_in: &'a str,
}

impl<'a> TimerRefusal<'a> {
    fn of(rejected: &TimerRejected<'a>, state: Place) -> TimerRefusal<'a> {
        TimerRefusal {
            ok: false,
            timer: true,
            error: "timer-rejected",
            state,
            due: rejected.due.to_string(),
            after: rejected.delay_text(),
            declared_in: rejected.declared_in_name(),
        }
    }
}

/// A table of names and values, as a JSON object in declaration order.
struct Table<'a, V>(&'a [(&'a str, V)]);

impl<V: Serialize> Serialize for Table<'_, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct GuardsOut<'a> {
    guards: Table<'a, bool>,
}

#[derive(Serialize)]
struct DelaysOut<'a> {
    delays: Table<'a, String>,
}

#[derive(Serialize)]
struct SnapshotOut<'a> {
    snapshot: &'a Snapshot,
}

#[derive(Serialize)]
struct RestoredOut<'a> {
    restored: bool,
    state: &'a Place,
}

#[derive(Serialize)]
struct ErrorOut<'a> {
    error: &'a str,
    line: u64,
}

/// What `fsmc run` writes, kept instead of printed: for `fsmc inspect`'s
/// page and `fsmc test`'s expected outputs.
#[derive(Clone, Default)]
pub(crate) struct Sink(Rc<RefCell<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Sink {
    /// What was written since the last call, without its last newline.
    pub(crate) fn take(&self) -> String {
        let bytes = std::mem::take(&mut *self.0.borrow_mut());
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if text.ends_with('\n') {
            text.pop();
        }
        text
    }
}

/// Standard output (or, for `fsmc inspect`, a buffer), in the format asked
/// for. Writing fails only when nobody can read the outcome (a closed pipe,
/// a full disk): then the run stops with status 2, as every command's
/// output does.
pub(crate) struct Output {
    format: RunFormat,
    out: BufWriter<Box<dyn Write>>,
    /// Whether the `fired` list of the advance being written has an entry.
    fired_any: bool,
}

impl Output {
    fn new(format: RunFormat, sink: Box<dyn Write>) -> Output {
        Output {
            format,
            out: BufWriter::new(sink),
            fired_any: false,
        }
    }

    /// JSON lines into `sink`, as `fsmc run` prints them.
    pub(crate) fn json_into(sink: Box<dyn Write>) -> Output {
        Output::new(RunFormat::Json, sink)
    }

    fn json(&self) -> bool {
        self.format == RunFormat::Json
    }

    fn write(&mut self, text: &str) {
        if let Err(error) = self.out.write_all(text.as_bytes()) {
            fail(&error);
        }
    }

    fn write_json(&mut self, value: &impl Serialize) {
        let text = serde_json::to_string(value).expect("the output serializes");
        self.write(&text);
    }

    fn line_json(&mut self, value: &impl Serialize) {
        self.write_json(value);
        self.write("\n");
    }

    fn flush(&mut self) {
        if let Err(error) = self.out.flush() {
            fail(&error);
        }
    }

    /// A fire that stepped: `text` on one line, then `steps`, the lines of
    /// the `always` and `done` steps after it.
    fn fired(&mut self, step: &FireStep<'_>, text: &str, steps: &str) {
        if self.json() {
            self.line_json(step);
        } else {
            let text = format!("{text}{}{steps}\n", effects_text(&step.effects));
            self.write(&text);
        }
    }

    fn refused(&mut self, refusal: &Refusal<'_>, message: &str) {
        if self.json() {
            self.line_json(refusal);
        } else {
            self.write(&format!("refused: {message}\n"));
        }
    }

    fn guards(&mut self, table: &[(&str, bool)]) {
        if self.json() {
            self.line_json(&GuardsOut { guards: Table(table) });
        } else {
            let text = table_text(table.iter().map(|(name, value)| format!("{name} = {value}")));
            self.write(&format!("guards: {text}\n"));
        }
    }

    fn delays(&mut self, table: &[(&str, String)]) {
        if self.json() {
            self.line_json(&DelaysOut { delays: Table(table) });
        } else {
            let text = table_text(table.iter().map(|(name, value)| format!("{name} = {value}")));
            self.write(&format!("delays: {text}\n"));
        }
    }

    fn advance_start(&mut self, end: Timestamp) {
        if self.json() {
            self.write(&format!("{{\"now\":\"{end}\",\"fired\":["));
            self.fired_any = false;
        }
    }

    fn separate(&mut self) {
        if std::mem::replace(&mut self.fired_any, true) {
            self.write(",");
        }
    }

    fn timer_fired(&mut self, step: &TimerStep<'_>, fired: &FiredTimer<'_>, steps: &str) {
        if self.json() {
            self.separate();
            self.write_json(step);
        } else {
            let text = format!(
                "at {}: {fired}{}{steps}\n",
                fired.due,
                effects_text(&step.effects)
            );
            self.write(&text);
        }
    }

    fn timer_rejected(&mut self, refusal: &TimerRefusal<'_>, rejected: &TimerRejected<'_>) {
        if self.json() {
            self.separate();
            self.write_json(refusal);
        } else {
            self.write(&format!("at {}: rejected: {rejected}\n", rejected.due));
        }
    }

    fn advance_end(&mut self, end: Timestamp) {
        if self.json() {
            self.write("]}\n");
        } else {
            self.write(&format!("now {end}\n"));
        }
    }

    fn snapshot(&mut self, snapshot: &Snapshot) {
        if self.json() {
            self.line_json(&SnapshotOut { snapshot });
        } else {
            self.write("snapshot: ");
            self.write_json(snapshot);
            self.write("\n");
        }
    }

    fn restored(&mut self, state: &Place) {
        if self.json() {
            self.line_json(&RestoredOut {
                restored: true,
                state,
            });
        } else {
            let text = match state {
                Place::Leaf(name) => format!("`{name}`"),
                Place::Leaves(names) => names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            self.write(&format!("restored: in {text}\n"));
        }
    }

    fn error(&mut self, line: u64, message: &str) {
        if self.json() {
            self.line_json(&ErrorOut { error: message, line });
        } else {
            self.write(&format!("line {line}: error: {message}\n"));
        }
    }
}

/// ` (do `a`, `b`)`, or nothing.
fn effects_text(effects: &[&str]) -> String {
    if effects.is_empty() {
        return String::new();
    }
    let names: Vec<String> = effects.iter().map(|e| format!("`{e}`")).collect();
    format!(" (do {})", names.join(", "))
}

/// `a = true, b = false`, or `none` for an empty table.
fn table_text(entries: impl Iterator<Item = String>) -> String {
    let entries: Vec<String> = entries.collect();
    if entries.is_empty() {
        "none".to_owned()
    } else {
        entries.join(", ")
    }
}

/// Stop with status 2: the output cannot be written.
fn fail(error: &io::Error) -> ! {
    if error.kind() != io::ErrorKind::BrokenPipe {
        // stderr may be broken too; there is nowhere else to say it.
        let _ = writeln!(io::stderr(), "error: cannot write output: {error}");
    }
    std::process::exit(2);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advance_durations() {
        assert_eq!(parse_advance("90s"), Ok(90_000));
        assert_eq!(parse_advance("0s"), Ok(0));
        assert_eq!(parse_advance("250ms"), Ok(250));
        assert_eq!(parse_advance("200h"), Ok(720_000_000));
        assert!(parse_advance("90").unwrap_err().contains("`ms`, `s`, `m` or `h`"));
        assert!(parse_advance("3d").is_err());
        assert!(parse_advance("s").is_err());
        assert!(parse_advance("-1s").is_err());
        assert!(parse_advance("99999999999999999999h")
            .unwrap_err()
            .contains("too long"));
    }

    #[test]
    fn lines_name_what_is_wrong() {
        let error = |line: &str| parse_line(line).err().expect("an error");
        assert_eq!(
            error("{\"fire\": "),
            "not JSON: EOF while parsing a value at column 9"
        );
        assert!(error("[1]").starts_with("expected a JSON object"));
        assert_eq!(
            error("{\"fire\": \"a\", \"advance\": \"1s\"}"),
            "one command per line: this one has both `fire` and `advance`"
        );
        assert_eq!(
            error("{\"fire\": \"a\", \"payload\": 1, \"x\": 2}"),
            "unknown key `x` (a line with `fire` has only `fire` and `payload`)"
        );
        assert_eq!(
            error("{\"advance\": \"1s\", \"payload\": 1}"),
            "unknown key `payload` (a line with `advance` has no other key)"
        );
        assert_eq!(
            error("{\"fire\": 1, \"fire\": 2}"),
            "not JSON: duplicate key `fire` at column 18"
        );
        assert!(matches!(
            parse_line("{\"fire\": \"add\", \"payload\": [1]}"),
            Ok(Command::Fire { action, payload }) if action == "add" && payload == serde_json::json!([1])
        ));
    }
}
