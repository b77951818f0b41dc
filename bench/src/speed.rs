//! What `runtime_speed` and `nested_speed` do alike with a trace: verify
//! every implementation against the hand-written one step by step, count
//! its allocations, time it in interleaved runs, and print the results
//! table. Each binary adds its own table of targets.

use crate::harness::{first_difference, median, Tally};
use crate::host;
use crate::table::thousands;
use std::fmt::Debug;
use std::time::Duration;

/// One step's record, as the verification compares them.
pub trait StepRecord: PartialEq + Copy + Debug {
    /// Whether the step's event was accepted.
    fn accepted(&self) -> bool;
}

/// A subject with its events for one trace, behind a trait object so the
/// binary can hold different subjects in one list. Only the calls into it
/// are dynamic: each timed loop is monomorphized for its subject.
pub trait Contestant {
    /// What each step of the verification run records.
    type Record: StepRecord;
    /// The subject's name.
    fn name(&self) -> &'static str;
    /// Every step's record, for the verification.
    fn record(&self) -> Vec<Self::Record>;
    /// One timed pass.
    fn timed_pass(&self) -> (Duration, Tally);
    /// The allocations of one pass, with its tally.
    fn allocations(&self) -> (u64, Tally);
}

/// Everything measured for one implementation on one trace.
pub struct Row {
    /// The implementation's name.
    pub name: &'static str,
    /// ns per event, per timed run.
    pub ns: Vec<f64>,
    /// Heap allocations in one pass.
    pub allocations: u64,
}

/// The contestants `--only TEXT` keeps: the first (the hand-written
/// reference) and those whose name contains `only`.
pub fn keep_only<C: ?Sized + Contestant>(contestants: &mut Vec<Box<C>>, only: Option<&str>) {
    if let Some(only) = only {
        let mut index = 0;
        contestants.retain(|c| {
            index += 1;
            index == 1 || c.name().contains(only)
        });
    }
}

/// Verify, count allocations and time every contestant on the trace of
/// `steps` (the first contestant is the reference), `runs` times each,
/// interleaved, each run starting with a different one. Returns the rows in
/// the contestants' order and the load average before and after the timed
/// runs.
///
/// # Errors
///
/// When a contestant's records differ from the reference's, or a timed or
/// counted pass's tally does not match the trace.
pub fn measure<C: ?Sized + Contestant>(
    contestants: &[Box<C>],
    steps: &[impl Debug],
    runs: usize,
) -> Result<(Vec<Row>, (String, String)), String> {
    // 1. Verification: every step agrees with the hand-written `match`.
    let expected = contestants[0].record();
    let accepted = expected.iter().filter(|r| r.accepted()).count() as u64;
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
    for contestant in contestants {
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
    Ok((rows, (load_before, host::load_average())))
}

/// The median over runs of `a`'s time over `b`'s in the same run.
pub fn paired_ratio(a: &Row, b: &Row) -> f64 {
    let ratios: Vec<f64> = a.ns.iter().zip(&b.ns).map(|(x, y)| x / y).collect();
    median(&ratios)
}

/// The trace's heading and the results table (the first row is the
/// reference), for a trace of `events` steps of which `rejected` are
/// invalid.
pub fn print_results(label: &str, events: usize, rejected: usize, rows: &[Row], load: &(String, String)) {
    println!(
        "### Trace {label}: {} events, {} rejected ({:.1}%)\n",
        thousands(events as u64),
        thousands(rejected as u64),
        100.0 * rejected as f64 / events as f64
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
}

/// The heading of the targets table, and a printer for its rows.
pub fn targets_table(runs: usize) -> impl Fn(&str, f64, &str, bool) {
    println!("\nTargets (ratios are medians over {runs} runs of the ratio within a run):\n");
    println!("| comparison | measured | target | met |");
    println!("|:---|---:|---:|:---:|");
    |what: &str, measured: f64, bound: &str, met: bool| {
        println!(
            "| {what} | {measured:.2}× | {bound} | {} |",
            if met { "yes" } else { "**no**" }
        );
    }
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
