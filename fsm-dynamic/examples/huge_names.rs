//! Peak memory with huge names (issue 15, item 3): imports a JSON definition
//! whose one action name is `MB` megabytes long (first argument, default
//! 50), builds an engine that records a history, fires the action `FIRES`
//! times (second argument, default 10) and takes a snapshot. Run it under
//! `/usr/bin/time -f "%M KB"` to see the peak:
//!
//! ```text
//! cargo build --release -p fsm-dynamic --example huge_names
//! /usr/bin/time -f "%M KB" target/release/examples/huge_names 50 10
//! ```
//!
//! Every history entry shares the definition's names, so the fires add
//! next to nothing to the peak, however long the name.

use fsm_dynamic::{Definition, Engine};
use fsm_runtime::History;
use serde_json::Value;

fn main() {
    let mut args = std::env::args().skip(1);
    let megabytes: usize = args.next().map_or(50, |a| a.parse().expect("megabytes"));
    let fires: usize = args.next().map_or(10, |a| a.parse().expect("a number of fires"));
    let action = "a".repeat(megabytes << 20);
    let json = format!(
        r#"{{"fsm_id": "m", "initial_state": "idle",
            "states": {{"idle": {{"on": {{"{action}": {{"to": "idle"}}}}}}}}}}"#
    );
    let definition = Definition::from_json(&json).expect("a definition");
    drop(json);
    let engine = Engine::builder(definition)
        .history(History::new())
        .build()
        .expect("an engine");
    for _ in 0..fires {
        engine.fire(&action, &Value::Null).expect("the action fires");
    }
    let recorded = engine.with_history(History::len).unwrap_or(0);
    println!("{recorded} entries recorded, names of {megabytes} MB");
}
