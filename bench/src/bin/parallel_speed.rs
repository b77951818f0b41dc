//! ns per event of a machine with two regions (`bench/machines/two_regions.fsm`)
//! in the generated code, against a hand-written `match` over two separate
//! enums, and the dynamic engine for information. No Rust state-machine
//! crate we compare against elsewhere (smlang, statig, rust-fsm) has
//! orthogonal regions, so there is no peer to time here.
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml --bin parallel_speed
//! cargo run --release --manifest-path bench/Cargo.toml --bin parallel_speed -- 1000000 11
//! ```
//!
//! Two traces of random events, each valid where it is fired: one of events
//! that one region handles (`play`, `pause`, `louder`, `softer`), one of
//! `toggle`, which both regions handle in the same step. Each
//! implementation runs a trace once with every step checked against the
//! hand-written `match` (the leaves and the outputs, in order), once with
//! heap allocations counted, then `runs` times, timed, every implementation
//! once per run, starting with a different one each run. A ratio is the
//! median over the runs of the ratio within each run. Each step's outputs
//! are folded into a checksum that the timing keeps, so none is optimized
//! away.

use fsm_bench::alloc_counter::{self, CountingAllocator};
use fsm_bench::harness::median;
use fsm_bench::host;
use fsm_bench::xorshift::XorShift;
use fsm_dynamic::{Definition, Engine};
use std::hint::black_box;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fsm_runtime::fsm!(file = "machines/two_regions.fsm");

use two_regions::{Action, Output, TwoRegions};

/// The machine as one writes it by hand: one enum per region, one `match`
/// per event.
mod hand {
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Playback {
        Stopped,
        Playing,
        Paused,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Volume {
        Quiet,
        Loud,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Event {
        Play,
        Pause,
        Louder,
        Softer,
        Toggle,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Out {
        StartAudio,
        PauseAudio,
        ResumeAudio,
        Rewind,
        RaiseVolume,
        LowerVolume,
    }

    /// At most two outputs per event.
    #[derive(Clone, Copy, Debug)]
    pub struct Outs {
        pub items: [Out; 2],
        pub len: usize,
    }

    impl Outs {
        #[inline]
        fn push(&mut self, out: Out) {
            self.items[self.len] = out;
            self.len += 1;
        }

        pub fn as_slice(&self) -> &[Out] {
            &self.items[..self.len]
        }
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Player {
        pub playback: Playback,
        pub volume: Volume,
    }

    impl Player {
        pub const fn new() -> Self {
            Player {
                playback: Playback::Stopped,
                volume: Volume::Quiet,
            }
        }

        #[inline]
        pub fn fire(&mut self, event: Event) -> Result<Outs, ()> {
            let mut outs = Outs {
                items: [Out::StartAudio; 2],
                len: 0,
            };
            match event {
                Event::Play => match self.playback {
                    Playback::Stopped => {
                        self.playback = Playback::Playing;
                        outs.push(Out::StartAudio);
                    }
                    Playback::Paused => {
                        self.playback = Playback::Playing;
                        outs.push(Out::ResumeAudio);
                    }
                    Playback::Playing => return Err(()),
                },
                Event::Pause => match self.playback {
                    Playback::Playing => {
                        self.playback = Playback::Paused;
                        outs.push(Out::PauseAudio);
                    }
                    _ => return Err(()),
                },
                Event::Louder => match self.volume {
                    Volume::Quiet => {
                        self.volume = Volume::Loud;
                        outs.push(Out::RaiseVolume);
                    }
                    Volume::Loud => return Err(()),
                },
                Event::Softer => match self.volume {
                    Volume::Loud => {
                        self.volume = Volume::Quiet;
                        outs.push(Out::LowerVolume);
                    }
                    Volume::Quiet => return Err(()),
                },
                Event::Toggle => {
                    let (playback, out) = match self.playback {
                        Playback::Stopped => (Playback::Playing, Out::StartAudio),
                        Playback::Playing => (Playback::Paused, Out::PauseAudio),
                        Playback::Paused => (Playback::Stopped, Out::Rewind),
                    };
                    self.playback = playback;
                    outs.push(out);
                    let (volume, out) = match self.volume {
                        Volume::Quiet => (Volume::Loud, Out::RaiseVolume),
                        Volume::Loud => (Volume::Quiet, Out::LowerVolume),
                    };
                    self.volume = volume;
                    outs.push(out);
                }
            }
            Ok(outs)
        }
    }
}

use hand::{Event, Out, Player};

/// The names of an event and an output, as the `.fsm` file writes them.
fn event_name(event: Event) -> &'static str {
    match event {
        Event::Play => "play",
        Event::Pause => "pause",
        Event::Louder => "louder",
        Event::Softer => "softer",
        Event::Toggle => "toggle",
    }
}

fn out_name(out: Out) -> &'static str {
    match out {
        Out::StartAudio => "start_audio",
        Out::PauseAudio => "pause_audio",
        Out::ResumeAudio => "resume_audio",
        Out::Rewind => "rewind",
        Out::RaiseVolume => "raise_volume",
        Out::LowerVolume => "lower_volume",
    }
}

fn action(event: Event) -> Action {
    match event {
        Event::Play => Action::Play,
        Event::Pause => Action::Pause,
        Event::Louder => Action::Louder,
        Event::Softer => Action::Softer,
        Event::Toggle => Action::Toggle,
    }
}

/// `events` random events each valid where it is fired: from `choices`.
fn trace(events: usize, choices: &[Event], seed: u64) -> Vec<Event> {
    let mut rng = XorShift::new(seed);
    let mut player = Player::new();
    let mut out = Vec::with_capacity(events);
    while out.len() < events {
        let event = choices[rng.below(choices.len())];
        if player.fire(event).is_ok() {
            out.push(event);
        }
    }
    out
}

/// Check the generated code and the dynamic engine against the hand-written
/// machine on every step of `trace`.
fn verify(trace: &[Event], engine: &Engine) -> Result<(), String> {
    let engine = Engine::builder(Arc::clone(engine.definition()))
        .build()
        .expect("no bindings");
    let mut hand = Player::new();
    let mut generated = TwoRegions::new();
    for (i, &event) in trace.iter().enumerate() {
        let expected: Vec<&str> = hand
            .fire(event)
            .map_err(|()| format!("step {i}: the trace is invalid"))?
            .as_slice()
            .iter()
            .map(|&o| out_name(o))
            .collect();
        let fired = generated
            .fire(action(event))
            .map_err(|e| format!("step {i}: generated: {e}"))?;
        let got: Vec<&str> = fired.outputs.iter().map(|o| o.name()).collect();
        if got != expected {
            return Err(format!(
                "step {i}: generated emitted {got:?}, hand-written {expected:?}"
            ));
        }
        let leaves: Vec<&str> = generated.leaves().map(|s| s.name()).collect();
        let hand_leaves = vec![
            format!("{:?}", hand.playback).to_lowercase(),
            format!("{:?}", hand.volume).to_lowercase(),
        ];
        if leaves != hand_leaves {
            return Err(format!(
                "step {i}: generated is in {leaves:?}, hand-written in {hand_leaves:?}"
            ));
        }
        let fired = engine
            .fire(event_name(event), &serde_json::Value::Null)
            .map_err(|e| format!("step {i}: dynamic: {e}"))?;
        let got: Vec<&str> = fired.output_names().collect();
        if got != expected {
            return Err(format!(
                "step {i}: the dynamic engine emitted {got:?}, hand-written {expected:?}"
            ));
        }
    }
    Ok(())
}

/// One timed pass of an implementation over `trace`: ns per event, and a
/// checksum of the outputs.
type Pass = fn(&[Event], &Engine) -> (f64, u64);

fn hand_pass(trace: &[Event], _: &Engine) -> (f64, u64) {
    let mut player = Player::new();
    let mut sum = 0u64;
    let started = Instant::now();
    for &event in trace {
        if let Ok(outs) = player.fire(black_box(event)) {
            for &o in outs.as_slice() {
                sum = sum.wrapping_mul(31).wrapping_add(o as u64);
            }
        }
    }
    black_box(player);
    (started.elapsed().as_nanos() as f64 / trace.len() as f64, sum)
}

fn generated_pass(trace: &[Event], _: &Engine) -> (f64, u64) {
    let mut machine = TwoRegions::new();
    let mut sum = 0u64;
    let started = Instant::now();
    for &event in trace {
        if let Ok(fired) = machine.fire(black_box(action(event))) {
            for &o in fired.outputs.iter() {
                sum = sum.wrapping_mul(31).wrapping_add(output_code(o));
            }
        }
    }
    black_box(machine);
    (started.elapsed().as_nanos() as f64 / trace.len() as f64, sum)
}

/// A generated output as the hand-written one's discriminant, so that both
/// checksums agree.
#[inline]
fn output_code(output: Output) -> u64 {
    (match output {
        Output::StartAudio => Out::StartAudio,
        Output::PauseAudio => Out::PauseAudio,
        Output::ResumeAudio => Out::ResumeAudio,
        Output::Rewind => Out::Rewind,
        Output::RaiseVolume => Out::RaiseVolume,
        Output::LowerVolume => Out::LowerVolume,
    }) as u64
}

fn dynamic_pass(trace: &[Event], engine: &Engine) -> (f64, u64) {
    let definition = engine.definition();
    let engine = Engine::builder(Arc::clone(definition))
        .build()
        .expect("no bindings");
    let actions: Vec<_> = trace
        .iter()
        .map(|&e| definition.action_id(event_name(e)).expect("an action"))
        .collect();
    let mut sum = 0u64;
    let started = Instant::now();
    for &a in &actions {
        if let Ok(fired) = engine.fire_id(black_box(a), &serde_json::Value::Null) {
            sum = sum.wrapping_add(fired.outputs.len() as u64);
        }
    }
    (started.elapsed().as_nanos() as f64 / trace.len() as f64, sum)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("usage: parallel_speed [EVENTS [RUNS]]  (default 1000000 events, 11 runs)");
        return ExitCode::SUCCESS;
    }
    let number = |i: usize, default: usize| -> Result<usize, String> {
        args.get(i).map_or(Ok(default), |a| {
            a.parse()
                .map_err(|_| format!("`{a}` is not a count; usage: parallel_speed [EVENTS [RUNS]]"))
        })
    };
    let (events, runs) = match (number(0, 1_000_000), number(1, 11)) {
        (Ok(events), Ok(runs)) if events > 0 && runs > 0 => (events, runs),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
        _ => {
            eprintln!("error: EVENTS and RUNS must be at least 1");
            return ExitCode::from(2);
        }
    };
    println!("Machine: {}", host::summary());
    println!(
        "Two regions (`bench/machines/two_regions.fsm`); {events} events per trace; median of {runs} timed runs.\n"
    );
    let definition =
        Arc::new(Definition::from_fsm(include_str!("../../machines/two_regions.fsm")).expect("it checks"));
    let engine = Engine::builder(Arc::clone(&definition))
        .build()
        .expect("no bindings");
    let subjects: [(&str, Pass); 3] = [
        ("hand-written `match` over two enums", hand_pass),
        ("generated (`fsm!`)", generated_pass),
        ("dynamic engine (by id)", dynamic_pass),
    ];
    let traces = [
        (
            "an event one region handles",
            trace(
                events,
                &[Event::Play, Event::Pause, Event::Louder, Event::Softer],
                0x5eed_2e61,
            ),
            1.3,
        ),
        (
            "an event both regions handle",
            trace(events, &[Event::Toggle], 0x5eed_2e62),
            2.0,
        ),
    ];
    let mut failed = false;
    for (label, trace, target) in &traces {
        if let Err(e) = verify(trace, &engine) {
            eprintln!("error: {label}: {e}");
            return ExitCode::FAILURE;
        }
        let allocations: Vec<u64> = subjects
            .iter()
            .map(|(_, pass)| {
                alloc_counter::count(|| {
                    black_box(pass(trace, &engine));
                })
            })
            .collect();
        let mut ns: Vec<Vec<f64>> = vec![Vec::new(); subjects.len()];
        for run in 0..runs {
            let mut sums = Vec::new();
            for k in 0..subjects.len() {
                let i = (run + k) % subjects.len();
                let (per_event, sum) = (subjects[i].1)(trace, &engine);
                ns[i].push(per_event);
                sums.push((i, sum));
            }
            let hand = sums.iter().find(|(i, _)| *i == 0).map(|s| s.1);
            let generated = sums.iter().find(|(i, _)| *i == 1).map(|s| s.1);
            if hand != generated {
                eprintln!("error: {label}: the checksums of the outputs differ");
                return ExitCode::FAILURE;
            }
        }
        println!("### {label}\n");
        println!("| implementation | median ns/event | min ns/event | × hand-written | allocations/event |");
        println!("|:---|---:|---:|---:|---:|");
        let ratio = |i: usize| {
            let ratios: Vec<f64> = ns[i].iter().zip(&ns[0]).map(|(a, b)| a / b).collect();
            median(&ratios)
        };
        for (i, (name, _)) in subjects.iter().enumerate() {
            let min = ns[i].iter().copied().fold(f64::INFINITY, f64::min);
            println!(
                "| {name} | {:.2} | {:.2} | {:.2}× | {:.3} |",
                median(&ns[i]),
                min,
                ratio(i),
                allocations[i] as f64 / trace.len() as f64
            );
        }
        let g = ratio(1);
        let met = g <= *target && allocations[1] == 0;
        failed |= !met;
        println!(
            "\nTarget: generated within {target}× the hand-written `match`, without allocating: {g:.2}×, {} allocations — {}.\n",
            allocations[1],
            if met { "met" } else { "NOT met" }
        );
    }
    println!("Load average at the end: {}.", host::load_average());
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
