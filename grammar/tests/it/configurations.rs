//! Random machines with parallel states, `done`, `always`, `in(...)` and
//! history, run by the model's steps over configurations
//! (`Machine::microstep`, `Machine::settle`) and by an independent reference
//! written here from W3C SCXML 1.0, Appendix D (`selectTransitions`,
//! `removeConflictingTransitions`, `computeExitSet`, `computeEntrySet`,
//! `addDescendantStatesToEnter`, `addAncestorStatesToEnter`, the `done.state`
//! events of `enterStates`) and from docs/dsl.md where fsmc differs:
//!
//! - candidates by priority, then innermost level, then declaration, `any`
//!   outermost; conflicts by priority, then a source inside the other's;
//! - a transition whose source and target lie in one region of a parallel
//!   state (or that a parallel state declares into one of its regions)
//!   changes that region only;
//! - a `done` is an internal event raised for every state a step makes done,
//!   bubbling up through parallel states without limit, handled innermost
//!   first after the eventless transitions, and tried once;
//! - history remembers, per state, its active atomic descendants (deep) or
//!   active children (shallow), as SCXML's history states do, and a parallel
//!   state's shallow history re-enters every region by default.
//!
//! The two must agree on every configuration, and on every state exited and
//! entered, in order. The dynamic engine joins the comparison in
//! `fsm-dynamic/tests/it/configurations.rs`.

#[path = "../scxml/mod.rs"]
mod scxml;

use fsm_grammar::model::{Chosen, Configuration, Machine, Memory, Settled};
use scxml::{random_machine, Reference, Rng};
use std::fmt::Write as _;

/// The model's steps, with the same guards.
fn model_fire(
    m: &Machine,
    config: &mut Configuration,
    memory: &mut Memory,
    action: usize,
    values: &[bool],
) -> Result<Vec<String>, ()> {
    let holds = |cfg: &Configuration, c: Chosen| {
        let guard = match c {
            Chosen::Action(t) => m.transition(t).guard.as_ref(),
            Chosen::Timer(t) => m.timers[t.index()].guard.as_ref(),
            Chosen::Eventless(i) => m.eventless[i].guard.as_ref(),
        };
        guard.is_none_or(|g| g.expr.eval(&mut |v| values[v.index()], &mut |s| cfg.contains(&s)))
    };
    let before = config.clone();
    let a = fsm_grammar::model::ActionId::from_index(action);
    let chosen = m.select(
        &before,
        |leaf| m.candidates(leaf, a).into_iter().map(Chosen::Action).collect(),
        |c| holds(&before, c),
    );
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    let taken = m.remove_conflicts(&before, &chosen);
    let first = m.microstep(config, &taken, memory);
    let mut steps = vec![first.clone()];
    match m.settle(config, memory, &before, &first, holds) {
        Settled::Stable(more) => steps.extend(more),
        Settled::Runaway(_) => return Err(()),
    }
    Ok(steps
        .iter()
        .flat_map(|s| {
            s.exits
                .iter()
                .map(|&x| format!("-{}", m.state(x).name))
                .chain(s.entries.iter().map(|&x| format!("+{}", m.state(x).name)))
        })
        .collect())
}

#[test]
fn the_model_agrees_with_the_reference_on_random_parallel_machines() {
    let mut machines = 0;
    let mut parallel = 0;
    let mut steps = 0;
    let (mut moved, mut long) = (0, 0);
    let mut seed = 0u64;
    while machines < 300 {
        seed += 1;
        assert!(seed < 20_000, "too few valid random machines");
        let text = random_machine(seed);
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
        let mut reference = Reference::new(m);
        let mut config: Configuration = m.initial_configuration().into_iter().collect();
        let mut memory = Memory::default();
        assert_eq!(config, reference.config, "start of\n{text}");
        let mut rng = Rng(seed | 1);
        let mut trail = String::new();
        for _ in 0..30 {
            let action = rng.below(m.actions.len());
            let values: Vec<bool> = (0..m.guards.len()).map(|_| rng.chance(50)).collect();
            let expected = reference.fire(action, &values);
            let got = model_fire(m, &mut config, &mut memory, action, &values);
            let _ = writeln!(
                trail,
                "fire {} with {values:?}: {expected:?}",
                m.actions[action].name
            );
            assert_eq!(got, expected, "{text}\n{trail}");
            if expected.is_err() {
                break;
            }
            assert_eq!(config, reference.config, "{text}\n{trail}");
            steps += 1;
            let moves = expected.as_ref().map_or(0, Vec::len);
            moved += usize::from(moves > 0);
            long += usize::from(moves > 8);
        }
    }
    eprintln!("{machines} machines ({parallel} with parallel states) from {seed} seeds, {steps} steps, {moved} that moved, {long} longer than one microstep's worth");
    assert!(
        parallel > 100,
        "only {parallel} of {machines} machines have parallel states"
    );
    assert!(steps > 3000, "only {steps} steps");
}
