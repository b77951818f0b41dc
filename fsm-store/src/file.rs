//! [`FileStore`]: one JSON file per instance in a directory.

use super::{Store, StoreError, Version};
use fsm_runtime::Snapshot;
use serde::Deserialize;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The longest id accepted, in bytes. File names are limited to 255 bytes on
/// common filesystems, and the temporary file adds a prefix and a suffix.
const MAX_ID_LEN: usize = 200;

/// The embedded store: one JSON file per instance in a directory.
///
/// Instance `id` lives in `<dir>/<id>.json` as
/// `{"version": 3, "snapshot": {"type": "fsm", ...}}`. A save writes
/// `<dir>/.<id>.json.tmp`, fsyncs it, renames it over `<id>.json` and fsyncs
/// the directory, so a reader, a crash or a power loss sees the old file or
/// the new one, never a mix. Saves to one instance are serialized across
/// threads and processes by an advisory lock on `<dir>/<id>.lock` (`flock` on
/// Unix), and each is a compare-and-swap on the version read under that lock.
///
/// Ids are 1 to 200 bytes of ASCII letters, digits, `-`, `_` and `.`, and do
/// not start with `.`; anything else is [`StoreError::InvalidId`], so an id can
/// never name a file outside the directory.
///
/// A file that cannot be read back is [`StoreError::Corrupt`] with its path,
/// for [`load`](Store::load) and for [`save`](Store::save) alike: the store
/// never replaces data it could not read. A temporary file left by a crash is
/// ignored by `load` and replaced by the next save of that instance.
///
/// `docs/durability.md` lists exactly what is promised, and the tests that
/// show it.
///
/// ```
/// use fsm_store::{FileStore, Store, StoreError};
/// use fsm_runtime::Snapshot;
///
/// let dir = std::env::temp_dir().join(format!("fsm-doc-{}", std::process::id()));
/// let store = FileStore::open(&dir)?;
/// let snapshot = Snapshot::new("Door", "0123456789abcdef", "opened");
///
/// let version = store.save("door-1", 0, &snapshot)?; // 0: must not exist yet
/// assert_eq!(store.load("door-1")?, Some((version, snapshot.clone())));
///
/// // A second writer still holding version 0 is refused.
/// let lost = store.save("door-1", 0, &snapshot);
/// assert!(matches!(lost, Err(StoreError::Conflict { current: 1, .. })));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct FileStore {
    dir: PathBuf,
}

impl FileStore {
    /// A store keeping its files in `dir`, which is created (with its
    /// parents) if missing.
    pub fn open(dir: impl Into<PathBuf>) -> io::Result<Self> {
        let dir = dir.into();
        fs::create_dir_all(&dir)?;
        Ok(FileStore { dir })
    }

    /// The directory holding the files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file holding instance `id`: `<dir>/<id>.json`.
    pub fn path_of(&self, id: &str) -> Result<PathBuf, StoreError> {
        validate_id(id)?;
        Ok(self.dir.join(format!("{id}.json")))
    }

    /// The stored version of `id` and its snapshot, read from `path`.
    fn read(&self, id: &str, path: &Path) -> Result<Option<(Version, Snapshot)>, StoreError> {
        let bytes = match fs::read(path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(io_error(id, path, source)),
        };
        decode(&bytes).map(Some).map_err(|reason| StoreError::Corrupt {
            id: id.to_owned(),
            location: path.display().to_string(),
            reason,
        })
    }

    /// Replaces `path` by a file holding `contents`: written to a temporary
    /// file in the same directory, flushed to disk, renamed over `path`, and
    /// the rename flushed to disk too.
    fn replace(&self, id: &str, path: &Path, contents: &[u8]) -> Result<(), StoreError> {
        // One fixed name per instance: only the holder of the instance's lock
        // writes it, and a leftover from a crash is simply truncated.
        let temp = self.dir.join(format!(".{id}.json.tmp"));
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)
            .map_err(|source| io_error(id, &temp, source))?;
        file.write_all(contents)
            .and_then(|()| file.sync_all())
            .map_err(|source| io_error(id, &temp, source))?;
        drop(file);
        fs::rename(&temp, path).map_err(|source| io_error(id, path, source))?;
        sync_dir(&self.dir).map_err(|source| io_error(id, &self.dir, source))
    }
}

impl Store for FileStore {
    fn load(&self, id: &str) -> Result<Option<(Version, Snapshot)>, StoreError> {
        // No lock: the file is only ever replaced by a rename, so a reader
        // sees one complete version or another.
        let path = self.path_of(id)?;
        self.read(id, &path)
    }

    fn save(&self, id: &str, expected: Version, snapshot: &Snapshot) -> Result<Version, StoreError> {
        let path = self.path_of(id)?;
        let version = expected.checked_add(1).ok_or_else(|| StoreError::Backend {
            id: id.to_owned(),
            message: format!("version {expected} is the last one a u64 can count"),
        })?;
        let contents = encode(version, snapshot).map_err(|error| StoreError::Backend {
            id: id.to_owned(),
            message: format!("cannot serialize the snapshot: {error}"),
        })?;

        let lock_path = self.dir.join(format!("{id}.lock"));
        let _lock = InstanceLock::acquire(&lock_path).map_err(|e| io_error(id, &lock_path, e))?;
        let current = self.read(id, &path)?.map_or(0, |(version, _)| version);
        if current != expected {
            return Err(StoreError::Conflict {
                id: id.to_owned(),
                expected,
                current,
            });
        }
        self.replace(id, &path, &contents)?;
        Ok(version)
    }
}

/// Checks that `id` can name a file in the store's directory and nothing
/// else.
fn validate_id(id: &str) -> Result<(), StoreError> {
    let invalid = |reason: String| StoreError::InvalidId {
        id: id.to_owned(),
        reason,
    };
    if id.is_empty() {
        return Err(invalid("it is empty".to_owned()));
    }
    if id.len() > MAX_ID_LEN {
        return Err(invalid(format!(
            "it is {} bytes long, the limit is {MAX_ID_LEN}",
            id.len()
        )));
    }
    if id.starts_with('.') {
        return Err(invalid(
            "it starts with `.` (names starting with `.` are the store's temporary files, \
             and `.`/`..` are directories)"
                .to_owned(),
        ));
    }
    if let Some(c) = id
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(invalid(format!(
            "it contains {c:?}; ids may only contain ASCII letters, digits, `-`, `_` and `.`"
        )));
    }
    Ok(())
}

/// The file contents for `snapshot` stored as `version`: pretty JSON, so the
/// file can be read by a person, with a final newline.
fn encode(version: Version, snapshot: &Snapshot) -> serde_json::Result<Vec<u8>> {
    let record = serde_json::json!({ "version": version, "snapshot": snapshot });
    let mut contents = serde_json::to_vec_pretty(&record)?;
    contents.push(b'\n');
    Ok(contents)
}

/// Reads back what [`encode`] wrote, or says what is wrong with it.
fn decode(bytes: &[u8]) -> Result<(Version, Snapshot), String> {
    if bytes.is_empty() {
        return Err("the file is empty (truncated?)".to_owned());
    }
    // Not `serde_json::Value`, which keeps the last of two values for one key.
    let value = crate::json::from_slice(bytes).map_err(|error| {
        if error.is_data() {
            error.to_string() // a duplicate key
        } else {
            format!("invalid JSON: {error}")
        }
    })?;
    let Some(record) = value.as_object() else {
        return Err("expected a JSON object with `version` and `snapshot`".to_owned());
    };
    let version = match record.get("version") {
        None => return Err("missing field `version`".to_owned()),
        Some(version) => match version.as_u64() {
            Some(0) => return Err("`version` is 0, which is never stored".to_owned()),
            Some(version) => version,
            None => return Err(format!("`version` is {version}, expected a positive integer")),
        },
    };
    let snapshot = match record.get("snapshot") {
        None => return Err("missing field `snapshot`".to_owned()),
        Some(snapshot) => {
            Snapshot::deserialize(snapshot).map_err(|error| format!("invalid `snapshot`: {error}"))?
        }
    };
    if let Some(field) = record
        .keys()
        .find(|key| !matches!(key.as_str(), "version" | "snapshot"))
    {
        return Err(format!("unknown field `{field}`"));
    }
    Ok((version, snapshot))
}

fn io_error(id: &str, location: &Path, source: io::Error) -> StoreError {
    StoreError::Io {
        id: id.to_owned(),
        location: location.display().to_string(),
        source,
    }
}

/// Flushes a directory's entries (a rename in it) to disk.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Directories cannot be opened as files here; the rename is as durable as
/// the platform makes it.
#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// An exclusive advisory lock on an instance's lock file, held until
/// dropped (or until the process dies: the kernel releases it).
struct InstanceLock {
    file: File,
}

impl InstanceLock {
    /// Blocks until the lock on `path` (created if missing) is ours.
    fn acquire(path: &Path) -> io::Result<Self> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        lock_exclusive(&file)?;
        Ok(InstanceLock { file })
    }
}

impl Drop for InstanceLock {
    fn drop(&mut self) {
        // Closing the file releases the lock too; unlocking first just makes
        // it explicit. An error here leaves nothing to undo.
        let _ = unlock(&self.file);
    }
}

/// `flock(LOCK_EX)`: the lock belongs to the open file, so two handles in one
/// process exclude each other as two processes do (unlike `fcntl` locks).
#[cfg(unix)]
fn lock_exclusive(file: &File) -> io::Result<()> {
    use std::os::unix::io::AsRawFd;
    loop {
        // SAFETY: `flock` reads no memory; the descriptor is open for the
        // duration of the call because `file` is borrowed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

#[cfg(unix)]
fn unlock(file: &File) -> io::Result<()> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: as in `lock_exclusive`.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_UN) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(unix))]
fn lock_exclusive(file: &File) -> io::Result<()> {
    file.lock()
}

#[cfg(not(unix))]
fn unlock(file: &File) -> io::Result<()> {
    file.unlock()
}
