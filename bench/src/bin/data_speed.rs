//! ns per event of the coding agent's loop with its data inside the machine
//! (`bench/machines/agent_data.fsm`: a context with a retry counter and a
//! conversation, payloads, effects), side by side.
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin data_speed
//! cargo run --release --manifest-path bench/Cargo.toml --bin data_speed -- --print-generated
//! ```
//!
//! As `runtime_speed`: two traces (valid events only; 10% rejected), every
//! implementation (`fsm_bench::data`) first verified against the
//! hand-written `match` step by step and on the context at the end, then
//! its allocations counted, then N timed runs, each run timing every
//! implementation once in a rotating order; ratios are medians over the
//! runs of the ratio within a run.

use fsm_bench::alloc_counter::CountingAllocator;
use fsm_bench::data::{self, DataTrace};
use fsm_bench::harness::{first_difference, median, Tally};
use fsm_bench::host;
use fsm_bench::speed_cli;
use fsm_bench::table::thousands;
use std::process::ExitCode;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() -> ExitCode {
    let options = match speed_cli::parse("data_speed", "the machine with data", std::env::args().skip(1)) {
        Ok(options) => options,
        Err(status) => return status,
    };
    if options.print_generated {
        return speed_cli::print_generated(data::SOURCE, "agent_data.fsm");
    }

    let started = Instant::now();
    println!("Machine: {}", host::summary());
    println!(
        "The coding agent's loop with its data (`bench/machines/agent_data.fsm`); {} events per \
         trace (seed {:#x}); median of {} timed runs.\n",
        thousands(options.events as u64),
        data::SEED,
        options.runs
    );
    let traces = [
        ("valid events only", data::generate(options.events, 0, data::SEED)),
        (
            "with rejected events",
            data::generate(options.events, options.reject_percent, data::SEED),
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

struct Row {
    name: &'static str,
    ns: Vec<f64>,
    allocations: u64,
}

fn compare(label: &str, trace: &DataTrace, runs: usize, only: Option<&str>) -> Result<(), String> {
    let steps = &trace.steps;
    let mut contestants = data::all(steps);
    if let Some(only) = only {
        let mut index = 0;
        contestants.retain(|c| {
            index += 1;
            index == 1 || c.name().contains(only)
        });
    }

    // 1. Verification: every step, and the context at the end.
    let (expected, expected_context) = contestants[0].record();
    let accepted = expected.iter().filter(|r| r.accepted).count() as u64;
    for contestant in &contestants[1..] {
        let (records, context) = contestant.record();
        if let Some((i, want, got)) = first_difference(&expected, &records) {
            return Err(format!(
                "{}: step {i} ({:?}) differs from the hand-written `match`: expected {want:?}, got {got:?}",
                contestant.name(),
                steps.get(i),
            ));
        }
        if context != expected_context {
            return Err(format!(
                "{}: the context at the end differs from the hand-written `match`'s:\n{expected_context:?}\n{context:?}",
                contestant.name()
            ));
        }
    }
    let check = |tally: Tally, name: &str| -> Result<(), String> {
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
        check(tally, contestant.name())?;
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
            let (elapsed, tally, context) = contestants[i].timed_pass();
            check(tally, contestants[i].name())?;
            if context != expected_context {
                return Err(format!(
                    "{}: a timed pass ended with another context",
                    contestants[i].name()
                ));
            }
            rows[i].ns.push(elapsed.as_nanos() as f64 / steps.len() as f64);
        }
    }
    let load_after = host::load_average();
    print_tables(label, trace, &rows, runs, (&load_before, &load_after));
    Ok(())
}

fn paired_ratio(a: &Row, b: &Row) -> f64 {
    let ratios: Vec<f64> = a.ns.iter().zip(&b.ns).map(|(x, y)| x / y).collect();
    median(&ratios)
}

fn print_tables(label: &str, trace: &DataTrace, rows: &[Row], runs: usize, load: (&str, &str)) {
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
            if row.allocations == 0 {
                "0".to_string()
            } else {
                format!(
                    "{:.3} ({} in total)",
                    row.allocations as f64 / events as f64,
                    thousands(row.allocations)
                )
            },
        );
    }
    let find = |name: &str| rows.iter().find(|r| r.name == name);
    use data::DataSubject;
    let generated = find(data::generated::Generated::NAME);
    let peers = [find(data::smlang::Smlang::NAME), find(data::statig::Statig::NAME)];
    let literal = find(data::literal::Literal::NAME);
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
        for peer in peers.into_iter().flatten() {
            let r = paired_ratio(generated, peer);
            target(&format!("generated / {}", peer.name), r, "≤ 1.00×", r <= 1.0);
        }
    }
    for engine in [find(data::dynamic::ByName::NAME), find(data::dynamic::ById::NAME)]
        .into_iter()
        .flatten()
    {
        if let Some(literal) = literal {
            let speedup = paired_ratio(literal, engine);
            target(
                &format!("string-keyed design / {} (speed-up)", engine.name),
                speedup,
                "≥ 5×",
                speedup >= 5.0,
            );
        }
        if let Some(generated) = generated {
            let slowdown = paired_ratio(engine, generated);
            target(
                &format!("{} / generated", engine.name),
                slowdown,
                "≤ 3×",
                slowdown <= 3.0,
            );
        }
    }
    println!();
}
