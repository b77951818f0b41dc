//! `fsmc verify`: properties of a machine (stated in its file, or given as
//! flags), proved over every configuration it can reach (`fsm-verify`), with
//! each counterexample as labelled steps and, on request, as a `fsmc run`
//! script.

use crate::checked_source;
use crate::console;
use crate::exit::Exit;
use crate::files;
use clap::Args;
use fsm_grammar::model::{self, Machine};
use fsm_verify::{verify, Formula, Kind, Move, Options, Path, Property, Verdict, NAMED_DELAY_MS};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `fsmc verify`.
#[derive(Debug, Args)]
#[command(after_help = "\
The properties the machine states in its file (`never F;`, `reachable F;`, `recoverable F;`, \
`escapable F;`, optionally named: `property NAME: never F;`) are checked first, then the flags' ones. A formula \
is built from `in(STATE)`, `terminal` (some active leaf is terminal), `!`, `&&`, `||` and \
parentheses. Guards are free: each time a step asks one, it may be true or false.

Exit status: 0 when every property holds, 1 when one is violated, a `reachable` formula is \
unreachable, a result is inconclusive, or the file has errors; 2 for usage errors (no property \
at all among them) and files that cannot be read or written.")]
pub struct VerifyArgs {
    /// The `.fsm` file.
    file: PathBuf,

    /// The machine to verify (required when the file has several).
    #[arg(long, value_name = "NAME")]
    machine: Option<String>,

    /// No reachable configuration satisfies FORMULA.
    #[arg(long, value_name = "FORMULA")]
    never: Vec<String>,

    /// Some reachable configuration satisfies FORMULA.
    #[arg(long, value_name = "FORMULA")]
    reachable: Vec<String>,

    /// From every reachable configuration, some path reaches one satisfying FORMULA.
    #[arg(long, value_name = "FORMULA")]
    recoverable: Vec<String>,

    /// No loop of death while FORMULA holds: from every reachable configuration, some path leaves
    /// FORMULA or comes to rest (no timer armed).
    #[arg(long, value_name = "FORMULA")]
    escapable: Vec<String>,

    /// Write the first counterexample or witness as `fsmc run` input lines to FILE.
    #[arg(long, value_name = "FILE")]
    emit_trace: Option<PathBuf>,

    /// Write the first counterexample or witness as an ITF trace (the Informal Trace Format of
    /// Apalache and Quint) to FILE, with `loop` marking where a lasso's cycle starts.
    #[arg(long, value_name = "FILE")]
    emit_itf: Option<PathBuf>,

    /// The most states the search stores before it stops.
    #[arg(long, value_name = "N", default_value_t = Options::default().max_states)]
    max_states: usize,

    /// How to print the verdicts: `human` (numbered steps), `json` (one document), or `github`
    /// (an annotation on each property that does not hold, for GitHub Actions).
    #[arg(long, value_enum, default_value_t = VerifyFormat::Human)]
    format: VerifyFormat,
}

/// The output formats of `fsmc verify`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum VerifyFormat {
    /// The verdicts, each counterexample as numbered steps.
    Human,
    /// One JSON document: the search's figures, and per property its verdict and path.
    Json,
    /// GitHub Actions workflow commands: an error on each property that does not hold.
    Github,
}

/// What is printed of one property besides its verdict.
struct Checked {
    /// `file:line:col: label` for the file's, `kind formula` for the flags'.
    text: String,
    /// The property's name, if it has one.
    name: Option<String>,
    kind: Kind,
    /// The formula as written out.
    formula: String,
    /// The whole property as written out, without its name: `never F`,
    /// `F leads to G assuming a`.
    written: String,
    /// For `leads to`: `G` and the actions assumed.
    leads_to: Option<(String, Vec<String>)>,
    /// Where the file states it: its first and last line and column.
    place: Option<(fsm_grammar::LineCol, fsm_grammar::LineCol)>,
}

/// Verify the properties; see [`VerifyArgs`] for the exit status.
pub fn run(args: &VerifyArgs) -> Exit {
    let (source, model) = match checked_source::load_machines_with_source(&args.file, "verified") {
        Ok(loaded) => loaded,
        Err(exit) => return exit,
    };
    let machine = match checked_source::chosen_machine(&model, args.machine.as_deref(), &args.file) {
        Ok(machine) => machine,
        Err(exit) => return exit,
    };
    // The file's properties first, in declaration order, each named with
    // its place; then the command line's, grouped by kind.
    let lines = fsm_grammar::LineIndex::new(&source);
    let mut properties: Vec<Property> = machine.properties.iter().map(Property::from).collect();
    let mut checked: Vec<Checked> = machine
        .properties
        .iter()
        .map(|p| {
            let at = lines.line_col(&source, p.span.start);
            let end = lines.line_col(&source, p.span.end);
            Checked {
                text: format!(
                    "{}:{}:{}: {}",
                    args.file.display(),
                    at.line,
                    at.column,
                    p.label(machine)
                ),
                name: p.name.clone(),
                kind: p.kind,
                formula: p.formula.display(machine).to_string(),
                written: p.text(machine),
                leads_to: p.leads_to.as_ref().map(|l| {
                    let names = l
                        .assuming
                        .iter()
                        .map(|&(a, _)| machine.actions[a.index()].name.clone())
                        .collect();
                    (l.formula.display(machine).to_string(), names)
                }),
                place: Some((at, end)),
            }
        })
        .collect();
    let given = [
        (Kind::Never, &args.never),
        (Kind::Reachable, &args.reachable),
        (Kind::Recoverable, &args.recoverable),
        (Kind::Escapable, &args.escapable),
    ];
    for (kind, formulas) in given {
        for text in formulas {
            match Formula::parse(machine, text) {
                Ok(formula) => {
                    let constant = formula.constant(machine);
                    if let Some(value) = constant.filter(|&v| kind.holds_when_constant(v).is_some()) {
                        console::stderr(&fsm_grammar::elide(format!(
                            "warning: `{text}` is {value} in every configuration of `{}`, \
                             so `--{} {text}` says nothing about its steps\n",
                            machine.name,
                            kind.keyword()
                        )));
                    }
                    let written = formula.display(machine).to_string();
                    checked.push(Checked {
                        text: format!("{} {written}", kind.keyword()),
                        name: None,
                        kind,
                        written: format!("{} {written}", kind.keyword()),
                        formula: written,
                        leads_to: None,
                        place: None,
                    });
                    properties.push(Property::new(kind, formula));
                }
                Err(error) => {
                    // A formula of any length is quoted shortened.
                    let message = format!("in `--{} {text}`: {error}", kind.keyword());
                    console::error(fsm_grammar::elide(message));
                    return Exit::Trouble;
                }
            }
        }
    }
    if properties.is_empty() {
        console::error(format_args!(
            "`{}` states no property of machine `{}`, and none was given on the command line\n\
             help: state one in the machine, such as `never in(STATE);`, `reachable in(STATE);` or \
             `recoverable in(STATE);` (docs/dsl.md), or give --never, --reachable, --recoverable or --escapable",
            args.file.display(),
            machine.name
        ));
        return Exit::Trouble;
    }
    let options = Options {
        max_states: args.max_states,
        ..Options::default()
    };
    let report = match verify(machine, &properties, &options) {
        Ok(report) => report,
        Err(error) => {
            console::error(format_args!("`{}`: {error}", args.file.display()));
            return Exit::Problems;
        }
    };
    let mut exit = Exit::Clean;
    for verdict in &report.verdicts {
        if !matches!(verdict, Verdict::Holds | Verdict::Reached(_)) {
            exit.raise(Exit::Problems);
        }
    }
    let out = match args.format {
        VerifyFormat::Human => human(machine, &report, &checked),
        VerifyFormat::Json => json(machine, &report, &checked),
        VerifyFormat::Github => github(machine, &report, &checked, &args.file.display().to_string()),
    };
    console::stdout(&out);
    let first_path = report.verdicts.iter().find_map(|v| match v {
        Verdict::Violated(path) | Verdict::Reached(path) => Some(path),
        _ => None,
    });
    if let Some(file) = &args.emit_itf {
        match first_path {
            None => console::stderr(&format!(
                "note: no counterexample or witness, so `{}` was not written\n",
                file.display()
            )),
            Some(path) => {
                if let Err(error) = files::write(file, &itf(machine, path, &args.file.display().to_string()))
                {
                    console::error(error);
                    exit.raise(Exit::Trouble);
                }
            }
        }
    }
    if let Some(file) = &args.emit_trace {
        let path = first_path;
        match path.map(|path| trace(machine, path)) {
            None => console::stderr(&format!(
                "note: no counterexample or witness, so `{}` was not written\n",
                file.display()
            )),
            Some(Err(why)) => {
                console::error(format_args!("cannot write the trace as `fsmc run` input: {why}"));
                exit.raise(Exit::Trouble);
            }
            Some(Ok(lines)) => {
                if let Err(error) = files::write(file, &lines) {
                    console::error(error);
                    exit.raise(Exit::Trouble);
                } else if !machine.delays.is_empty() {
                    let flags: Vec<String> = machine
                        .delays
                        .iter()
                        .map(|d| format!("--delay {}={}", d.name, delay_text(NAMED_DELAY_MS)))
                        .collect();
                    console::stderr(&format!(
                        "note: the trace takes every named delay to be {}: replay it with `{}`\n",
                        delay_text(NAMED_DELAY_MS),
                        flags.join(" ")
                    ));
                }
            }
        }
    }
    exit
}

/// The verdicts with each path as numbered steps.
fn human(machine: &Machine, report: &fsm_verify::Report, checked: &[Checked]) -> String {
    let mut out = format!(
        "machine `{}`: {} states stored ({} bytes each)\n",
        machine.name, report.states, report.bytes_per_state,
    );
    for (property, verdict) in checked.iter().zip(&report.verdicts) {
        let text = &property.text;
        match verdict {
            Verdict::Holds => writeln!(out, "{text}: holds"),
            Verdict::Unreachable => writeln!(out, "{text}: unreachable"),
            Verdict::Reached(path) => writeln!(out, "{text}: reached in {}", steps(path))
                .and_then(|()| write_path(&mut out, machine, path)),
            Verdict::Violated(path) => writeln!(out, "{text}: violated {}", violation(path))
                .and_then(|()| write_path(&mut out, machine, path))
                .and_then(|()| rests(&mut out, property, path)),
            Verdict::Inconclusive(reasons) => writeln!(out, "{text}: inconclusive").and_then(|()| {
                reasons
                    .iter()
                    .try_for_each(|reason| writeln!(out, "  because {reason}"))
            }),
        }
        .expect("writing to a String");
    }
    out
}

/// The verdict's word, as the human format and JSON say it.
fn verdict_word(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Holds => "holds",
        Verdict::Unreachable => "unreachable",
        Verdict::Reached(_) => "reached",
        Verdict::Violated(_) => "violated",
        Verdict::Inconclusive(_) => "inconclusive",
    }
}

/// One JSON document: the search's figures, then per property its verdict,
/// its path (states by name, each step's move, guard answers and leaves)
/// and the reasons of an inconclusive one.
fn json(machine: &Machine, report: &fsm_verify::Report, checked: &[Checked]) -> String {
    let groups = fsm_grammar::plan::Plan::new(machine).timer_groups;
    let names = |leaves: &[model::StateId]| -> Vec<&str> {
        leaves.iter().map(|&s| machine.state(s).name.as_str()).collect()
    };
    let path_json = |path: &Path| {
        let steps: Vec<serde_json::Value> = path
            .steps
            .iter()
            .map(|step| {
                let mv = match step.mv {
                    Move::Fire(action) => serde_json::json!({"fire": machine.actions[action.index()].name}),
                    Move::Advance => {
                        let fired: Vec<serde_json::Value> = step
                            .outcome
                            .fired
                            .iter()
                            .map(|&(g, taken)| {
                                serde_json::json!({
                                    "timer": groups[g].label,
                                    "state": machine.state(groups[g].state).name,
                                    "taken": taken,
                                })
                            })
                            .collect();
                        serde_json::json!({"advance": delay_text(step.outcome.advanced), "fired": fired})
                    }
                };
                let guards: Vec<serde_json::Value> = step
                    .guards
                    .iter()
                    .map(|&(g, value)| serde_json::json!({"guard": machine.guards[g.index()].name, "value": value}))
                    .collect();
                serde_json::json!({
                    "move": mv,
                    "guards": guards,
                    "refused": step.outcome.refused,
                    "runaway": step.outcome.runaway,
                    "leaves": names(&step.leaves),
                })
            })
            .collect();
        serde_json::json!({"start": names(&path.start), "steps": steps, "cycle": path.cycle})
    };
    let properties: Vec<serde_json::Value> = checked
        .iter()
        .zip(&report.verdicts)
        .map(|(property, verdict)| {
            let (path, reasons) = match verdict {
                Verdict::Violated(path) | Verdict::Reached(path) => (path_json(path), Vec::new()),
                Verdict::Inconclusive(reasons) => (serde_json::Value::Null, reasons.clone()),
                _ => (serde_json::Value::Null, Vec::new()),
            };
            let (target, assuming) = match &property.leads_to {
                Some((target, names)) => (serde_json::json!(target), serde_json::json!(names)),
                None => (serde_json::Value::Null, serde_json::Value::Null),
            };
            serde_json::json!({
                "name": property.name,
                "kind": property.kind.keyword(),
                "formula": property.formula,
                "target": target,
                "assuming": assuming,
                "line": property.place.map(|(at, _)| at.line),
                "column": property.place.map(|(at, _)| at.column),
                "verdict": verdict_word(verdict),
                "path": path,
                "reasons": reasons,
            })
        })
        .collect();
    let document = serde_json::json!({
        "machine": machine.name,
        "states": report.states,
        "bytes_per_state": report.bytes_per_state,
        "complete": report.complete,
        "properties": properties,
    });
    let mut out = serde_json::to_string_pretty(&document).expect("JSON serializes");
    out.push('\n');
    out
}

/// An error annotation on each property that does not hold (violated,
/// unreachable, inconclusive), on its span for the file's, and with the
/// path as the message's lines.
fn github(machine: &Machine, report: &fsm_verify::Report, checked: &[Checked], file: &str) -> String {
    let escape = |value: &str| {
        value
            .replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let escape_property = |value: &str| escape(value).replace(':', "%3A").replace(',', "%2C");
    let mut out = String::new();
    for (property, verdict) in checked.iter().zip(&report.verdicts) {
        if matches!(verdict, Verdict::Holds | Verdict::Reached(_)) {
            continue;
        }
        let mut message = format!("{}: {}", property.written, verdict_word(verdict));
        match verdict {
            Verdict::Violated(path) => {
                message.push_str(&format!(" {}\n", violation(path)));
                write_path(&mut message, machine, path).expect("writing to a String");
                rests(&mut message, property, path).expect("writing to a String");
            }
            Verdict::Inconclusive(reasons) => {
                for reason in reasons {
                    message.push_str(&format!("\nbecause {reason}"));
                }
            }
            _ => {}
        }
        let title = escape_property(&match &property.name {
            Some(name) => format!("fsmc verify: {name}"),
            None => "fsmc verify".to_owned(),
        });
        let place = match property.place {
            Some((at, end)) => format!(
                "file={},line={},col={},endLine={},endColumn={},",
                escape_property(file),
                at.line,
                at.column,
                end.line,
                end.column
            ),
            None => String::new(),
        };
        out.push_str(&format!(
            "::error {place}title={title}::{}\n",
            escape(message.trim_end())
        ));
    }
    out
}

fn steps(path: &Path) -> String {
    count(path.steps.len())
}

fn count(n: usize) -> String {
    match n {
        1 => "1 step".into(),
        n => format!("{n} steps"),
    }
}

/// After a `leads to` run that is not a lasso: why it ends there.
fn rests(out: &mut String, property: &Checked, path: &Path) -> std::fmt::Result {
    if property.kind == Kind::LeadsTo && path.cycle.is_none() {
        let assumed = match &property.leads_to {
            Some((_, names)) if !names.is_empty() => ", no assumed action is accepted,",
            _ => "",
        };
        writeln!(
            out,
            "  then it may wait here for ever: no timer is armed{assumed} and no event need come"
        )?;
    }
    Ok(())
}

/// How a violation is reached: `in 3 steps`, or for a lasso `in a loop of
/// 2 steps, after 1`.
fn violation(path: &Path) -> String {
    match path.cycle {
        None => format!("in {}", steps(path)),
        Some(start) => format!(
            "in a loop of {} repeated forever, after {}",
            count(path.steps.len() - start),
            count(start)
        ),
    }
}

fn delay_text(ms: u32) -> String {
    model::duration_text(Duration::from_millis(u64::from(ms)))
}

fn leaves(machine: &Machine, leaves: &[model::StateId]) -> String {
    leaves
        .iter()
        .map(|&s| format!("`{}`", machine.state(s).name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The path as numbered steps: the move, the guard answers it used, where
/// it left the machine.
pub(crate) fn write_path(out: &mut String, machine: &Machine, path: &Path) -> std::fmt::Result {
    let groups = fsm_grammar::plan::Plan::new(machine).timer_groups;
    writeln!(out, "  start in {}", leaves(machine, &path.start))?;
    for (n, step) in path.steps.iter().enumerate() {
        if path.cycle == Some(n) {
            writeln!(out, "  the loop, repeated forever:")?;
        }
        write!(out, "  {}. ", n + 1)?;
        match step.mv {
            Move::Fire(action) => write!(out, "fire `{}`", machine.actions[action.index()].name)?,
            Move::Advance => {
                write!(out, "advance {}", delay_text(step.outcome.advanced))?;
                let fired: Vec<String> = step
                    .outcome
                    .fired
                    .iter()
                    .map(|&(g, taken)| {
                        let group = &groups[g];
                        format!(
                            "`{}` of `{}`{}",
                            group.label,
                            machine.state(group.state).name,
                            if taken { "" } else { " (rejected)" }
                        )
                    })
                    .collect();
                write!(out, " ({})", fired.join(", "))?;
            }
        }
        if !step.guards.is_empty() {
            // Each answer once, in the order first asked, with how often it
            // was given when more than once (a chain that runs away asks
            // its guards a thousand times).
            let mut counted: Vec<((model::GuardId, bool), usize)> = Vec::new();
            for &answer in &step.guards {
                match counted.iter_mut().find(|(a, _)| *a == answer) {
                    Some((_, n)) => *n += 1,
                    None => counted.push((answer, 1)),
                }
            }
            let answers: Vec<String> = counted
                .iter()
                .map(|&((g, value), n)| {
                    let times = if n > 1 {
                        format!(" ({n} times)")
                    } else {
                        String::new()
                    };
                    format!("{} = {value}{times}", machine.guards[g.index()].name)
                })
                .collect();
            write!(out, " [guards asked: {}]", answers.join(", "))?;
        }
        if step.outcome.runaway {
            write!(out, " (an `always` or `done` chain ran away)")?;
        }
        if step.outcome.refused {
            write!(out, " (refused: no guard held)")?;
        }
        writeln!(out, " -> {}", leaves(machine, &step.leaves))?;
    }
    Ok(())
}

/// The path as an ITF trace: one state per configuration the machine rests
/// in (the start, then after each step), each with its active leaves (a
/// set), the event that led to it (`init` for the start, an action's name,
/// or `advance`), and the milliseconds elapsed since the start; `loop` is
/// the index of the state a lasso's last step returns to.
pub(crate) fn itf(machine: &Machine, path: &Path, source: &str) -> String {
    let names = |leaves: &[model::StateId]| -> Vec<&str> {
        leaves.iter().map(|&s| machine.state(s).name.as_str()).collect()
    };
    let mut elapsed = 0u64;
    let mut states = vec![serde_json::json!({
        "#meta": {"index": 0},
        "leaves": {"#set": names(&path.start)},
        "event": "init",
        "elapsed_ms": 0,
    })];
    for (n, step) in path.steps.iter().enumerate() {
        let event = match step.mv {
            Move::Fire(action) => machine.actions[action.index()].name.clone(),
            Move::Advance => {
                elapsed += u64::from(step.outcome.advanced);
                "advance".to_owned()
            }
        };
        states.push(serde_json::json!({
            "#meta": {"index": n + 1},
            "leaves": {"#set": names(&step.leaves)},
            "event": event,
            "elapsed_ms": elapsed,
        }));
    }
    let mut document = serde_json::json!({
        "#meta": {
            "format": "ITF",
            "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
            "source": source,
            "description": format!("fsmc verify: a run of machine `{}`", machine.name),
        },
        "vars": ["leaves", "event", "elapsed_ms"],
        "states": states,
    });
    if let Some(cycle) = path.cycle {
        document["loop"] = serde_json::json!(cycle);
    }
    let mut out = serde_json::to_string_pretty(&document).expect("JSON serializes");
    out.push('\n');
    out
}

/// The path as `fsmc run` input: before each step, a `guards` line setting
/// the guards it asks whose value changes. A lasso's cycle is written once.
///
/// # Errors
///
/// A step that asks one guard twice with different answers: `fsmc run`
/// sets guards once per line.
pub(crate) fn trace(machine: &Machine, path: &Path) -> Result<String, String> {
    let mut table = vec![false; machine.guards.len()];
    let mut lines = String::new();
    for (n, step) in path.steps.iter().enumerate() {
        let mut wanted: Vec<Option<bool>> = vec![None; machine.guards.len()];
        for &(g, value) in &step.guards {
            match wanted[g.index()] {
                Some(before) if before != value => {
                    return Err(format!(
                        "step {} asks guard `{}` twice, {before} then {value}, and `fsmc run` sets \
                         a guard once per line (the dynamic engine replayed it with those answers)",
                        n + 1,
                        machine.guards[g.index()].name
                    ));
                }
                _ => wanted[g.index()] = Some(value),
            }
        }
        let mut changes = Vec::new();
        for (g, value) in wanted.iter().enumerate() {
            if let Some(value) = value.filter(|&v| v != table[g]) {
                table[g] = value;
                let name = serde_json::to_string(&machine.guards[g].name).expect("a string");
                changes.push(format!("{name}: {value}"));
            }
        }
        if !changes.is_empty() {
            writeln!(lines, "{{\"guards\": {{{}}}}}", changes.join(", ")).expect("writing to a String");
        }
        let line = match step.mv {
            Move::Fire(action) => format!(
                "{{\"fire\": {}}}",
                serde_json::to_string(&machine.actions[action.index()].name).expect("a string")
            ),
            Move::Advance => format!("{{\"advance\": \"{}\"}}", delay_text(step.outcome.advanced)),
        };
        writeln!(lines, "{line}").expect("writing to a String");
    }
    Ok(lines)
}
