//! `fsmc build`: write the Rust that `fsm-codegen` generates for `.fsm`
//! files, one formatted `<stem>.rs` per file, or check that it is up to date.
//!
//! Generation goes through `fsm_codegen::Config`, the builder build scripts
//! use, so `fsmc build`, a build script and the `fsm!` macro give the same
//! code for the same file.

use crate::check::{DiagnosticArgs, Reporter};
use crate::console;
use crate::exit::Exit;
use crate::files;
use clap::Args;
use fsm_codegen::{Config, FileStatus, GeneratedFile};
use fsm_grammar::report::plural;
use fsm_grammar::source;
use std::collections::BTreeSet;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Arguments of `fsmc build`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Directories are searched recursively for `*.fsm` files as by `fsmc check`. Each file becomes \
`DIR/<stem>.rs` (`machines/door.fsm` gives `DIR/door.rs`), holding one module per machine; bring it \
into a crate with `include!(\"generated/door.rs\");`. Files are only written when their contents \
change, so cargo does not rebuild needlessly.

Diagnostics are reported as by `fsmc check`. A file with errors, or one that defines no machine \
(empty, or only comments), is not generated and the files already in DIR are left alone; warnings \
do not stop generation unless --deny-warnings is given.

DIR belongs to the inputs named: a `.rs` file in DIR that starts with fsmc's `@generated` header \
but that no input gives (its `.fsm` file was deleted or renamed) is orphaned. It is reported, and \
removed only with --prune. Files without the header are never touched. When an input path cannot \
be read, orphans are not looked for.

With --check, nothing is written: each generated file that is missing, differs from what the \
`.fsm` file gives, or is orphaned is listed on stderr, for CI to catch a forgotten regeneration.

Exit status:
  0  every file was generated (or, with --check, is up to date)
  1  errors, files that define no machine, warnings under --deny-warnings, or with --check files \
that are missing, stale or orphaned
  2  usage errors, and files or directories that cannot be read or written")]
pub struct BuildArgs {
    /// `.fsm` files and directories to generate Rust from.
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<PathBuf>,

    /// The directory to write the `.rs` files into (created when missing).
    #[arg(short = 'o', long = "out-dir", value_name = "DIR")]
    out_dir: PathBuf,

    /// Write nothing; list generated files that are missing, stale or orphaned and exit 1 if
    /// there are any.
    #[arg(long)]
    check: bool,

    /// Remove orphaned generated files: files in DIR with fsmc's `@generated` header that no
    /// input gives any more.
    #[arg(long)]
    prune: bool,

    /// The path generated code names the runtime by, when the dependency is renamed or
    /// re-exported: e.g. `fsm` for `fsm = { package = "fsm-runtime", ... }` [default: ::fsm_runtime]
    #[arg(long, value_name = "PATH")]
    runtime_crate: Option<String>,

    /// Where each machine's items go: `own`, a module named after the machine (`door::Door` where
    /// the file is included); `self`, the module the file is included in, so that
    /// `mod door { include!("generated/door.rs"); }` gives `door::Door`, as `fsm!`'s `module = self`
    /// does. With `self`, a file may define one machine.
    #[arg(long, value_enum, value_name = "WHERE", default_value = "own")]
    module: ModuleArg,

    #[command(flatten)]
    diagnostics: DiagnosticArgs,
}

/// `--module`: where a machine's items go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ModuleArg {
    /// A module named after the machine.
    Own,
    /// The module the generated file is included in.
    #[value(name = "self")]
    Surrounding,
}

/// What happened to the files of one run, for the summary line.
#[derive(Debug, Default)]
struct Tally {
    /// Written because they were missing or stale.
    written: usize,
    /// Already up to date.
    unchanged: usize,
    /// Missing, under `--check`.
    missing: usize,
    /// Stale, under `--check`.
    stale: usize,
    /// Orphaned generated files: found (under `--check`), left in place, or
    /// removed (under `--prune`).
    orphaned: usize,
    /// Inputs not generated: errors in them, or they could not be read.
    not_generated: usize,
}

/// Generate the files, or check them; see [`BuildArgs`] for the exit status.
pub fn run(args: &BuildArgs) -> Exit {
    let options = match args.diagnostics.lint_options() {
        Ok(options) => options,
        Err(message) => {
            console::error(message);
            return Exit::Trouble;
        }
    };
    let mut config = Config::new();
    config.cargo_directives(false).lints(options.clone());
    if let Some(path) = &args.runtime_crate {
        config.runtime_crate(path);
    }
    if args.module == ModuleArg::Surrounding {
        config.module(fsm_codegen::Module::Surrounding);
    }
    // Generating no file validates the configuration (the runtime path), so
    // a bad flag stops the run before anything is reported.
    if let Err(error) = config.generate(&[] as &[&Path]) {
        console::error(error);
        return Exit::Trouble;
    }

    if args.paths.iter().any(|path| files::is_stdin(path)) {
        console::error(
            "`fsmc build` cannot read standard input (`-`): each generated file is named after its \
             `.fsm` file",
        );
        return Exit::Trouble;
    }

    let mut exit = Exit::Clean;
    let found = files::find(&args.paths);
    for error in &found.errors {
        console::error(error);
        exit.raise(Exit::Trouble);
    }
    if found.files.is_empty() {
        // Nothing to generate: the errors above say why, a summary adds nothing.
        return exit;
    }

    // Report every file's diagnostics the way `fsmc check` does; only the
    // files without errors go on to the generator.
    let mut tally = Tally::default();
    let mut reporter = Reporter::new(&args.diagnostics);
    let mut valid = Vec::new();
    for path in &found.files {
        let source = match files::read(path) {
            Ok(source) => source,
            Err(error) => {
                console::error(error);
                exit.raise(Exit::Trouble);
                tally.not_generated += 1;
                continue;
            }
        };
        let checked = fsm_grammar::check(&source);
        let no_machine = source::defines_no_machine(&checked);
        let machines: Vec<&str> = checked.model.machines.iter().map(|m| m.name.as_str()).collect();
        let diagnostics = options.apply(checked.diagnostics);
        if reporter.report(&path.display().to_string(), &source, &diagnostics) {
            exit.raise(Exit::Problems);
            tally.not_generated += 1;
        } else if no_machine {
            // The generator refuses it too; saying so here keeps the other
            // files of the run going.
            console::error(format!(
                "`{}` defines no machine; nothing generated\nhelp: {}",
                path.display(),
                source::NO_MACHINE_HELP
            ));
            exit.raise(Exit::Problems);
            tally.not_generated += 1;
        } else if args.module == ModuleArg::Surrounding && machines.len() > 1 {
            // Their items would clash in the one module that includes the
            // file; the generator would only write `compile_error!`s.
            console::error(format!(
                "`{}` defines {} machines (`{}`), but `--module self` puts a machine's items into \
                 the module that includes the file, which can hold one\nhelp: split the file, one \
                 machine per file, or generate it without `--module self`",
                path.display(),
                machines.len(),
                machines.join("`, `")
            ));
            exit.raise(Exit::Problems);
            tally.not_generated += 1;
        } else {
            valid.push(path);
        }
    }
    let (errors, warnings) = (reporter.errors, reporter.warnings);
    reporter.finish();

    // The generator checks each file again. That costs a second check of
    // valid input, and buys the one code path build scripts take too.
    // The orphans are only known when every input path could be listed.
    let inputs_complete = found.errors.is_empty();
    match config.generate(&valid) {
        Ok(generated) if args.check => {
            exit.raise(check_files(&generated, args, &mut tally));
            if inputs_complete {
                exit.raise(check_orphans(&found.files, args, &mut tally));
            }
        }
        Ok(generated) => {
            exit.raise(write_files(&generated, &args.out_dir, &mut tally));
            if inputs_complete {
                exit.raise(handle_orphans(&found.files, args, &mut tally));
            }
        }
        Err(error) => {
            // Two inputs with one stem, or an input that changed since it
            // was read: nothing is written.
            console::error(error);
            exit.raise(Exit::Trouble);
            tally.not_generated += valid.len();
        }
    }

    console::stderr(&format!(
        "{}\n",
        summary(&tally, args.check, args.prune, errors, warnings)
    ));
    exit
}

/// How every file `fsm-codegen` renders starts (`render_model`'s header):
/// the mark of a file `fsmc build` may call orphaned and remove.
const GENERATED_HEADER: &str = "// @generated by fsmc from `";

/// The generated files in `dir` that none of `inputs` gives: `.rs` files
/// whose first line is fsmc's `@generated` header, in name order.
///
/// Names are compared without regard to case, so that on a file system that
/// ignores case a file just written is never taken for an orphan.
fn find_orphans(inputs: &[PathBuf], dir: &Path) -> Result<Vec<PathBuf>, files::FileError> {
    let list_error = |error| files::FileError::Io {
        verb: "list",
        path: dir.to_path_buf(),
        error,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(list_error(error)),
    };
    let expected: BTreeSet<String> = inputs
        .iter()
        .filter_map(|input| input.file_stem())
        .map(|stem| format!("{}.rs", stem.to_string_lossy().to_lowercase()))
        .collect();
    let mut orphans = Vec::new();
    for entry in entries {
        let entry = entry.map_err(list_error)?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.ends_with(".rs") || expected.contains(&name.to_lowercase()) {
            continue;
        }
        // Symbolic links and directories are never ours.
        if !entry.file_type().is_ok_and(|kind| kind.is_file()) {
            continue;
        }
        let path = entry.path();
        if has_generated_header(&path).map_err(|error| files::FileError::Io {
            verb: "read",
            path: path.clone(),
            error,
        })? {
            orphans.push(path);
        }
    }
    orphans.sort();
    Ok(orphans)
}

/// Whether the file at `path` starts with fsmc's `@generated` header.
fn has_generated_header(path: &Path) -> io::Result<bool> {
    let mut start = Vec::with_capacity(GENERATED_HEADER.len());
    std::fs::File::open(path)?
        .take(GENERATED_HEADER.len() as u64)
        .read_to_end(&mut start)?;
    Ok(start == GENERATED_HEADER.as_bytes())
}

/// Under `--check`: list the orphaned files, which fail the check.
fn check_orphans(inputs: &[PathBuf], args: &BuildArgs, tally: &mut Tally) -> Exit {
    let orphans = match find_orphans(inputs, &args.out_dir) {
        Ok(orphans) => orphans,
        Err(error) => {
            console::error(error);
            return Exit::Trouble;
        }
    };
    for path in &orphans {
        console::stderr(&format!(
            "orphaned: {} (no input gives it; run `{} --prune` to remove it)\n",
            path.display(),
            regenerate_command(args)
        ));
    }
    tally.orphaned += orphans.len();
    if orphans.is_empty() {
        Exit::Clean
    } else {
        Exit::Problems
    }
}

/// After writing: remove the orphaned files under `--prune`, else warn
/// about each.
fn handle_orphans(inputs: &[PathBuf], args: &BuildArgs, tally: &mut Tally) -> Exit {
    let orphans = match find_orphans(inputs, &args.out_dir) {
        Ok(orphans) => orphans,
        Err(error) => {
            console::error(error);
            return Exit::Trouble;
        }
    };
    let mut exit = Exit::Clean;
    for path in &orphans {
        if !args.prune {
            console::stderr(&format!(
                "warning: {} is orphaned: it was generated by fsmc, but no input gives it any more \
                 (delete it, or run `{} --prune`)\n",
                path.display(),
                regenerate_command(args)
            ));
            tally.orphaned += 1;
            continue;
        }
        match std::fs::remove_file(path) {
            Ok(()) => tally.orphaned += 1,
            Err(error) => {
                console::error(files::FileError::Io {
                    verb: "remove",
                    path: path.clone(),
                    error,
                });
                exit.raise(Exit::Trouble);
            }
        }
    }
    exit
}

/// Write each file that is missing or stale into `dir`.
fn write_files(generated: &[GeneratedFile], dir: &Path, tally: &mut Tally) -> Exit {
    if generated.is_empty() {
        return Exit::Clean;
    }
    if let Err(error) = std::fs::create_dir_all(dir) {
        console::error(format_args!("cannot create `{}`: {error}", dir.display()));
        tally.not_generated += generated.len();
        return Exit::Trouble;
    }
    let mut exit = Exit::Clean;
    for file in generated {
        match file.write_if_changed(dir) {
            Ok(true) => tally.written += 1,
            Ok(false) => tally.unchanged += 1,
            Err(error) => {
                console::error(files::FileError::Io {
                    verb: "write",
                    path: file.path_in(dir),
                    error,
                });
                tally.not_generated += 1;
                exit.raise(Exit::Trouble);
            }
        }
    }
    exit
}

/// Compare each file with what is in the output directory, listing the
/// missing and stale ones.
fn check_files(generated: &[GeneratedFile], args: &BuildArgs, tally: &mut Tally) -> Exit {
    let mut exit = Exit::Clean;
    for file in generated {
        let path = file.path_in(&args.out_dir);
        let problem = match file.status_in(&args.out_dir) {
            Ok(FileStatus::UpToDate) => {
                tally.unchanged += 1;
                continue;
            }
            Ok(FileStatus::Stale) => {
                tally.stale += 1;
                "stale"
            }
            Ok(FileStatus::Missing) => {
                tally.missing += 1;
                "missing"
            }
            Err(error) => {
                console::error(files::FileError::Io {
                    verb: "read",
                    path,
                    error,
                });
                tally.not_generated += 1;
                exit.raise(Exit::Trouble);
                continue;
            }
        };
        console::stderr(&format!(
            "{problem}: {} (run `{}` to regenerate)\n",
            path.display(),
            regenerate_command(args)
        ));
        exit.raise(Exit::Problems);
    }
    exit
}

/// The command that brings the files up to date: this one without
/// `--check` and without the flags that do not change what is written.
fn regenerate_command(args: &BuildArgs) -> String {
    let mut words = vec!["fsmc".to_string(), "build".to_string()];
    words.extend(
        args.paths
            .iter()
            .map(|path| shell_word(&path.display().to_string())),
    );
    words.push("-o".to_string());
    words.push(shell_word(&args.out_dir.display().to_string()));
    if let Some(path) = &args.runtime_crate {
        words.push("--runtime-crate".to_string());
        words.push(shell_word(path));
    }
    words.join(" ")
}

/// `word` as a POSIX shell reads it back: unchanged when it holds no special
/// character, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `generated 3 files (1 written, 2 unchanged)`, or under `--check`
/// `checked 3 generated files: 1 up to date, 1 stale, 1 missing`, followed
/// by the diagnostics and the inputs that were not generated.
fn summary(tally: &Tally, check: bool, prune: bool, errors: usize, warnings: usize) -> String {
    let mut summary = if check {
        let checked = tally.unchanged + tally.stale + tally.missing + tally.orphaned;
        let states: Vec<String> = [
            (tally.unchanged, "up to date"),
            (tally.stale, "stale"),
            (tally.missing, "missing"),
            (tally.orphaned, "orphaned"),
        ]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, state)| format!("{n} {state}"))
        .collect();
        let mut line = format!("checked {}", plural(checked, "generated file"));
        if !states.is_empty() {
            line.push_str(&format!(": {}", states.join(", ")));
        }
        line
    } else {
        let mut line = format!(
            "generated {} ({} written, {} unchanged)",
            plural(tally.written + tally.unchanged, "file"),
            tally.written,
            tally.unchanged
        );
        if tally.orphaned > 0 {
            let fate = if prune { "removed" } else { "left in place" };
            line.push_str(&format!("; {} {fate}", plural(tally.orphaned, "orphaned file")));
        }
        line
    };
    match (errors, warnings) {
        (0, 0) => {}
        (e, 0) => summary.push_str(&format!("; {}", plural(e, "error"))),
        (0, w) => summary.push_str(&format!("; {}", plural(w, "warning"))),
        (e, w) => summary.push_str(&format!("; {}, {}", plural(e, "error"), plural(w, "warning"))),
    }
    if tally.not_generated > 0 {
        summary.push_str(&format!(
            "; {} not generated",
            plural(tally.not_generated, "file")
        ));
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("machines/door.fsm"), "machines/door.fsm");
        assert_eq!(shell_word("::my_crate::fsm"), "::my_crate::fsm");
        assert_eq!(shell_word("my machines"), "'my machines'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn summaries_count_orphans() {
        let tally = Tally {
            written: 1,
            orphaned: 2,
            ..Tally::default()
        };
        assert_eq!(
            summary(&tally, false, false, 0, 0),
            "generated 1 file (1 written, 0 unchanged); 2 orphaned files left in place"
        );
        assert_eq!(
            summary(&tally, false, true, 0, 0),
            "generated 1 file (1 written, 0 unchanged); 2 orphaned files removed"
        );
        let tally = Tally {
            unchanged: 1,
            orphaned: 1,
            ..Tally::default()
        };
        assert_eq!(
            summary(&tally, true, false, 0, 0),
            "checked 2 generated files: 1 up to date, 1 orphaned"
        );
    }

    #[test]
    fn summaries_count_what_happened() {
        let tally = Tally {
            written: 1,
            unchanged: 2,
            ..Tally::default()
        };
        assert_eq!(
            summary(&tally, false, false, 0, 0),
            "generated 3 files (1 written, 2 unchanged)"
        );
        let tally = Tally {
            unchanged: 1,
            stale: 1,
            missing: 1,
            not_generated: 1,
            ..Tally::default()
        };
        assert_eq!(
            summary(&tally, true, false, 1, 2),
            "checked 3 generated files: 1 up to date, 1 stale, 1 missing; 1 error, 2 warnings; \
             1 file not generated"
        );
        assert_eq!(
            summary(&Tally::default(), true, false, 0, 1),
            "checked 0 generated files; 1 warning"
        );
    }
}
