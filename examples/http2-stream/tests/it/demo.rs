//! `cargo run -p http2-stream` prints the three walks, frame by frame.

use std::process::Command;

#[test]
fn prints_each_frame_with_its_outputs_and_each_refusal() {
    let output = Command::new(env!("CARGO_BIN_EXE_http2-stream"))
        .output()
        .expect("the example runs");
    assert!(output.status.success(), "exit status: {}", output.status);
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        include_str!("demo.txt"),
        "the output changed; if on purpose, update tests/it/demo.txt"
    );
}
