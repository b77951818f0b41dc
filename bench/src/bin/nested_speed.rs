//! ns per event of a nested machine (`bench/machines/nested_agent.fsm`) in
//! the generated code, a hand-written flat `match`, statig with superstates
//! and the dynamic engine, side by side.
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin nested_speed
//! cargo run --release --manifest-path bench/Cargo.toml --bin nested_speed -- --print-generated
//! ```
//!
//! The method is `runtime_speed`'s: two traces of the same length (see
//! `fsm_bench::nested::generate`), one of valid events only and one where
//! 10% of the events are invalid in their leaf. For each trace, every
//! implementation (`fsm_bench::nested`):
//! 1. runs the trace once with every step recorded, and must agree with the
//!    hand-written `match` on the leaf, the outcome and the outputs (in
//!    order) of every step, or the benchmark stops;
//! 2. runs it once more with heap allocations counted;
//! 3. runs it N times, timed, every implementation once per run, starting
//!    with a different one each run. A ratio is the median over the runs of
//!    the ratio within each run.
//!
//! `--print-generated` prints the code `fsm!` generates for the nested
//! machine (through `fsm_codegen::render_source`) and exits.

use fsm_bench::alloc_counter::CountingAllocator;
use fsm_bench::host;
use fsm_bench::nested::{self, dynamic, generated::Generated, statig::Statig, Subject, Trace};
use fsm_bench::speed::{self, paired_ratio};
use fsm_bench::speed_cli;
use fsm_bench::table::thousands;
use std::process::ExitCode;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() -> ExitCode {
    let options = match speed_cli::parse("nested_speed", "the nested machine", std::env::args().skip(1)) {
        Ok(options) => options,
        Err(status) => return status,
    };
    if options.print_generated {
        return speed_cli::print_generated(nested::SOURCE, "nested_agent.fsm");
    }

    let started = Instant::now();
    println!("Machine: {}", host::summary());
    println!(
        "The nested agent loop (`bench/machines/nested_agent.fsm`); {} events per trace (seed {:#x}); \
         median of {} timed runs.\n",
        thousands(options.events as u64),
        nested::SEED,
        options.runs
    );
    let traces = [
        (
            "valid events only",
            nested::generate(options.events, 0, nested::SEED),
        ),
        (
            "with rejected events",
            nested::generate(options.events, options.reject_percent, nested::SEED),
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

/// Verify, count allocations and time every implementation on `trace`, then
/// print the tables.
fn compare(label: &str, trace: &Trace, runs: usize, only: Option<&str>) -> Result<(), String> {
    let mut contestants = nested::all(&trace.steps);
    speed::keep_only(&mut contestants, only);
    let (rows, load) = speed::measure(&contestants, &trace.steps, runs)?;
    speed::print_results(label, trace.steps.len(), trace.rejected, &rows, &load);
    let find = |name: &str| rows.iter().find(|r| r.name == name);
    let hand = &rows[0];
    let target = speed::targets_table(runs);
    if let Some(generated) = find(Generated::NAME) {
        let g = paired_ratio(generated, hand);
        target("generated / hand-written", g, "≤ 1.05×", g <= 1.05);
        if let Some(statig) = find(Statig::NAME) {
            let s = paired_ratio(generated, statig);
            target("generated / statig", s, "≤ 1.00×", s <= 1.0);
        }
        for name in [dynamic::ById::NAME, dynamic::ByName::NAME] {
            if let Some(engine) = find(name) {
                println!(
                    "| {name} / generated | {:.2}× | (for information) | |",
                    paired_ratio(engine, generated)
                );
            }
        }
    }
    println!();
    Ok(())
}
