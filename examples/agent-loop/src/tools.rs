//! Tool execution: fake tools, and a runner that executes each call on its
//! own thread and reports the results through a channel.

use crate::conversation::{ToolCall, ToolCallId, ToolResult};
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// True for tools that change files (`edit_file`, `bash`): after them the
/// post-tool hooks (auto-commit) must run.
pub fn is_mutating(tool: &str) -> bool {
    matches!(tool, "edit_file" | "bash")
}

/// Run a fake tool. The results are fixed strings, so runs are
/// reproducible.
///
/// # Errors
///
/// When the tool is unknown, as a real one would fail; the error goes back
/// to the LLM as the call's result.
pub fn run_tool(call: &ToolCall) -> Result<String, String> {
    let input = &call.input;
    match call.name.as_str() {
        "read_file" => Ok(format!("{input}: fn main() {{ println!(\"helo\"); }}")),
        "grep" => Ok(format!("src/main.rs:1: matches `{input}`")),
        "edit_file" => Ok(format!("edited {input}")),
        "bash" => Ok(format!("$ {input}\nexit status 0")),
        name => Err(format!("unknown tool `{name}`")),
    }
}

/// How long each fake tool takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latency {
    /// No time at all.
    None,
    /// A fixed time per tool: `grep` 10 ms, `edit_file` 20 ms, `read_file`
    /// 30 ms, `bash` 40 ms, anything else 5 ms.
    PerTool,
    /// A pseudo-random time below `max`, drawn from `seed` and the call id.
    Jitter {
        /// Varies the draw between runs.
        seed: u64,
        /// The longest time.
        max: Duration,
    },
}

impl Latency {
    /// How long `call` takes.
    pub fn of(self, call: &ToolCall) -> Duration {
        match self {
            Latency::None => Duration::ZERO,
            Latency::PerTool => Duration::from_millis(match call.name.as_str() {
                "grep" => 10,
                "edit_file" => 20,
                "read_file" => 30,
                "bash" => 40,
                _ => 5,
            }),
            Latency::Jitter { seed, max } => {
                let nanos = u64::try_from(max.as_nanos()).unwrap_or(u64::MAX).max(1);
                Duration::from_nanos(splitmix64(seed ^ u64::from(call.id.0)) % nanos)
            }
        }
    }
}

/// SplitMix64, a tiny well-mixed hash: enough to spread fake latencies.
fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The order in which the results of one batch are reported.
///
/// The calls always run concurrently; this only decides who reports first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// As the threads finish: the order varies from run to run.
    AsFinished,
    /// By latency, ties by call order, as if the threads' clocks were exact:
    /// the order is the same on every run, however the threads are
    /// scheduled.
    ByLatency,
    /// In the order of these ids; calls not listed report last, in call
    /// order. Tests use it to try every permutation.
    Sequence(Vec<ToolCallId>),
}

/// Runs tool calls on threads; [`ToolRunner::recv`] returns their results.
#[derive(Debug)]
pub struct ToolRunner {
    latency: Latency,
    arrival: Arrival,
    sender: Sender<ToolResult>,
    receiver: Receiver<ToolResult>,
    threads: Vec<JoinHandle<()>>,
    in_flight: usize,
}

impl ToolRunner {
    /// A runner whose tools take `latency` and report in `arrival` order.
    pub fn new(latency: Latency, arrival: Arrival) -> Self {
        let (sender, receiver) = mpsc::channel();
        ToolRunner {
            latency,
            arrival,
            sender,
            receiver,
            threads: Vec::new(),
            in_flight: 0,
        }
    }

    /// Start every call of `batch`, each on its own thread.
    pub fn spawn(&mut self, batch: &[ToolCall]) {
        let ranks = self.ranks(batch);
        let turnstile = Arc::new(Turnstile::default());
        for (call, rank) in batch.iter().cloned().zip(ranks) {
            let sender = self.sender.clone();
            let latency = self.latency.of(&call);
            let turnstile = rank.map(|rank| (Arc::clone(&turnstile), rank));
            self.threads.push(thread::spawn(move || {
                thread::sleep(latency);
                // A panicking tool still reports, or the agent would wait
                // for it forever.
                let output = panic::catch_unwind(AssertUnwindSafe(|| run_tool(&call)))
                    .unwrap_or_else(|_| Err(format!("tool `{}` panicked", call.name)));
                let result = ToolResult { id: call.id, output };
                match turnstile {
                    Some((turnstile, rank)) => turnstile.pass(rank, || {
                        // The receiver lives as long as the runner, which
                        // joins every thread before it is dropped.
                        let _ = sender.send(result);
                    }),
                    None => {
                        let _ = sender.send(result);
                    }
                }
            }));
            self.in_flight += 1;
        }
    }

    /// How many results have not been received yet.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// The next result, blocking until one arrives; `None` when no call is
    /// in flight.
    pub fn recv(&mut self) -> Option<ToolResult> {
        if self.in_flight == 0 {
            return None;
        }
        // The runner holds a sender, so the channel never disconnects, and
        // every thread sends exactly once.
        let result = self.receiver.recv().ok()?;
        self.in_flight -= 1;
        self.reap();
        Some(result)
    }

    /// Wait for every thread and drop the results not received: the agent
    /// is shutting down.
    pub fn shutdown(&mut self) {
        for handle in self.threads.drain(..) {
            // Tool panics are caught inside the thread.
            let _ = handle.join();
        }
        while self.receiver.try_recv().is_ok() {}
        self.in_flight = 0;
    }

    /// Each call's place in the report order, or `None` for each when they
    /// report as they finish.
    fn ranks(&self, batch: &[ToolCall]) -> Vec<Option<usize>> {
        let mut order: Vec<usize> = (0..batch.len()).collect();
        match &self.arrival {
            Arrival::AsFinished => return vec![None; batch.len()],
            Arrival::ByLatency => order.sort_by_key(|&i| (self.latency.of(&batch[i]), i)),
            Arrival::Sequence(ids) => order.sort_by_key(|&i| {
                let position = ids.iter().position(|&id| id == batch[i].id);
                (position.unwrap_or(usize::MAX), i)
            }),
        }
        let mut ranks = vec![None; batch.len()];
        for (rank, &i) in order.iter().enumerate() {
            ranks[i] = Some(rank);
        }
        ranks
    }

    /// Join the threads that have finished, so a long session does not
    /// accumulate handles.
    fn reap(&mut self) {
        let (finished, running): (Vec<_>, Vec<_>) = self.threads.drain(..).partition(JoinHandle::is_finished);
        self.threads = running;
        for handle in finished {
            let _ = handle.join();
        }
    }
}

impl Drop for ToolRunner {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Lets the threads of a batch report one at a time, in rank order.
#[derive(Debug, Default)]
struct Turnstile {
    next: Mutex<usize>,
    turn: Condvar,
}

impl Turnstile {
    /// Wait for `rank`'s turn, run `report`, and let the next rank through.
    fn pass(&self, rank: usize, report: impl FnOnce()) {
        let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
        while *next != rank {
            next = self.turn.wait(next).unwrap_or_else(PoisonError::into_inner);
        }
        report();
        *next += 1;
        self.turn.notify_all();
    }
}
