//! Every kind of generated machine through every wrapper, by one generic
//! function: `Recorded` (fire, history, a snapshot restored), `Shared`
//! (fired from two threads), a `FileStore`, the outbox, the three drivers
//! and a fleet on SQLite. Each kind is a machine and a few lines saying how
//! to make it, what to send it and where it ends; a machine whose guards are
//! passed per call goes through each as the others do, with its guards.

// The generated code of every machine here compiles without a warning.
#![deny(warnings)]

use fsm_fleet::{Fleet, Machines};
use fsm_runtime::driver::{self, run_blocking, run_virtual, Step, Stopped};
use fsm_runtime::{
    Fire, History, Machine, ManualClock, NoGuards, Persist, Recorded, Restore, Shared, Snapshot, Symbol,
    TimedWith,
};
use fsm_store::{FileStore, Store};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, UNIX_EPOCH};

/// One kind of machine, as the generic run takes it.
trait Kind {
    /// The guards its events and timers fire with: [`NoGuards`] for a
    /// machine that does not take them per call.
    type G: Send + Sync + 'static;
    /// The machine, on the system clock.
    type M: Fire<Self::G, Event: Clone + Send + Sync + Serialize + DeserializeOwned>
        + TimedWith<Self::G>
        + Restore
        + Send
        + 'static;
    /// The same machine on a [`ManualClock`] (the same type, for a machine
    /// without timers), for `run_virtual`.
    type V: Fire<Self::G, Event = Event<Self>> + TimedWith<Self::G>;

    /// A new machine, on the system clock.
    fn new() -> Self::M;
    /// A new machine reading `clock`.
    fn on(clock: &ManualClock) -> Self::V;
    /// Its guards.
    fn guards() -> Self::G;
    /// What is sent to it, in order: every one fires.
    fn events() -> Vec<Event<Self>>;
    /// The state it is in once the events fired.
    const AFTER_EVENTS: &'static str;
    /// The terminal state it ends in, once its timers (if any) fired.
    const END: &'static str;
    /// How many outputs the events and timers emit, in all.
    const OUTPUTS: usize;
    /// How many timers fire on the way.
    const TIMERS: usize;
}

type Event<K> = <<K as Kind>::M as Machine>::Event;

/// How long a timer of these machines waits at most.
const TIMER: Duration = Duration::from_millis(50);

/// A state's name as a history and the fleet keep it.
fn name<S: fsm_runtime::MachineState>(state: S) -> String {
    state.to_string()
}

/// Fire every due timer of `run`, waiting up to a second for the first of
/// `count`; how many fired.
fn wait_for_timers<M: TimedWith<G>, G>(run: &mut Recorded<M>, guards: &G, count: usize) -> usize {
    let start = Instant::now();
    let mut fired = 0;
    while fired < count && start.elapsed() < Duration::from_secs(2) {
        match run.fire_next_due_with(guards) {
            Some(result) => {
                assert!(result.is_ok(), "a timer's guard held");
                fired += 1;
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    fired
}

/// The kind `K` through every wrapper.
fn run_kind<K: Kind>() {
    recorded::<K>();
    shared::<K>();
    file_store::<K>();
    outbox::<K>();
    drivers::<K>();
    fleet::<K>();
}

/// `Recorded`: the events and timers fired and recorded, and a snapshot
/// through JSON restored with its history.
fn recorded<K: Kind>() {
    let guards = K::guards();
    let mut run = Recorded::new(K::new());
    for event in K::events() {
        run.fire_with(event, &guards).expect("every event fires");
    }
    assert_eq!(name(run.state()), K::AFTER_EVENTS);
    assert_eq!(wait_for_timers(&mut run, &guards, K::TIMERS), K::TIMERS);
    assert_eq!(name(run.state()), K::END);
    assert!(run.machine().is_terminal());
    let steps = K::events().len() + K::TIMERS;
    assert_eq!(run.history().len(), steps);
    assert_eq!(run.history().last().unwrap().to(), K::END);

    let text = serde_json::to_string(&run.snapshot().unwrap()).unwrap();
    let snapshot: Snapshot = serde_json::from_str(&text).unwrap();
    let back = Recorded::<K::M>::restore(&snapshot).unwrap();
    assert_eq!(back.state(), run.state());
    assert_eq!(back.history().len(), steps);
    assert_eq!(back.snapshot().unwrap(), run.snapshot().unwrap());
}

/// `Shared`: two threads fire the events in turn (each waits for its own),
/// and the history is one chain.
fn shared<K: Kind>() {
    let shared = Arc::new(Shared::recording(K::new(), History::new()));
    let guards = Arc::new(K::guards());
    let events = Arc::new(K::events());
    let turn = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..2)
        .map(|me| {
            let (shared, guards, events, turn) = (
                Arc::clone(&shared),
                Arc::clone(&guards),
                Arc::clone(&events),
                Arc::clone(&turn),
            );
            std::thread::spawn(move || {
                let mut fired = 0;
                loop {
                    let next = turn.load(Ordering::Acquire);
                    if next >= events.len() {
                        return fired;
                    }
                    if next % 2 != me {
                        std::thread::yield_now();
                        continue;
                    }
                    shared
                        .fire_with(events[next].clone(), &*guards)
                        .expect("every event fires");
                    fired += 1;
                    turn.store(next + 1, Ordering::Release);
                }
            })
        })
        .collect();
    let fired: Vec<usize> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let n = K::events().len();
    assert_eq!(fired, [n.div_ceil(2), n / 2]);
    assert_eq!(name(shared.state()), K::AFTER_EVENTS);

    // Its timers fire under the same lock, with the guards.
    let start = Instant::now();
    let mut timers = 0;
    while timers < K::TIMERS && start.elapsed() < Duration::from_secs(2) {
        match shared.fire_next_due_with(&*guards) {
            Some(result) => {
                assert!(result.is_ok());
                timers += 1;
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    assert_eq!(timers, K::TIMERS);
    assert_eq!(name(shared.state()), K::END);
    let chain = shared
        .with_history(|history| {
            history
                .iter()
                .zip(history.iter().skip(1))
                .all(|(a, b)| a.to() == b.from())
        })
        .unwrap();
    assert!(chain, "every entry starts where the one before ended");
    assert_eq!(shared.with_history(History::len), Some(n + K::TIMERS));
}

/// A `FileStore`: saved half way, loaded, fired on, saved again, loaded.
fn file_store<K: Kind>() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    let guards = K::guards();
    let events = K::events();
    let (first, rest) = events.split_at(events.len() / 2);

    let mut run = Recorded::new(K::new());
    for event in first {
        run.fire_with(event.clone(), &guards).unwrap();
    }
    let version = store.save("one", 0, &run.snapshot().unwrap()).unwrap();
    let (loaded, snapshot) = store.load("one").unwrap().expect("saved");
    assert_eq!(loaded, version);
    let mut run = Recorded::<K::M>::restore(&snapshot).unwrap();
    assert_eq!(run.history().len(), first.len());
    for event in rest {
        run.fire_with(event.clone(), &guards).unwrap();
    }
    wait_for_timers(&mut run, &guards, K::TIMERS);
    let version = store.save("one", version, &run.snapshot().unwrap()).unwrap();
    let (loaded, snapshot) = store.load("one").unwrap().expect("saved");
    assert_eq!(loaded, version);
    let run = Recorded::<K::M>::restore(&snapshot).unwrap();
    assert_eq!(name(run.state()), K::END);
    assert_eq!(run.history().len(), events.len() + K::TIMERS);
}

/// The outbox: every output pending under its key, across a snapshot,
/// until acknowledged.
fn outbox<K: Kind>() {
    let guards = K::guards();
    let mut run = Recorded::new(K::new()).with_outbox();
    for event in K::events() {
        run.fire_with(event, &guards).unwrap();
    }
    wait_for_timers(&mut run, &guards, K::TIMERS);
    assert_eq!(run.pending().len(), K::OUTPUTS);

    let back = Recorded::<K::M>::restore(&run.snapshot().unwrap()).unwrap();
    let keys = |run: &Recorded<K::M>| {
        run.pending()
            .iter()
            .map(|p| (p.key, p.output.name()))
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&back), keys(&run));
    for pending in run.pending().to_vec() {
        assert!(run.ack(pending.key));
        assert!(!run.ack(pending.key), "acknowledged once");
    }
    assert!(run.pending().is_empty());
    let back = Recorded::<K::M>::restore(&run.snapshot().unwrap()).unwrap();
    assert!(back.pending().is_empty());
}

/// Counts a driver's steps: events fired, timers fired; nothing refused.
fn count<'a, D: driver::Driven>(
    events: &'a mut usize,
    timers: &'a mut usize,
) -> impl FnMut(&D, Step<D>) + 'a {
    // Two counters behind one closure.
    let counters = std::cell::RefCell::new((events, timers));
    move |_, step| {
        let mut counters = counters.borrow_mut();
        match step {
            Step::Event(Ok(_)) => *counters.0 += 1,
            Step::Timer(Ok(_)) => *counters.1 += 1,
            Step::Event(Err(error)) => panic!("refused: {error}"),
            Step::Timer(Err(rejected)) => panic!("rejected: {rejected}"),
        }
    }
}

/// The three drivers, each with the machine's guards: `run_blocking` over a
/// `Recorded` machine, `run_virtual` on a manual clock, async `run`.
fn drivers<K: Kind>() {
    let guards = K::guards();
    let steps = (K::events().len(), K::TIMERS);

    // Blocking, on a thread of its own, recording.
    let (sender, receiver) = std::sync::mpsc::channel();
    for event in K::events() {
        sender.send(event).unwrap();
    }
    let mut run = Recorded::new(K::new());
    let (mut events, mut timers) = (0, 0);
    let stopped = run_blocking(
        &mut driver::with_guards(&mut run, &guards),
        &receiver,
        count(&mut events, &mut timers),
    );
    assert_eq!(stopped, Stopped::Terminal);
    assert_eq!((events, timers), steps);
    assert_eq!(name(run.state()), K::END);
    assert_eq!(run.history().len(), steps.0 + steps.1);
    drop(sender);

    // Virtual time: the timers fire at once.
    let clock = ManualClock::new(UNIX_EPOCH);
    let mut machine = K::on(&clock);
    let (mut events, mut timers) = (0, 0);
    let stopped = run_virtual(
        &mut driver::with_guards(&mut machine, &guards),
        &clock,
        K::events(),
        Duration::from_secs(3600),
        count(&mut events, &mut timers),
    );
    assert_eq!(stopped, Stopped::Terminal);
    assert_eq!((events, timers), steps);
    assert_eq!(name(machine.state()), K::END);
    // Stopped at the deadline that ended it.
    let elapsed = fsm_runtime::Clock::now(&clock).unix_millis();
    assert_eq!(
        elapsed,
        if K::TIMERS == 0 {
            0
        } else {
            TIMER.as_millis() as u64
        }
    );

    // Async, in a runtime on this thread.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (sender, mut receiver) = tokio::sync::mpsc::channel(16);
        for event in K::events() {
            sender.send(event).await.unwrap();
        }
        let mut machine = K::new();
        let (mut events, mut timers) = (0, 0);
        let stopped = driver::run(
            &mut driver::with_guards(&mut machine, &guards),
            &mut receiver,
            count(&mut events, &mut timers),
        )
        .await;
        assert_eq!(stopped, Stopped::Terminal);
        assert_eq!((events, timers), steps);
        assert_eq!(name(machine.state()), K::END);
    });
}

/// A fleet on SQLite: an instance created, sent the events, stepped by a
/// worker (and again once its timers are due), read back.
fn fleet<K: Kind>() {
    let dir = tempfile::tempdir().unwrap();
    let mut fleet = Fleet::open(dir.path().join("fleet.db")).unwrap();
    let machines = Machines::new().with_guards::<K::M, _>(K::guards());
    fleet.create("one", K::new()).unwrap();
    for (i, event) in K::events().iter().enumerate() {
        fleet
            .send_to::<K::M>("one", event, &format!("event-{i}"))
            .unwrap();
    }
    let worked = fleet.work(&machines, 10).unwrap();
    assert_eq!(
        (worked.instances, worked.events),
        (1, K::events().len()),
        "{worked:?}"
    );
    let instance = fleet.instance("one").unwrap().unwrap();
    assert_eq!(instance.error, None);
    if K::TIMERS > 0 {
        assert_eq!(instance.state, K::AFTER_EVENTS);
        assert!(instance.next_wake.is_some());
        std::thread::sleep(TIMER + Duration::from_millis(20));
        fleet.work(&machines, 10).unwrap();
    }
    let instance = fleet.instance("one").unwrap().unwrap();
    assert_eq!(instance.state, K::END);
    assert_eq!(instance.machine, <K::M as Machine>::NAME);
    assert_eq!(instance.next_wake, None);
    let snapshot: Snapshot = serde_json::from_str(&instance.snapshot).unwrap();
    let back = Recorded::<K::M>::restore(&snapshot).unwrap();
    assert_eq!(name(back.state()), K::END);
    assert_eq!(back.history().len(), K::events().len() + K::TIMERS);
}

/// The tests, one a kind.
macro_rules! kinds {
    ($($test:ident: $kind:ty),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                run_kind::<$kind>();
            }
        )*
    };
}

kinds! {
    plain: Plain,
    guards_passed_per_call: Gated,
    context: Counted,
    payloads: Ordered,
    timers: Boiling,
    timers_with_guards_passed_per_call: Ringing,
    nested_with_history: Parked,
    parallel_without_context: Built,
    parallel_with_context: Reviewed,
    parallel_with_timers: Racing,
}

// --- Plain: no guards, context, payloads or timers.

fsm_runtime::fsm! {
    machine Door {
        initial state closed { on open -> open emit creaked; }
        state open { on close -> shut emit slammed; }
        terminal state shut;
    }
}

struct Plain;

impl Kind for Plain {
    type G = NoGuards;
    type M = door::Door;
    type V = door::Door;

    fn new() -> door::Door {
        door::Door::new()
    }
    fn on(_: &ManualClock) -> door::Door {
        door::Door::new()
    }
    fn guards() -> NoGuards {
        NoGuards
    }
    fn events() -> Vec<door::Action> {
        vec![door::Action::Open, door::Action::Close]
    }
    const AFTER_EVENTS: &'static str = "shut";
    const END: &'static str = "shut";
    const OUTPUTS: usize = 2;
    const TIMERS: usize = 0;
}

// --- Guards passed per call: guards and no context.

fsm_runtime::fsm! {
    machine Gate {
        guard allowed;
        initial state closed { on open [allowed] -> open emit opened; }
        state open { on pass -> passed emit counted; }
        terminal state passed;
    }
}

/// The guards of a gate: it lets everyone through.
struct Allow;

impl gate::Guards for Allow {
    fn allowed(&self) -> bool {
        true
    }
}

struct Gated;

impl Kind for Gated {
    type G = Allow;
    type M = gate::Gate;
    type V = gate::Gate;

    fn new() -> gate::Gate {
        gate::Gate::new()
    }
    fn on(_: &ManualClock) -> gate::Gate {
        gate::Gate::new()
    }
    fn guards() -> Allow {
        Allow
    }
    fn events() -> Vec<gate::Action> {
        vec![gate::Action::Open, gate::Action::Pass]
    }
    const AFTER_EVENTS: &'static str = "passed";
    const END: &'static str = "passed";
    const OUTPUTS: usize = 2;
    const TIMERS: usize = 0;
}

// --- A context: guards and effects on it, stored in the snapshot.

fsm_runtime::fsm! {
    machine Counter {
        context Tally;
        action add, finish;
        guard below_limit;
        effect count;
        output counted, finished;

        initial state counting {
            on add [below_limit] -> counting do count emit counted;
            on finish -> done emit finished;
        }
        terminal state done;
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Tally {
    count: u32,
}

impl counter::Context for Tally {
    fn below_limit(&self) -> bool {
        self.count < 10
    }

    fn count(&mut self) {
        self.count += 1;
    }
}

struct Counted;

impl Kind for Counted {
    type G = NoGuards;
    type M = counter::Counter;
    type V = counter::Counter;

    fn new() -> counter::Counter {
        counter::Counter::new(Tally::default())
    }
    fn on(_: &ManualClock) -> counter::Counter {
        Self::new()
    }
    fn guards() -> NoGuards {
        NoGuards
    }
    fn events() -> Vec<counter::Event> {
        use counter::Event;
        vec![Event::Add, Event::Add, Event::Add, Event::Finish]
    }
    const AFTER_EVENTS: &'static str = "done";
    const END: &'static str = "done";
    const OUTPUTS: usize = 4;
    const TIMERS: usize = 0;
}

// --- Payloads, without a context.

fsm_runtime::fsm! {
    machine Order {
        action place(u32), pay(String), ship;
        output placed_ack, paid_ack, shipped_ack;

        initial state fresh { on place -> placed emit placed_ack; }
        state placed { on pay -> paid emit paid_ack; }
        state paid { on ship -> shipped emit shipped_ack; }
        terminal state shipped;
    }
}

struct Ordered;

impl Kind for Ordered {
    type G = NoGuards;
    type M = order::Order;
    type V = order::Order;

    fn new() -> order::Order {
        order::Order::new()
    }
    fn on(_: &ManualClock) -> order::Order {
        order::Order::new()
    }
    fn guards() -> NoGuards {
        NoGuards
    }
    fn events() -> Vec<order::Event> {
        use order::Event;
        vec![Event::Place(3), Event::Pay("card".into()), Event::Ship]
    }
    const AFTER_EVENTS: &'static str = "shipped";
    const END: &'static str = "shipped";
    const OUTPUTS: usize = 3;
    const TIMERS: usize = 0;
}

// --- Timers.

fsm_runtime::fsm! {
    machine Kettle {
        initial state idle { on heat -> heating; }
        state heating { after 50ms -> boiled emit whistle; }
        terminal state boiled;
    }
}

struct Boiling;

impl Kind for Boiling {
    type G = NoGuards;
    type M = kettle::Kettle;
    type V = kettle::Kettle<ManualClock>;

    fn new() -> kettle::Kettle {
        kettle::Kettle::new()
    }
    fn on(clock: &ManualClock) -> kettle::Kettle<ManualClock> {
        kettle::Kettle::with_clock(clock.clone())
    }
    fn guards() -> NoGuards {
        NoGuards
    }
    fn events() -> Vec<kettle::Action> {
        vec![kettle::Action::Heat]
    }
    const AFTER_EVENTS: &'static str = "heating";
    const END: &'static str = "boiled";
    const OUTPUTS: usize = 1;
    const TIMERS: usize = 1;
}

// --- Timers with guards passed per call.

fsm_runtime::fsm! {
    machine Alarm {
        guard armed;
        initial state idle { on set [armed] -> ticking emit set_ack; }
        state ticking { after 50ms [armed] -> rung emit rang; on cancel -> idle; }
        terminal state rung;
    }
}

/// The guards of an alarm: armed, or not.
struct Armed(bool);

impl alarm::Guards for Armed {
    fn armed(&self) -> bool {
        self.0
    }
}

struct Ringing;

impl Kind for Ringing {
    type G = Armed;
    type M = alarm::Alarm;
    type V = alarm::Alarm<ManualClock>;

    fn new() -> alarm::Alarm {
        alarm::Alarm::new()
    }
    fn on(clock: &ManualClock) -> alarm::Alarm<ManualClock> {
        alarm::Alarm::with_clock(clock.clone())
    }
    fn guards() -> Armed {
        Armed(true)
    }
    fn events() -> Vec<alarm::Action> {
        vec![alarm::Action::Set]
    }
    const AFTER_EVENTS: &'static str = "ticking";
    const END: &'static str = "rung";
    const OUTPUTS: usize = 2;
    const TIMERS: usize = 1;
}

/// Disarmed, the alarm's timer is rejected by its guard through `Recorded`
/// and the drivers alike: the guards passed are the ones its timers read.
#[test]
fn an_alarm_s_timer_reads_the_guards_passed() {
    let clock = ManualClock::new(UNIX_EPOCH);
    let mut run = Recorded::new(alarm::Alarm::with_clock(clock.clone()));
    run.fire_with(alarm::Action::Set, &Armed(true)).unwrap();
    clock.advance(TIMER);
    assert!(matches!(run.fire_next_due_with(&Armed(false)), Some(Err(_))));
    assert_eq!(run.state(), alarm::State::Ticking);
    assert!(run.history().iter().all(|entry| entry.action() == "set"));

    // Set while armed, then driven disarmed: the driver fires the timer
    // with the guards it was given, which reject it.
    let mut machine = alarm::Alarm::with_clock(clock.clone());
    machine.fire(alarm::Action::Set, &Armed(true)).unwrap();
    let (mut rejected, mut fired) = (0, 0);
    let stopped = run_virtual(
        &mut driver::with_guards(&mut machine, &Armed(false)),
        &clock,
        Vec::<alarm::Action>::new(),
        Duration::from_secs(1),
        |_, step| match step {
            Step::Timer(Err(_)) => rejected += 1,
            _ => fired += 1,
        },
    );
    assert_eq!((stopped, rejected, fired), (Stopped::Elapsed, 1, 0));
    assert_eq!(machine.state(), alarm::State::Ticking);
}

// --- Nested states with a history target.

fsm_runtime::fsm! {
    machine Job {
        initial state queued { on start -> work; }
        state work {
            on park -> parked;
            initial state fetch { on done -> process; }
            state process { on done -> complete emit finished; }
        }
        state parked { on resume -> work.history; }
        terminal state complete;
    }
}

struct Parked;

impl Kind for Parked {
    type G = NoGuards;
    type M = job::Job;
    type V = job::Job;

    fn new() -> job::Job {
        job::Job::new()
    }
    fn on(_: &ManualClock) -> job::Job {
        job::Job::new()
    }
    fn guards() -> NoGuards {
        NoGuards
    }
    fn events() -> Vec<job::Action> {
        use job::Action;
        // Back to `process` through the history: one `done` ends it.
        vec![
            Action::Start,
            Action::Done,
            Action::Park,
            Action::Resume,
            Action::Done,
        ]
    }
    const AFTER_EVENTS: &'static str = "complete";
    const END: &'static str = "complete";
    const OUTPUTS: usize = 1;
    const TIMERS: usize = 0;
}

// --- Parallel states, without a context.

fsm_runtime::fsm! {
    machine Build {
        initial state idle { on go -> checks; }
        parallel state checks {
            done -> released emit release;
            state lint {
                initial state lint_running { on lint_ok -> lint_done emit linted; }
                final state lint_done;
            }
            state test {
                initial state test_running { on test_ok -> test_done emit tested; }
                final state test_done;
            }
        }
        terminal state released;
    }
}

struct Built;

impl Kind for Built {
    type G = NoGuards;
    type M = build::Build;
    type V = build::Build;

    fn new() -> build::Build {
        build::Build::new()
    }
    fn on(_: &ManualClock) -> build::Build {
        build::Build::new()
    }
    fn guards() -> NoGuards {
        NoGuards
    }
    fn events() -> Vec<build::Action> {
        use build::Action;
        vec![Action::Go, Action::LintOk, Action::TestOk]
    }
    const AFTER_EVENTS: &'static str = "released";
    const END: &'static str = "released";
    const OUTPUTS: usize = 3;
    const TIMERS: usize = 0;
}

// --- Parallel states with a context.

fsm_runtime::fsm! {
    machine Review {
        context Votes;
        action start, vote_a, vote_b;
        effect count;
        output decided;

        initial state idle { on start -> voting; }
        parallel state voting {
            done -> closed emit decided;
            state a {
                initial state a_waiting { on vote_a -> a_voted do count; }
                final state a_voted;
            }
            state b {
                initial state b_waiting { on vote_b -> b_voted do count; }
                final state b_voted;
            }
        }
        terminal state closed;
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Votes {
    votes: u32,
}

impl review::Context for Votes {
    fn count(&mut self) {
        self.votes += 1;
    }
}

struct Reviewed;

impl Kind for Reviewed {
    type G = NoGuards;
    type M = review::Review;
    type V = review::Review;

    fn new() -> review::Review {
        review::Review::new(Votes::default())
    }
    fn on(_: &ManualClock) -> review::Review {
        Self::new()
    }
    fn guards() -> NoGuards {
        NoGuards
    }
    fn events() -> Vec<review::Event> {
        use review::Event;
        vec![Event::Start, Event::VoteB, Event::VoteA]
    }
    const AFTER_EVENTS: &'static str = "closed";
    const END: &'static str = "closed";
    const OUTPUTS: usize = 1;
    const TIMERS: usize = 0;
}

// --- Parallel states with a timer in one region.

fsm_runtime::fsm! {
    machine Race {
        initial state idle { on go -> racing; }
        parallel state racing {
            done -> finished emit crossed;
            state a {
                initial state a_running { after 50ms -> a_done emit a_lap; }
                final state a_done;
            }
            state b {
                initial state b_running { on b_lap -> b_done emit b_lapped; }
                final state b_done;
            }
        }
        terminal state finished;
    }
}

struct Racing;

impl Kind for Racing {
    type G = NoGuards;
    type M = race::Race;
    type V = race::Race<ManualClock>;

    fn new() -> race::Race {
        race::Race::new()
    }
    fn on(clock: &ManualClock) -> race::Race<ManualClock> {
        race::Race::with_clock(clock.clone())
    }
    fn guards() -> NoGuards {
        NoGuards
    }
    fn events() -> Vec<race::Action> {
        vec![race::Action::Go, race::Action::BLap]
    }
    // Between the events and the timer, two leaves are active: the fleet
    // keeps the configuration's name.
    const AFTER_EVENTS: &'static str = "a_running, b_done";
    const END: &'static str = "finished";
    const OUTPUTS: usize = 3;
    const TIMERS: usize = 1;
}

/// What the parallel kinds hold in between: the configuration, named as the
/// fleet and a history name it.
#[test]
fn a_parallel_machine_is_named_by_its_active_leaves() {
    let mut run = Recorded::new(build::Build::new());
    run.fire_with(build::Action::Go, &NoGuards).unwrap();
    assert_eq!(name(run.state()), "lint_running, test_running");
    let mut run = Recorded::new(review::Review::new(Votes::default()));
    run.fire_with(review::Event::Start, &NoGuards).unwrap();
    run.fire_with(review::Event::VoteA, &NoGuards).unwrap();
    assert_eq!(name(run.state()), "a_voted, b_waiting");
    assert_eq!(run.machine().context().votes, 1);
    let back = Recorded::<review::Review>::restore(&Persist::snapshot(run.machine()).unwrap()).unwrap();
    assert_eq!(back.machine().context().votes, 1);
}
