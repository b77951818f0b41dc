//! `fsmc inspect --listen`: the time from a machine's step to its highlight
//! on the page, measured in the browser, while a program fires a machine at
//! a steady rate (1,000 steps a second by default).
//!
//! The program is this binary: an `fsm_runtime::inspect::Observed` machine
//! (`machines/observed_order.fsm`, nested states) firing at the rate for the
//! given time. The page runs in headless Chromium (`scripts/inspect_latency.js`,
//! with puppeteer-core from `tests/inspect`), opened with `#latency`: for every
//! step it receives it records the time from the step's `at_us` (the program's
//! clock when the machine fired) to the first frame after the highlight was
//! drawn. Both run on one machine, so they read one clock.
//!
//! ```text
//! cargo build --release -p fsm-cli
//! (cd tests/inspect && npm ci)
//! cargo run --release --manifest-path bench/Cargo.toml --bin inspect_latency -- target/release/fsmc
//! ```
//!
//! Options after the path: `--rate N` steps a second (1000), `--seconds N`
//! (20), `--chromium PATH` (`chromium` on the PATH).

use fsm_runtime::inspect::{Observed, Observer};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fsm_runtime::fsm!(file = "machines/observed_order.fsm");

use order::{Action, Order};

const LIFE: [Action; 5] = [
    Action::Place,
    Action::Pay,
    Action::Ship,
    Action::Deliver,
    Action::Reopen,
];

fn main() {
    let mut args = std::env::args().skip(1);
    let fsmc = PathBuf::from(args.next().unwrap_or_else(|| usage()));
    let (mut rate, mut seconds, mut chromium) = (1000.0f64, 20.0f64, String::from("chromium"));
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--rate" => rate = value.parse().unwrap_or_else(|_| usage()),
            "--seconds" => seconds = value.parse().unwrap_or_else(|_| usage()),
            "--chromium" => chromium = value,
            _ => usage(),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned();

    let mut inspector = Command::new(&fsmc)
        .args(["inspect", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start fsmc inspect");
    let mut banner = String::new();
    BufReader::new(inspector.stdout.take().unwrap())
        .read_line(&mut banner)
        .unwrap();
    let words: Vec<&str> = banner.split_whitespace().collect();
    let listen = words[words.iter().position(|w| *w == "to").unwrap() + 1].to_owned();
    let url = words
        .iter()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .to_string();

    let observer = Observer::connect(listen.as_str()).unwrap();
    let mut order = Observed::new(Order::new(), &observer, "bench")
        .with_definition(include_str!("../../machines/observed_order.fsm"));
    order.fire(Action::Place).unwrap();
    assert!(observer.flush(Duration::from_secs(5)));

    let mut browser = Command::new("node")
        .arg(root.join("bench/scripts/inspect_latency.js"))
        .args([&url, &chromium])
        .env("NODE_PATH", root.join("tests/inspect/node_modules"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start node");
    let mut from_browser = BufReader::new(browser.stdout.take().unwrap());
    // The page shows steps: keep the machine moving until it says so.
    let ready = std::thread::scope(|scope| {
        let waiter = scope.spawn(|| {
            let mut line = String::new();
            from_browser.read_line(&mut line).unwrap();
            line
        });
        let mut n = 1;
        while !waiter.is_finished() {
            let _ = order.fire(LIFE[n % LIFE.len()]);
            n += 1;
            std::thread::sleep(Duration::from_millis(20));
        }
        waiter.join().unwrap()
    });
    assert_eq!(ready.trim(), "ready", "the page never showed a step");

    let steps = (rate * seconds) as u64;
    let period = Duration::from_secs_f64(1.0 / rate);
    let start = Instant::now();
    for n in 0..steps {
        let _ = order.fire(LIFE[(n as usize) % LIFE.len()]);
        let next = start + period.mul_f64((n + 1) as f64);
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    let elapsed = start.elapsed();
    observer.flush(Duration::from_secs(5));
    // Let the last steps reach the page.
    std::thread::sleep(Duration::from_millis(500));
    browser.stdin.as_mut().unwrap().write_all(b"done\n").unwrap();
    let mut line = String::new();
    from_browser.read_line(&mut line).unwrap();
    let _ = browser.wait();
    let _ = inspector.kill();
    let _ = inspector.wait();

    let mut latencies: Vec<f64> = serde_json::from_str(&line).expect("the delays, from the page");
    latencies.sort_by(f64::total_cmp);
    let at = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{steps} steps in {:.2} s ({:.0} a second); sent {}, dropped {}",
        elapsed.as_secs_f64(),
        steps as f64 / elapsed.as_secs_f64(),
        observer.sent(),
        observer.dropped()
    );
    println!(
        "step to highlight, in the browser, over {} steps seen: p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        latencies.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    );
}

fn usage() -> ! {
    eprintln!("usage: inspect_latency PATH/TO/fsmc [--rate N] [--seconds N] [--chromium PATH]");
    std::process::exit(2)
}
