//! Files that appear complete or not at all: written to a temporary file,
//! flushed to disk, then moved into place. A file that exists is therefore
//! finished, which is what makes "the output file exists" a completion
//! signal.
//!
//! Temporary files are staged in a directory of their own (`DIR/.tmp/`, on
//! the same filesystem as the run, so that moving them is a rename or a
//! link), never beside the file they become. A crash therefore never leaves
//! a copy, or a second name, of an output or of the delivered result where
//! the outputs or the outbox are. Each temporary file is named after the
//! process writing it (`final.md.<pid>.tmp`), so that concurrent writers
//! never share one, and [`sweep`] can tell which are stale: those whose
//! process is gone.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Puts `contents` at `path`, replacing any file there, staged in
/// `temp_dir`.
pub fn replace(path: &Path, temp_dir: &Path, contents: &[u8]) -> io::Result<()> {
    let staged = Staged::write(temp_dir, path, contents)?;
    fs::rename(&staged.path, path)?;
    sync_parent(path)
}

/// Puts `contents` at `path` unless a file is already there, staged in
/// `temp_dir`. Returns whether this call created it; when two processes
/// race, exactly one does.
pub fn create_new(path: &Path, temp_dir: &Path, contents: &[u8]) -> io::Result<bool> {
    let staged = Staged::write(temp_dir, path, contents)?;
    let created = staged.link_new(path)?;
    staged.remove()?;
    Ok(created)
}

/// A temporary file, written and flushed, not yet in place.
#[derive(Debug)]
pub struct Staged {
    path: PathBuf,
}

impl Staged {
    /// Writes `contents` to a temporary file in `temp_dir` for `target`,
    /// named after `target` and this process, and flushes it.
    pub fn write(temp_dir: &Path, target: &Path, contents: &[u8]) -> io::Result<Staged> {
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?
            .to_string_lossy();
        let path = temp_dir.join(format!("{name}.{}.tmp", std::process::id()));
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)?;
        file.write_all(contents)?;
        file.sync_all()?;
        Ok(Staged { path })
    }

    /// The temporary file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Gives the staged file the name `target` too, unless a file is
    /// already there (a hard link, unlike a rename, never replaces one), and
    /// flushes the new name to disk. Returns whether it did.
    pub fn link_new(&self, target: &Path) -> io::Result<bool> {
        let created = match fs::hard_link(&self.path, target) {
            Ok(()) => true,
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => false,
            Err(error) => return Err(error),
        };
        sync_parent(target)?;
        Ok(created)
    }

    /// Removes the temporary file (its other name, if linked, stays).
    pub fn remove(self) -> io::Result<()> {
        fs::remove_file(&self.path)
    }
}

/// Removes the temporary files in `temp_dir` that no running process is
/// writing: those named `….<pid>.tmp` whose process is gone. They are left
/// by crashes. Files of a live process (another orchestrator, a worker still
/// running) are kept; so are names of any other shape. Returns how many were
/// removed.
///
/// A process id may be reused: a stale file whose id now belongs to another
/// process is kept until a later sweep. The reverse cannot happen: a file's
/// writer is alive while it writes.
pub fn sweep(temp_dir: &Path) -> io::Result<usize> {
    let entries = match fs::read_dir(temp_dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(error) => return Err(error),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(writer_of) else {
            continue;
        };
        if process_exists(pid) {
            continue;
        }
        match fs::remove_file(entry.path()) {
            Ok(()) => removed += 1,
            // Another orchestrator swept it first.
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
    }
    Ok(removed)
}

/// The process that writes temporary file `name` (`final.md.1234.tmp`).
fn writer_of(name: &str) -> Option<libc::pid_t> {
    let (_, pid) = name.strip_suffix(".tmp")?.rsplit_once('.')?;
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok().filter(|pid| *pid > 0)
}

/// Whether process `pid` exists and has not exited: a zombie (exited, not
/// yet reaped, as under an init that never reaps) writes nothing more.
fn process_exists(pid: libc::pid_t) -> bool {
    // SAFETY: `kill` with signal 0 sends nothing and reads no memory.
    let exists = unsafe { libc::kill(pid, 0) } == 0
        // EPERM: it exists, owned by someone else.
        || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH);
    exists && !is_zombie(pid)
}

/// Whether `/proc` shows process `pid` as a zombie (`false` without
/// `/proc`).
fn is_zombie(pid: libc::pid_t) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        // The state follows the command name, which is in parentheses.
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z'))
    })
}

/// Flushes the directory entry of `path` to disk.
fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => File::open(dir)?.sync_all(),
        _ => File::open(".")?.sync_all(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn create_new_creates_once_and_keeps_the_first_contents() {
        let dir = tempfile::tempdir().unwrap();
        let temp = tempfile::tempdir().unwrap();
        let path = dir.path().join("final.md");
        assert!(create_new(&path, temp.path(), b"first").unwrap());
        assert!(!create_new(&path, temp.path(), b"second").unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"first");
        assert_eq!(names(dir.path()), ["final.md"]);
        assert!(names(temp.path()).is_empty(), "no temporary file left");
    }

    #[test]
    fn replace_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let temp = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.md");
        replace(&path, temp.path(), b"one").unwrap();
        replace(&path, temp.path(), b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(names(dir.path()), ["out.md"]);
        assert!(names(temp.path()).is_empty());
    }

    #[test]
    fn a_crash_at_any_step_leaves_nothing_but_the_target_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let temp = tempfile::tempdir().unwrap();
        let path = dir.path().join("final.md");
        // Killed after staging: nothing in `dir`.
        let staged = Staged::write(temp.path(), &path, b"result").unwrap();
        assert!(names(dir.path()).is_empty());
        // Killed after linking: `dir` holds only the target.
        assert!(staged.link_new(&path).unwrap());
        assert_eq!(names(dir.path()), ["final.md"]);
        assert_eq!(
            names(temp.path()),
            [format!("final.md.{}.tmp", std::process::id())]
        );
    }

    #[test]
    fn sweep_removes_the_files_of_dead_processes_only() {
        let temp = tempfile::tempdir().unwrap();
        // A process that existed and is gone (reaped).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let live = std::process::id();
        for name in [
            format!("final.md.{dead}.tmp"),
            format!("researcher-a.md.{dead}.tmp"),
            format!("final.md.{live}.tmp"),
            "notes.txt".to_owned(),
            "x.tmp".to_owned(),
        ] {
            fs::write(temp.path().join(name), b"").unwrap();
        }
        assert_eq!(sweep(temp.path()).unwrap(), 2);
        assert_eq!(
            names(temp.path()),
            [
                format!("final.md.{live}.tmp"),
                "notes.txt".to_owned(),
                "x.tmp".to_owned()
            ]
        );
        assert_eq!(sweep(&temp.path().join("missing")).unwrap(), 0);
    }

    #[test]
    fn the_files_of_a_zombie_are_stale() {
        let temp = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Exited, not reaped.
        while !is_zombie(pid as libc::pid_t) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        fs::write(temp.path().join(format!("final.md.{pid}.tmp")), b"").unwrap();
        assert_eq!(sweep(temp.path()).unwrap(), 1);
        child.wait().unwrap();
    }

    #[test]
    fn writer_of_reads_the_pid_of_a_temporary_name_only() {
        assert_eq!(writer_of("final.md.1234.tmp"), Some(1234));
        assert_eq!(writer_of("final.md.tmp"), None);
        assert_eq!(writer_of("final.md.-3.tmp"), None);
        assert_eq!(writer_of("final.md.0.tmp"), None);
        assert_eq!(writer_of("final.md.99999999999999999999.tmp"), None);
        assert_eq!(writer_of("final.md.12"), None);
    }
}
