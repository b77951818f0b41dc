//! The orchestrator killed with SIGKILL at random moments, and restarted,
//! again and again: every run still ends with its result delivered exactly
//! once, statuses that match the files, and no worker started twice.

mod common;

use common::{assert_consistent, assert_delivered, orchestrator, starts, stdout};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// Waits up to `limit` for `child` to exit; kills it (SIGKILL) if it has not.
/// Returns whether it was killed.
fn kill_after(child: &mut Child, limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if start.elapsed() >= limit {
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            return true;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The inode of `outbox/final.md`, if it exists: a second delivery would
/// create a new file.
fn delivered_inode(dir: &Path) -> Option<u64> {
    std::fs::metadata(dir.join("outbox").join("final.md"))
        .ok()
        .map(|metadata| metadata.ino())
}

/// How far a run got: the status saves made so far, and the outputs and
/// deliveries written.
fn stage(dir: &Path) -> (u64, usize) {
    let saves = common::load(dir).map_or(0, |(_, status)| {
        status.run.version
            + status.phases.iter().map(|phase| phase.version).sum::<u64>()
            + status
                .workers
                .iter()
                .flatten()
                .map(|worker| worker.version)
                .sum::<u64>()
    });
    let files = [
        "researcher-a.md",
        "researcher-b.md",
        "synthesizer.md",
        "outbox/final.md",
    ];
    (saves, files.iter().filter(|file| dir.join(file).exists()).count())
}

#[test]
fn runs_killed_at_random_moments_deliver_exactly_once() {
    const RUNS: usize = 100;
    let start = Instant::now();
    let mut kills = 0;
    // How many kills found the run at each stage: (saves made, outputs written).
    let mut stages = std::collections::BTreeMap::new();
    for run in 0..RUNS {
        let dir = tempfile::tempdir().unwrap();
        let mut inode = None;
        let mut attempts = 0;
        let output = loop {
            attempts += 1;
            assert!(attempts < 200, "run {run}: no progress after {attempts} attempts");
            let mut child = orchestrator(dir.path()).spawn().unwrap();
            // A whole run takes some tens of milliseconds: most attempts are
            // killed, at every point of it, and each gets further.
            let limit = Duration::from_micros(fastrand::u64(0..20_000));
            if !kill_after(&mut child, limit) {
                break child.wait_with_output().unwrap();
            }
            kills += 1;
            assert_consistent(dir.path());
            *stages.entry(stage(dir.path())).or_insert(0) += 1;
            let now = delivered_inode(dir.path());
            if inode.is_some() {
                assert_eq!(now, inode, "run {run}: final.md was delivered again");
            }
            inode = now;
        };
        assert!(output.status.success(), "run {run}: {output:?}");
        assert!(
            stdout(&output).contains("run archived"),
            "run {run}: {}",
            stdout(&output)
        );
        assert_delivered(dir.path());
        if inode.is_some() {
            assert_eq!(delivered_inode(dir.path()), inode, "run {run}: delivered again");
        }

        // Running it again changes nothing.
        let before = starts(dir.path());
        let inode = delivered_inode(dir.path());
        let again = orchestrator(dir.path()).output().unwrap();
        assert!(again.status.success(), "run {run}: {again:?}");
        assert_eq!(starts(dir.path()), before);
        assert_eq!(delivered_inode(dir.path()), inode);
        assert_delivered(dir.path());
    }
    println!("{RUNS} runs, {kills} kills, in {:?}", start.elapsed());
    println!("kills by (status saves, outputs written): {stages:?}");
    assert!(kills >= RUNS, "too few kills ({kills}) to mean anything");
}
