//! What the end-to-end tests of `fsmc` share: a scratch directory to run the
//! binary in, and the outcome of a run. Each test crate includes it with
//! `mod harness;`.

// Each test crate uses a part of it.
#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

/// A fresh directory under the system temp dir, removed on drop.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new, empty directory, unique to this test.
    pub fn new() -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let crate_name = env!("CARGO_CRATE_NAME");
        let dir = std::env::temp_dir().join(format!(
            "fsmc-{crate_name}-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }

    /// Write `text` to `relative`, creating directories.
    pub fn write(&self, relative: &str, text: &str) -> &Self {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        self
    }

    /// The contents of `relative`.
    pub fn read(&self, relative: &str) -> String {
        fs::read_to_string(self.path(relative))
            .unwrap_or_else(|error| panic!("cannot read {relative}: {error}"))
    }

    /// Whether `relative` exists.
    pub fn exists(&self, relative: &str) -> bool {
        self.path(relative).exists()
    }

    /// The full path of `relative`.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.0.join(relative)
    }

    /// Run `fsmc` with `args` in this directory, without colour, with
    /// nothing on standard input.
    pub fn fsmc(&self, args: &[&str]) -> Run {
        let output = self
            .command(args)
            .stdin(Stdio::null())
            .output()
            .expect("run fsmc");
        Run(output)
    }

    /// Run `fsmc` with `args` in this directory, without colour, with
    /// `input` on standard input.
    pub fn fsmc_with_stdin(&self, args: &[&str], input: impl AsRef<[u8]>) -> Run {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run fsmc");
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let input = input.as_ref().to_vec();
        // Write from another thread, so a large input cannot deadlock
        // against output that fills its pipe.
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let output = child.wait_with_output().expect("wait for fsmc");
        // fsmc may stop reading early (a usage error); a broken pipe is fine.
        let _ = writer.join().expect("the writer does not panic");
        Run(output)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_fsmc"));
        command.args(args).current_dir(&self.0).env("NO_COLOR", "1");
        command
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The outcome of one run of the binary.
pub struct Run(Output);

impl Run {
    /// The exit status.
    pub fn code(&self) -> i32 {
        self.0.status.code().expect("fsmc exited normally")
    }

    /// Standard output.
    pub fn stdout(&self) -> String {
        String::from_utf8(self.0.stdout.clone()).unwrap()
    }

    /// Standard error.
    pub fn stderr(&self) -> String {
        String::from_utf8(self.0.stderr.clone()).unwrap()
    }

    /// Assert the exit status, showing both streams when it differs.
    pub fn expect(self, code: i32) -> Run {
        assert_eq!(
            self.0.status.code(),
            Some(code),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout(),
            self.stderr()
        );
        self
    }

    /// Standard output, parsed as a JSON array.
    pub fn json(&self) -> Vec<serde_json::Value> {
        serde_json::from_str(&self.stdout()).expect("stdout is a JSON array")
    }

    /// The last line of stderr: the summary of a human report.
    pub fn summary(&self) -> String {
        self.stderr().lines().last().unwrap_or_default().to_string()
    }

    /// Every line of stderr before the summary.
    pub fn stderr_before_summary(&self) -> String {
        let stderr = self.stderr();
        let body = stderr.trim_end_matches('\n');
        match body.rfind('\n') {
            Some(end) => body[..=end].to_string(),
            None => String::new(),
        }
    }
}

/// Set the modification time of `path`.
pub fn set_modified(path: &Path, time: SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

/// The modification time of `path`.
pub fn modified(path: &Path) -> SystemTime {
    fs::metadata(path).unwrap().modified().unwrap()
}
