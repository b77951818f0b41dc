//! One machine with a context, payloads, timers and nested states (with a
//! history target) through every runtime wrapper: `Recorded`, `Shared`,
//! `FileStore` with its history across `kill -9`, and both drivers. Each is
//! used exactly as it is with a machine that has none of these.

#![cfg(unix)]

use fsm_runtime::driver::{run_blocking, run_virtual, Step, Stopped};
use fsm_runtime::{
    FingerprintPolicy, FireError, History, ManualClock, Recorded, Shared, Snapshot, Timestamp,
};
use fsm_store::{FileStore, Store, Version};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

fsm_runtime::fsm! {
    /// A job: queued until started with a name, then working through
    /// `fetch` and `process` within its budget, parked when the budget runs
    /// out, and resumed where it was.
    machine Job {
        context Work;
        action start(String), done, park, resume, tick;
        guard named(String);
        effect note(String), count;
        delay budget;
        output started, timed_out, finished;

        initial state queued { on start [named] -> work do note emit started; }
        state work {
            after budget -> parked emit timed_out;
            on park -> parked;
            on tick do count;
            initial state fetch { on done -> process; after 500ms -> process; }
            state process { on done -> complete emit finished; }
        }
        state parked { on resume -> work.history; }
        terminal state complete;
    }
}

/// The context: what the effects wrote, and the budget.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Work {
    notes: Vec<String>,
    ticks: u64,
    budget_ms: u64,
}

impl job::Context for Work {
    fn named(&self, name: &String) -> bool {
        !name.is_empty()
    }

    fn note(&mut self, name: &String) {
        self.notes.push(name.clone());
    }

    fn count(&mut self) {
        self.ticks += 1;
    }

    fn budget(&self) -> Duration {
        Duration::from_millis(self.budget_ms)
    }
}

use job::{Event, Job, Output, State};

fn work(budget_ms: u64) -> Work {
    Work {
        budget_ms,
        ..Work::default()
    }
}

fn at(millis: u64) -> Timestamp {
    Timestamp::from_unix_millis(millis).unwrap()
}

/// The history's steps as `from --action--> to`.
fn steps(history: &History) -> Vec<String> {
    history
        .iter()
        .map(|e| format!("{} --{}--> {}", e.from(), e.action(), e.to()))
        .collect()
}

#[test]
fn recorded_records_events_and_timers_and_restores_everything() {
    let clock = ManualClock::new(UNIX_EPOCH);
    let history = History::new().with_clock(clock.clone());
    let mut run = Recorded::with_history(Job::with_clock(work(60_000), clock.clone()), history);

    // A rejected payload comes back, and nothing is recorded.
    let error = run.fire(Event::Start(String::new())).unwrap_err();
    assert!(matches!(&error, FireError::GuardRejected(_)));
    assert!(matches!(error.into_event(), Event::Start(name) if name.is_empty()));
    assert!(run.history().is_empty());

    let fired = run.fire(Event::Start("crawl".into())).unwrap();
    assert_eq!(fired.outputs, [Output::Started]);
    run.fire(Event::Tick).unwrap();
    clock.advance(Duration::from_millis(500));
    let timer = run.fire_next_due().unwrap().unwrap();
    assert_eq!(
        (timer.from, timer.to, timer.label),
        (State::Fetch, State::Process, "after 500ms")
    );
    run.fire(Event::Park).unwrap();
    assert_eq!(
        steps(run.history()),
        [
            "queued --start--> fetch",
            "fetch --tick--> fetch",
            "fetch --after 500ms--> process",
            "process --park--> parked",
        ]
    );

    // The snapshot carries the context, the history memory and the history;
    // restored, the machine resumes where it was parked.
    let snapshot = run.snapshot().unwrap();
    let text = serde_json::to_string(&snapshot).unwrap();
    let back: Snapshot = serde_json::from_str(&text).unwrap();
    let machine = Job::restore_with(&back, FingerprintPolicy::Strict, clock.clone()).unwrap();
    let mut resumed = Recorded::resume(machine, &back, History::new().with_clock(clock.clone())).unwrap();
    assert_eq!(resumed.machine().context().notes, ["crawl"]);
    assert_eq!(resumed.machine().context().ticks, 1);
    resumed.fire(Event::Resume).unwrap();
    assert_eq!(resumed.state(), State::Process, "back through `work.history`");
    assert_eq!(resumed.history().last().unwrap().seq(), 4);

    // On the system clock, `Recorded::restore` needs nothing but the snapshot.
    let restored = Recorded::<Job>::restore(&back).unwrap();
    assert_eq!(restored.state(), State::Parked);
    assert_eq!(restored.history().len(), 4);
}

#[test]
fn the_budget_keeps_its_deadline_across_a_restore() {
    let clock = ManualClock::new(UNIX_EPOCH);
    let mut run = Recorded::new(Job::with_clock(work(10_000), clock.clone()));
    run.fire(Event::Start("crawl".into())).unwrap();
    run.fire(Event::Done).unwrap();
    assert_eq!(run.machine().next_deadline(), Some(at(10_000)));
    clock.advance(Duration::from_secs(4));
    let snapshot = run.snapshot().unwrap();

    clock.advance(Duration::from_secs(6));
    let machine = Job::restore_with(&snapshot, FingerprintPolicy::Strict, clock.clone()).unwrap();
    let mut run = Recorded::resume(machine, &snapshot, History::new()).unwrap();
    assert_eq!(
        run.machine().next_deadline(),
        Some(at(10_000)),
        "the deadline first promised"
    );
    let timer = run.fire_next_due().unwrap().unwrap();
    assert_eq!(
        (timer.from, timer.to, timer.due),
        (State::Process, State::Parked, at(10_000))
    );
    assert_eq!(timer.outputs, [Output::TimedOut]);
    assert_eq!(run.history().last().unwrap().action(), "after budget");
}

#[test]
fn shared_fires_from_many_threads_and_records_one_chain() {
    const THREADS: u64 = 4;
    const TICKS: u64 = 2_000;
    let clock = ManualClock::new(UNIX_EPOCH);
    let mut job = Job::with_clock(work(60_000), clock.clone());
    job.fire(Event::Start("crawl".into())).unwrap();
    let shared = Arc::new(Shared::recording(job, History::new()));
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                for _ in 0..TICKS {
                    shared.fire(Event::Tick).unwrap();
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(shared.with(|job| job.context().ticks), THREADS * TICKS);
    assert_eq!(
        shared.with_history(History::len),
        Some((THREADS * TICKS) as usize)
    );

    // Its timers fire under the same lock, and are recorded.
    assert_eq!(shared.next_deadline(), Some(at(500)));
    clock.advance(Duration::from_millis(500));
    let timer = shared.fire_next_due().unwrap().unwrap();
    assert_eq!(timer.to, State::Process);
    let snapshot = shared.snapshot().unwrap();
    assert_eq!(snapshot.history().len() as u64, THREADS * TICKS + 1);
    assert_eq!(snapshot.history().last().unwrap().action(), "after 500ms");
    assert_eq!(snapshot.current_state(), "process");
}

#[test]
fn run_virtual_drives_a_recorded_machine_through_its_timers() {
    let clock = ManualClock::new(UNIX_EPOCH);
    let mut run = Recorded::new(Job::with_clock(work(2_000), clock.clone()));
    let mut outputs = Vec::new();
    let events = [Event::Start("crawl".into()), Event::Tick];
    let stopped = run_virtual(&mut run, &clock, events, Duration::from_secs(60), |_, step| {
        if let Step::Event(Ok(fired)) = &step {
            outputs.extend_from_slice(fired.outputs);
        }
        if let Step::Timer(Ok(fired)) = &step {
            outputs.extend_from_slice(fired.outputs);
        }
    });
    assert_eq!(stopped, Stopped::Elapsed);
    assert_eq!(run.state(), State::Parked);
    assert_eq!(outputs, [Output::Started, Output::TimedOut]);
    assert_eq!(
        steps(run.history()),
        [
            "queued --start--> fetch",
            "fetch --tick--> fetch",
            "fetch --after 500ms--> process",
            "process --after budget--> parked",
        ]
    );
}

#[test]
fn run_blocking_drives_a_recorded_machine_on_the_system_clock() {
    let (events, receiver) = std::sync::mpsc::channel();
    let (stop, stopping) = std::sync::mpsc::channel::<()>();
    let mut run = Recorded::new(Job::new(work(300)));
    let sender = std::thread::spawn(move || {
        events.send(Event::Start("crawl".into())).unwrap();
        // The budget (300 ms) runs out: parked.
        std::thread::sleep(Duration::from_millis(600));
        // Resumed with a fresh budget, the two events queued behind it.
        for event in [Event::Resume, Event::Done, Event::Done] {
            events.send(event).unwrap();
        }
        // The channel stays open until the machine is done.
        let _ = stopping.recv_timeout(Duration::from_secs(30));
    });
    let stopped = run_blocking(&mut run, &receiver, |_, _| {});
    stop.send(()).unwrap();
    assert_eq!(stopped, Stopped::Terminal);
    assert_eq!(
        steps(run.history()),
        [
            "queued --start--> fetch",
            "fetch --after budget--> parked",
            "parked --resume--> fetch",
            "fetch --done--> process",
            "process --done--> complete",
        ]
    );
    drop(receiver);
    sender.join().unwrap();
}

#[test]
fn the_async_driver_drives_a_recorded_machine() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (events, mut receiver) = tokio::sync::mpsc::channel(8);
        let mut run = Recorded::new(Job::new(work(300)));
        events.send(Event::Start("crawl".into())).await.unwrap();
        events.send(Event::Done).await.unwrap();
        let sender = tokio::spawn(async move {
            // The budget (300 ms) runs out first: parked.
            tokio::time::sleep(Duration::from_millis(600)).await;
            events.send(Event::Resume).await.unwrap();
            events.send(Event::Done).await.unwrap();
            // The channel stays open until the machine is done.
            tokio::time::sleep(Duration::from_secs(30)).await;
        });
        let stopped = fsm_runtime::driver::run(&mut run, &mut receiver, |_, _| {}).await;
        assert_eq!(stopped, Stopped::Terminal);
        assert_eq!(
            steps(run.history()),
            [
                "queued --start--> fetch",
                "fetch --done--> process",
                "process --after budget--> parked",
                "parked --resume--> process",
                "process --done--> complete",
            ]
        );
        sender.abort();
    });
}

const ID: &str = "job";
/// Set in a child: the directory of the store it saves into.
const WORKER_DIR: &str = "FSM_TEST_ANY_MACHINE_DIR";

/// The child of [`a_recorded_machine_in_a_file_store_survives_kill_9`]:
/// loads the job (or starts it), then ticks it and saves it with its history
/// after every tick, as fast as it can; says `ready` on stderr after its
/// first save.
#[test]
fn child_worker() {
    let Some(dir) = std::env::var_os(WORKER_DIR) else {
        return;
    };
    let store = FileStore::open(dir).unwrap();
    let (mut version, mut run) = match store.load(ID).unwrap() {
        Some((version, snapshot)) => (version, Recorded::<Job>::restore(&snapshot).unwrap()),
        None => {
            let mut run = Recorded::new(Job::new(work(3_600_000)));
            run.fire(Event::Start("crawl".into())).unwrap();
            (0, run)
        }
    };
    let mut ready = false;
    loop {
        run.fire(Event::Tick).unwrap();
        version = store.save(ID, version, &run.snapshot().unwrap()).unwrap();
        if !ready {
            // Raw stderr, not `eprintln!`: the test harness captures that.
            std::io::stderr().write_all(b"ready\n").unwrap();
            ready = true;
        }
    }
}

/// SIGKILL at random moments of a process that fires and saves a recorded
/// machine with a context and a timer: after every kill the stored job
/// restores, its history has one `tick` per tick its context counted (the
/// context, the history and the version were saved together), the history
/// and the version never go back, and the budget keeps the deadline it got
/// when the job started.
#[test]
fn a_recorded_machine_in_a_file_store_survives_kill_9() {
    const KILLS: usize = 40;
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let mut last: (Version, u64) = (0, 0);
    let mut deadline = None;
    for kill in 0..KILLS {
        let mut worker = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child_worker", "--test-threads=1", "--quiet"])
            .env(WORKER_DIR, dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(worker.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line, "ready\n", "kill {kill}: the worker did not start");
        std::thread::sleep(Duration::from_micros(fastrand::u64(0..20_000)));
        worker.kill().unwrap(); // SIGKILL
        worker.wait().unwrap();

        let (version, snapshot) = store.load(ID).unwrap().expect("the job is stored");
        let run = Recorded::<Job>::restore(&snapshot).unwrap();
        let ticks = run.machine().context().ticks;
        let recorded = run.history().iter().filter(|e| e.action() == "tick").count() as u64;
        assert_eq!(
            recorded, ticks,
            "kill {kill}: the history and the context were saved together"
        );
        assert_eq!(
            run.history().len() as u64,
            ticks + 1,
            "kill {kill}: start, then the ticks"
        );
        assert!(
            (version, ticks) >= last,
            "kill {kill}: went back from {last:?} to {:?}",
            (version, ticks)
        );
        last = (version, ticks);
        let due = run
            .machine()
            .armed_timers()
            .find(|timer| timer.state() == "work")
            .expect("the budget is armed")
            .due();
        assert_eq!(
            *deadline.get_or_insert(due),
            due,
            "kill {kill}: the deadline moved"
        );
        assert_eq!(run.state(), State::Fetch);
    }
    assert!(
        last.1 >= KILLS as u64,
        "every worker ticked and saved at least once"
    );
}
