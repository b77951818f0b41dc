// A file that is not UTF-8: the error says where, by line and column, and
// which byte, as `fsmc` and build scripts do (one reader,
// `fsm_grammar::source::read`). The machine named after the file is stubbed.
fsm_runtime::fsm!(file = "machines/not_utf8.fsm");

fn main() {
    let _door = not_utf8::NotUtf8::new();
}
