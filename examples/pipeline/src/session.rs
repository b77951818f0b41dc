//! Worker sessions: whether a worker process is alive, known without
//! keeping any state in the orchestrator.
//!
//! Each worker has a lock file, `DIR/sessions/<role>.lock`. The orchestrator
//! takes an exclusive `flock` on it, writes the start time into it, and starts
//! the worker with that open file as its standard input. A `flock` belongs to
//! the open file, which the worker now shares, so the lock stays held for as
//! long as the worker runs, and the kernel releases it when the worker exits
//! or dies, whatever happened to the orchestrator meanwhile. So:
//!
//! - lock held: a worker is running (maybe started by an orchestrator that
//!   was killed since);
//! - lock free: no worker is running, and none can start while we hold it.
//!
//! The orchestrator decides whether to start a worker only while holding
//! the lock, after checking for its output: a worker that is done is never
//! started again, and two orchestrators never start the same worker.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What a look at a worker's lock file found.
#[derive(Debug)]
pub enum Session {
    /// A worker process holds the lock.
    Running,
    /// No worker process runs; the lock is ours until dropped or passed on
    /// with [`FreeSession::start`].
    Free(FreeSession),
}

/// A worker's lock, held by the orchestrator.
#[derive(Debug)]
pub struct FreeSession {
    file: File,
    path: PathBuf,
}

impl Session {
    /// Tries to take the lock on `path` (created if missing) without
    /// waiting.
    pub fn probe(path: &Path) -> io::Result<Session> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        loop {
            // SAFETY: `flock` reads no memory; `file` is open for the call.
            let result = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if result == 0 {
                return Ok(Session::Free(FreeSession {
                    file,
                    path: path.to_owned(),
                }));
            }
            let error = io::Error::last_os_error();
            match error.kind() {
                io::ErrorKind::WouldBlock => return Ok(Session::Running),
                io::ErrorKind::Interrupted => continue,
                _ => return Err(error),
            }
        }
    }
}

impl FreeSession {
    /// Records the start time and starts `command` holding the lock (as its
    /// standard input). The lock is released when the process exits.
    pub fn start(mut self, mut command: Command) -> io::Result<Child> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        self.file.set_len(0)?;
        self.file.rewind()?;
        writeln!(self.file, "{now}")?;
        self.file.rewind()?;
        command.stdin(Stdio::from(self.file)).spawn()
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// When the worker of lock file `path` was last started, or `None` if it
/// never was.
pub fn started_at(path: &Path) -> io::Result<Option<SystemTime>> {
    let mut text = String::new();
    match File::open(path) {
        Ok(mut file) => file.read_to_string(&mut text)?,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    // Empty or cut short: a start that was interrupted before the worker
    // could be started.
    Ok(text
        .strip_suffix('\n')
        .and_then(|millis| millis.parse::<u64>().ok())
        .map(|millis| UNIX_EPOCH + Duration::from_millis(millis)))
}
