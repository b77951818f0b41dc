//! The connection to the inspector: a bounded queue and the background
//! thread that empties it into a TCP stream, reconnecting as needed.

use super::step::{Stamp, Step};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::string::String;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use std::vec::Vec;

/// The version of the line protocol, in every hello.
pub(crate) const PROTOCOL: u32 = 1;

/// How many steps the queue holds by default before it drops them.
pub const DEFAULT_CAPACITY: usize = 4096;

/// How long a connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// How long one write may block before the inspector counts as stalled
/// and the connection is dropped (the queue keeps taking, and dropping).
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);
/// The longest wait between two connection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// How often the thread looks at the registry when nothing is queued.
const IDLE: Duration = Duration::from_millis(200);

/// A connection to `fsmc inspect --listen ADDR`, shared by every machine
/// observed through it: cheap to clone, and `Send + Sync`.
///
/// [`Observer::connect`] starts a background thread that connects, sends
/// each step the machines report as a line of JSON, and reconnects after
/// the inspector goes away (waiting up to 2 s between attempts). Steps wait
/// in a queue of bounded length ([`DEFAULT_CAPACITY`], or
/// [`Observer::with_capacity`]); when it is full, or while no inspector
/// listens, a step is dropped and counted, and the machine goes on. The
/// thread ends when the last observer and probe are dropped, after sending
/// what is queued.
#[derive(Clone)]
pub struct Observer {
    shared: Arc<Shared>,
    queue: SyncSender<Message>,
}

/// What the observers, the probes and the thread share.
struct Shared {
    registry: Mutex<BTreeMap<u64, Arc<Instance>>>,
    /// Bumped at every change of the registry.
    generation: AtomicU64,
    next_key: AtomicU64,
    dropped: AtomicU64,
    sent: AtomicU64,
    connected: AtomicBool,
    /// Steps queued and not yet written or dropped.
    queued: AtomicU64,
}

/// One instance, as registered.
struct Instance {
    key: u64,
    machine: Cow<'static, str>,
    id: String,
    fingerprint: Cow<'static, str>,
    definition: Option<Arc<str>>,
    state: Vec<Cow<'static, str>>,
    counters: Arc<Counters>,
}

#[derive(Default)]
struct Counters {
    seq: AtomicU64,
    dropped: AtomicU64,
}

impl Instance {
    fn stamp(&self) -> Stamp<'_> {
        Stamp {
            machine: &self.machine,
            instance: &self.id,
            fingerprint: &self.fingerprint,
        }
    }
}

// Nearly every message is a step: boxing it would cost an allocation each.
#[allow(clippy::large_enum_variant)]
enum Message {
    Step {
        instance: Arc<Instance>,
        seq: u64,
        at_micros: u64,
        step: Step,
    },
    /// A probe was made, or given its state or definition: announce it,
    /// before its steps.
    Hello(Arc<Instance>),
    /// A probe was dropped: after its last steps, say so.
    Gone(Arc<Instance>),
}

impl Observer {
    /// An observer sending to `address` (`127.0.0.1:7171`), which is
    /// resolved now; the connection is made by the background thread, so an
    /// inspector that is not listening yet is no error. The queue holds
    /// [`DEFAULT_CAPACITY`] steps.
    ///
    /// # Errors
    ///
    /// When `address` does not resolve, or the thread cannot be started.
    pub fn connect(address: impl ToSocketAddrs) -> io::Result<Observer> {
        Observer::with_capacity(address, DEFAULT_CAPACITY)
    }

    /// An observer as [`Observer::connect`] makes it, whose queue holds
    /// `capacity` steps (at least 1).
    ///
    /// # Errors
    ///
    /// As [`Observer::connect`].
    pub fn with_capacity(address: impl ToSocketAddrs, capacity: usize) -> io::Result<Observer> {
        let addresses: Vec<SocketAddr> = address.to_socket_addrs()?.collect();
        if addresses.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the inspector's address resolves to nothing",
            ));
        }
        let shared = Arc::new(Shared {
            registry: Mutex::new(BTreeMap::new()),
            generation: AtomicU64::new(0),
            next_key: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            sent: AtomicU64::new(0),
            connected: AtomicBool::new(false),
            queued: AtomicU64::new(0),
        });
        let (queue, incoming) = mpsc::sync_channel(capacity.max(1));
        let thread_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("fsm-inspect".into())
            .spawn(move || Sender::new(thread_shared, addresses).run(&incoming))?;
        Ok(Observer { shared, queue })
    }

    /// An observer of the address in the environment variable `FSMC_INSPECT`
    /// (`127.0.0.1:7171`), or `None` when it is unset or empty, so that a
    /// program observes only when asked to.
    ///
    /// # Errors
    ///
    /// As [`Observer::connect`], when the variable is set.
    pub fn from_env() -> io::Result<Option<Observer>> {
        match std::env::var("FSMC_INSPECT") {
            Ok(address) if !address.trim().is_empty() => Observer::connect(address.trim()).map(Some),
            _ => Ok(None),
        }
    }

    /// A probe for one instance of machine `machine` (its name) with
    /// fingerprint `fingerprint`, known to the inspector as `instance`, in
    /// the state of active leaves `state`: announced to it (with
    /// [`Probe::with_definition`]'s definition, when given) on every
    /// connection until the probe is dropped.
    pub fn probe(
        &self,
        machine: impl Into<Cow<'static, str>>,
        instance: impl Into<String>,
        fingerprint: impl Into<Cow<'static, str>>,
        state: Vec<Cow<'static, str>>,
    ) -> Probe {
        let probe = Probe {
            armed: true,
            observer: self.clone(),
            instance: Arc::new(Instance {
                key: self.shared.next_key.fetch_add(1, Ordering::Relaxed),
                machine: machine.into(),
                id: instance.into(),
                fingerprint: fingerprint.into(),
                definition: None,
                state,
                counters: Arc::default(),
            }),
        };
        probe.register();
        probe
    }

    /// Steps dropped so far, by every probe: the queue was full, or no
    /// inspector listened.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Steps written to an inspector so far.
    pub fn sent(&self) -> u64 {
        self.shared.sent.load(Ordering::Relaxed)
    }

    /// True while connected to an inspector.
    pub fn is_connected(&self) -> bool {
        self.shared.connected.load(Ordering::Relaxed)
    }

    /// Wait until every step queued so far is written (or dropped), at most
    /// `timeout`; true when the queue emptied. For the end of a program or
    /// a test: steps are sent without it.
    pub fn flush(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self.shared.queued.load(Ordering::Acquire) == 0 {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer")
            .field("connected", &self.is_connected())
            .field("sent", &self.sent())
            .field("dropped", &self.dropped())
            .finish()
    }
}

/// One machine instance seen through an [`Observer`]: it stamps each step
/// with the machine's name, the instance id and the fingerprint, and hands
/// it to the observer's queue without waiting. Dropping it tells the
/// inspector the instance is gone.
pub struct Probe {
    observer: Observer,
    instance: Arc<Instance>,
    /// False for a probe replaced by another with the same key, whose drop
    /// must not say goodbye.
    armed: bool,
}

impl Probe {
    /// This probe announcing `definition`: the machine's `.fsm` text, or its
    /// JSON export (`fsmc export`, `fsm_dynamic::Definition::to_json`), from
    /// which the inspector draws the diagram after checking that it has the
    /// probe's fingerprint. The instance is announced again, with it.
    pub fn with_definition(self, definition: impl Into<Arc<str>>) -> Probe {
        let definition = definition.into();
        self.reregister(|instance| instance.definition = Some(definition))
    }

    fn reregister(mut self, change: impl FnOnce(&mut Instance)) -> Probe {
        let mut instance = Instance {
            key: self.instance.key,
            machine: self.instance.machine.clone(),
            id: self.instance.id.clone(),
            fingerprint: self.instance.fingerprint.clone(),
            definition: self.instance.definition.clone(),
            state: self.instance.state.clone(),
            counters: Arc::clone(&self.instance.counters),
        };
        change(&mut instance);
        // The new probe takes the key: dropping `self` says no goodbye.
        self.armed = false;
        let probe = Probe {
            armed: true,
            observer: self.observer.clone(),
            instance: Arc::new(instance),
        };
        probe.register();
        probe
    }

    /// Keep the instance in the registry (for the hellos of a new
    /// connection) and announce it through the queue, before its steps;
    /// when the queue is full, the thread announces it once the queue is
    /// empty.
    fn register(&self) {
        let shared = &self.observer.shared;
        lock(&shared.registry).insert(self.instance.key, Arc::clone(&self.instance));
        shared.generation.fetch_add(1, Ordering::Release);
        shared.queued.fetch_add(1, Ordering::AcqRel);
        if self
            .observer
            .queue
            .try_send(Message::Hello(Arc::clone(&self.instance)))
            .is_err()
        {
            shared.queued.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Hand `step` to the observer, stamped with the time now: never waits.
    /// When the queue is full the step is dropped and counted.
    pub fn report(&self, step: Step) {
        let counters = &self.instance.counters;
        let seq = counters.seq.fetch_add(1, Ordering::Relaxed);
        let at_micros = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        let shared = &self.observer.shared;
        shared.queued.fetch_add(1, Ordering::AcqRel);
        let message = Message::Step {
            instance: Arc::clone(&self.instance),
            seq,
            at_micros,
            step,
        };
        match self.observer.queue.try_send(message) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                shared.queued.fetch_sub(1, Ordering::AcqRel);
                counters.dropped.fetch_add(1, Ordering::Relaxed);
                shared.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Steps of this instance dropped so far.
    pub fn dropped(&self) -> u64 {
        self.instance.counters.dropped.load(Ordering::Relaxed)
    }

    /// The machine's name.
    pub fn machine(&self) -> &str {
        &self.instance.machine
    }

    /// The instance id.
    pub fn instance(&self) -> &str {
        &self.instance.id
    }

    /// The machine's fingerprint.
    pub fn fingerprint(&self) -> &str {
        &self.instance.fingerprint
    }

    /// The observer it reports to.
    pub fn observer(&self) -> &Observer {
        &self.observer
    }
}

impl Drop for Probe {
    /// The goodbye goes through the queue, after the probe's last steps;
    /// when the queue is full, the thread says it once the queue is empty.
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let shared = &self.observer.shared;
        lock(&shared.registry).remove(&self.instance.key);
        shared.generation.fetch_add(1, Ordering::Release);
        shared.queued.fetch_add(1, Ordering::AcqRel);
        if self
            .observer
            .queue
            .try_send(Message::Gone(Arc::clone(&self.instance)))
            .is_err()
        {
            shared.queued.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl std::fmt::Debug for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe")
            .field("machine", &self.machine())
            .field("instance", &self.instance())
            .field("fingerprint", &self.fingerprint())
            .field("dropped", &self.dropped())
            .finish()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The background thread's state.
struct Sender {
    shared: Arc<Shared>,
    addresses: Vec<SocketAddr>,
    stream: Option<BufWriter<TcpStream>>,
    /// The counters of the steps written into `stream`'s buffer since it
    /// was last flushed: when the connection fails, they count as dropped
    /// (the kernel may have sent a few of them: the count errs on the high
    /// side).
    unflushed: Vec<Arc<Counters>>,
    /// The instances announced, with their last known state.
    known: BTreeMap<u64, (Arc<Instance>, Vec<Cow<'static, str>>)>,
    generation: u64,
    retry_at: Instant,
    backoff: Duration,
}

impl Sender {
    fn new(shared: Arc<Shared>, addresses: Vec<SocketAddr>) -> Sender {
        Sender {
            shared,
            addresses,
            stream: None,
            unflushed: Vec::new(),
            known: BTreeMap::new(),
            generation: u64::MAX,
            retry_at: Instant::now(),
            backoff: Duration::from_millis(50),
        }
    }

    fn run(mut self, incoming: &mpsc::Receiver<Message>) {
        loop {
            if self.stream.is_none() && Instant::now() >= self.retry_at {
                self.reconnect();
            }
            let message = match incoming.try_recv() {
                Ok(message) => Some(message),
                Err(mpsc::TryRecvError::Disconnected) => break,
                Err(mpsc::TryRecvError::Empty) => {
                    // Nothing more to send now: the hellos and goodbyes
                    // whose message was dropped, then what is buffered goes
                    // out.
                    self.sync();
                    self.goodbyes();
                    self.flush();
                    let wait = match self.stream {
                        Some(_) => IDLE,
                        None => self.retry_at.saturating_duration_since(Instant::now()).min(IDLE),
                    };
                    match incoming.recv_timeout(wait) {
                        Ok(message) => Some(message),
                        Err(RecvTimeoutError::Timeout) => None,
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                }
            };
            match message {
                Some(Message::Step {
                    instance,
                    seq,
                    at_micros,
                    step,
                }) => {
                    self.send_step(&instance, seq, at_micros, &step);
                    self.shared.queued.fetch_sub(1, Ordering::AcqRel);
                }
                Some(Message::Hello(instance)) => {
                    self.announce(instance);
                    self.shared.queued.fetch_sub(1, Ordering::AcqRel);
                }
                Some(Message::Gone(instance)) => {
                    self.goodbye(instance.key);
                    self.shared.queued.fetch_sub(1, Ordering::AcqRel);
                }
                None => {}
            }
        }
        self.sync();
        self.goodbyes();
        self.flush();
    }

    /// Say goodbye for the instance of `key`, if announced.
    fn goodbye(&mut self, key: u64) {
        if let Some((instance, _)) = self.known.remove(&key) {
            let line = instance
                .stamp()
                .gone(instance.counters.dropped.load(Ordering::Relaxed));
            self.write(&line);
        }
    }

    /// Say goodbye for every instance announced and no longer registered:
    /// only when the queue is empty, so after their last steps.
    fn goodbyes(&mut self) {
        let registry = lock(&self.shared.registry);
        let gone: Vec<u64> = self
            .known
            .keys()
            .filter(|key| !registry.contains_key(key))
            .copied()
            .collect();
        drop(registry);
        for key in gone {
            self.goodbye(key);
        }
    }

    fn send_step(&mut self, instance: &Arc<Instance>, seq: u64, at_micros: u64, step: &Step) {
        if let Some((_, state)) = self.known.get_mut(&instance.key) {
            state.clone_from(&step.to);
        }
        let dropped = instance.counters.dropped.load(Ordering::Relaxed);
        let line = instance.stamp().step(step, seq, at_micros, dropped);
        if self.write(&line) {
            self.unflushed.push(Arc::clone(&instance.counters));
        } else {
            instance.counters.dropped.fetch_add(1, Ordering::Relaxed);
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Announce `instance`, unless it was announced already (as this
    /// version: a probe given its definition is announced again), with the
    /// state it was last seen in.
    fn announce(&mut self, instance: Arc<Instance>) {
        if self
            .known
            .get(&instance.key)
            .is_some_and(|(known, _)| Arc::ptr_eq(known, &instance))
        {
            return;
        }
        let state = self
            .known
            .get(&instance.key)
            .map(|(_, state)| state.clone())
            .filter(|state| !state.is_empty())
            .unwrap_or_else(|| instance.state.clone());
        self.hello(&instance, &state);
        self.known.insert(instance.key, (instance, state));
    }

    /// Announce the instances registered whose hello the full queue
    /// dropped: only when the queue is empty.
    fn sync(&mut self) {
        let generation = self.shared.generation.load(Ordering::Acquire);
        if generation == self.generation {
            return;
        }
        self.generation = generation;
        let registry: Vec<Arc<Instance>> = lock(&self.shared.registry).values().cloned().collect();
        for instance in registry {
            self.announce(instance);
        }
    }

    fn hello(&mut self, instance: &Instance, state: &[Cow<'static, str>]) {
        let line = instance.stamp().hello(
            state,
            instance.definition.as_deref(),
            instance.counters.dropped.load(Ordering::Relaxed),
        );
        self.write(&line);
    }

    fn reconnect(&mut self) {
        let stream = self
            .addresses
            .iter()
            .find_map(|address| TcpStream::connect_timeout(address, CONNECT_TIMEOUT).ok());
        let Some(stream) = stream else {
            self.retry_at = Instant::now() + self.backoff;
            self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
            return;
        };
        let _ = stream.set_nodelay(true);
        let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
        self.stream = Some(BufWriter::with_capacity(64 << 10, stream));
        self.backoff = Duration::from_millis(50);
        self.shared.connected.store(true, Ordering::Relaxed);
        let known: Vec<(Arc<Instance>, Vec<Cow<'static, str>>)> = self.known.values().cloned().collect();
        for (instance, state) in known {
            self.hello(&instance, &state);
        }
    }

    /// Write `line`; false when there is no connection or it failed (and
    /// is then closed).
    fn write(&mut self, line: &str) -> bool {
        let Some(stream) = &mut self.stream else {
            return false;
        };
        if stream.write_all(line.as_bytes()).is_ok() {
            return true;
        }
        self.disconnect();
        false
    }

    fn flush(&mut self) {
        if let Some(stream) = &mut self.stream {
            if stream.flush().is_err() {
                self.disconnect();
            } else {
                let sent = self.unflushed.len() as u64;
                self.shared.sent.fetch_add(sent, Ordering::Relaxed);
                self.unflushed.clear();
            }
        }
    }

    fn disconnect(&mut self) {
        for counters in self.unflushed.drain(..) {
            counters.dropped.fetch_add(1, Ordering::Relaxed);
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
        }
        self.stream = None;
        self.shared.connected.store(false, Ordering::Relaxed);
        self.retry_at = Instant::now() + self.backoff;
    }
}
