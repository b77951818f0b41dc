//! ns per event of the coding agent's loop in every implementation,
//! side by side.
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin runtime_speed
//! cargo run --release --manifest-path bench/Cargo.toml --bin runtime_speed -- --print-generated
//! ```
//!
//! Two traces of the same length (see `fsm_bench::trace`): one of valid
//! events only, and one where 10% of the events are invalid in their state.
//! For each trace, every implementation (`fsm_bench::subjects`):
//! 1. runs the trace once with every step recorded, and must agree with the
//!    hand-written `match` on the state, the outcome and the outputs of every
//!    step, or the benchmark stops;
//! 2. runs it once more with heap allocations counted;
//! 3. runs it N times, timed. Each run times every implementation once, one
//!    after the other, starting with a different one each run, so that load
//!    on the machine falls on all of them alike. An implementation's ratio
//!    to the hand-written code is the median over the runs of the ratio
//!    within each run.
//!
//! `--print-generated` prints the code `fsm!` generates for the agent
//! machine (through `fsm_codegen::render_source`) and exits.

use fsm_bench::agent;
use fsm_bench::alloc_counter::CountingAllocator;
use fsm_bench::harness::{first_difference, median, Tally};
use fsm_bench::host;
use fsm_bench::speed_cli;
use fsm_bench::subjects::{self, dynamic, generated::Generated, literal::Literal, Subject};
use fsm_bench::table::thousands;
use fsm_bench::trace::{self, Trace};
use std::process::ExitCode;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() -> ExitCode {
    let options = match speed_cli::parse("runtime_speed", "the agent machine", std::env::args().skip(1)) {
        Ok(options) => options,
        Err(status) => return status,
    };
    if options.print_generated {
        return speed_cli::print_generated(agent::SOURCE, "agent_loop.fsm");
    }

    let started = Instant::now();
    println!("Machine: {}", host::summary());
    println!(
        "The coding agent's loop (`bench/machines/agent_loop.fsm`); {} events per trace (seed {:#x}); \
         median of {} timed runs.\n",
        thousands(options.events as u64),
        trace::SEED,
        options.runs
    );
    let traces = [
        (
            "valid events only",
            trace::generate(options.events, 0, trace::SEED),
        ),
        (
            "with rejected events",
            trace::generate(options.events, options.reject_percent, trace::SEED),
        ),
    ];
    let mut failed = false;
    for (label, trace) in &traces {
        if let Err(message) = compare(label, trace, options.runs, options.only.as_deref()) {
            eprintln!("error: {message}");
            failed = true;
        }
    }
    println!(
        "Load average at the end: {}; total time {:.0} s.",
        host::load_average(),
        started.elapsed().as_secs_f64()
    );
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Everything measured for one implementation on one trace.
struct Row {
    name: &'static str,
    /// ns per event, per timed run.
    ns: Vec<f64>,
    allocations: u64,
}

/// Verify, count allocations and time every implementation on `trace`, then
/// print the tables.
fn compare(label: &str, trace: &Trace, runs: usize, only: Option<&str>) -> Result<(), String> {
    let steps = &trace.steps;
    let mut contestants = subjects::all(steps);
    if let Some(only) = only {
        let mut index = 0;
        contestants.retain(|c| {
            index += 1;
            index == 1 || c.name().contains(only)
        });
    }
    let reference = &contestants[0];

    // 1. Verification: every step agrees with the hand-written `match`.
    let expected = reference.record();
    let accepted = expected.iter().filter(|r| r.accepted).count() as u64;
    for contestant in &contestants[1..] {
        if let Some((i, want, got)) = first_difference(&expected, &contestant.record()) {
            return Err(format!(
                "{}: step {i} ({:?}) differs from the hand-written `match`: expected {want:?}, got {got:?}",
                contestant.name(),
                steps.get(i),
            ));
        }
    }
    let expected_tally = |tally: Tally, name: &str| -> Result<(), String> {
        if tally.accepted == accepted && tally.accepted + tally.rejected == steps.len() as u64 {
            Ok(())
        } else {
            Err(format!(
                "{name}: the timed loop counted {tally:?}, expected {accepted} accepted"
            ))
        }
    };

    // 2. Allocations (also the warm-up pass).
    let mut rows = Vec::with_capacity(contestants.len());
    for contestant in &contestants {
        let (allocations, tally) = contestant.allocations();
        expected_tally(tally, contestant.name())?;
        rows.push(Row {
            name: contestant.name(),
            ns: Vec::with_capacity(runs),
            allocations,
        });
    }

    // 3. Timed runs, interleaved, each starting with a different one.
    let load_before = host::load_average();
    let n = contestants.len();
    for run in 0..runs {
        for k in 0..n {
            let i = (run + k) % n;
            let (elapsed, tally) = contestants[i].timed_pass();
            expected_tally(tally, contestants[i].name())?;
            rows[i].ns.push(elapsed.as_nanos() as f64 / steps.len() as f64);
        }
    }
    let load_after = host::load_average();

    print_tables(label, trace, &rows, runs, (&load_before, &load_after));
    Ok(())
}

/// The median over runs of `a`'s time over `b`'s in the same run.
fn paired_ratio(a: &Row, b: &Row) -> f64 {
    let ratios: Vec<f64> = a.ns.iter().zip(&b.ns).map(|(x, y)| x / y).collect();
    median(&ratios)
}

fn print_tables(label: &str, trace: &Trace, rows: &[Row], runs: usize, load: (&str, &str)) {
    let events = trace.steps.len();
    println!(
        "### Trace {label}: {} events, {} rejected ({:.1}%)\n",
        thousands(events as u64),
        thousands(trace.rejected as u64),
        100.0 * trace.rejected as f64 / events as f64
    );
    println!(
        "Load average before the timed runs: {}; after: {}.\n",
        load.0, load.1
    );
    println!("| implementation | median ns/event | min ns/event | × hand-written | allocations/event |");
    println!("|:---|---:|---:|---:|---:|");
    let hand = &rows[0];
    for row in rows {
        let min = row.ns.iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "| {} | {:.2} | {:.2} | {:.2}× | {} |",
            row.name,
            median(&row.ns),
            min,
            paired_ratio(row, hand),
            allocations_per_event(row.allocations, events),
        );
    }
    let find = |name: &str| rows.iter().find(|r| r.name == name);
    let generated = find(Generated::NAME);
    let literal = find(Literal::NAME);
    let engines = [
        (find(dynamic::ById::NAME), "by id"),
        (find(dynamic::ByName::NAME), "by name"),
    ];
    println!("\nTargets (ratios are medians over {runs} runs of the ratio within a run):\n");
    println!("| comparison | measured | target | met |");
    println!("|:---|---:|---:|:---:|");
    let target = |what: &str, measured: f64, bound: &str, met: bool| {
        println!(
            "| {what} | {measured:.2}× | {bound} | {} |",
            if met { "yes" } else { "**no**" }
        );
    };
    if let Some(generated) = generated {
        let g = paired_ratio(generated, hand);
        target("generated / hand-written", g, "≤ 1.05×", g <= 1.05);
    }
    for (engine, how) in engines {
        let Some(engine) = engine else { continue };
        if let Some(literal) = literal {
            let speedup = paired_ratio(literal, engine);
            target(
                &format!("string-keyed design / dynamic engine {how} (speed-up)"),
                speedup,
                "≥ 5×",
                speedup >= 5.0,
            );
        }
        if let Some(generated) = generated {
            let slowdown = paired_ratio(engine, generated);
            target(
                &format!("dynamic engine {how} / generated"),
                slowdown,
                "≤ 4×",
                slowdown <= 4.0,
            );
        }
    }
    println!();
}

fn allocations_per_event(allocations: u64, events: usize) -> String {
    if allocations == 0 {
        "0".into()
    } else {
        format!(
            "{:.3} ({} in total)",
            allocations as f64 / events as f64,
            thousands(allocations)
        )
    }
}
