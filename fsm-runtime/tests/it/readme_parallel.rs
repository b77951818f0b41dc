//! The guide's first example of parallel states (docs/parallel-states.md) is
//! this test's body, so what users copy compiles and does what the guide says.

use crate::readme_common;

#[test]
fn readme_parallel_states() {
    // README: parallel states (from here to the end of this function)
    fsm_runtime::fsm! {
        machine Research {
            initial state idle { on start -> collect; }

            /// Both researchers work at once; synthesis starts when both are done.
            parallel state collect {
                on cancel -> cancelled;                  // leaves every region
                done [in(a_done)] priority 1 -> synthesis emit spawn_synthesizer;
                done -> partial_synthesis emit spawn_synthesizer;

                state researcher_a {
                    initial state a_running { on a_written -> a_done; on a_failed -> a_gave_up; }
                    final state a_done;
                    final state a_gave_up;
                }
                state researcher_b {
                    initial state b_running { on b_written -> b_done; }
                    final state b_done;
                }
            }
            state synthesis { on s_written -> delivered emit deliver; }
            state partial_synthesis { on s_written -> delivered emit deliver; }
            terminal state delivered;
            terminal state cancelled;
        }
    }
    use research::{regions, Action, Composite, Output, Research, State};

    let mut machine = Research::new();
    machine.fire(Action::Start).unwrap();
    // One leaf per region is active, each in its region's own enum.
    let config = machine.configuration();
    assert_eq!(config.researcher_a(), Some(regions::ResearcherA::ARunning));
    assert_eq!(config.researcher_b(), Some(regions::ResearcherB::BRunning));
    assert_eq!(config.top(), regions::Top::Collect);
    assert!(machine.is_in(Composite::Collect) && machine.is_in(State::BRunning));

    machine.fire(Action::AWritten).unwrap();
    // The last region to finish makes `collect` done, and its `done` runs in
    // the same `fire`: `in(a_done)` picks the full synthesis.
    let fired = machine.fire(Action::BWritten).unwrap();
    assert_eq!(fired.outputs[..], [Output::SpawnSynthesizer]);
    assert_eq!(machine.leaves().collect::<Vec<_>>(), [State::Synthesis]);
    assert_eq!(fired.to.leaves().collect::<Vec<_>>(), [State::Synthesis]);

    // A snapshot names the active leaves; the machine is `Copy`.
    let snapshot = machine.snapshot();
    assert_eq!(snapshot.configuration(), Some(&["synthesis".into()][..]));
    assert_eq!(Research::restore(&snapshot).unwrap(), machine);
}

/// The README shows exactly the body above, as the section's first block.
#[test]
fn the_readme_shows_this_example() {
    readme_common::assert_readme_shows(
        include_str!("readme_parallel.rs"),
        "parallel states",
        "Parallel states",
    );
}
