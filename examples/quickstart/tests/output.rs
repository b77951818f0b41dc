//! The quickstart prints each transition with its outputs, and nothing else.

use std::process::Command;

#[test]
fn prints_both_transitions_with_their_outputs() {
    let output = Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .output()
        .expect("the quickstart binary runs");
    assert!(output.status.success(), "exit status: {}", output.status);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "`closed` --open--> `opened` (emit `light_on`)\n\
         `opened` --close--> `closed` (emit `light_off`)\n"
    );
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}
