// A file of comments only defines no machine: an error, as in `fsmc build`,
// `fsmc graph` and build scripts (one rule, `fsm_grammar::source`).
fsm_runtime::fsm!(file = "machines/comments_only.fsm");

fn main() {}
