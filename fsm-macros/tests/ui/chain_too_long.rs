// chain-too-long: 1,100 unguarded `always` transitions, each sure to follow
// the one before within one `fire`, which stops after 1,000 microsteps. The
// machine is long, so it is read from a file.
fsm_runtime::fsm!(file = "machines/chain_too_long.fsm");

fn main() {}
