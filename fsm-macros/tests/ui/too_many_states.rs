// too-many-states: 65,537 states, one more than a step's configuration
// holds. The machine is written by the test (`install_fixtures`).
fsm_runtime::fsm!(file = "machines/too_many_states.fsm");

fn main() {}
