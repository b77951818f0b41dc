//! A fleet to look at: orders of `examples/orders.fsm` at every stage, some
//! parked, some with a payment waiting, some with a dead event or a dead
//! output.
//!
//! ```text
//! cargo run -p fsm-fleet --example orders -- fleet.db [N]
//! fsmc inspect --fleet fleet.db fsm-fleet/examples/orders.fsm
//! cargo run -p fsm-fleet --example orders -- --add fleet.db [N]
//! ```
//!
//! `N` orders (1,000 without it) go into `fleet.db`, a new file. A worker
//! steps them as far as their events take them; what is left is what
//! `fsmc inspect --fleet` and `fsmc fleet list` show. With `--add`, `N` new
//! orders (10 without it) are placed in an existing fleet, for a page that
//! is open to follow.

use fsm_fleet::{Fleet, Machines};
use order::{Action, Order};
use std::time::Duration;

fsm_runtime::fsm!(file = "examples/orders.fsm");

/// An older definition of `Order`: the instances it saved are parked when
/// the worker, which knows only today's, steps them.
mod old {
    fsm_runtime::fsm! {
        machine Order {
            action pay;
            initial state placed { on pay -> paid; }
            terminal state paid;
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let add = args.first().is_some_and(|a| a == "--add");
    if add {
        args.remove(0);
    }
    let (Some(path), count) = (args.first(), args.get(1)) else {
        return Err("usage: orders [--add] FLEET.db [N]".into());
    };
    let count: usize = match count {
        None if add => 10,
        None => 1_000,
        Some(n) => n
            .parse()
            .map_err(|_| format!("`{n}` is not a number of orders"))?,
    };
    if add != std::path::Path::new(path).exists() {
        return Err(if add {
            format!("`{path}` does not exist; fill it first, without --add")
        } else {
            format!("`{path}` exists; give a new file, or --add to it")
        }
        .into());
    }
    let mut fleet = Fleet::open(path)?.with_max_attempts(1);
    if add {
        let first = fleet_size(&mut fleet)?;
        for i in first..first + count {
            fleet.create(&format!("order-{i:06}"), Order::new())?;
        }
        println!("{count} orders placed in `{path}`");
        return Ok(());
    }
    // A demonstration: a crash may lose it, so nothing waits for the disk.
    if let Some(sqlite) = fleet.sqlite() {
        sqlite.execute_batch("PRAGMA synchronous = OFF")?;
    }
    let ids: Vec<String> = (0..count).map(|i| format!("order-{i:06}")).collect();
    let mut events: Vec<(&str, Action, &str)> = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        if i % 50 == 7 {
            fleet.create(id, old::order::Order::new())?;
            events.push((id, Action::Pay, "pay"));
            continue;
        }
        fleet.create(id, Order::new())?;
        // How far each order has come, by its number.
        let stage: &[(Action, &str)] = match i % 10 {
            0 | 1 => &[],
            2 => &[(Action::Cancel, "cancel")],
            3 => &[(Action::Pay, "pay")],
            4 => &[(Action::Pay, "pay"), (Action::Pack, "pack")],
            5 => &[(Action::Pay, "pay"), (Action::Invoice, "invoice")],
            6 => &[
                (Action::Pay, "pay"),
                (Action::Pack, "pack"),
                (Action::Invoice, "invoice"),
            ],
            _ => &[
                (Action::Pay, "pay"),
                (Action::Pack, "pack"),
                (Action::Invoice, "invoice"),
                (Action::Ship, "ship"),
            ],
        };
        events.extend(stage.iter().map(|(action, key)| (id.as_str(), *action, *key)));
    }
    for batch in events.chunks(500) {
        fleet.send_batch(batch)?;
    }
    let machines = Machines::new().with::<Order>();
    while fleet.work(&machines, 500)?.instances > 0 {}
    // An event that is not one of `Order`'s: dead when a worker reads it.
    for id in ids.iter().step_by(97) {
        fleet.send(id, &serde_json::json!({"refund": 1}), "refund")?;
    }
    while fleet.work(&machines, 500)?.instances > 0 {}
    // Every fifth card charge fails, for good (one attempt each): a dead
    // output. The rest are done.
    loop {
        let claimed = fleet.claim_outputs(500, Duration::from_secs(30))?;
        if claimed.is_empty() {
            break;
        }
        for (n, output) in claimed.iter().enumerate() {
            if n % 5 == 0 && output.output.contains("charge_card") {
                fleet.output_failed(output, "card declined")?;
            } else {
                fleet.output_done(output)?;
            }
        }
    }
    // A payment sent last, not yet taken: due.
    for id in ids.iter().skip(1).step_by(10).take(25) {
        fleet.send(id, &Action::Pay, "late-pay")?;
    }
    println!("{count} orders in `{path}`");
    Ok(())
}

/// How many instances the fleet has: the number of the next order.
fn fleet_size(fleet: &mut Fleet) -> Result<usize, Box<dyn std::error::Error>> {
    let sqlite = fleet.sqlite().ok_or("an SQLite fleet")?;
    let n: i64 = sqlite.query_row("SELECT COUNT(*) FROM fsm_instances", [], |row| row.get(0))?;
    Ok(usize::try_from(n)?)
}
