//! Timers of a generated machine with parallel states: armed in every
//! active state, each region's, fired by `fire_due` one step per due group
//! with ties to the leaves in document order, kept in snapshots and checked
//! on restore.

use fsm_runtime::{ArmedTimer, FingerprintPolicy, ManualClock, RestoreError, Snapshot, Timestamp};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fsm_runtime::fsm! {
    machine Kiln {
        guard fan_ok;
        initial state idle { on start -> firing; }

        /// Heating and the fan run at once; the whole firing has a deadline.
        parallel state firing {
            after 10m -> failed emit alarm;
            done -> cooled emit open_door;

            state heat {
                initial state ramping { after 1m -> holding emit hold; }
                state holding { after 2m -> heat_done emit stop_heat; }
                final state heat_done;
            }
            state fan {
                initial state spinning {
                    after 1m [fan_ok] emit fan_checked;
                    on fan_stopped -> fan_done;
                }
                final state fan_done;
            }
        }
        terminal state cooled;
        terminal state failed;
    }
}

use kiln::{Action, FireError, Guards, Kiln, Output, State, TimerFired, TimerRejected};

struct Fan(bool);

impl Guards for Fan {
    fn fan_ok(&self) -> bool {
        self.0
    }
}

fn start() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

fn at(after: Duration) -> Timestamp {
    Timestamp::from(start() + after)
}

const MINUTE: Duration = Duration::from_secs(60);

fn due(
    machine: &mut Kiln<ManualClock>,
    fan: bool,
) -> Vec<Result<TimerFired<ManualClock>, TimerRejected<ManualClock>>> {
    let mut out = Vec::new();
    machine.fire_due(&Fan(fan), |result| out.push(result));
    out
}

#[test]
fn each_region_s_timers_fire_in_turn_ties_to_the_first_leaf() -> Result<(), FireError<ManualClock>> {
    let clock = ManualClock::new(start());
    let mut kiln = Kiln::with_clock(clock.clone());
    assert_eq!(kiln.next_deadline(), None);
    kiln.fire(Action::Start, &Fan(true))?;
    // `ramping` and `spinning` are due together, before `firing`'s.
    assert_eq!(kiln.next_deadline(), Some(at(MINUTE)));

    clock.advance(MINUTE);
    let fired = due(&mut kiln, true);
    let fired: Vec<TimerFired<ManualClock>> = fired.into_iter().map(|r| r.expect("fired")).collect();
    assert_eq!(fired.len(), 2, "{fired:?}");
    // `heat` is written before `fan`, so `ramping`'s timer goes first.
    assert_eq!(fired[0].declared_in, "ramping");
    assert_eq!(fired[0].outputs[..], [Output::Hold]);
    assert_eq!(
        fired[0].to.leaves().collect::<Vec<_>>(),
        [State::Holding, State::Spinning]
    );
    assert_eq!(fired[0].due, at(MINUTE));
    assert_eq!(
        fired[0].to_string(),
        "timer 0 of `ramping` (in [`ramping`, `spinning`]) -> [`holding`, `spinning`] (emit `hold`)"
    );
    // An internal timer: nothing exited or entered, and it is not re-armed.
    assert_eq!(fired[1].declared_in, "spinning");
    assert_eq!(fired[1].outputs[..], [Output::FanChecked]);
    assert!(fired[1].internal);
    // `holding` was entered at the time the group came due: its timer
    // counts from there, and `firing`'s still from the start.
    assert_eq!(kiln.next_deadline(), Some(at(3 * MINUTE)));
    assert_eq!(
        kiln.armed_timers().collect::<Vec<_>>(),
        [
            ArmedTimer::new("holding", 0, at(3 * MINUTE)),
            ArmedTimer::new("firing", 0, at(10 * MINUTE)),
        ]
    );

    // The heat finishes; the fan's stop makes `firing` done, and its
    // `done` runs in the same `fire`, disarming `firing`'s timer.
    clock.advance(2 * MINUTE);
    let fired = due(&mut kiln, true);
    assert!(matches!(&fired[..], [Ok(f)] if f.outputs[..] == [Output::StopHeat]));
    let fired = kiln.fire(Action::FanStopped, &Fan(true))?;
    assert_eq!(fired.outputs[..], [Output::OpenDoor]);
    assert!(kiln.is_terminal());
    assert_eq!(kiln.next_deadline(), None);
    clock.advance(60 * MINUTE);
    assert!(due(&mut kiln, true).is_empty());
    Ok(())
}

#[test]
fn a_group_whose_guards_all_fail_is_rejected_and_disarmed() -> Result<(), FireError<ManualClock>> {
    let clock = ManualClock::new(start());
    let mut kiln = Kiln::with_clock(clock.clone());
    kiln.fire(Action::Start, &Fan(false))?;
    clock.advance(MINUTE);
    let fired = due(&mut kiln, false);
    let [Ok(heat), Err(fan)] = &fired[..] else {
        panic!("{fired:?}");
    };
    assert_eq!(heat.declared_in, "ramping");
    assert_eq!(fan.declared_in, "spinning");
    assert_eq!(fan.due, at(MINUTE));
    assert_eq!(
        fan.to_string(),
        "timer 0 of `spinning` (in [`holding`, `spinning`]) came due at 2027-01-15T08:01:00.000Z and no \
         guard of its group held"
    );
    // The rejected group is disarmed: the next deadline is `holding`'s.
    assert_eq!(kiln.next_deadline(), Some(at(3 * MINUTE)));
    Ok(())
}

#[test]
fn a_snapshot_keeps_the_deadlines_and_restoring_checks_each_timer() -> Result<(), FireError<ManualClock>> {
    let clock = ManualClock::new(start());
    let mut kiln = Kiln::with_clock(clock.clone());
    kiln.fire(Action::Start, &Fan(true))?;
    let snapshot = kiln.snapshot();
    assert_eq!(
        snapshot.timers(),
        [
            ArmedTimer::new("ramping", 0, at(MINUTE)),
            ArmedTimer::new("firing", 0, at(10 * MINUTE)),
            ArmedTimer::new("spinning", 0, at(MINUTE)),
        ]
    );
    // Restored long after, the timers keep their deadlines and fire at once.
    let later = ManualClock::new(start() + 30 * MINUTE);
    let mut restored =
        Kiln::restore_with(&snapshot, FingerprintPolicy::Strict, later.clone()).expect("its own snapshot");
    assert_eq!(
        restored.armed_timers().collect::<Vec<_>>(),
        kiln.armed_timers().collect::<Vec<_>>()
    );
    let fired = due(&mut restored, true);
    let firing: Vec<(&str, Timestamp)> = fired
        .iter()
        .map(|r| {
            r.as_ref()
                .map_or_else(|e| (e.declared_in, e.due), |f| (f.declared_in, f.due))
        })
        .collect();
    // Earliest first, ties to the first leaf; `holding`, entered now, is
    // due later, and `firing`'s ends the run.
    assert_eq!(
        firing,
        [
            ("ramping", at(MINUTE)),
            ("spinning", at(MINUTE)),
            ("firing", at(10 * MINUTE))
        ]
    );
    assert_eq!(restored.leaves().collect::<Vec<_>>(), [State::Failed]);

    // A timer of a state that is not active, or that the state does not
    // have, is refused, naming it (`firing`'s, armed whenever `firing` is
    // active, is listed too).
    let with = |timer: ArmedTimer| {
        let snapshot = Snapshot::of_configuration(
            Kiln::<ManualClock>::NAME,
            <Kiln>::FINGERPRINT,
            ["holding", "spinning"],
        )
        .with_timers([timer, ArmedTimer::new("firing", 0, at(10 * MINUTE))]);
        Kiln::restore_with(&snapshot, FingerprintPolicy::Strict, clock.clone())
    };
    assert!(with(ArmedTimer::new("holding", 0, at(MINUTE))).is_ok());
    for (timer, timers) in [
        (ArmedTimer::new("ramping", 0, at(MINUTE)), None),
        (ArmedTimer::new("holding", 1, at(MINUTE)), Some(1)),
        (ArmedTimer::new("heat", 0, at(MINUTE)), Some(0)),
    ] {
        let state = timer.state().to_owned();
        match with(timer) {
            Err(RestoreError::UnknownTimer {
                state: named,
                timers: count,
                ..
            }) => {
                assert_eq!((named, count), (state, timers));
            }
            other => panic!("{other:?}"),
        }
    }
    Ok(())
}

mod ties {
    //! Timers due at once inside one region break ties as in a machine
    //! without parallel states: the highest priority first, then the
    //! innermost state; across regions, the earlier leaf's first.

    use super::{at, start, MINUTE};
    use fsm_runtime::ManualClock;

    fsm_runtime::fsm! {
        #[allow(timer-shadowed, dead-end)]
        machine Ties {
            initial parallel state p {
                state r {
                    initial state c {
                        after 1m priority 1 -> left emit outer;
                        initial state x { after 1m emit inner; }
                    }
                    state left;
                }
                state other { initial state y { after 1m emit other_region; } }
            }
        }
    }

    fsm_runtime::fsm! {
        #[allow(timer-shadowed, dead-end)]
        machine Alone {
            initial state c {
                after 1m priority 1 -> left emit outer;
                initial state x { after 1m emit inner; }
            }
            state left;
        }
    }

    #[test]
    fn priority_then_depth_within_a_region_then_the_earlier_leaf() {
        let clock = ManualClock::new(start());
        let mut machine = ties::Ties::with_clock(clock.clone());
        let mut alone = alone::Alone::with_clock(clock.clone());
        clock.advance(MINUTE);
        let mut outputs = Vec::new();
        machine.fire_due(|r| {
            let fired = r.unwrap();
            assert_eq!(fired.due, at(MINUTE));
            outputs.extend(fired.outputs.iter().map(|o| o.name()));
        });
        // `c`'s timer has priority 1: it leaves `c`, and `x`'s is disarmed;
        // then the other region's.
        assert_eq!(outputs, ["outer", "other_region"]);
        let mut alone_outputs = Vec::new();
        alone.fire_due(|r| alone_outputs.extend(r.unwrap().outputs.iter().map(|o| o.name())));
        assert_eq!(alone_outputs, ["outer"]);
    }

    fsm_runtime::fsm! {
        #[allow(dead-end)]
        machine Even {
            initial parallel state p {
                state r {
                    initial state c {
                        after 1m emit outer;
                        initial state x { after 1m emit inner; }
                    }
                }
                state other { initial state y { after 1m emit other_region; } }
            }
        }
    }

    fsm_runtime::fsm! {
        #[allow(dead-end)]
        machine EvenAlone {
            initial state c {
                after 1m emit outer;
                initial state x { after 1m emit inner; }
            }
        }
    }

    #[test]
    fn at_equal_priority_the_innermost_state_first() {
        let clock = ManualClock::new(start());
        let mut machine = even::Even::with_clock(clock.clone());
        let mut alone = even_alone::EvenAlone::with_clock(clock.clone());
        clock.advance(MINUTE);
        let mut outputs = Vec::new();
        machine.fire_due(|r| outputs.extend(r.unwrap().outputs.iter().map(|o| o.name())));
        assert_eq!(outputs, ["inner", "outer", "other_region"]);
        let mut alone_outputs = Vec::new();
        alone.fire_due(|r| alone_outputs.extend(r.unwrap().outputs.iter().map(|o| o.name())));
        assert_eq!(alone_outputs, ["inner", "outer"]);
    }
}
