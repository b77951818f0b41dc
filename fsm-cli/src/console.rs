//! Where output goes and how it looks there.
//!
//! Reports a user asked for in a machine-readable format (`--format json`,
//! `--format github`, the file list of `fmt --check`) go to stdout. Human
//! diagnostics, summaries and errors about running fsmc go to stderr, as with
//! rustc, so stdout stays free for the output of future subcommands.

use std::io::{self, IsTerminal, Write};

/// The width human reports wrap at when stderr is not a terminal.
const DEFAULT_WIDTH: usize = 100;

/// How human reports are drawn on stderr.
#[derive(Clone, Copy, Debug)]
pub struct HumanStyle {
    /// Use ANSI colours.
    pub color: bool,
    /// Wrap at this column.
    pub width: usize,
}

impl HumanStyle {
    /// Colour when stderr is a terminal and `NO_COLOR` is unset or empty
    /// (<https://no-color.org>); the terminal's width, else 100 columns.
    pub fn detect() -> HumanStyle {
        let stderr = io::stderr();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let width = terminal_size::terminal_size_of(&stderr)
            .map_or(DEFAULT_WIDTH, |(terminal_size::Width(w), _)| usize::from(w));
        HumanStyle {
            color: stderr.is_terminal() && !no_color,
            width,
        }
    }
}

/// Write `text` to stdout.
pub fn stdout(text: &str) {
    write_or_exit(&mut io::stdout().lock(), text);
}

/// Write `text` to stderr.
pub fn stderr(text: &str) {
    write_or_exit(&mut io::stderr().lock(), text);
}

/// Print `error: {message}` on stderr: a problem running fsmc, not a
/// diagnostic about a `.fsm` file.
pub fn error(message: impl std::fmt::Display) {
    stderr(&format!("error: {message}\n"));
}

/// When output cannot be written (a closed pipe, a full disk) nobody can
/// learn the outcome, so stop with status 2 instead of panicking like
/// `print!` does.
fn write_or_exit(stream: &mut impl Write, text: &str) {
    if let Err(err) = stream.write_all(text.as_bytes()).and_then(|()| stream.flush()) {
        if err.kind() != io::ErrorKind::BrokenPipe {
            // stderr may be the broken stream; there is nowhere else to say it.
            let _ = writeln!(io::stderr(), "error: cannot write output: {err}");
        }
        std::process::exit(2);
    }
}
