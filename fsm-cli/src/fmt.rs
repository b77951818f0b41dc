//! `fsmc fmt`: rewrite `.fsm` files into the canonical layout.

use crate::console::{self, HumanStyle};
use crate::exit::Exit;
use crate::files::{self, Input};
use clap::Args;
use fsm_grammar::report;
use std::path::PathBuf;

/// Arguments of `fsmc fmt`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Directories are searched recursively for `*.fsm` files as by `fsmc check`. Only files whose \
layout changes are written. Files with syntax errors are reported and left untouched. Each file \
keeps its line endings (those of its first line: LF or CRLF) and its byte order mark, if it has \
one.

`-` reads a file from standard input and writes it, formatted, to standard output; reports call \
it `<stdin>`, or the name given with --stdin-filename. Nothing is written to standard output when \
it has syntax errors.

With --check, the files that would change are listed on stdout, one per line, and nothing is \
written.

Exit status:
  0  every file is formatted (or, with --check, already was)
  1  syntax errors, or with --check files that would change
  2  usage errors, and files or directories that cannot be read or written")]
pub struct FmtArgs {
    /// Files and directories to format; `-` formats standard input to standard output.
    #[arg(value_name = "PATH", default_value = ".")]
    paths: Vec<PathBuf>,

    /// Write nothing; list the files that would change and exit 1 if there are any.
    #[arg(long)]
    check: bool,

    /// The file name reports give standard input (`-`).
    #[arg(long, value_name = "NAME", default_value = files::STDIN_NAME)]
    stdin_filename: String,
}

/// Format the files; see [`FmtArgs`] for the exit status.
pub fn run(args: &FmtArgs) -> Exit {
    let mut exit = Exit::Clean;
    let (inputs, errors) = files::find_inputs(&args.paths);
    for error in &errors {
        console::error(error);
        exit.raise(Exit::Trouble);
    }

    let style = HumanStyle::detect();
    let mut changed = 0;
    let mut unchanged = 0;
    let mut with_errors = 0;
    for input in &inputs {
        let (name, read) = match input {
            Input::File(path) => (path.display().to_string(), files::read(path)),
            Input::Stdin => (args.stdin_filename.clone(), files::read_stdin()),
        };
        let source = match read {
            Ok(source) => source,
            Err(error) => {
                console::error(error);
                exit.raise(Exit::Trouble);
                continue;
            }
        };
        let formatted = match fsm_grammar::format::format(&source) {
            Ok(formatted) => TextStyle::of(&source).apply(&formatted),
            Err(diagnostics) => {
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
        let is_changed = formatted != source;
        if is_changed {
            changed += 1;
        } else {
            unchanged += 1;
        }
        if args.check {
            if is_changed {
                console::stdout(&format!("{name}\n"));
                exit.raise(Exit::Problems);
            }
            continue;
        }
        match input {
            // Standard output gets the whole text, changed or not, so a
            // filter (an editor, a pre-commit hook) can always take it.
            Input::Stdin => console::stdout(&formatted),
            Input::File(path) if is_changed => {
                if let Err(error) = files::write(path, &formatted) {
                    console::error(error);
                    exit.raise(Exit::Trouble);
                    changed -= 1;
                }
            }
            Input::File(_) => {}
        }
    }

    // A filter's caller wants the text, not a summary of one input.
    let is_filter = inputs == [Input::Stdin] && errors.is_empty() && !args.check;
    if !is_filter {
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
    }
    exit
}

/// The parts of a file's text that formatting keeps: its line endings and
/// its byte order mark. The formatter itself always writes LF and no BOM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextStyle {
    /// Lines end in `\r\n` rather than `\n`.
    crlf: bool,
    /// The text starts with U+FEFF.
    bom: bool,
}

impl TextStyle {
    /// The style of `source`. Like rustfmt's default (`newline_style =
    /// "Auto"`), the first line ending decides; a text without one gets LF.
    pub fn of(source: &str) -> TextStyle {
        TextStyle {
            crlf: source.find('\n').is_some_and(|end| source[..end].ends_with('\r')),
            bom: source.starts_with('\u{feff}'),
        }
    }

    /// `formatted` (the formatter's LF text) written in this style.
    pub fn apply(self, formatted: &str) -> String {
        let body = formatted.strip_prefix('\u{feff}').unwrap_or(formatted);
        let mut out = String::with_capacity(formatted.len() + formatted.len() / 16 + 3);
        if self.bom {
            out.push('\u{feff}');
        }
        if self.crlf {
            for line in body.split_inclusive('\n') {
                match line.strip_suffix('\n') {
                    Some(text) => {
                        out.push_str(text.strip_suffix('\r').unwrap_or(text));
                        out.push_str("\r\n");
                    }
                    None => out.push_str(line),
                }
            }
        } else {
            out.push_str(body);
        }
        out
    }
}

/// `1 file`, `2 files`.
fn files_count(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}

#[cfg(test)]
mod tests {
    use super::TextStyle;

    #[test]
    fn the_first_line_ending_decides() {
        let style = TextStyle::of("a\r\nb\nc\n");
        assert!(style.crlf && !style.bom);
        assert!(!TextStyle::of("a\nb\r\n").crlf);
        assert!(!TextStyle::of("no line ending").crlf);
        assert!(TextStyle::of("\u{feff}a\r\n").bom);
    }

    #[test]
    fn applying_a_style_converts_every_line_ending_once() {
        let crlf = TextStyle {
            crlf: true,
            bom: true,
        };
        assert_eq!(crlf.apply("a\nb\n\nc"), "\u{feff}a\r\nb\r\n\r\nc");
        assert_eq!(crlf.apply("a\r\n"), "\u{feff}a\r\n", "never `\\r\\r\\n`");
        let plain = TextStyle {
            crlf: false,
            bom: false,
        };
        assert_eq!(plain.apply("\u{feff}a\n"), "a\n");
    }
}
