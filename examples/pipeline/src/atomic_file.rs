//! Files that appear complete or not at all: written to a temporary file in
//! the same directory, flushed to disk, then moved into place. A file that
//! exists is therefore finished, which is what makes "the output file exists"
//! a completion signal.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Puts `contents` at `path`, replacing any file there.
pub fn replace(path: &Path, contents: &[u8]) -> io::Result<()> {
    let temp = write_temp(path, contents)?;
    fs::rename(&temp, path)?;
    sync_parent(path)
}

/// Puts `contents` at `path` unless a file is already there. Returns whether
/// this call created it; when two processes race, exactly one does.
pub fn create_new(path: &Path, contents: &[u8]) -> io::Result<bool> {
    let temp = write_temp(path, contents)?;
    // A hard link, unlike a rename, never replaces an existing file.
    let created = match fs::hard_link(&temp, path) {
        Ok(()) => true,
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => false,
        Err(error) => {
            let _ = fs::remove_file(&temp);
            return Err(error);
        }
    };
    fs::remove_file(&temp)?;
    sync_parent(path)?;
    Ok(created)
}

/// Writes `contents` to a temporary file beside `path`, named after this
/// process so that concurrent writers never share one, and flushes it.
/// A crash leaves it behind; nothing reads files starting with `.`.
fn write_temp(path: &Path, contents: &[u8]) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?
        .to_string_lossy();
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&temp)?;
    file.write_all(contents)?;
    file.sync_all()?;
    Ok(temp)
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

    #[test]
    fn create_new_creates_once_and_keeps_the_first_contents() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("final.md");
        assert!(create_new(&path, b"first").unwrap());
        assert!(!create_new(&path, b"second").unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"first");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[test]
    fn replace_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.md");
        replace(&path, b"one").unwrap();
        replace(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
