//! The dynamic engine's example of parallel states in the guide
//! (docs/parallel-states.md) is this test's body, word for word (fsm-tests'
//! docs test finds it there), so what users copy compiles and runs.

#[test]
fn readme_parallel_states() -> Result<(), Box<dyn std::error::Error>> {
    // README: parallel states (from here to the end of this function)
    use fsm_dynamic::{Definition, Engine};
    use serde_json::Value;

    let definition = Definition::from_fsm(
        r#"
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
        "#,
    )?;
    let engine = Engine::new(definition)?;
    let names =
        |fired: &fsm_dynamic::Fired<'_>| -> Vec<String> { fired.output_names().map(str::to_owned).collect() };

    engine.fire("start", &Value::Null)?;
    // One leaf per region is active.
    assert_eq!(engine.configuration_names(), ["a_running", "b_running"]);
    assert!(engine.is_in("collect"));

    engine.fire("a_written", &Value::Null)?;
    assert_eq!(engine.configuration_names(), ["a_done", "b_running"]);

    // The last region to finish makes `collect` done, and its `done` runs in
    // the same `fire`: `in(a_done)` picks the full synthesis.
    let fired = engine.fire("b_written", &Value::Null)?;
    assert_eq!(names(&fired), ["spawn_synthesizer"]);
    assert_eq!(engine.configuration_names(), ["synthesis"]);
    let definition = engine.definition();
    let taken: Vec<(&str, Option<String>)> = fired
        .taken()
        .iter()
        .map(|t| (t.source_name(definition), t.target_text(definition)))
        .collect();
    assert_eq!(
        taken,
        [
            ("b_running", Some("b_done".to_owned())),
            ("collect", Some("synthesis".to_owned())),
        ]
    );
    Ok(())
}
