//! The incremental `cargo build` (debug) of a crate holding a 200-state,
//! 1,000-transition machine through `fsm!`, against the same machine in
//! smlang (see `fsm_bench::compile_bench`).
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin compile_time
//! ```
//!
//! Writes two throwaway crates under `bench/target/compile-bench/`, each with
//! its own target directory, and builds each once (the dependencies and a
//! first build of the crate: not timed). Then, N times, alternating between
//! the crates, it edits the machine (one transition's target flips between
//! two states: `machine.fsm` for `fsm!`, `src/lib.rs` for smlang) and times
//! `cargo build`, so each timed build recompiles exactly the crate holding
//! the machine, as after a user's edit. A no-op `cargo build` of each crate
//! is timed too, to show cargo's fixed cost in those figures.

use fsm_bench::compile_bench;
use fsm_bench::harness::median;
use fsm_bench::host;
use fsm_bench::table::thousands;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: compile_time [--runs N] [--dir DIR]

  --runs N   timed incremental builds of each crate (default 5)
  --dir DIR  where to write the crates (default bench/target/compile-bench)";

struct Options {
    runs: usize,
    dir: PathBuf,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        runs: 5,
        dir: Path::new(env!("CARGO_MANIFEST_DIR")).join("target/compile-bench"),
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => {
                let v = args.next().ok_or("`--runs` needs a value")?;
                options.runs = match v.parse::<usize>() {
                    Ok(n) if (1..=101).contains(&n) => n,
                    _ => return Err(format!("`--runs` takes a number from 1 to 101, not `{v}`")),
                };
            }
            "--dir" => options.dir = PathBuf::from(args.next().ok_or("`--dir` needs a value")?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unexpected argument `{other}`")),
        }
    }
    Ok(options)
}

/// One throwaway crate.
struct Bench {
    label: &'static str,
    dir: PathBuf,
    /// The file edited before each timed build, relative to `dir`.
    edited: &'static str,
    /// Its contents in each variant.
    source: fn(bool) -> String,
}

impl Bench {
    fn write_edited(&self, variant: bool) -> Result<(), String> {
        write(&self.dir.join(self.edited), &(self.source)(variant))
    }

    /// `cargo build` of this crate: its wall time, or its output on failure.
    fn build(&self) -> Result<Duration, String> {
        let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        command
            .arg("build")
            .arg("--quiet")
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .stdin(Stdio::null());
        // Cargo passes its own settings to the programs it runs; the
        // throwaway builds must see only the user's environment.
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy().into_owned();
            let keep = key == "CARGO_HOME" || key == "CARGO";
            if key.starts_with("CARGO_") && !keep {
                command.env_remove(&key);
            }
        }
        command.env("CARGO_TARGET_DIR", self.dir.join("target"));
        let start = Instant::now();
        let output = command.output().map_err(|e| format!("cannot run cargo: {e}"))?;
        let elapsed = start.elapsed();
        if output.status.success() {
            Ok(elapsed)
        } else {
            Err(format!(
                "`cargo build` of the {} crate failed:\n{}",
                self.label,
                String::from_utf8_lossy(&output.stderr)
            ))
        }
    }
}

fn write(path: &Path, contents: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
    }
    std::fs::write(path, contents).map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

fn fsm_crate(root: &Path) -> Result<Bench, String> {
    let dir = root.join("fsm");
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fsm-runtime");
    let runtime = runtime
        .canonicalize()
        .map_err(|e| format!("cannot find fsm-runtime at `{}`: {e}", runtime.display()))?;
    write(
        &dir.join("Cargo.toml"),
        &compile_bench::manifest(
            "compile-bench-fsm",
            &format!("fsm-runtime = {{ path = {:?} }}", runtime.display().to_string()),
        ),
    )?;
    write(&dir.join("src/lib.rs"), &compile_bench::fsm_lib())?;
    let bench = Bench {
        label: "fsm!",
        dir,
        edited: "machine.fsm",
        source: compile_bench::fsm_machine,
    };
    bench.write_edited(false)?;
    Ok(bench)
}

fn smlang_crate(root: &Path) -> Result<Bench, String> {
    let dir = root.join("smlang");
    write(
        &dir.join("Cargo.toml"),
        &compile_bench::manifest("compile-bench-smlang", "smlang = \"0.8\""),
    )?;
    let bench = Bench {
        label: "smlang",
        dir,
        edited: "src/lib.rs",
        source: compile_bench::smlang_lib,
    };
    bench.write_edited(false)?;
    Ok(bench)
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(message) if message.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("error: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn run(options: &Options) -> Result<(), String> {
    println!("Machine: {}", host::summary());
    println!(
        "A machine of {} states and {} transitions; crates in `{}`; debug profile.\n",
        compile_bench::STATES,
        thousands(compile_bench::TRANSITIONS as u64),
        options.dir.display()
    );
    let benches = [fsm_crate(&options.dir)?, smlang_crate(&options.dir)?];

    // Warm: dependencies, then a first build of each crate and a no-op.
    for bench in &benches {
        let first = bench.build()?;
        eprintln!(
            "{}: first build (dependencies included) {}",
            bench.label,
            seconds(first)
        );
    }
    let noop: Vec<Duration> = benches.iter().map(Bench::build).collect::<Result<_, _>>()?;

    let load_before = host::load_average();
    let mut times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for run in 0..options.runs {
        let variant = run % 2 == 0;
        for (i, bench) in benches.iter().enumerate() {
            bench.write_edited(variant)?;
            let elapsed = bench.build()?;
            eprintln!("{} run {}: {}", bench.label, run + 1, seconds(elapsed));
            times[i].push(elapsed);
        }
    }
    // Leave the crates as first written.
    for bench in &benches {
        if options.runs % 2 == 1 {
            bench.write_edited(false)?;
        }
    }
    let load_after = host::load_average();

    println!("Load average before the timed builds: {load_before}; after: {load_after}.\n");
    println!("| crate | median incremental build | min | max | all runs | no-op build |");
    println!("|:---|---:|---:|---:|:---|---:|");
    for (i, bench) in benches.iter().enumerate() {
        let all: Vec<String> = times[i]
            .iter()
            .map(|&d| format!("{:.2}", d.as_secs_f64()))
            .collect();
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            bench.label,
            seconds(median(&times[i])),
            seconds(*times[i].iter().min().expect("at least one run")),
            seconds(*times[i].iter().max().expect("at least one run")),
            all.join(", "),
            seconds(noop[i]),
        );
    }
    let ratio = median(&times[0]).as_secs_f64() / median(&times[1]).as_secs_f64();
    let paired: Vec<f64> = times[0]
        .iter()
        .zip(&times[1])
        .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
        .collect();
    println!(
        "\nfsm! / smlang: {ratio:.2}× (ratio of medians; median of the per-run ratios {:.2}×); \
         target ≤ 0.5×: {}.",
        median(&paired),
        if ratio <= 0.5 { "met" } else { "**not met**" }
    );
    Ok(())
}
