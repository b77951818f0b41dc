//! Every path the search reports is replayed on the dynamic engine first,
//! with a manual clock and each guard bound to the answers the path used,
//! in the order the path asked them: a path the engine does not take is
//! never reported as a counterexample.

use crate::search::leaves_text;
use crate::step::{Move, NAMED_DELAY_MS};
use crate::Path;
use fsm_dynamic::{Definition, Engine, FireError};
use fsm_grammar::model::Machine;
use fsm_runtime::ManualClock;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, UNIX_EPOCH};

/// The answers still to give, and the first question the engine asked
/// otherwise than the path did.
#[derive(Default)]
struct Script {
    answers: VecDeque<(usize, bool)>,
    wrong: Option<String>,
}

/// Replay `path` from the start on the dynamic engine; a lasso's cycle is
/// replayed twice, and must come back to the leaves it started from.
///
/// # Errors
///
/// The first step the engine took otherwise, in words.
pub(crate) fn replay(machine: &Machine, path: &Path) -> Result<(), String> {
    let mut steps: Vec<&crate::Step> = path.steps.iter().collect();
    if let Some(cycle) = path.cycle {
        if cycle >= path.steps.len() {
            return Err(format!(
                "the cycle starts at step {}, past the path's end",
                cycle + 1
            ));
        }
        let before = match cycle {
            0 => &path.start,
            n => &path.steps[n - 1].leaves,
        };
        let after = &path.steps[path.steps.len() - 1].leaves;
        if before != after {
            return Err(format!(
                "the cycle from step {} ends in {}, not where it started ({})",
                cycle + 1,
                leaves_text(machine, after),
                leaves_text(machine, before)
            ));
        }
        steps.extend(&path.steps[cycle..]);
    }
    let definition = Arc::new(Definition::try_from_machine(machine).map_err(|e| e.to_string())?);
    let clock = ManualClock::new(UNIX_EPOCH);
    let script = Arc::new(Mutex::new(Script::default()));
    let mut builder = Engine::builder(Arc::clone(&definition)).clock(clock.clone());
    for (index, guard) in machine.guards.iter().enumerate() {
        let script = Arc::clone(&script);
        let names: Vec<String> = machine.guards.iter().map(|g| g.name.clone()).collect();
        builder = builder.guard(&guard.name, move |_| {
            let mut script = script.lock().unwrap_or_else(PoisonError::into_inner);
            match script.answers.pop_front() {
                Some((g, value)) if g == index => value,
                other => {
                    let expected = other.map_or("no guard".to_owned(), |(g, _)| format!("`{}`", names[g]));
                    script.wrong.get_or_insert(format!(
                        "the engine asked guard `{}` where the search asked {expected}",
                        names[index]
                    ));
                    false
                }
            }
        });
    }
    for effect in &machine.effects {
        builder = builder.effect(&effect.name, |_, _| {});
    }
    for delay in &machine.delays {
        builder = builder.delay(&delay.name, |_| Duration::from_millis(u64::from(NAMED_DELAY_MS)));
    }
    let engine = builder.build().map_err(|e| e.to_string())?;
    let mut now = 0u64;
    for (n, step) in steps.into_iter().enumerate() {
        let at = |what: String| format!("step {}: {what}", n + 1);
        {
            let mut s = script.lock().unwrap_or_else(PoisonError::into_inner);
            s.answers = step.guards.iter().map(|&(g, v)| (g.index(), v)).collect();
            s.wrong = None;
        }
        match step.mv {
            Move::Fire(action) => {
                let name = &machine.actions[action.index()].name;
                match engine.fire(name, &Value::Null) {
                    Err(FireError::GuardRejected(_)) if step.outcome.refused => {}
                    _ if step.outcome.refused => {
                        return Err(at(format!("`{name}` was not refused by its guards")))
                    }
                    Ok(_) if !step.outcome.runaway => {}
                    Err(FireError::Runaway(_)) if step.outcome.runaway => {}
                    Ok(_) => return Err(at(format!("`{name}` settled where the search ran away"))),
                    Err(error) => return Err(at(format!("`{name}`: {error}"))),
                }
            }
            Move::Advance => {
                now += u64::from(step.outcome.advanced);
                clock.set(UNIX_EPOCH + Duration::from_millis(now));
                let fired: Vec<bool> = engine.fire_due().iter().map(Result::is_ok).collect();
                let expected: Vec<bool> = step.outcome.fired.iter().map(|&(_, ok)| ok).collect();
                if fired != expected {
                    return Err(at(format!(
                        "the timers due fired as {fired:?} where the search fired {expected:?}"
                    )));
                }
            }
        }
        let s = script.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(wrong) = &s.wrong {
            return Err(at(wrong.clone()));
        }
        if !s.answers.is_empty() {
            return Err(at(format!(
                "the engine asked {} guards fewer than the search",
                s.answers.len()
            )));
        }
        let leaves: Vec<usize> = engine.configuration().iter().map(|s| s.index()).collect();
        let expected: Vec<usize> = step.leaves.iter().map(|s| s.index()).collect();
        if leaves != expected {
            let theirs: Vec<_> = leaves
                .iter()
                .map(|&i| fsm_grammar::model::StateId::from_index(i))
                .collect();
            return Err(at(format!(
                "the engine is in {} where the search is in {}",
                leaves_text(machine, &theirs),
                leaves_text(machine, &step.leaves)
            )));
        }
    }
    Ok(())
}
