//! `fsmc fmt`: rewrite `.fsm` files into the canonical layout.

use crate::console::{self, HumanStyle};
use crate::exit::Exit;
use crate::files;
use clap::Args;
use fsm_grammar::report;
use std::path::PathBuf;

/// Arguments of `fsmc fmt`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Directories are searched recursively for `*.fsm` files as by `fsmc check`. Only files whose \
layout changes are written. Files with syntax errors are reported and left untouched.

With --check, the files that would change are listed on stdout, one per line, and nothing is \
written.

Exit status:
  0  every file is formatted (or, with --check, already was)
  1  syntax errors, or with --check files that would change
  2  usage errors, and files or directories that cannot be read or written")]
pub struct FmtArgs {
    /// Files and directories to format.
    #[arg(value_name = "PATH", default_value = ".")]
    paths: Vec<PathBuf>,

    /// Write nothing; list the files that would change and exit 1 if there are any.
    #[arg(long)]
    check: bool,
}

/// Format the files; see [`FmtArgs`] for the exit status.
pub fn run(args: &FmtArgs) -> Exit {
    let mut exit = Exit::Clean;
    let found = files::find(&args.paths);
    for error in &found.errors {
        console::error(error);
        exit.raise(Exit::Trouble);
    }

    let style = HumanStyle::detect();
    let mut changed = 0;
    let mut unchanged = 0;
    let mut with_errors = 0;
    for path in &found.files {
        let source = match files::read(path) {
            Ok(source) => source,
            Err(error) => {
                console::error(error);
                exit.raise(Exit::Trouble);
                continue;
            }
        };
        let formatted = match fsm_grammar::format::format(&source) {
            Ok(formatted) => formatted,
            Err(diagnostics) => {
                let name = path.display().to_string();
                console::stderr(&report::human(
                    &name,
                    &source,
                    &diagnostics,
                    style.width,
                    style.color,
                ));
                exit.raise(Exit::Problems);
                with_errors += 1;
                continue;
            }
        };
        if formatted == source {
            unchanged += 1;
        } else if args.check {
            console::stdout(&format!("{}\n", path.display()));
            changed += 1;
            exit.raise(Exit::Problems);
        } else {
            match files::write(path, &formatted) {
                Ok(()) => changed += 1,
                Err(error) => {
                    console::error(error);
                    exit.raise(Exit::Trouble);
                }
            }
        }
    }

    let verb = if args.check {
        "would be reformatted"
    } else {
        "reformatted"
    };
    let mut summary = format!(
        "{} {verb}, {} already formatted",
        files_count(changed),
        files_count(unchanged)
    );
    if with_errors > 0 {
        summary.push_str(&format!(", {} with errors", files_count(with_errors)));
    }
    console::stderr(&format!("{summary}\n"));
    exit
}

/// `1 file`, `2 files`.
fn files_count(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}
