//! Finding, reading and writing `.fsm` files.
//!
//! A path named on the command line is taken as given: a file is used whatever
//! its extension, a directory is searched recursively for `*.fsm`. The search
//! skips hidden entries and `target/` directories and does not follow symbolic
//! links to directories (so it cannot loop). Entries of a directory are
//! visited in name order, so the result never depends on the file system.
//!
//! `fsmc check` and `fsmc fmt` also read standard input, named `-` on the
//! command line as rustfmt and ruff do; see [`Input`].

use fsm_grammar::source;
use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// How standard input is named on the command line.
pub const STDIN_ARG: &str = "-";

/// What reports call standard input unless `--stdin-filename` says otherwise.
pub const STDIN_NAME: &str = "<stdin>";

/// The extension of fsmc sources.
const EXTENSION: &str = "fsm";

/// A file system problem, reported as one line and exit status 2.
#[derive(Debug)]
pub enum FileError {
    /// An operation on `path` failed.
    Io {
        /// What was being done: `read`, `write` or `list`.
        verb: &'static str,
        /// The path, as the user would write it.
        path: PathBuf,
        /// Why it failed.
        error: io::Error,
    },
    /// Standard input could not be read, or is not UTF-8.
    Stdin {
        /// Why.
        error: io::Error,
    },
    /// A directory named on the command line holds no `.fsm` file.
    NoSources {
        /// The directory.
        dir: PathBuf,
    },
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io { verb, path, error } => {
                write!(f, "cannot {verb} `{}`: {error}", path.display())
            }
            FileError::Stdin { error } => write!(f, "cannot read standard input: {error}"),
            FileError::NoSources { dir } => {
                write!(f, "no `.{EXTENSION}` files found in `{}`", dir.display())
            }
        }
    }
}

/// The files found for a list of paths, and what went wrong finding them.
#[derive(Debug, Default)]
pub struct Found {
    /// Every file, in command-line order, each directory's files sorted;
    /// without repetitions.
    pub files: Vec<PathBuf>,
    /// Paths that do not exist, unreadable directories, empty directories.
    pub errors: Vec<FileError>,
}

/// One source a command reads: a file, or standard input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A file found on disk.
    File(PathBuf),
    /// Standard input (`-` on the command line).
    Stdin,
}

/// The inputs named by `paths`, where `-` is standard input: the files of
/// [`find`], with standard input in its place among them (once, however
/// often `-` is named).
pub fn find_inputs(paths: &[PathBuf]) -> (Vec<Input>, Vec<FileError>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    let mut stdin_seen = false;
    for chunk in paths.split_inclusive(|path| is_stdin(path)) {
        let (files, stdin) = match chunk.split_last() {
            Some((last, files)) if is_stdin(last) => (files, true),
            _ => (chunk, false),
        };
        let found = find(files);
        inputs.extend(found.files.into_iter().map(Input::File));
        errors.extend(found.errors);
        if stdin && !stdin_seen {
            stdin_seen = true;
            inputs.push(Input::Stdin);
        }
    }
    // A file named in two chunks (`a.fsm - a.fsm`) is read once.
    let mut seen = BTreeSet::new();
    inputs.retain(|input| match input {
        Input::File(path) => seen.insert(path.clone()),
        Input::Stdin => true,
    });
    (inputs, errors)
}

/// Whether a command-line path means standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN_ARG
}

/// Read all of standard input as UTF-8 text; text that is not UTF-8 is
/// reported as a file is (see [`read`]).
pub fn read_stdin() -> Result<String, FileError> {
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .and_then(|_| source::decode(bytes).map_err(io::Error::from))
        .map_err(|error| FileError::Stdin { error })
}

/// Find the files named by `paths`.
pub fn find(paths: &[PathBuf]) -> Found {
    let mut found = Found::default();
    let mut seen = BTreeSet::new();
    let mut add = |files: &mut Vec<PathBuf>, path: PathBuf| {
        // Keep the first occurrence of a path named twice.
        if seen.insert(path.clone()) {
            files.push(path);
        }
    };
    for path in paths {
        match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let mut below = Vec::new();
                let errors_before = found.errors.len();
                walk(path, &mut below, &mut found.errors);
                // An unreadable directory already explains why nothing was found.
                if below.is_empty() && found.errors.len() == errors_before {
                    found.errors.push(FileError::NoSources { dir: path.clone() });
                }
                for file in below {
                    add(&mut found.files, file);
                }
            }
            Ok(_) => add(&mut found.files, path.clone()),
            Err(error) => found.errors.push(FileError::Io {
                verb: "read",
                path: path.clone(),
                error,
            }),
        }
    }
    found
}

/// Add the `.fsm` files below `dir` to `files`, depth first in name order.
fn walk(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<FileError>) {
    let entries = match fs::read_dir(dir).and_then(|entries| entries.collect::<io::Result<Vec<_>>>()) {
        Ok(entries) => entries,
        Err(error) => {
            errors.push(FileError::Io {
                verb: "list",
                path: dir.to_path_buf(),
                error,
            });
            return;
        }
    };
    let mut entries: Vec<_> = entries
        .into_iter()
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.') && name != "target"
        })
        .collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let path = child(dir, &entry.file_name());
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() {
            walk(&path, files, errors);
        } else if path.extension().is_some_and(|ext| ext == EXTENSION)
            && (file_type.is_file() || fs::metadata(&path).is_ok_and(|meta| meta.is_file()))
        {
            files.push(path);
        }
    }
}

/// `dir/name`, without a leading `./` when searching the current directory,
/// so paths print as a user would type them.
fn child(dir: &Path, name: &std::ffi::OsStr) -> PathBuf {
    if dir == Path::new(".") {
        PathBuf::from(name)
    } else {
        dir.join(name)
    }
}

/// Read a source file with the front end's reader, which says where a file
/// that is not UTF-8 stops being UTF-8.
pub fn read(path: &Path) -> Result<String, FileError> {
    source::read(path).map_err(|error| FileError::Io {
        verb: "read",
        path: error.path,
        error: error.error,
    })
}

/// Replace the contents of a source file.
pub fn write(path: &Path, text: &str) -> Result<(), FileError> {
    fs::write(path, text).map_err(|error| FileError::Io {
        verb: "write",
        path: path.to_path_buf(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system temp dir, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("fsmc-files-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        fn touch(&self, relative: &str) -> PathBuf {
            let path = self.0.join(relative);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, "").unwrap();
            path
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn walks_in_name_order_and_skips_hidden_target_and_other_extensions() {
        let scratch = Scratch::new("walk");
        for file in [
            "b.fsm",
            "a/z.fsm",
            "a/c.fsm",
            "notes.txt",
            ".hidden/x.fsm",
            ".y.fsm",
            "target/t.fsm",
            "sub/target.fsm",
        ] {
            scratch.touch(file);
        }
        let found = find(std::slice::from_ref(&scratch.0));
        assert!(found.errors.is_empty(), "{:?}", found.errors);
        let relative: Vec<_> = found
            .files
            .iter()
            .map(|p| {
                p.strip_prefix(&scratch.0)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        assert_eq!(relative, ["a/c.fsm", "a/z.fsm", "b.fsm", "sub/target.fsm"]);
    }

    #[test]
    fn explicit_files_are_kept_in_order_once_whatever_their_extension() {
        let scratch = Scratch::new("explicit");
        let b = scratch.touch("b.txt");
        let a = scratch.touch("a.fsm");
        let found = find(&[b.clone(), a.clone(), b.clone(), scratch.0.clone()]);
        assert!(found.errors.is_empty(), "{:?}", found.errors);
        assert_eq!(found.files, [b, a]);
    }

    #[test]
    fn missing_paths_and_empty_directories_are_errors() {
        let scratch = Scratch::new("errors");
        scratch.touch("empty/readme.txt");
        let missing = scratch.0.join("missing.fsm");
        let found = find(&[missing.clone(), scratch.0.join("empty")]);
        assert!(found.files.is_empty());
        let messages: Vec<_> = found.errors.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 2);
        assert!(
            messages[0].starts_with(&format!("cannot read `{}`: ", missing.display())),
            "{messages:?}"
        );
        assert_eq!(
            messages[1],
            format!("no `.fsm` files found in `{}`", scratch.0.join("empty").display())
        );
    }
}
