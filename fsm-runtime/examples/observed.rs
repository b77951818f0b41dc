//! A program observed by `fsmc inspect --listen ADDR`: instances of an
//! order machine, each moving through its life over and over, at a given
//! rate, every step sent to the inspector.
//!
//! ```text
//! fsmc inspect --listen 127.0.0.1:7171 &
//! cargo run -p fsm-runtime --example observed -- 127.0.0.1:7171 --rate 1000 --instances 3
//! ```
//!
//! Options: `--rate N` steps a second in all (default 5), `--instances N`
//! (default 2), `--steps N` then stop (default: run until killed). It prints
//! how many steps it sent and dropped when it stops.

use fsm_runtime::inspect::{Observed, Observer};
use std::time::{Duration, Instant};

fsm_runtime::fsm!(file = "examples/observed.fsm");

use order::{Action, Order};

/// One order's life: every action in turn, the last back to the start.
const LIFE: [Action; 6] = [
    Action::Place,
    Action::Pay,
    Action::Ship,
    Action::Deliver,
    Action::Reopen,
    // Refused in `cart`: the page shows refusals too.
    Action::Cancel,
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(address) = args.next() else {
        eprintln!("usage: observed ADDR [--rate N] [--instances N] [--steps N]");
        std::process::exit(2);
    };
    let (mut rate, mut instances, mut steps) = (5.0f64, 2usize, u64::MAX);
    while let Some(flag) = args.next() {
        let value = args.next().and_then(|v| v.parse::<f64>().ok());
        match (flag.as_str(), value) {
            ("--rate", Some(v)) if v > 0.0 => rate = v,
            ("--instances", Some(v)) if v >= 1.0 => instances = v as usize,
            ("--steps", Some(v)) if v >= 0.0 => steps = v as u64,
            _ => {
                eprintln!("observed: bad option `{flag}`");
                std::process::exit(2);
            }
        }
    }
    let observer = Observer::connect(address.as_str())?;
    let mut orders: Vec<Observed<Order>> = (0..instances)
        .map(|i| {
            Observed::new(Order::new(), &observer, format!("order-{}", i + 1))
                .with_definition(include_str!("observed.fsm"))
        })
        .collect();
    let period = Duration::from_secs_f64(1.0 / rate);
    let start = Instant::now();
    for n in 0..steps {
        let order = &mut orders[(n as usize) % instances];
        let action = LIFE[((n as usize) / instances) % LIFE.len()];
        let _ = order.fire(action);
        // Paced against the start, so the rate holds on average.
        let next = start + period.mul_f64((n + 1) as f64);
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    observer.flush(Duration::from_secs(5));
    println!("sent {} steps, dropped {}", observer.sent(), observer.dropped());
    Ok(())
}
