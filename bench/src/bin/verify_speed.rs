//! `fsmc verify`'s search (`fsm_verify::verify`) against SPIN on the same
//! models, both in one run: stored states per second of a safety search that
//! explores every reachable state because the property holds.
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin verify_speed
//! cargo run --release --manifest-path bench/Cargo.toml --bin verify_speed -- REGIONS STATES RUNS
//! ```
//!
//! The model: a parallel state of `REGIONS` regions (6 by default), each a
//! ring of `STATES` states (10) that one action per region moves one step
//! round, so every combination is reachable: `STATES^REGIONS` states
//! (1,000,000), `REGIONS` moves from each. The first region also holds a
//! state nothing enters, and the property is that it is never active
//! (`never in(r0_stuck)`), so both searches visit every state.
//!
//! The same model in Promela: one process whose `do` loop has one
//! `atomic` branch per region, advancing that region's counter modulo
//! `STATES` and asserting the counter is not the stuck state's. SPIN 6.5.2
//! (Debian's `spin`) generates `pan.c`, compiled with `gcc -O2 -DSAFETY
//! -DNOFAIR -DMEMLIM=8192`, run as `./pan -mDEPTH -w26` (DEPTH twice the states, so that its depth-first
//! search is never cut short); its own "elapsed
//! time" is reported (its compile time is not counted). fsmc's time is the
//! wall time of `verify`. Each side runs `RUNS` times (3), alternating; the
//! medians are reported with their ratio.
//!
//! Then a liveness search on the same model, a response property that
//! holds, so that both searches decide it over every state: "whenever the
//! first ring is at its second state, it comes to its third, as long as the
//! first ring's action keeps coming". For fsmc,
//! `in(r0_s1) leads to in(r0_s2) assuming tick0` (strong fairness on
//! `tick0`, which every state accepts). For SPIN, the Promela model records
//! whether the last step was the first ring's (`moved0`, which doubles its
//! state space), and the claim is the LTL formula
//! `([]<> moved0) -> [] ((r0 == 1) -> <> (r0 == 2))`, compiled with
//! `gcc -O2 -DNOFAIR -DMEMLIM=8192` and run as `./pan -a -mDEPTH -w26`
//! (acceptance cycles, nested depth-first search).

use fsm_bench::harness::median;
use fsm_verify::{verify, Formula, Kind, LeadsTo, Options, Property, Verdict};
use std::fmt::Write as _;
use std::process::{Command, ExitCode};
use std::time::Instant;

/// The model in `.fsm`.
fn fsm_model(regions: usize, states: usize) -> String {
    let mut out = String::from("machine Rings {\n    initial state idle { on start -> rings; }\n");
    out.push_str("    parallel state rings {\n");
    for r in 0..regions {
        let _ = writeln!(out, "        state r{r} {{");
        for s in 0..states {
            let initial = if s == 0 { "initial " } else { "" };
            let next = (s + 1) % states;
            let _ = writeln!(out, "            {initial}state r{r}_s{s} {{ on tick{r} -> r{r}_s{next}; }}");
        }
        if r == 0 {
            out.push_str("            state r0_stuck;\n");
        }
        out.push_str("        }\n");
    }
    out.push_str("    }\n}\n");
    out
}

/// The same model in Promela: `start` leaves `idle` once, then any region
/// moves.
fn promela_model(regions: usize, states: usize) -> String {
    let stuck = states;
    let mut out = String::new();
    for r in 0..regions {
        let _ = writeln!(out, "byte r{r} = 0;");
    }
    out.push_str("bool started = false;\n\nactive proctype env() {\n    atomic { started = true }\n    do\n");
    for r in 0..regions {
        let _ = writeln!(
            out,
            "    :: atomic {{ r{r} = (r{r} + 1) % {states}; assert(r0 != {stuck}) }}"
        );
    }
    out.push_str("    od\n}\n");
    out
}

/// The model in Promela for the liveness search: `moved0` says whether the
/// last step was the first ring's, and the claim is the response property
/// under the assumption that the first ring moves infinitely often.
fn promela_liveness(regions: usize, states: usize) -> String {
    let mut out = String::new();
    for r in 0..regions {
        let _ = writeln!(out, "byte r{r} = 0;");
    }
    out.push_str("bool started = false;\nbool moved0 = false;\n\nactive proctype env() {\n");
    out.push_str("    atomic { started = true }\n    do\n");
    for r in 0..regions {
        let moved = if r == 0 { "true" } else { "false" };
        let _ = writeln!(
            out,
            "    :: atomic {{ r{r} = (r{r} + 1) % {states}; moved0 = {moved} }}"
        );
    }
    out.push_str("    od\n}\n\n");
    out.push_str("ltl response { ([]<> moved0) -> [] ((r0 == 1) -> <> (r0 == 2)) }\n");
    out
}

/// fsmc: seconds and states stored.
fn fsmc_run(machine: &fsm_grammar::model::Machine) -> (f64, usize) {
    let formula = Formula::parse(machine, "in(r0_stuck)").expect("a formula");
    let property = Property::new(Kind::Never, formula);
    let start = Instant::now();
    let report = verify(machine, &[property], &Options::default()).expect("searchable");
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(report.verdicts, [Verdict::Holds]);
    (seconds, report.states)
}

/// fsmc on the response property: seconds and states stored.
fn fsmc_liveness(machine: &fsm_grammar::model::Machine) -> (f64, usize) {
    let formula = |text: &str| Formula::parse(machine, text).expect("a formula");
    let tick0 = machine.actions.iter().position(|a| a.name == "tick0").expect("tick0");
    let property = Property {
        kind: Kind::LeadsTo,
        formula: formula("in(r0_s1)"),
        leads_to: Some(LeadsTo {
            formula: formula("in(r0_s2)"),
            assuming: vec![fsm_grammar::model::ActionId::from_index(tick0)],
        }),
    };
    let start = Instant::now();
    let report = verify(machine, &[property], &Options::default()).expect("searchable");
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(report.verdicts, [Verdict::Holds]);
    (seconds, report.states)
}

/// Build SPIN's verifier for `model` in `dir`, with gcc's `flags`.
fn build_pan(dir: &std::path::Path, model: &str, flags: &[&str]) -> bool {
    std::fs::write(dir.join("rings.pml"), model).expect("writable");
    let spin = Command::new("spin").args(["-a", "rings.pml"]).current_dir(dir).output();
    let gcc = spin.ok().filter(|o| o.status.success()).and_then(|_| {
        Command::new("gcc")
            .args(flags)
            .args(["-o", "pan", "pan.c"])
            .current_dir(dir)
            .output()
            .ok()
    });
    gcc.is_some_and(|o| o.status.success())
}

/// SPIN: its elapsed time and states stored, from `./pan`'s report.
fn spin_run(dir: &std::path::Path, depth: usize, extra: &[&str]) -> Result<(f64, usize), String> {
    let out = Command::new("./pan")
        .args(extra)
        .args([format!("-m{depth}").as_str(), "-w26"])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run pan: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if text.contains("assertion violated")
        || text.contains("acceptance cycle")
        || text.contains("errors: 1")
        || text.contains("max search depth too small")
    {
        return Err(format!("SPIN found an error:\n{text}"));
    }
    let number_before = |marker: &str| -> Option<f64> {
        let line = text.lines().find(|l| l.contains(marker))?;
        line.split_whitespace().find_map(|w| w.parse::<f64>().ok())
    };
    let stored = number_before("states, stored").ok_or_else(|| format!("no states in:\n{text}"))?;
    let elapsed = text
        .lines()
        .find(|l| l.contains("elapsed time"))
        .and_then(|l| l.split_whitespace().find_map(|w| w.parse::<f64>().ok()))
        .ok_or_else(|| format!("no elapsed time in:\n{text}"))?;
    Ok((elapsed, stored as usize))
}

fn main() -> ExitCode {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    let regions = args.first().copied().unwrap_or(6);
    let states = args.get(1).copied().unwrap_or(10);
    let runs = args.get(2).copied().unwrap_or(3);

    let checked = fsm_grammar::check(&fsm_model(regions, states));
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let machine = checked.into_model().expect("a model").machines.remove(0);

    let dir = tempfile::tempdir().expect("a temporary directory");
    let flags = ["-O2", "-DSAFETY", "-DNOFAIR", "-DMEMLIM=8192"];
    if !build_pan(dir.path(), &promela_model(regions, states), &flags) {
        eprintln!("error: SPIN (Debian's `spin`) and gcc are needed to build the Promela model");
        return ExitCode::FAILURE;
    }

    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let (mut our_states, mut their_states) = (0, 0);
    for _ in 0..runs {
        let (seconds, stored) = fsmc_run(&machine);
        ours.push(seconds);
        our_states = stored;
        match spin_run(dir.path(), 2 * states.pow(regions as u32) + 10, &[]) {
            Ok((seconds, stored)) => {
                theirs.push(seconds);
                their_states = stored;
            }
            Err(why) => {
                eprintln!("error: {why}");
                return ExitCode::FAILURE;
            }
        }
    }
    let (ours, theirs) = (median(&ours), median(&theirs));
    println!("model: {regions} regions of {states} states; median of {runs} runs each");
    println!(
        "  fsmc verify  {our_states:>10} states  {ours:>7.3} s  {:>12.0} states/s",
        our_states as f64 / ours
    );
    println!(
        "  SPIN 6.5.2   {their_states:>10} states  {theirs:>7.3} s  {:>12.0} states/s",
        their_states as f64 / theirs
    );
    println!("RESULT fsmc/spin time = {:.2}", ours / theirs);

    // The liveness search.
    let live = tempfile::tempdir().expect("a temporary directory");
    if !build_pan(live.path(), &promela_liveness(regions, states), &["-O2", "-DNOFAIR", "-DMEMLIM=8192"]) {
        eprintln!("error: SPIN could not build the liveness model");
        return ExitCode::FAILURE;
    }
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let (mut our_states, mut their_states) = (0, 0);
    for _ in 0..runs {
        let (seconds, stored) = fsmc_liveness(&machine);
        ours.push(seconds);
        our_states = stored;
        match spin_run(live.path(), 4 * states.pow(regions as u32) + 10, &["-a"]) {
            Ok((seconds, stored)) => {
                theirs.push(seconds);
                their_states = stored;
            }
            Err(why) => {
                eprintln!("error: {why}");
                return ExitCode::FAILURE;
            }
        }
    }
    let (ours, theirs) = (median(&ours), median(&theirs));
    println!("liveness: `in(r0_s1) leads to in(r0_s2) assuming tick0`; median of {runs} runs each");
    println!(
        "  fsmc verify  {our_states:>10} states  {ours:>7.3} s  {:>12.0} states/s",
        our_states as f64 / ours
    );
    println!(
        "  SPIN 6.5.2   {their_states:>10} states  {theirs:>7.3} s  {:>12.0} states/s",
        their_states as f64 / theirs
    );
    println!("RESULT liveness fsmc/spin time = {:.2}", ours / theirs);
    ExitCode::SUCCESS
}
