//! `fsmc check`: report every problem in `.fsm` files.

use crate::config;
use crate::console::{self, HumanStyle};
use crate::exit::Exit;
use crate::files;
use clap::{Args, ValueEnum};
use fsm_grammar::report::{self, JsonDiagnostic};
use fsm_grammar::{Code, Diagnostic, LintOptions, Severity};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Arguments of `fsmc check`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Directories are searched recursively for `*.fsm` files, in name order, skipping hidden entries \
and `target/`. Lint options also come from the nearest `fsm.toml` above each file (`[lints] allow`, \
`deny`, `deny-warnings`); the flags add to them and win where they disagree. \
A directory without any `.fsm` file is an error, so a mistyped path cannot pass \
silently. A file named explicitly is checked whatever its extension. `-` reads \
a file from standard input; reports call it `<stdin>`, or the name given with --stdin-filename.

Human reports go to stderr with a summary line; `json` and `github` reports go to stdout.
A human report shows at most 20 diagnostics per file (--max-diagnostics), errors chosen before \
warnings, and says how many more there were; the summary line counts them all. `json` and \
`github` reports are never limited: the tools that read them filter and count for themselves.

Exit status:
  0  no errors (warnings are allowed)
  1  errors, or warnings under --deny-warnings
  2  usage errors, and files or directories that cannot be read")]
pub struct CheckArgs {
    /// Files and directories to check; `-` reads standard input.
    #[arg(value_name = "PATH", default_value = ".")]
    paths: Vec<PathBuf>,

    /// The file name reports give standard input (`-`); its `fsm.toml` is
    /// looked for from that file's directory.
    #[arg(long, value_name = "NAME", default_value = files::STDIN_NAME)]
    stdin_filename: String,

    #[command(flatten)]
    diagnostics: DiagnosticArgs,
}

/// How diagnostics are reported and which ones count: the flags `fsmc check`
/// and `fsmc build` share.
#[derive(Debug, Args)]
pub struct DiagnosticArgs {
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

    /// Show at most N diagnostics per file in the human report, errors
    /// first; the rest are counted in one line. 0 shows every one.
    #[arg(long, value_name = "N", default_value_t = report::MAX_HUMAN_DIAGNOSTICS)]
    max_diagnostics: usize,
}

impl DiagnosticArgs {
    /// The lint options the flags ask for.
    ///
    /// # Errors
    ///
    /// A one-line message when a code is both allowed and denied.
    pub fn lint_options(&self) -> Result<LintOptions, String> {
        if let Some(code) = self.allow.iter().find(|code| self.deny.contains(code)) {
            return Err(format!("`{code}` is both allowed and denied"));
        }
        Ok(LintOptions {
            allow: self.allow.clone(),
            deny: self.deny.clone(),
            deny_warnings: self.deny_warnings,
        })
    }

    /// Whether the report is for people (a graphical report and a summary
    /// line on stderr) rather than for tools.
    pub fn is_human(&self) -> bool {
        self.format == Format::Human
    }
}

/// The formats diagnostics are reported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Graphical reports with the source snippet (on stderr).
    Human,
    /// One JSON array of diagnostics (on stdout).
    Json,
    /// GitHub Actions annotations, one line per diagnostic (on stdout).
    Github,
}

/// Reports the diagnostics of one file after another in the format chosen
/// by [`DiagnosticArgs`], and counts them.
pub struct Reporter {
    format: Format,
    style: HumanStyle,
    /// `--max-diagnostics`.
    max_diagnostics: usize,
    /// `--format json` prints one array for all files, at the end.
    json_records: Vec<JsonDiagnostic>,
    /// Errors reported so far.
    pub errors: usize,
    /// Warnings reported so far.
    pub warnings: usize,
}

impl Reporter {
    /// A reporter in the format `args` chose.
    pub fn new(args: &DiagnosticArgs) -> Reporter {
        Reporter {
            format: args.format,
            style: HumanStyle::detect(),
            max_diagnostics: args.max_diagnostics,
            json_records: Vec::new(),
            errors: 0,
            warnings: 0,
        }
    }

    /// Report the diagnostics of `source`, read from the file `name`.
    /// Returns whether any of them is an error.
    pub fn report(&mut self, name: &str, source: &str, diagnostics: &[Diagnostic]) -> bool {
        let errors = diagnostics.iter().filter(|d| d.is_error()).count();
        self.errors += errors;
        self.warnings += diagnostics.len() - errors;
        match self.format {
            Format::Human => {
                let limited = report::limit(diagnostics, self.max_diagnostics);
                let mut out = report::human(
                    name,
                    source,
                    limited.shown.iter().copied(),
                    self.style.width,
                    self.style.color,
                );
                if let Some(note) = limited.note(name) {
                    out.push_str(&format!(
                        "note: {note}; `--max-diagnostics 0` shows every one\n\n"
                    ));
                }
                console::stderr(&out);
            }
            Format::Json => self.json_records.extend(report::json(name, source, diagnostics)),
            Format::Github => console::stdout(&report::github(name, source, diagnostics)),
        }
        errors > 0
    }

    /// Print what the format holds back until every file is reported.
    pub fn finish(self) {
        if self.format == Format::Json {
            console::stdout(&report::json_array(&self.json_records));
        }
    }
}

/// Check the files and report; see [`CheckArgs`] for the exit status.
pub fn run(args: &CheckArgs) -> Exit {
    let options = match args.diagnostics.lint_options() {
        Ok(options) => options,
        Err(message) => {
            console::error(message);
            return Exit::Trouble;
        }
    };
    let mut exit = Exit::Clean;
    let (inputs, errors) = files::find_inputs(&args.paths);
    let mut failed_paths = errors.len();
    for error in &errors {
        console::error(error);
        exit.raise(Exit::Trouble);
    }

    let mut reporter = Reporter::new(&args.diagnostics);
    let mut checked = 0;
    // The `fsm.toml` of each directory, looked up once.
    let mut configs: HashMap<PathBuf, Result<LintOptions, String>> = HashMap::new();
    for input in &inputs {
        let dir = match input {
            files::Input::File(path) => path.parent().unwrap_or(Path::new("")).to_path_buf(),
            // Standard input is configured like the file it stands for, as
            // in ruff: editors and hooks pipe a buffer and name its path.
            files::Input::Stdin => Path::new(&args.stdin_filename)
                .parent()
                .unwrap_or(Path::new(""))
                .to_path_buf(),
        };
        let lints = configs
            .entry(dir)
            .or_insert_with_key(|dir| {
                let dir = if dir.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    dir
                };
                config::lints_for(dir).map(|(_, file)| config::merge(&file, &options))
            })
            .clone();
        let (name, read) = match input {
            files::Input::File(path) => (path.display().to_string(), files::read(path)),
            files::Input::Stdin => (args.stdin_filename.clone(), files::read_stdin()),
        };
        let options = match lints {
            Ok(lints) => lints,
            Err(error) => {
                console::error(format!("{error}; {name} was not checked"));
                exit.raise(Exit::Trouble);
                failed_paths += 1;
                continue;
            }
        };
        let source = match read {
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
        if reporter.report(&name, &source, &diagnostics) {
            exit.raise(Exit::Problems);
        }
    }

    if args.diagnostics.is_human() {
        let mut summary = report::summary(checked, reporter.errors, reporter.warnings);
        match failed_paths {
            0 => {}
            1 => summary.push_str("; 1 path could not be checked"),
            n => summary.push_str(&format!("; {n} paths could not be checked")),
        }
        console::stderr(&format!("{summary}\n"));
    }
    reporter.finish();
    exit
}

/// A diagnostic code as written on the command line: `unknown-state`, or
/// `fsm::unknown-state` as the human report shows it.
pub fn parse_code(text: &str) -> Result<Code, String> {
    let name = text.strip_prefix("fsm::").unwrap_or(text);
    Code::from_name(name).ok_or_else(|| {
        let names = Code::ALL.iter().map(|code| code.name());
        match fsm_grammar::closest(name, names) {
            Some(close) => format!("unknown diagnostic code `{name}`; did you mean `{close}`?"),
            None => format!("unknown diagnostic code `{name}`; run `fsmc explain` to list the codes"),
        }
    })
}

/// A code that `--allow` accepts: errors cannot be silenced.
pub fn parse_warning_code(text: &str) -> Result<Code, String> {
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
        assert_eq!(
            parse_code("zzz"),
            Err("unknown diagnostic code `zzz`; run `fsmc explain` to list the codes".into())
        );
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
