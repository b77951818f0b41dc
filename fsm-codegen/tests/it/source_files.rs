//! The build-script API reads `.fsm` files as every tool does
//! (`fsm_grammar::source`): a file that is not UTF-8 is reported with where,
//! and a file that defines no machine is an error, as in `fsmc build` and
//! `fsm!`.

use fsm_codegen::{Config, Error};
use std::path::{Path, PathBuf};

/// A fresh directory under cargo's scratch space for integration tests.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("fsm-codegen-source-files")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn quiet() -> Config {
    let mut config = Config::new();
    config.cargo_directives(false);
    config
}

#[test]
fn a_file_that_is_not_utf8_is_reported_with_line_column_and_bytes() {
    let dir = scratch("not-utf8");
    let path = dir.join("bad.fsm");
    std::fs::write(&path, b"machine A {\n  initial state x;\xff\n}").unwrap();
    let error = quiet().generate(&[&path]).unwrap_err();
    let Error::Read { source, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(source.kind(), std::io::ErrorKind::InvalidData);
    assert_eq!(
        error.to_string(),
        format!(
            "cannot read `{}`: invalid UTF-8 at line 2, column 19 (byte 0xFF)",
            path.display()
        )
    );
    assert_eq!(error.render(), format!("error: {error}\n"));
}

#[test]
fn empty_and_comment_only_files_define_no_machine() {
    let dir = scratch("no-machine");
    for (name, text) in [("empty.fsm", ""), ("comments.fsm", "// a door, later\n/// doc\n")] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let error = quiet().out_dir(&dir).compile(&[&path]).unwrap_err();
        assert!(matches!(error, Error::NoMachine { .. }), "{error:?}");
        assert_eq!(
            error.to_string(),
            format!(
                "`{}` defines no machine; nothing to generate\nhelp: write one, like \
                 `machine Door {{ initial state closed; }}`",
                path.display()
            )
        );
        let written = dir.join(name.replace(".fsm", ".rs"));
        assert!(!written.exists(), "nothing is written for {name}");
    }
}
