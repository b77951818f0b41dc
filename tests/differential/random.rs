//! The dynamic engine on random machines with parallel states, `done`,
//! `always`, `in(...)` and history, against the independent reference of
//! `grammar/tests/scxml` (written from W3C SCXML 1.0, Appendix D, and
//! docs/dsl.md, not from the model or the plan): every state each `fire`
//! exits and enters, in order (each state emits `out_sK` when left and
//! `in_sK` when entered), the configuration after it, and a runaway where
//! the reference runs away.

#[path = "../../../grammar/tests/scxml/mod.rs"]
mod scxml;

use fsm_dynamic::{Definition, Engine, FireError};
use scxml::{random_machine_with, Reference, Rng};
use serde_json::Value;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

#[test]
fn the_dynamic_engine_agrees_with_the_reference_on_random_parallel_machines() {
    let (mut machines, mut parallel, mut steps, mut seed) = (0, 0, 0, 0u64);
    while machines < 300 {
        seed += 1;
        assert!(seed < 20_000, "too few valid random machines");
        let text = random_machine_with(seed, true);
        let checked = fsm_grammar::check(&text);
        if checked.has_errors() {
            continue;
        }
        let m = &checked.model.machines[0];
        if m.actions.is_empty() {
            continue;
        }
        machines += 1;
        parallel += usize::from(m.has_parallel());
        let definition = Arc::new(Definition::from_machine(m));
        let values: Arc<Mutex<Vec<bool>>> = Arc::new(Mutex::new(vec![false; m.guards.len()]));
        let mut builder = Engine::builder(Arc::clone(&definition));
        for (i, guard) in m.guards.iter().enumerate() {
            let values = Arc::clone(&values);
            builder = builder.guard(&guard.name, move |_| values.lock().unwrap()[i]);
        }
        let engine = builder.build().expect("every guard bound");
        let mut reference = Reference::new(m);
        let names = |ids: Vec<fsm_dynamic::StateId>| -> Vec<String> {
            ids.into_iter()
                .map(|s| definition.state_name(s).to_owned())
                .collect()
        };
        let reference_leaves = |r: &Reference<'_>| -> Vec<String> {
            r.config
                .iter()
                .filter(|&&s| !m.state(s).is_composite())
                .map(|&s| m.state(s).name.clone())
                .collect()
        };
        assert_eq!(
            names(engine.configuration()),
            reference_leaves(&reference),
            "{text}"
        );
        let mut rng = Rng(seed | 1);
        let mut trail = String::new();
        for _ in 0..30 {
            let action = rng.below(m.actions.len());
            let drawn: Vec<bool> = (0..m.guards.len()).map(|_| rng.chance(50)).collect();
            *values.lock().unwrap() = drawn.clone();
            let expected = reference.fire(action, &drawn);
            let got = match engine.fire(&m.actions[action].name, &Value::Null) {
                Ok(fired) => Ok(fired.output_names().map(moves).collect::<Vec<_>>()),
                Err(FireError::InvalidTransition(_) | FireError::GuardRejected(_)) => Ok(Vec::new()),
                Err(FireError::Runaway(_)) => Err(()),
                Err(e) => panic!("{e}"),
            };
            let _ = writeln!(
                trail,
                "fire {} with {drawn:?}: {expected:?}",
                m.actions[action].name
            );
            assert_eq!(got, expected, "{text}\n{trail}");
            if expected.is_err() {
                break;
            }
            assert_eq!(
                names(engine.configuration()),
                reference_leaves(&reference),
                "{text}\n{trail}"
            );
            steps += 1;
        }
    }
    eprintln!("{machines} machines ({parallel} with parallel states) from {seed} seeds, {steps} steps");
    assert!(
        parallel > 100,
        "only {parallel} of {machines} machines have parallel states"
    );
    assert!(steps > 3000, "only {steps} steps");
}

/// `in_s3` as the reference writes an entry (`+s3`), `out_s3` as an exit.
fn moves(output: &str) -> String {
    match (output.strip_prefix("in_"), output.strip_prefix("out_")) {
        (Some(state), _) => format!("+{state}"),
        (_, Some(state)) => format!("-{state}"),
        _ => panic!("only hooks emit: {output}"),
    }
}
