//! A review session traced step by step, then the errors the machine gives
//! for actions that are not valid. Run it with `cargo run -p review`.

use review::{Draft, Event, QualityCheck, Reviewer, Strategy};

fn main() {
    let drafts = [
        Draft::new("plan: rewrite everything", 40),
        Draft::new("plan: fix the parser, then the checker", 70),
        Draft::new("plan: fix the parser with a regression test", 90),
    ];
    let mut reviewer = Reviewer::new(80, 3);
    println!("review session: pass at 80%, at most 3 revisions");
    let outcome = reviewer.run(&drafts);
    for line in reviewer.trace() {
        println!("{line}");
    }
    match outcome {
        Ok(outcome) => println!("{outcome}"),
        Err(error) => println!("error: {error}"),
    }

    println!();
    println!("a shared strategy, with actions that are not valid:");
    let strategy = Strategy::new();
    let check = QualityCheck { threshold: 80 };
    let events = [
        Event::Start,
        Event::Restart,
        Event::Review(Draft::new("plan: ship it", 50)),
        Event::Finish,
        Event::Restart,
        Event::Review(Draft::new("plan: ship it, with tests", 95)),
        Event::Restart,
    ];
    for event in events {
        match strategy.execute(event, &check) {
            Ok(fired) => println!("  {fired}"),
            Err(error) => println!("  error: {error}"),
        }
    }
}
