//! `fsm_runtime::__private::chart` over the plan's `ChartPlan`, on random machines
//! with parallel states, `done`, `always`, `in(...)` and history, against
//! the independent reference of `grammar/tests/scxml`: every state each
//! `fire` exits and enters, in order, the configuration after it, and a
//! runaway where the reference runs away. The tables are the engine's own
//! (`runtime_tables`), so the test runs on what the engine steps over.

use super::configured::{runtime_tables, scxml};
use fsm_grammar::model::{Chosen, GuardExpr, Machine, StateId};
use fsm_grammar::plan::{ChartPlan, Plan, PoolList};
use fsm_runtime::__private::chart::{self, Bits, Chart, Host, List, Settled};
use scxml::{random_machine_with, Reference, Rng};
use std::fmt::Write as _;

const W: usize = 4;

fn list(l: PoolList) -> List {
    List {
        start: l.start,
        len: l.len,
    }
}

/// Guards from drawn values, outputs by name.
struct TestHost<'m> {
    m: &'m Machine,
    plan: &'m ChartPlan,
    values: Vec<bool>,
    outputs: Vec<String>,
}

impl Host<W> for TestHost<'_> {
    fn guard(&mut self, transition: u32, config: &Bits<W>) -> bool {
        let guard = match self.plan.transitions[transition as usize].chosen {
            Chosen::Action(t) => self.m.transition(t).guard.as_ref(),
            Chosen::Timer(t) => self.m.timers[t.index()].guard.as_ref(),
            Chosen::Eventless(i) => self.m.eventless[i].guard.as_ref(),
        };
        guard.is_none_or(|g| eval(&g.expr, &self.values, config))
    }
    fn taken(&mut self, _: u32) {}
    fn effect(&mut self, _: u32, _: bool) {}
    fn output(&mut self, output: u32) {
        let name = &self.m.outputs[output as usize].name;
        self.outputs
            .push(match (name.strip_prefix("in_"), name.strip_prefix("out_")) {
                (Some(state), _) => format!("+{state}"),
                (_, Some(state)) => format!("-{state}"),
                _ => panic!("only hooks emit: {name}"),
            });
    }
    fn arm(&mut self, _: &[u32]) {}
    fn disarm(&mut self, _: &[u32]) {}
}

fn eval(expr: &GuardExpr, values: &[bool], config: &Bits<W>) -> bool {
    expr.eval(&mut |g| values[g.index()], &mut |s| {
        config.contains(s.index() as u32)
    })
}

#[test]
fn the_chart_agrees_with_the_reference_on_random_parallel_machines() {
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
        if m.actions.is_empty() || m.states.len() > W * 64 {
            continue;
        }
        machines += 1;
        parallel += m.has_parallel() as usize;
        let plan = ChartPlan::new(m, &Plan::new(m));
        let (states, transitions) = runtime_tables(&plan);
        let chart = Chart {
            states: &states,
            transitions: &transitions,
            pool: &plan.pool,
        };
        let mut config: Bits<W> = Bits::EMPTY;
        for s in m.initial_configuration() {
            config.insert(s.index() as u32);
        }
        let mut memory = vec![Bits::<W>::EMPTY; Plan::new(m).history.len()];
        let mut chosen = vec![0u32; plan.max_leaves];
        let mut reference = Reference::new(m);
        let leaves = |config: &Bits<W>| -> Vec<String> {
            config
                .iter()
                .filter(|&s| !m.state(StateId::from_index(s as usize)).is_composite())
                .map(|s| m.state(StateId::from_index(s as usize)).name.clone())
                .collect()
        };
        let reference_leaves = |r: &Reference<'_>| -> Vec<String> {
            r.config
                .iter()
                .filter(|&&s| !m.state(s).is_composite())
                .map(|&s| m.state(s).name.clone())
                .collect()
        };
        assert_eq!(leaves(&config), reference_leaves(&reference), "{text}");
        let mut rng = Rng(seed | 1);
        let mut trail = String::new();
        for _ in 0..30 {
            let action = rng.below(m.actions.len());
            let drawn: Vec<bool> = (0..m.guards.len()).map(|_| rng.chance(50)).collect();
            let expected = reference.fire(action, &drawn);
            let mut host = TestHost {
                m,
                plan: &plan,
                values: drawn.clone(),
                outputs: Vec::new(),
            };
            let before = config;
            let n = chart::select(
                &chart,
                &before,
                |leaf| {
                    plan.rows[leaf as usize]
                        .iter()
                        .find(|(a, _)| *a == action)
                        .map_or(&[][..], |(_, l)| chart.list(list(*l)))
                },
                &mut host,
                &mut chosen,
            );
            let got = if n == 0 {
                Ok(Vec::new())
            } else {
                let n = chart::remove_conflicts(&chart, &before, &mut chosen, n);
                let taken: Vec<u32> = chosen[..n].to_vec();
                let entered = chart::microstep(&chart, &mut config, &mut memory, &taken, &mut host);
                match chart::settle(
                    &chart,
                    &mut config,
                    &mut memory,
                    &before,
                    &entered,
                    &mut host,
                    &mut chosen,
                ) {
                    Settled::Stable => Ok(std::mem::take(&mut host.outputs)),
                    Settled::Runaway => Err(()),
                }
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
            assert_eq!(leaves(&config), reference_leaves(&reference), "{text}\n{trail}");
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
