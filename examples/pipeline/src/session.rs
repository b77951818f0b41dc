//! Agent sessions: whether an agent process is alive, known without
//! keeping any state in an orchestrator.
//!
//! Each agent has a lock file, `DIR/runs/<id>/sessions/<role>.lock`. The
//! orchestrator takes an exclusive `flock` on it, writes the start time into
//! it, and starts the agent with that open file as its standard input. A
//! `flock` belongs to the open file, which the agent now shares, so the lock
//! stays held for as long as the agent runs, and the kernel releases it when
//! the agent exits or dies, whatever happened to the orchestrator meanwhile.
//! So:
//!
//! - lock held: an agent is running (maybe started by an orchestrator that
//!   was killed since), or another orchestrator is deciding whether to start
//!   one;
//! - lock free: no agent is running, and none can start while we hold it.
//!
//! An orchestrator decides whether to start an agent only while holding the
//! lock, after checking for the agent's start marker, which the agent writes
//! under the lock: an agent that ran is never started again, and two
//! orchestrators never start the same agent.
//!
//! The lock file also records the agent's process id, which leads its own
//! process group: the agents of a failed run are [killed](kill) whoever
//! started them.
//!
//! Orchestrators are known alive the same way: each holds a lock on a file
//! of its own ([`Presence`]) for as long as it lives, and the kernel
//! releases it when the orchestrator dies, by `kill -9` or otherwise. An
//! agent's exit is reported by the orchestrator that started it while that
//! one [lives](Presence::alive), since only it saw the exit status, and by
//! any other once it is gone.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What a look at an agent's lock file found.
#[derive(Debug)]
pub enum Session {
    /// A agent process holds the lock.
    Running,
    /// No agent process runs; the lock is ours until dropped or passed on
    /// with [`FreeSession::start`].
    Free(FreeSession),
}

/// A agent's lock, held by the orchestrator.
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
    /// Records the start time, starts `command` holding the lock (as its
    /// standard input) in a process group of its own, and records its
    /// process id. The lock is released when the process exits.
    ///
    /// The lock file then reads `<start millis>\n<pid>\n`. A crash between
    /// the start and the second line leaves an agent whose id is unknown:
    /// it runs to its end, but cannot be killed at a timeout.
    pub fn start(self, mut command: Command) -> io::Result<Child> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        let started = format!("{now}\n");
        self.file.set_len(0)?;
        self.file.write_all_at(started.as_bytes(), 0)?;
        // `pwrite`: the offset, shared with the agent's standard input,
        // stays at the start.
        let record = self.file.try_clone()?;
        // Its own group: a timeout kills the agent and whatever it started.
        command.stdin(Stdio::from(self.file)).process_group(0);
        let child = command.spawn()?;
        record.write_all_at(format!("{}\n", child.id()).as_bytes(), started.len() as u64)?;
        Ok(child)
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// What an agent's lock file says about its last start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Started {
    /// When it was started.
    pub at: SystemTime,
    /// Its process id (and process group), unless the start was cut short
    /// before it could be recorded.
    pub pid: Option<libc::pid_t>,
}

/// The last start of the agent of lock file `path`, or `None` if it never
/// was started.
pub fn started(path: &Path) -> io::Result<Option<Started>> {
    let mut text = String::new();
    match File::open(path) {
        Ok(mut file) => file.read_to_string(&mut text)?,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    // Only whole lines count: a line cut short is a start (or a record of
    // its process id) that was interrupted.
    let mut lines = text
        .split_inclusive('\n')
        .filter_map(|line| line.strip_suffix('\n'));
    let Some(at) = lines
        .next()
        .and_then(|millis| millis.parse::<u64>().ok())
        .and_then(|millis| UNIX_EPOCH.checked_add(Duration::from_millis(millis)))
    else {
        return Ok(None);
    };
    // 0 and 1 would make `kill(-pid)` signal far more than one agent.
    let pid = lines
        .next()
        .and_then(|pid| pid.parse::<libc::pid_t>().ok())
        .filter(|pid| *pid > 1);
    Ok(Some(Started { at, pid }))
}

/// When the agent of lock file `path` was last started, or `None` if it
/// never was.
pub fn started_at(path: &Path) -> io::Result<Option<SystemTime>> {
    Ok(started(path)?.map(|started| started.at))
}

/// What [`kill`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kill {
    /// No agent held the lock: nothing to kill.
    NotRunning,
    /// The agent (process `pid` and its group) was killed and its lock is
    /// free.
    Killed {
        /// Its process id.
        pid: libc::pid_t,
    },
    /// A agent holds the lock, but its process id was never recorded.
    PidUnknown,
    /// The agent was sent SIGKILL but still held the lock after `wait`.
    StillRunning {
        /// Its process id.
        pid: libc::pid_t,
    },
}

/// Kills the agent holding lock file `path`, if one does: SIGKILL to its
/// process group, then waits up to `wait` for the lock to be released.
///
/// The id is signalled only while the lock is held, that is while the agent
/// (the leader of that group) or a process it started is alive, so the id
/// cannot have been reused by an unrelated process.
pub fn kill(path: &Path, wait: Duration) -> io::Result<Kill> {
    if let Session::Free(_) = Session::probe(path)? {
        return Ok(Kill::NotRunning);
    }
    let Some(pid) = started(path)?.and_then(|started| started.pid) else {
        return Ok(Kill::PidUnknown);
    };
    // SAFETY: `kill` reads no memory. `pid > 1`, so `-pid` names one group.
    if unsafe { libc::kill(-pid, libc::SIGKILL) } != 0 {
        let error = io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::ESRCH) {
            return Err(error);
        }
        // No such group: it exited since the probe.
    }
    let start = Instant::now();
    loop {
        if let Session::Free(_) = Session::probe(path)? {
            return Ok(Kill::Killed { pid });
        }
        if start.elapsed() >= wait {
            return Ok(Kill::StillRunning { pid });
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// An orchestrator's presence: `DIR/orchestrators/<id>.lock`, locked by
/// the orchestrator for as long as it lives. The id, `<pid>-<nanoseconds>`,
/// is never reused, so a lock free or a file missing means that this
/// orchestrator is gone.
#[derive(Debug)]
pub struct Presence {
    // Holds the lock until dropped or the process ends.
    _file: File,
    path: PathBuf,
    id: String,
}

impl Presence {
    /// Takes a new presence in `dir` (created if missing), staged in
    /// `temp_dir`: the file is locked before it gets its name, so no
    /// orchestrator ever finds it free while this one lives. Presences left
    /// free by orchestrators that died are removed.
    pub fn take(dir: &Path, temp_dir: &Path) -> io::Result<Presence> {
        std::fs::create_dir_all(dir)?;
        std::fs::create_dir_all(temp_dir)?;
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if let Some(Session::Free(_)) = lock_existing(&path)? {
                // Its orchestrator is gone, and no other takes this name.
                match std::fs::remove_file(&path) {
                    Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error),
                    _ => {}
                }
            }
        }
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        let id = format!("{}-{nanos}", std::process::id());
        let staged = temp_dir.join(format!("{id}.lock.{}.tmp", std::process::id()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&staged)?;
        // SAFETY: `flock` reads no memory; `file` is open for the call.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let path = dir.join(format!("{id}.lock"));
        std::fs::rename(&staged, &path)?;
        Ok(Presence {
            _file: file,
            path,
            id,
        })
    }

    /// The orchestrator's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether the orchestrator `id` (of a presence in `dir`) lives. An id
    /// that no presence could have (not `<digits>-<digits>`) is not alive.
    pub fn alive(dir: &Path, id: &str) -> io::Result<bool> {
        let well_formed = id.split_once('-').is_some_and(|(pid, nanos)| {
            [pid, nanos]
                .iter()
                .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
        });
        if !well_formed {
            return Ok(false);
        }
        Ok(matches!(
            lock_existing(&dir.join(format!("{id}.lock")))?,
            Some(Session::Running)
        ))
    }
}

impl Drop for Presence {
    fn drop(&mut self) {
        // Gone either way: a missing file and a free lock say the same.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Tries to lock the file at `path` without waiting, and without creating
/// it: `None` when it does not exist, `Running` when another holds it.
fn lock_existing(path: &Path) -> io::Result<Option<Session>> {
    let file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    loop {
        // SAFETY: `flock` reads no memory; `file` is open for the call.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(Some(Session::Free(FreeSession {
                file,
                path: path.to_owned(),
            })));
        }
        let error = io::Error::last_os_error();
        match error.kind() {
            io::ErrorKind::WouldBlock => return Ok(Some(Session::Running)),
            io::ErrorKind::Interrupted => continue,
            _ => return Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_presence_is_alive_until_dropped_and_a_stale_one_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let (presences, temp) = (dir.path().join("o"), dir.path().join("t"));
        let first = Presence::take(&presences, &temp).unwrap();
        let id = first.id().to_owned();
        assert!(Presence::alive(&presences, &id).unwrap());
        assert!(!Presence::alive(&presences, "../o/x").unwrap());
        assert!(!Presence::alive(&presences, "1-2").unwrap());
        // A presence whose process died: its file is there, its lock free.
        fs::write(presences.join("7-7.lock"), "").unwrap();
        assert!(!Presence::alive(&presences, "7-7").unwrap());
        let second = Presence::take(&presences, &temp).unwrap();
        assert!(!presences.join("7-7.lock").exists());
        assert!(Presence::alive(&presences, &id).unwrap());
        assert!(Presence::alive(&presences, second.id()).unwrap());
        drop(first);
        assert!(!Presence::alive(&presences, &id).unwrap());
        assert_eq!(fs::read_dir(&temp).unwrap().count(), 0);
    }

    #[test]
    fn a_start_is_read_from_whole_lines_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.lock");
        assert_eq!(started(&path).unwrap(), None);
        let at = UNIX_EPOCH + Duration::from_millis(1234);
        for (text, expected) in [
            ("", None),
            ("12", None),
            ("1234\n", Some(Started { at, pid: None })),
            ("1234\n56", Some(Started { at, pid: None })),
            ("1234\n56\n", Some(Started { at, pid: Some(56) })),
            ("1234\n1\n", Some(Started { at, pid: None })),
            ("1234\n-5\n", Some(Started { at, pid: None })),
        ] {
            fs::write(&path, text).unwrap();
            assert_eq!(started(&path).unwrap(), expected, "{text:?}");
        }
    }

    #[test]
    fn a_started_worker_holds_its_lock_until_killed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.lock");
        let Session::Free(free) = Session::probe(&path).unwrap() else {
            panic!("a new lock is free");
        };
        let mut command = Command::new("sleep");
        command.arg("600");
        let mut child = free.start(command).unwrap();
        assert!(matches!(Session::probe(&path).unwrap(), Session::Running));
        let pid = child.id() as libc::pid_t;
        assert_eq!(started(&path).unwrap().unwrap().pid, Some(pid));

        assert_eq!(
            kill(&path, Duration::from_secs(10)).unwrap(),
            Kill::Killed { pid }
        );
        assert!(matches!(Session::probe(&path).unwrap(), Session::Free(_)));
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGKILL));
        assert_eq!(kill(&path, Duration::from_secs(10)).unwrap(), Kill::NotRunning);
    }
}
