//! `fsmc test`: event sequences that together take every transition of a
//! machine and give each guard both values where both are possible
//! (`fsm_verify::cover`), printed as labelled steps and, with `--out-dir`,
//! written as `fsmc run` scripts beside the output `fsmc run` gives for them,
//! and as Rust tests ([`rust`]).

mod rust;

use crate::checked_source;
use crate::console;
use crate::exit::Exit;
use crate::files;
use crate::run::{Output, Session, Sink};
use crate::verify::{trace, write_path};
use clap::Args;
use fsm_dynamic::Definition;
use fsm_grammar::model::duration_text;
use fsm_grammar::model::{Chosen, Machine};
use fsm_grammar::naming::snake;
use fsm_grammar::LineIndex;
use fsm_runtime::RestorePolicy;
use fsm_verify::{cover, Goal, Options, Suite, NAMED_DELAY_MS};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments of `fsmc test`.
#[derive(Debug, Args)]
#[command(after_help = "\
Each sequence starts from the initial state. Guards are free, as in `fsmc verify`: each step \
sets the guards it asks. With --out-dir DIR, sequence N of machine M is written as \
DIR/m-N.jsonl (`fsmc run` input) and DIR/m-N.out (what `fsmc run` printed for it); \
`fsmc run FILE --machine M --events DIR/m-N.jsonl | diff DIR/m-N.out -` checks it again. \
A machine without a context and payloads also gets DIR/m_tests.rs: each sequence as a Rust \
`#[test]` over the generated machine, through `Recorded`.

Exit status: 0 when the sequences were generated (goals no sequence can reach are listed, \
not an error); 1 when the file has errors; 2 for usage errors and files that cannot be read or \
written.")]
pub struct TestArgs {
    /// The `.fsm` file.
    file: PathBuf,

    /// The machine to generate sequences for (required when the file has several).
    #[arg(long, value_name = "NAME")]
    machine: Option<String>,

    /// Write each sequence as a `fsmc run` script, with its expected output, into DIR.
    #[arg(long, short = 'o', value_name = "DIR")]
    out_dir: Option<PathBuf>,

    /// The most states the search stores before it stops.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    max_states: usize,
}

/// Generate the sequences; see [`TestArgs`] for the exit status.
pub fn run(args: &TestArgs) -> Exit {
    let (source, model) = match checked_source::load_with_source(&args.file, "tested") {
        Ok(loaded) => loaded,
        Err(exit) => return exit,
    };
    let machine = match checked_source::chosen_machine(&model, args.machine.as_deref(), &args.file) {
        Ok(machine) => machine,
        Err(exit) => return exit,
    };
    let options = Options {
        max_states: args.max_states,
        ..Options::default()
    };
    let suite = match cover(machine, &options) {
        Ok(suite) => suite,
        Err(error) => {
            console::error(format_args!("`{}`: {error}", args.file.display()));
            return Exit::Problems;
        }
    };
    let mut out = summary(machine, &suite);
    for (n, path) in suite.sequences.iter().enumerate() {
        let events = match path.steps.len() {
            1 => "1 event".to_owned(),
            k => format!("{k} events"),
        };
        writeln!(out, "sequence {} ({events}):", n + 1).expect("writing to a String");
        write_path(&mut out, machine, path).expect("writing to a String");
    }
    let missed = missed(machine, &source, &suite);
    if !missed.is_empty() {
        let why = if suite.complete {
            "no sequence of events reaches"
        } else {
            "the search stopped (raise --max-states) before reaching"
        };
        writeln!(out, "{why}:").expect("writing to a String");
        for goal in missed {
            writeln!(out, "  {goal}").expect("writing to a String");
        }
    }
    console::stdout(&out);
    let mut exit = Exit::Clean;
    for (n, why) in &suite.unreplayed {
        console::error(format_args!(
            "sequence {} did not replay on the dynamic engine ({why}); this is a bug of fsmc's",
            n + 1
        ));
        exit.raise(Exit::Problems);
    }
    if let Some(dir) = &args.out_dir {
        exit.raise(write_suite(args, machine, &suite, dir));
    }
    exit
}

/// `machine `M`: 3 sequences, 14 events (lower bound 12) reach ...`.
fn summary(machine: &Machine, suite: &Suite) -> String {
    let count = |guard: bool| {
        let of = |g: &Goal| matches!(g, Goal::Guard(..)) == guard;
        let all = suite.goals.iter().filter(|g| of(g)).count();
        let reached = suite
            .goals
            .iter()
            .zip(&suite.reached)
            .filter(|(g, r)| of(g) && r.is_some())
            .count();
        (reached, all)
    };
    let (taken, transitions) = count(false);
    let (tested, outcomes) = count(true);
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "machine `{}`: {}, {} (lower bound {}) take {taken} of {} and give {tested} of {} \
         ({} stored)\n",
        machine.name,
        plural(suite.sequences.len(), "sequence", "sequences"),
        plural(suite.events, "event", "events"),
        suite.lower_bound,
        plural(transitions, "transition", "transitions"),
        plural(outcomes, "guard outcome", "guard outcomes"),
        plural(suite.states, "state", "states"),
    )
}

/// The goals no sequence reaches, each with the transition's line and text.
fn missed(machine: &Machine, source: &str, suite: &Suite) -> Vec<String> {
    let lines = LineIndex::new(source);
    let text = |c: Chosen| {
        let span = machine.transition_of(c).span;
        let at = lines.line_col(source, span.start);
        let written: Vec<&str> = source[span.start..span.end].split_whitespace().collect();
        fsm_grammar::elide(format!("line {}: `{}`", at.line, written.join(" ")))
    };
    suite
        .goals
        .iter()
        .zip(&suite.reached)
        .filter(|(_, r)| r.is_none())
        .map(|(goal, _)| match *goal {
            Goal::Taken(c) => format!("taking {}", text(c)),
            Goal::Guard(c, value) => format!("its guard {value} at {}", text(c)),
        })
        .collect()
}

/// Each sequence's script and the output `fsmc run` gives for it.
fn write_suite(args: &TestArgs, machine: &Machine, suite: &Suite, dir: &Path) -> Exit {
    if let Err(error) = std::fs::create_dir_all(dir) {
        console::error(format_args!("cannot create `{}`: {error}", dir.display()));
        return Exit::Trouble;
    }
    let stem = snake(&machine.name);
    let delays: Vec<String> = machine
        .delays
        .iter()
        .map(|d| {
            let ms = Duration::from_millis(u64::from(NAMED_DELAY_MS));
            format!("{}={}", d.name, duration_text(ms))
        })
        .collect();
    let definition = match Definition::try_from_machine(machine) {
        Ok(definition) => definition,
        Err(error) => {
            console::error(format_args!("`{}`: {error}", args.file.display()));
            return Exit::Problems;
        }
    };
    let delay = Duration::from_millis(u64::from(NAMED_DELAY_MS));
    for (n, path) in suite.sequences.iter().enumerate() {
        let script = match trace(machine, path) {
            Ok(script) => script,
            Err(why) => {
                console::error(format_args!(
                    "sequence {} cannot be a `fsmc run` script: {why}",
                    n + 1
                ));
                return Exit::Problems;
            }
        };
        let script_path = dir.join(format!("{stem}-{}.jsonl", n + 1));
        if let Err(error) = files::write(&script_path, &script) {
            console::error(error);
            return Exit::Trouble;
        }
        // What `fsmc run` prints for the script: its session, run here.
        let sink = Sink::default();
        let mut session = Session::new(
            definition.clone(),
            Value::Null,
            vec![delay; machine.delays.len()],
            Output::json_into(Box::new(sink.clone())),
            RestorePolicy::default(),
        );
        for (number, line) in script.lines().enumerate() {
            if session.apply_line(number as u64 + 1, line.as_bytes()) == Some(false) {
                console::error(format_args!(
                    "`fsmc run` refuses line {} of `{}`: {}",
                    number + 1,
                    script_path.display(),
                    sink.take()
                ));
                return Exit::Problems;
            }
        }
        let mut output = sink.take();
        output.push('\n');
        let out_path = dir.join(format!("{stem}-{}.out", n + 1));
        if let Err(error) = files::write(&out_path, &output) {
            console::error(error);
            return Exit::Trouble;
        }
    }
    let flags: String = delays.iter().map(|d| format!(" --delay {d}")).collect();
    let written = match suite.sequences.len() {
        1 => "1 script and its output".to_owned(),
        n => format!("{n} scripts and their outputs"),
    };
    let rust = match rust::unsupported(machine) {
        Some(why) => format!("; no Rust tests, because {why}"),
        None => {
            let tests = rust::tests(machine, &args.file.display().to_string(), &suite.sequences);
            let path = dir.join(format!("{stem}_tests.rs"));
            if let Err(error) = files::write(&path, &tests) {
                console::error(error);
                return Exit::Trouble;
            }
            format!(" and the Rust tests `{}`", path.display())
        }
    };
    console::stderr(&format!(
        "wrote {written}{rust} to `{}`; check a script again with `fsmc run {} --machine {}{flags} \
         --events {}` and compare with its `.out`\n",
        dir.display(),
        args.file.display(),
        machine.name,
        dir.join(format!("{stem}-1.jsonl")).display(),
    ));
    Exit::Clean
}
