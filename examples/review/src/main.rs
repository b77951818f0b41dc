//! A review session traced step by step, then the errors the machine gives
//! for actions that are not valid. Run it with `cargo run -p review`.

use review::{Action, Draft, QualityCheck, Reviewer, Strategy};

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
    let steps = [
        (Action::Start, 0),
        (Action::Restart, 0),
        (Action::Review, 50),
        (Action::Finish, 50),
        (Action::Restart, 0),
        (Action::Review, 95),
        (Action::Restart, 0),
    ];
    for (action, score) in steps {
        let check = QualityCheck { score, threshold: 80 };
        match strategy.execute(action, &check) {
            Ok(fired) => println!("  {fired}"),
            Err(error) => println!("  error: {error}"),
        }
    }
}
