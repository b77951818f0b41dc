//! The build-script API: one-liners ([`compile_or_exit`], [`compile`]) and a
//! builder ([`Config`]), in the style of lalrpop and prost-build. `fsmc build`
//! uses the same builder, so both write identical files.

use crate::options::{Module, Options};
use crate::render::render_model;
use fsm_grammar::{source, Diagnostic, LineIndex, LintOptions, Severity};
use std::fmt;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Generate Rust for each `.fsm` file into `OUT_DIR`, as [`compile`] does,
/// and on an error fail the build script cleanly: print the error on
/// standard error, which cargo shows when a build script fails, and exit
/// with status 1. The one line a build script needs:
///
/// ```no_run
/// // build.rs, in `fn main`:
/// fsm_codegen::compile_or_exit(&["machines/door.fsm"]);
/// ```
///
/// A file with errors is shown as `fsmc check` shows it, each diagnostic with
/// its code, the marked source lines and its help, laid out as rustc lays out
/// its own (see [`Error::render`]), with no panic message or backtrace:
///
/// ```text
/// error: transition on `open` targets unknown state `opend` [fsm::unknown-state]
///  --> machines/door.fsm:4:20
///   |
/// 4 |         on open -> opend;
///   |                    ^^^^^ no state with this name
///   |
///   = help: did you mean `opened`?
///
/// error: could not generate code from `machines/door.fsm` due to 1 error
/// ```
pub fn compile_or_exit(files: &[impl AsRef<Path>]) {
    Config::new().compile_or_exit(files)
}

/// Generate Rust for each `.fsm` file into `OUT_DIR`, one `<stem>.rs` per
/// file, for `fsm_runtime::include_fsm!("<stem>")` to include.
///
/// Prints `cargo:rerun-if-changed` for every input and `cargo:warning` for
/// every line of every warning (its position, code and message, then its
/// help), and only rewrites files whose contents change. Paths are relative
/// to the package root, where cargo runs build scripts.
///
/// To stop a build script on an error, [`compile_or_exit`] prints it as the
/// user wants to read it; `panic!("{error}")` adds a panic message and, with
/// `RUST_BACKTRACE`, a backtrace of the build script.
///
/// # Errors
///
/// When `OUT_DIR` is unset, a file cannot be read or written (a file that is
/// not UTF-8 is reported with the line and column where it stops being UTF-8),
/// a file has errors (the error lists every diagnostic with its position), or
/// a file defines no machine.
pub fn compile(files: &[impl AsRef<Path>]) -> Result<(), Error> {
    Config::new().compile(files)
}

/// How to compile `.fsm` files: a builder whose setters return `&mut Self`.
#[derive(Clone, Debug)]
pub struct Config {
    out_dir: Option<PathBuf>,
    runtime_path: Option<String>,
    lints: LintOptions,
    cargo_directives: bool,
    module: Module,
}

impl Default for Config {
    fn default() -> Self {
        Config::new()
    }
}

impl Config {
    /// The defaults: write into `OUT_DIR`, name the runtime `::fsm_runtime`,
    /// print cargo directives.
    pub fn new() -> Self {
        Config {
            out_dir: None,
            runtime_path: None,
            lints: LintOptions::default(),
            cargo_directives: true,
            module: Module::Own,
        }
    }

    /// Write into `dir` instead of `OUT_DIR`.
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The path of the runtime crate as the generated code's crate sees it,
    /// when it is not `::fsm_runtime` (a renamed dependency, or a crate that
    /// re-exports it): e.g. `::my_crate::fsm_runtime`. Its `__private` module
    /// is what the code names.
    pub fn runtime_crate(&mut self, path: impl Into<String>) -> &mut Self {
        self.runtime_path = Some(path.into());
        self
    }

    /// Which warnings to drop and which to turn into errors.
    pub fn lints(&mut self, lints: LintOptions) -> &mut Self {
        self.lints = lints;
        self
    }

    /// Where each machine's items go (default: [`Module::Own`], a module
    /// named after the machine). With [`Module::Surrounding`], what `fsm!`
    /// spells `module = self`, `include_fsm!("door")` inside `mod door`
    /// gives `door::Door` instead of `door::door::Door`; each file may then
    /// define one machine.
    pub fn module(&mut self, module: Module) -> &mut Self {
        self.module = module;
        self
    }

    /// Whether to print `cargo:rerun-if-changed` and `cargo:warning` lines
    /// (default: yes; turn it off outside build scripts).
    pub fn cargo_directives(&mut self, enabled: bool) -> &mut Self {
        self.cargo_directives = enabled;
        self
    }

    /// Generate the source of every file without writing anything.
    ///
    /// # Errors
    ///
    /// When a file cannot be read, has errors or defines no machine, when two
    /// files would produce the same output name, or when the runtime path is
    /// not a path.
    pub fn generate(&self, files: &[impl AsRef<Path>]) -> Result<Vec<GeneratedFile>, Error> {
        let options = self.options()?;
        let mut generated: Vec<GeneratedFile> = Vec::with_capacity(files.len());
        for file in files {
            let path = file.as_ref();
            if self.cargo_directives {
                println!("cargo:rerun-if-changed={}", path.display());
            }
            let file_name = output_name(path)?;
            if let Some(other) = generated.iter().find(|g| g.file_name == file_name) {
                return Err(Error::SameOutput {
                    first: other.source.clone(),
                    second: path.to_path_buf(),
                    file_name,
                });
            }
            // The front end's reader says where a file stops being UTF-8.
            let text = source::read(path).map_err(|error| Error::Read {
                path: error.path,
                source: error.error,
            })?;
            let display_name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let checked = fsm_grammar::check(&text);
            let no_machine = source::defines_no_machine(&checked);
            // The lint options can turn warnings into errors, never the reverse.
            let diagnostics = self.lints.apply(checked.diagnostics);
            let (errors, warnings): (Vec<Diagnostic>, Vec<Diagnostic>) =
                diagnostics.into_iter().partition(Diagnostic::is_error);
            if !errors.is_empty() {
                return Err(Error::Invalid {
                    path: path.to_path_buf(),
                    report: report(path, &text, &errors),
                    diagnostics: errors,
                    text,
                });
            }
            if no_machine {
                return Err(Error::NoMachine {
                    path: path.to_path_buf(),
                });
            }
            let contents = render_model(&checked.model, &display_name, &options);
            if self.cargo_directives {
                // A directive is one line: each line of the report gets its
                // own, so the help line is not lost.
                for line in report(path, &text, &warnings).lines() {
                    println!("cargo:warning={line}");
                }
            }
            generated.push(GeneratedFile {
                source: path.to_path_buf(),
                file_name,
                contents,
                warnings,
            });
        }
        Ok(generated)
    }

    /// Generate every file and write the ones whose contents changed into
    /// the output directory.
    ///
    /// # Errors
    ///
    /// As [`Config::generate`], and when the output directory is unknown or
    /// a file cannot be written.
    pub fn compile(&self, files: &[impl AsRef<Path>]) -> Result<(), Error> {
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(Error::NoOutDir)?,
        };
        for file in self.generate(files)? {
            file.write_if_changed(&out_dir).map_err(|source| Error::Write {
                path: file.path_in(&out_dir),
                source,
            })?;
        }
        Ok(())
    }

    /// [`Config::compile`], and on an error print it on standard error as
    /// [`Error::render`] lays it out and exit with status 1: what a build
    /// script does with an error, without a panic message or backtrace. See
    /// [`compile_or_exit`].
    pub fn compile_or_exit(&self, files: &[impl AsRef<Path>]) {
        if let Err(error) = self.compile(files) {
            let mut stderr = io::stderr().lock();
            // Nowhere is left to report a failure to write the report.
            let _ = stderr.write_all(error.render().as_bytes());
            let _ = stderr.flush();
            let _ = io::stdout().flush();
            std::process::exit(1);
        }
    }

    fn options(&self) -> Result<Options, Error> {
        let mut options = Options {
            module: self.module,
            ..Options::default()
        };
        if let Some(path) = &self.runtime_path {
            let parsed: syn::Path =
                syn::parse_str(path).map_err(|_| Error::RuntimePath { path: path.clone() })?;
            options.runtime_path = quote::quote!(#parsed::__private);
        }
        Ok(options)
    }
}

/// `machines/door.fsm` → `door.rs`.
fn output_name(path: &Path) -> Result<String, Error> {
    path.file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .map(|s| format!("{s}.rs"))
        .ok_or_else(|| Error::Read {
            path: path.to_path_buf(),
            source: io::Error::new(io::ErrorKind::InvalidInput, "the file name is not valid UTF-8"),
        })
}

/// One generated file, not yet written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// The `.fsm` file it was generated from.
    pub source: PathBuf,
    /// The output file name: the source's stem with `.rs`.
    pub file_name: String,
    /// The formatted Rust.
    pub contents: String,
    /// The warnings the source has (after the lint options).
    pub warnings: Vec<Diagnostic>,
}

/// How a generated file compares with what is on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileStatus {
    /// The file exists with exactly the generated contents.
    UpToDate,
    /// The file exists with other contents.
    Stale,
    /// There is no such file.
    Missing,
}

impl GeneratedFile {
    /// Where the file goes in `dir`.
    pub fn path_in(&self, dir: &Path) -> PathBuf {
        dir.join(&self.file_name)
    }

    /// How the file in `dir` compares with the generated contents.
    ///
    /// # Errors
    ///
    /// When the file exists but cannot be read.
    pub fn status_in(&self, dir: &Path) -> io::Result<FileStatus> {
        match std::fs::read(self.path_in(dir)) {
            Ok(existing) if existing == self.contents.as_bytes() => Ok(FileStatus::UpToDate),
            Ok(_) => Ok(FileStatus::Stale),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(FileStatus::Missing),
            Err(e) => Err(e),
        }
    }

    /// Write the file into `dir` unless it is up to date there, so cargo
    /// does not rebuild needlessly. Returns whether it wrote.
    ///
    /// # Errors
    ///
    /// When the file cannot be read or written.
    pub fn write_if_changed(&self, dir: &Path) -> io::Result<bool> {
        if self.status_in(dir)? == FileStatus::UpToDate {
            return Ok(false);
        }
        std::fs::write(self.path_in(dir), &self.contents)?;
        Ok(true)
    }
}

/// Why generating code failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A `.fsm` file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A generated file could not be written.
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A `.fsm` file has errors.
    Invalid {
        /// The file.
        path: PathBuf,
        /// The errors, one per line as `path:line:column: error[fsm::code]:
        /// message`, each followed by its help.
        report: String,
        /// The errors.
        diagnostics: Vec<Diagnostic>,
        /// The text of the file, which the diagnostics' spans index.
        text: String,
    },
    /// A `.fsm` file defines no machine: it is empty, or only comments
    /// (the rule of [`fsm_grammar::source::defines_no_machine`], which
    /// `fsmc` and `fsm!` apply too).
    NoMachine {
        /// The file.
        path: PathBuf,
    },
    /// Two inputs would be written to the same file.
    SameOutput {
        /// The first input.
        first: PathBuf,
        /// The second input.
        second: PathBuf,
        /// The file both would write.
        file_name: String,
    },
    /// `OUT_DIR` is not set (not in a build script) and no output directory
    /// was given.
    NoOutDir,
    /// The runtime crate path is not a Rust path.
    RuntimePath {
        /// What was given.
        path: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read { path, source } => write!(f, "cannot read `{}`: {source}", path.display()),
            Error::Write { path, source } => write!(f, "cannot write `{}`: {source}", path.display()),
            Error::Invalid {
                path,
                report,
                diagnostics,
                ..
            } => {
                let count = diagnostics.len();
                let s = if count == 1 { "" } else { "s" };
                write!(f, "`{}` has {count} error{s}:\n{report}", path.display())
            }
            Error::NoMachine { path } => write!(
                f,
                "`{}` defines no machine; nothing to generate\nhelp: {}",
                path.display(),
                source::NO_MACHINE_HELP
            ),
            Error::SameOutput {
                first,
                second,
                file_name,
            } => write!(
                f,
                "`{}` and `{}` would both be written to `{file_name}`; give them different file names",
                first.display(),
                second.display()
            ),
            Error::NoOutDir => f.write_str(
                "OUT_DIR is not set: call `compile` from a build script, or set `Config::out_dir`",
            ),
            Error::RuntimePath { path } => {
                write!(
                    f,
                    "`{path}` is not a Rust path (expected something like `::fsm_runtime`)"
                )
            }
        }
    }
}

impl Error {
    /// The error as [`compile_or_exit`] prints it. For a file with errors,
    /// each diagnostic as `error: message [fsm::code]`, its position, the
    /// marked source lines and its help, in rustc's layout (see
    /// [`fsm_grammar::report::rustc`]), then a line that says which file failed;
    /// otherwise `error: ` and the message. Ends with a line break.
    pub fn render(&self) -> String {
        match self {
            Error::Invalid {
                path,
                diagnostics,
                text,
                ..
            } => {
                let shown = path.display().to_string();
                let mut out = String::new();
                for diagnostic in diagnostics {
                    out.push_str(severity(diagnostic));
                    out.push_str(": ");
                    out.push_str(&fsm_grammar::report::rustc(&shown, text, diagnostic));
                    out.push_str("\n\n");
                }
                let count = diagnostics.len();
                let s = if count == 1 { "" } else { "s" };
                out.push_str(&format!(
                    "error: could not generate code from `{shown}` due to {count} error{s}\n"
                ));
                out
            }
            other => format!("error: {other}\n"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read { source, .. } | Error::Write { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn severity(diagnostic: &Diagnostic) -> &'static str {
    match diagnostic.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// `path:line:column: severity[fsm::code]: message` and an indented help
/// line per diagnostic: the compact form cargo shows from build scripts.
fn report(path: &Path, text: &str, diagnostics: &[Diagnostic]) -> String {
    let index = LineIndex::new(text);
    let mut out = String::new();
    for d in diagnostics {
        let at = index.line_col(text, d.span.start);
        let severity = severity(d);
        out.push_str(&format!(
            "{}:{}:{}: {severity}[fsm::{}]: {}\n",
            path.display(),
            at.line,
            at.column,
            d.code,
            d.message
        ));
        if !d.help.is_empty() {
            out.push_str(&format!("    help: {}\n", d.help));
        }
    }
    out
}
