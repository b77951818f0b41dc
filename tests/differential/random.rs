//! The dynamic engine on random machines (flat, nested and parallel alike,
//! with `done`, `always`, `in(...)`, history and guarded cycles that run
//! away) against the independent reference of `grammar/tests/scxml`
//! (written from W3C SCXML 1.0, Appendix D, and docs/dsl.md, not from the
//! plan or the runtime): every state each `fire` exits and enters, in order
//! (each state emits `out_sK` when left and `in_sK` when entered), the
//! configuration after it, and a runaway where the reference runs away.
//!
//! The random machines of [`parallel`](crate::parallel) are generated code
//! too, so they are few and settle; these are many, built at test time, and
//! the dynamic engine alone runs them, loaded twice: from the text and from
//! the JSON the first definition exports. Both must agree with the
//! reference, and every few steps each goes on from the other's snapshot.
//! The dynamic engine steps with `fsm_runtime::__private::chart`, which
//! generated code runs too: this is the chart's step against the reference
//! on a few hundred machines.

use crate::scxml::{random_machine_with, Reference, Rng};
use fsm_dynamic::{Definition, Engine, FireError};
use serde_json::Value;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// A dynamic engine running `definition`, its guards reading `values`.
fn engine(definition: &Arc<Definition>, values: &Arc<Mutex<Vec<bool>>>) -> Engine {
    let mut builder = Engine::builder(Arc::clone(definition));
    for (i, guard) in definition.machine().guards.iter().enumerate() {
        let values = Arc::clone(values);
        builder = builder.guard(&guard.name, move |_| values.lock().unwrap()[i]);
    }
    builder.build().expect("every guard bound")
}

/// What `fire` did as the reference writes it: the states exited and
/// entered, in order (nothing for a refusal), or `Err(())` for a runaway.
fn fired(engine: &Engine, action: &str) -> Result<Vec<String>, ()> {
    match engine.fire(action, &Value::Null) {
        Ok(fired) => Ok(fired.output_names().map(moves).collect()),
        Err(FireError::InvalidTransition(_) | FireError::GuardRejected(_)) => Ok(Vec::new()),
        Err(FireError::Runaway(_)) => Err(()),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn the_dynamic_engine_agrees_with_the_reference_on_random_machines() {
    let (mut machines, mut parallel, mut steps, mut seed) = (0, 0, 0, 0u64);
    let (mut runaways, mut snapshots) = (0, 0);
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
        let from_json = crate::dynamic::definition_from_json(&definition);
        let values: Arc<Mutex<Vec<bool>>> = Arc::new(Mutex::new(vec![false; m.guards.len()]));
        let engines = [engine(&definition, &values), engine(&from_json, &values)];
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
        for engine in &engines {
            assert_eq!(
                names(engine.configuration()),
                reference_leaves(&reference),
                "{text}"
            );
        }
        let mut rng = Rng(seed | 1);
        let mut trail = String::new();
        for step in 0..30 {
            let action = rng.below(m.actions.len());
            let drawn: Vec<bool> = (0..m.guards.len()).map(|_| rng.chance(50)).collect();
            *values.lock().unwrap() = drawn.clone();
            let expected = reference.fire(action, &drawn);
            let _ = writeln!(
                trail,
                "fire {} with {drawn:?}: {expected:?}",
                m.actions[action].name
            );
            for engine in &engines {
                let got = fired(engine, &m.actions[action].name);
                assert_eq!(got, expected, "{text}\n{trail}");
            }
            if expected.is_err() {
                runaways += 1;
                break;
            }
            for engine in &engines {
                assert_eq!(
                    names(engine.configuration()),
                    reference_leaves(&reference),
                    "{text}\n{trail}"
                );
            }
            steps += 1;
            if step % 5 == 4 {
                // Each goes on from the other's snapshot (configuration and
                // history memory), which is the same JSON.
                let [a, b] = &engines;
                let (ours, theirs) = (a.snapshot(), b.snapshot());
                assert_eq!(
                    serde_json::to_value(&ours).unwrap(),
                    serde_json::to_value(&theirs).unwrap(),
                    "{text}\n{trail}"
                );
                a.restore(&theirs)
                    .unwrap_or_else(|e| panic!("{e}\n{text}\n{trail}"));
                b.restore(&ours)
                    .unwrap_or_else(|e| panic!("{e}\n{text}\n{trail}"));
                snapshots += 1;
            }
        }
    }
    eprintln!(
        "{machines} machines ({parallel} with parallel states) from {seed} seeds, {steps} steps, \
         {runaways} runaways, {snapshots} snapshots exchanged"
    );
    assert!(
        parallel > 100,
        "only {parallel} of {machines} machines have parallel states"
    );
    assert!(
        machines - parallel > 30,
        "only {} machines without parallel states",
        machines - parallel
    );
    assert!(steps > 3000, "only {steps} steps");
    assert!(runaways > 0, "no machine ran away");
}

/// `in_s3` as the reference writes an entry (`+s3`), `out_s3` as an exit.
fn moves(output: &str) -> String {
    match (output.strip_prefix("in_"), output.strip_prefix("out_")) {
        (Some(state), _) => format!("+{state}"),
        (_, Some(state)) => format!("-{state}"),
        _ => panic!("only hooks emit: {output}"),
    }
}
