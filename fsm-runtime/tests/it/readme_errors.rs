//! The guide's one error `match` (docs/runtime.md) is this file's `report`: the same `match`
//! reads what `fire` returns for a machine with guards passed per call and
//! for one with a context, payloads and timers.

#![deny(warnings)]

fsm_runtime::fsm! {
    machine Door {
        initial state closed { on open -> opened; on lock [has_key] -> locked; }
        state opened { on close -> closed; }
        state locked { on unlock -> closed; }
    }
}

fsm_runtime::fsm! {
    machine Call {
        context Line;
        action dial(String), hang_up;
        guard valid(String);
        effect ring(String);
        initial state idle { on dial [valid] -> ringing do ring; after 1h -> idle; }
        state ringing { on hang_up -> idle; after 30s -> idle; }
    }
}

struct Keys {
    has_key: bool,
}

impl door::Guards for Keys {
    fn has_key(&self) -> bool {
        self.has_key
    }
}

#[derive(Default)]
struct Line {
    rung: Vec<String>,
}

impl call::Context for Line {
    fn valid(&self, number: &String) -> bool {
        number.starts_with("555")
    }

    fn ring(&mut self, number: &String) {
        self.rung.push(number.clone());
    }
}

// README: one error match (from here to `// README: end`)
use fsm_runtime::{FireError, Fired, Machine};

/// One `match` for what any machine's `fire` returns.
fn report<M: Machine>(result: Result<Fired<M>, FireError<M>>) -> String {
    match result {
        Ok(fired) => fired.to_string(),
        Err(FireError::InvalidTransition(e)) => {
            let (action, state, valid) = (e.action(), e.state(), e.valid());
            format!("`{action}` is not valid in `{state}`; valid: {valid:?}")
        }
        Err(FireError::GuardRejected(e)) => {
            let guards: Vec<&str> = e.candidates().iter().map(|c| c.guard()).collect();
            format!("{:?} refused by {guards:?}", e.event())
        }
        // A guarded cycle of `always` or `done` steps that did not settle.
        Err(FireError::Runaway(e)) => format!("ran away: {e}"),
    }
}
// README: end

#[test]
fn one_match_reads_every_machine_s_errors() {
    let mut door = door::Door::new();
    let keys = Keys { has_key: false };
    assert_eq!(
        report(door.fire(door::Action::Lock, &keys)),
        "Lock refused by [\"has_key\"]"
    );
    assert_eq!(
        report(door.fire(door::Action::Close, &keys)),
        "`close` is not valid in `closed`; valid: [Open, Lock]"
    );
    assert_eq!(
        report(door.fire(door::Action::Open, &keys)),
        "`closed` --open--> `opened`"
    );

    let mut call = call::Call::new(Line::default());
    assert_eq!(
        report(call.fire(call::Event::Dial("911".into()))),
        "Dial(\"911\") refused by [\"valid\"]"
    );
    assert_eq!(
        report(call.fire(call::Event::HangUp)),
        "`hang_up` is not valid in `idle`; valid: [Dial]"
    );
    assert_eq!(
        report(call.fire(call::Event::Dial("555-0100".into()))),
        "`idle` --dial--> `ringing`"
    );
    assert_eq!(call.context().rung, ["555-0100"]);

    // The payload comes back with the error.
    let error = call.fire(call::Event::Dial("555-0199".into())).unwrap_err();
    assert!(matches!(error.into_event(), call::Event::Dial(number) if number == "555-0199"));
}

/// The README shows exactly `report`.
#[test]
fn the_readme_shows_this_match() {
    let test = include_str!("readme_errors.rs");
    let shown = test
        .split("// README: one error match (from here to `// README: end`)\n")
        .nth(1)
        .and_then(|rest| rest.split("// README: end\n").next())
        .expect("the marked lines");
    let readme = include_str!("../../../docs/runtime.md");
    let block = readme
        .split("One `match` reads the errors of every machine alike:\n\n```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/runtime.md shows the match");
    assert_eq!(block, shown);
}
