//! Throughput of the fsmc front end on generated machines.
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin check_throughput
//! cargo run --release --manifest-path bench/Cargo.toml --bin check_throughput -- --emit /tmp/fsm-bench
//! cargo run --release --manifest-path bench/Cargo.toml --bin check_throughput -- --adversarial
//! cargo run --release --manifest-path bench/Cargo.toml --bin check_throughput -- --memory
//! ```
//!
//! Generates machines of 1,000, 10,000 and 100,000 transitions (see
//! `fsm_bench::generator`) and times, on each, `fsm_grammar::check` (parse,
//! lower and every check: what `fsmc check` runs per file), `parse` alone and
//! `format::format`. Prints the median and minimum wall time, MB/s,
//! transitions/s and the number of diagnostics, then the growth ratios between
//! sizes: a front end that is linear in its input shows ratios near 10.
//!
//! `--emit DIR` writes the machines to `DIR/bench_{1k,10k,100k}.fsm` instead,
//! so the whole CLI can be timed with e.g. `hyperfine 'fsmc check DIR/bench_100k.fsm'`.
//!
//! `--adversarial` times `check` on the shapes of `fsm_bench::adversarial`
//! instead, each at two sizes (the second twice the first), and prints the
//! growth of the time: about 2 when the checks are linear, 4 when quadratic.
//!
//! `--memory` measures, instead of time, the peak of live heap bytes (a
//! counting global allocator, `fsm_bench::alloc_counter`) of `check`,
//! `format`, the JSON import and `Definition::from_json` on the generated
//! machines, a chain of 100,000 states, and a document whose one action name
//! is 50 MB long, each as a multiple of its input's size.

use fsm_bench::adversarial::{self, Shape};
use fsm_bench::alloc_counter::{self, CountingAllocator};
use fsm_bench::generator::{self, Generated};
use fsm_bench::host;
use fsm_bench::table::{bytes, millis, thousands};
use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Default sizes, in transitions, with the number of timed runs of each.
const SIZES: &[(usize, usize)] = &[(1_000, 11), (10_000, 11), (100_000, 5)];

const USAGE: &str = "\
usage: check_throughput [--sizes N,N,...] [--runs N] [--emit DIR] [--adversarial] [--memory]

  --sizes N,N,...  machine sizes in transitions (default 1000,10000,100000)
  --runs N         timed runs per size and phase (default 11, and 5 from 100000 on)
  --emit DIR       write the machines to DIR/bench_<size>.fsm and exit, for timing
                   `fsmc check` by hand (e.g. with hyperfine)
  --adversarial    time `check` on the adversarial shapes instead, at two sizes each
                   (runs default to 5)
  --memory         measure the peak heap of each phase instead of its time";

struct Options {
    sizes: Vec<(usize, usize)>,
    emit: Option<PathBuf>,
    adversarial: Option<usize>,
    memory: bool,
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut sizes: Vec<usize> = SIZES.iter().map(|&(n, _)| n).collect();
    let mut runs: Option<usize> = None;
    let mut emit = None;
    let mut adversarial = false;
    let mut memory = false;
    let mut args = args;
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("`{flag}` needs a value"));
        match arg.as_str() {
            "--sizes" => {
                sizes = value("--sizes")?
                    .split(',')
                    .map(|s| match s.trim().replace('_', "").parse::<usize>() {
                        Ok(n) if n > 0 => Ok(n),
                        _ => Err(format!("`{s}` is not a positive number of transitions")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--runs" => {
                let v = value("--runs")?;
                runs = Some(match v.parse::<usize>() {
                    Ok(n) if n > 0 => n,
                    _ => return Err(format!("`{v}` is not a positive number of runs")),
                });
            }
            "--emit" => emit = Some(PathBuf::from(value("--emit")?)),
            "--adversarial" => adversarial = true,
            "--memory" => memory = true,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unexpected argument `{other}`")),
        }
    }
    let sizes = sizes
        .into_iter()
        .map(|n| (n, runs.unwrap_or(if n >= 100_000 { 5 } else { 11 })))
        .collect();
    Ok(Options {
        sizes,
        emit,
        adversarial: adversarial.then_some(runs.unwrap_or(5)),
        memory,
    })
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
    if options.memory {
        run_memory(&options.sizes);
        return ExitCode::SUCCESS;
    }
    if let Some(runs) = options.adversarial {
        run_adversarial(runs);
        return ExitCode::SUCCESS;
    }
    match &options.emit {
        Some(dir) => emit(dir, &options.sizes),
        None => {
            run(&options.sizes);
            ExitCode::SUCCESS
        }
    }
}

fn generate(transitions: usize) -> Generated {
    generator::machine("Bench", transitions, generator::SEED)
}

fn size_label(n: usize) -> String {
    if n.is_multiple_of(1_000_000) {
        format!("{}m", n / 1_000_000)
    } else if n.is_multiple_of(1_000) {
        format!("{}k", n / 1_000)
    } else {
        n.to_string()
    }
}

fn emit(dir: &PathBuf, sizes: &[(usize, usize)]) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("error: cannot create `{}`: {e}", dir.display());
        return ExitCode::from(2);
    }
    let mut largest = None;
    for &(n, _) in sizes {
        let path = dir.join(format!("bench_{}.fsm", size_label(n)));
        let g = generate(n);
        if let Err(e) = std::fs::write(&path, &g.text) {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            return ExitCode::from(2);
        }
        println!(
            "{}: {} transitions, {} states, {} bytes",
            path.display(),
            g.transitions,
            g.states,
            g.text.len()
        );
        largest = largest.max(Some((n, path)));
    }
    if let Some((_, path)) = largest {
        println!(
            "\ntime the CLI with e.g.: hyperfine --warmup 2 'target/release/fsmc check {}'",
            path.display()
        );
    }
    ExitCode::SUCCESS
}

/// Wall times of `runs` calls of `f`, after one untimed warm-up call. What `f`
/// returns is dropped outside the timed region.
fn time<R>(runs: usize, mut f: impl FnMut() -> R) -> Timing {
    drop(black_box(f()));
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let result = black_box(f());
        times.push(start.elapsed());
        drop(result);
    }
    times.sort();
    Timing {
        median: times[times.len() / 2],
        min: times[0],
    }
}

#[derive(Clone, Copy)]
struct Timing {
    median: Duration,
    min: Duration,
}

struct Row {
    transitions: usize,
    states: usize,
    bytes: usize,
    runs: usize,
    check: Timing,
    parse: Timing,
    format: Timing,
    diagnostics: usize,
}

fn run(sizes: &[(usize, usize)]) {
    println!("Machine: {}\n", host::summary());
    println!(
        "fsm-grammar front end on generated machines (seed {:#x}); wall time per call, median and min of N runs\n",
        generator::SEED
    );
    println!(
        "| transitions | states | size | N | phase | median | min | MB/s | transitions/s | diagnostics |"
    );
    println!("|---:|---:|---:|---:|:---|---:|---:|---:|---:|---:|");
    let mut rows = Vec::new();
    for &(n, runs) in sizes {
        let g = generate(n);
        let text = g.text.as_str();

        let checked = fsm_grammar::check(text);
        let diagnostics = checked.diagnostics.len();
        for d in checked.diagnostics.iter().take(5) {
            let at = fsm_grammar::LineIndex::new(text).line_col(text, d.span.start);
            eprintln!(
                "  {}:{}: {}[{}]: {}",
                at.line, at.column, d.severity, d.code, d.message
            );
        }
        drop(checked);
        let formatted = fsm_grammar::format::format(text);
        if let Err(errors) = &formatted {
            eprintln!(
                "  format failed on the {n}-transition machine: {} diagnostics",
                errors.len()
            );
        }

        let row = Row {
            transitions: g.transitions,
            states: g.states,
            bytes: text.len(),
            runs,
            check: time(runs, || fsm_grammar::check(text)),
            parse: time(runs, || fsm_grammar::parse(text)),
            format: time(runs, || fsm_grammar::format::format(text)),
            diagnostics,
        };
        let lower_and_checks = Timing {
            median: row.check.median.saturating_sub(row.parse.median),
            min: row.check.min.saturating_sub(row.parse.min),
        };
        print_row(&row, "check", row.check, &row.diagnostics.to_string());
        print_row(&row, "parse", row.parse, "");
        print_row(&row, "lower + checks ¹", lower_and_checks, "");
        print_row(&row, "format", row.format, "");
        rows.push(row);
    }
    println!("\n¹ check − parse: lowering and every semantic check.");

    if rows.len() > 1 {
        println!("\nGrowth of the median time between sizes (≈ the size ratio when linear):\n");
        println!("| from → to | size ratio | check | parse | format |");
        println!("|:---|---:|---:|---:|---:|");
        for pair in rows.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let ratio = |f: fn(&Row) -> Timing| f(b).median.as_secs_f64() / f(a).median.as_secs_f64();
            println!(
                "| {} → {} | {:.1} | {:.2} | {:.2} | {:.2} |",
                size_label(a.transitions),
                size_label(b.transitions),
                b.transitions as f64 / a.transitions as f64,
                ratio(|r| r.check),
                ratio(|r| r.parse),
                ratio(|r| r.format),
            );
        }
    }
}

fn print_row(row: &Row, phase: &str, t: Timing, diagnostics: &str) {
    let secs = t.median.as_secs_f64();
    println!(
        "| {} | {} | {} | {} | {phase} | {} | {} | {:.1} | {} | {diagnostics} |",
        thousands(row.transitions as u64),
        thousands(row.states as u64),
        bytes(row.bytes),
        row.runs,
        millis(t.median),
        millis(t.min),
        row.bytes as f64 / 1e6 / secs,
        thousands((row.transitions as f64 / secs) as u64),
    );
}

/// `check` on one adversarial machine.
struct AdversarialRow {
    size: usize,
    bytes: usize,
    check: Timing,
    diagnostics: usize,
}

fn run_adversarial(runs: usize) {
    println!("Machine: {}\n", host::summary());
    println!(
        "`fsm_grammar::check` on adversarial machines; wall time per call, median and min of {runs} runs\n"
    );
    println!("| shape | size | text | median | min | diagnostics | growth for 2× size |");
    println!("|:---|---:|---:|---:|---:|---:|---:|");
    for shape in adversarial::SHAPES {
        let rows: Vec<AdversarialRow> = [shape.size, 2 * shape.size]
            .into_iter()
            .map(|size| adversarial_row(shape, size, runs))
            .collect();
        let growth = rows[1].check.median.as_secs_f64() / rows[0].check.median.as_secs_f64();
        for (i, row) in rows.iter().enumerate() {
            println!(
                "| {} | {} {} | {} | {} | {} | {} | {} |",
                shape.name,
                thousands(row.size as u64),
                shape.unit,
                bytes(row.bytes),
                millis(row.check.median),
                millis(row.check.min),
                thousands(row.diagnostics as u64),
                if i == 1 {
                    format!("{growth:.2}×")
                } else {
                    String::new()
                },
            );
        }
    }
    println!("\nLoad average at the end: {}.", host::load_average());
}

fn adversarial_row(shape: &Shape, size: usize, runs: usize) -> AdversarialRow {
    let text = (shape.build)(size);
    let diagnostics = fsm_grammar::check(&text).diagnostics.len();
    AdversarialRow {
        size,
        bytes: text.len(),
        check: time(runs, || fsm_grammar::check(&text)),
        diagnostics,
    }
}

/// One row of the memory table: the peak heap of `phase` on an input of
/// `input` bytes.
fn memory_row(subject: &str, input: usize, phase: &str, f: impl FnOnce() -> bool) {
    let (ok, peak) = alloc_counter::peak(f);
    assert!(ok, "{phase} failed on {subject}");
    println!(
        "| {subject} | {} | {phase} | {} | {:.1}× |",
        bytes(input),
        bytes(usize::try_from(peak).unwrap_or(usize::MAX)),
        peak as f64 / input as f64
    );
}

/// A chain of `n` states, as `.fsm` text and as a JSON document.
fn chain(n: usize) -> (String, String) {
    use std::fmt::Write as _;
    let mut fsm = String::from("machine Chain {\n    initial state s0 { on next -> s1; }\n");
    let mut json = String::from(r#"{"fsm_id": "Chain", "initial_state": "s0", "terminal_states": ["#);
    let _ = write!(json, r#""s{}"], "states": {{"#, n - 1);
    for i in 1..n - 1 {
        let _ = writeln!(fsm, "    state s{i} {{ on next -> s{}; }}", i + 1);
    }
    for i in 0..n - 1 {
        let _ = write!(json, r#""s{i}": {{"on": {{"next": {{"to": "s{}"}}}}}}, "#, i + 1);
    }
    let _ = writeln!(fsm, "    terminal state s{};\n}}", n - 1);
    let _ = write!(json, r#""s{}": {{}}}}}}"#, n - 1);
    (fsm, json)
}

fn run_memory(sizes: &[(usize, usize)]) {
    use fsm_dynamic::Definition;
    println!("Machine: {}\n", host::summary());
    println!("Peak live heap bytes of one call, and its multiple of the input's size\n");
    println!("| input | size | phase | peak heap | × input |");
    println!("|:---|---:|:---|---:|---:|");
    for &(n, _) in sizes {
        let g = generate(n);
        let subject = format!("generated, {} transitions", thousands(n as u64));
        let text = g.text.as_str();
        memory_row(&subject, text.len(), "check", || {
            !fsm_grammar::check(text).has_errors()
        });
        memory_row(&subject, text.len(), "format", || {
            fsm_grammar::format::format(text).is_ok()
        });
        let json = fsm_grammar::interchange::model_to_json(&fsm_grammar::check(text).model);
        memory_row(&subject, json.len(), "JSON import", || {
            fsm_grammar::interchange::from_json(&json).is_ok()
        });
    }
    let (fsm, json) = chain(100_000);
    let subject = "chain of 100,000 states";
    memory_row(subject, fsm.len(), "check", || {
        !fsm_grammar::check(&fsm).has_errors()
    });
    memory_row(subject, json.len(), "JSON import", || {
        fsm_grammar::interchange::from_json(&json).is_ok()
    });
    memory_row(subject, json.len(), "Definition::from_json", || {
        Definition::from_json(&json).is_ok()
    });
    drop((fsm, json));
    let name = "a".repeat(50_000_000);
    let json = format!(
        r#"{{"fsm_id": "Big", "initial_state": "x", "terminal_states": ["y"], "states": {{"x": {{"on": {{"{name}": {{"to": "y"}}}}}}, "y": {{}}}}}}"#
    );
    drop(name);
    let subject = "one 50 MB action name";
    memory_row(subject, json.len(), "JSON import", || {
        fsm_grammar::interchange::from_json(&json).is_ok()
    });
    memory_row(subject, json.len(), "Definition::from_json", || {
        Definition::from_json(&json).is_ok()
    });
}
