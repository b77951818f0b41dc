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
use fsm_bench::host;
use fsm_bench::speed::{self, paired_ratio};
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

/// Verify, count allocations and time every implementation on `trace`, then
/// print the tables.
fn compare(label: &str, trace: &Trace, runs: usize, only: Option<&str>) -> Result<(), String> {
    let mut contestants = subjects::all(&trace.steps);
    speed::keep_only(&mut contestants, only);
    let (rows, load) = speed::measure(&contestants, &trace.steps, runs)?;
    speed::print_results(label, trace.steps.len(), trace.rejected, &rows, &load);
    let find = |name: &str| rows.iter().find(|r| r.name == name);
    let hand = &rows[0];
    let target = speed::targets_table(runs);
    let generated = find(Generated::NAME);
    let literal = find(Literal::NAME);
    if let Some(generated) = generated {
        let g = paired_ratio(generated, hand);
        target("generated / hand-written", g, "≤ 1.05×", g <= 1.05);
    }
    for (engine, how) in [
        (find(dynamic::ById::NAME), "by id"),
        (find(dynamic::ByName::NAME), "by name"),
    ] {
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
    Ok(())
}
