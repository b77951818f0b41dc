//! `fsmc check`: report every problem in `.fsm` files.

use crate::console::{self, HumanStyle};
use crate::exit::Exit;
use crate::files;
use clap::{Args, ValueEnum};
use fsm_grammar::report::{self, JsonDiagnostic};
use fsm_grammar::{Code, LintOptions, Severity};
use std::path::PathBuf;

/// Arguments of `fsmc check`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Directories are searched recursively for `*.fsm` files, in name order, skipping hidden entries \
and `target/`. A directory without any `.fsm` file is an error, so a mistyped path cannot pass \
silently. A file named explicitly is checked whatever its extension.

Human reports go to stderr with a summary line; `json` and `github` reports go to stdout.

Exit status:
  0  no errors (warnings are allowed)
  1  errors, or warnings under --deny-warnings
  2  usage errors, and files or directories that cannot be read")]
pub struct CheckArgs {
    /// Files and directories to check.
    #[arg(value_name = "PATH", default_value = ".")]
    paths: Vec<PathBuf>,

    /// How to report diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,

    /// Silence a warning, e.g. `--allow unreachable-state` (repeatable, or comma-separated).
    #[arg(long, value_name = "CODE", value_delimiter = ',', value_parser = parse_warning_code)]
    allow: Vec<Code>,

    /// Turn a warning into an error (repeatable, or comma-separated).
    #[arg(long, value_name = "CODE", value_delimiter = ',', value_parser = parse_code)]
    deny: Vec<Code>,

    /// Turn every warning into an error.
    #[arg(long)]
    deny_warnings: bool,
}

/// The output formats of `fsmc check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Graphical reports with the source snippet (on stderr).
    Human,
    /// One JSON array of diagnostics (on stdout).
    Json,
    /// GitHub Actions annotations, one line per diagnostic (on stdout).
    Github,
}

/// Check the files and report; see [`CheckArgs`] for the exit status.
pub fn run(args: &CheckArgs) -> Exit {
    if let Some(code) = args.allow.iter().find(|code| args.deny.contains(code)) {
        console::error(format_args!("`{code}` is both allowed and denied"));
        return Exit::Trouble;
    }
    let options = LintOptions {
        allow: args.allow.clone(),
        deny: args.deny.clone(),
        deny_warnings: args.deny_warnings,
    };
    let mut exit = Exit::Clean;
    let found = files::find(&args.paths);
    let mut failed_paths = found.errors.len();
    for error in &found.errors {
        console::error(error);
        exit.raise(Exit::Trouble);
    }

    let style = HumanStyle::detect();
    let mut json_records: Vec<JsonDiagnostic> = Vec::new();
    let (mut checked, mut errors, mut warnings) = (0, 0, 0);
    for path in &found.files {
        let source = match files::read(path) {
            Ok(source) => source,
            Err(error) => {
                console::error(error);
                exit.raise(Exit::Trouble);
                failed_paths += 1;
                continue;
            }
        };
        checked += 1;
        let diagnostics = options.apply(fsm_grammar::check(&source).diagnostics);
        let file_errors = diagnostics.iter().filter(|d| d.is_error()).count();
        if file_errors > 0 {
            exit.raise(Exit::Problems);
        }
        errors += file_errors;
        warnings += diagnostics.len() - file_errors;
        let name = path.display().to_string();
        match args.format {
            Format::Human => console::stderr(&report::human(
                &name,
                &source,
                &diagnostics,
                style.width,
                style.color,
            )),
            Format::Json => json_records.extend(report::json(&name, &source, &diagnostics)),
            Format::Github => console::stdout(&report::github(&name, &source, &diagnostics)),
        }
    }

    match args.format {
        Format::Human => {
            let mut summary = report::summary(checked, errors, warnings);
            match failed_paths {
                0 => {}
                1 => summary.push_str("; 1 path could not be checked"),
                n => summary.push_str(&format!("; {n} paths could not be checked")),
            }
            console::stderr(&format!("{summary}\n"));
        }
        Format::Json => console::stdout(&report::json_array(&json_records)),
        Format::Github => {}
    }
    exit
}

/// A diagnostic code as written on the command line: `unknown-state`, or
/// `fsm::unknown-state` as the human report shows it.
fn parse_code(text: &str) -> Result<Code, String> {
    let name = text.strip_prefix("fsm::").unwrap_or(text);
    Code::from_name(name).ok_or_else(|| {
        let names = Code::ALL.iter().map(|code| code.name());
        match fsm_grammar::suggest::closest(name, names) {
            Some(close) => format!("unknown diagnostic code `{name}`; did you mean `{close}`?"),
            None => format!("unknown diagnostic code `{name}`; the codes are listed in docs/diagnostics.md"),
        }
    })
}

/// A code that `--allow` accepts: errors cannot be silenced.
fn parse_warning_code(text: &str) -> Result<Code, String> {
    let code = parse_code(text)?;
    match code.default_severity() {
        Severity::Warning => Ok(code),
        Severity::Error => Err(format!("`{code}` is an error; only warnings can be allowed")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_parse_with_or_without_the_namespace() {
        assert_eq!(parse_code("dead-end"), Ok(Code::DeadEnd));
        assert_eq!(parse_code("fsm::dead-end"), Ok(Code::DeadEnd));
    }

    #[test]
    fn unknown_codes_suggest_the_closest() {
        assert_eq!(
            parse_code("unreachable-stat"),
            Err("unknown diagnostic code `unreachable-stat`; did you mean `unreachable-state`?".into())
        );
        assert!(parse_code("zzz").unwrap_err().contains("docs/diagnostics.md"));
    }

    #[test]
    fn errors_cannot_be_allowed() {
        assert_eq!(
            parse_warning_code("unreachable-state"),
            Ok(Code::UnreachableState)
        );
        assert_eq!(
            parse_warning_code("unknown-state"),
            Err("`unknown-state` is an error; only warnings can be allowed".into())
        );
    }
}
