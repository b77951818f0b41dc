//! The drivers: `run_blocking` on a std channel and `run` (feature `tokio`)
//! on a tokio channel fire events in order, fire timers when they come due
//! (before an event that arrives after their deadline), and stop when the
//! channel closes or the machine is terminal. `run_virtual` does the same on
//! a manual clock it moves from deadline to deadline.

#![deny(warnings)]

use fsm_runtime::driver::{self, run_blocking, run_virtual, Driven, Step, Stopped};
use fsm_runtime::{Clock, ManualClock};
use std::sync::mpsc;
use std::time::{Duration, Instant, UNIX_EPOCH};

fsm_runtime::fsm! {
    /// A phone call: answered, or missed after 30 seconds; a short ring for
    /// the tests that wait for real.
    machine Call {
        output voicemail;
        initial state ringing {
            on answer -> talking;
            after 30s -> missed emit voicemail;
        }
        state talking { on hang_up -> ended; on hold -> held; }
        state held { on resume -> talking; after 10m -> ended; }
        terminal state missed;
        terminal state ended;
    }

    machine Ring {
        initial state ringing { on answer -> ended; after 20ms -> missed; }
        terminal state missed;
        terminal state ended;
    }

    /// A heartbeat: its timer re-arms for ever.
    machine Beat {
        initial state beating { after 1s -> beating; on stop -> stopped; }
        terminal state stopped;
    }

    /// Polls every 5 s until the caller answers `ready`.
    machine Poll {
        initial state waiting { after 5s -> checking; }
        state checking { on ready -> done; on not_ready -> waiting; }
        terminal state done;
    }
}

/// Every step as text, in order.
fn record<M: Driven>(log: &mut Vec<String>) -> impl FnMut(&M, Step<M>) + '_ {
    move |_, step| {
        log.push(match step {
            Step::Event(Ok(fired)) => fired.to_string(),
            Step::Event(Err(error)) => format!("rejected: {error}"),
            Step::Timer(Ok(fired)) => fired.to_string(),
            Step::Timer(Err(rejected)) => rejected.to_string(),
        })
    }
}

fn manual_clock() -> ManualClock {
    ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_768_037_535))
}

#[test]
fn events_fire_in_order_until_a_terminal_state() {
    use call::Action;
    let (events, receiver) = mpsc::channel();
    for action in [
        Action::Answer,
        Action::Resume,
        Action::Hold,
        Action::Resume,
        Action::HangUp,
    ] {
        events.send(action).unwrap();
    }
    // Sent after the machine ends: never fired, the driver has returned.
    events.send(Action::Answer).unwrap();
    let mut machine = call::Call::with_clock(manual_clock());
    let mut log = Vec::new();
    let stopped = run_blocking(&mut machine, &receiver, record(&mut log));
    assert_eq!(stopped, Stopped::Terminal);
    assert_eq!(
        log,
        [
            "`ringing` --answer--> `talking`",
            "rejected: action `resume` is not valid in state `talking`; valid actions: `hang_up`, `hold`",
            "`talking` --hold--> `held`",
            "`held` --resume--> `talking`",
            "`talking` --hang_up--> `ended`",
        ]
    );
    assert_eq!(machine.state(), call::State::Ended);
    assert_eq!(receiver.try_recv(), Ok(Action::Answer));
}

#[test]
fn a_timer_past_its_deadline_fires_before_the_next_event() {
    let clock = manual_clock();
    let mut machine = call::Call::with_clock(clock.clone());
    let (events, receiver) = mpsc::channel();
    events.send(call::Action::Answer).unwrap();
    // The call rang out before the answer was read.
    clock.advance(Duration::from_secs(31));
    let mut log = Vec::new();
    assert_eq!(
        run_blocking(&mut machine, &receiver, record(&mut log)),
        Stopped::Terminal
    );
    assert_eq!(log, ["timer 0 of `ringing` -> `missed` (emit `voicemail`)"]);
    // The answer was not taken from the channel: the machine had ended.
    assert_eq!(receiver.try_recv(), Ok(call::Action::Answer));
}

#[test]
fn the_driver_stops_when_the_channel_closes() {
    let (events, receiver) = mpsc::channel();
    events.send(call::Action::Answer).unwrap();
    drop(events);
    let mut machine = call::Call::with_clock(manual_clock());
    let mut log = Vec::new();
    assert_eq!(
        run_blocking(&mut machine, &receiver, record(&mut log)),
        Stopped::Closed
    );
    assert_eq!(log, ["`ringing` --answer--> `talking`"]);
    // A machine that starts terminal returns at once.
    let mut ended = machine;
    ended.fire(call::Action::HangUp).unwrap();
    let (_events, receiver) = mpsc::channel();
    assert_eq!(
        run_blocking(&mut ended, &receiver, |_, _| panic!("nothing fires")),
        Stopped::Terminal
    );
}

/// Real time: nothing is sent, the sender stays open, and the 20 ms timer
/// wakes the driver. Only a lower bound on the time is checked, so a loaded
/// machine cannot fail it.
#[test]
fn the_blocking_driver_wakes_for_a_timer() {
    let (_events, receiver) = mpsc::channel::<ring::Action>();
    let mut machine = ring::Ring::new();
    let started = Instant::now();
    let mut log = Vec::new();
    assert_eq!(
        run_blocking(&mut machine, &receiver, record(&mut log)),
        Stopped::Terminal
    );
    assert!(
        started.elapsed() >= Duration::from_millis(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(log, ["timer 0 of `ringing` -> `missed`"]);
}

/// A clock that reads tokio's time, which a paused runtime advances on its
/// own when every task waits: a ten-minute timeout takes no real time.
fn tokio_clock() -> impl Clock + Clone {
    let base = UNIX_EPOCH + Duration::from_secs(1_768_037_535);
    let start = tokio::time::Instant::now();
    move || -> fsm_runtime::Timestamp { (base + start.elapsed()).into() }
}

fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime")
}

#[test]
fn the_async_driver_waits_on_the_deadline_and_the_channel_at_once() {
    paused_runtime().block_on(async {
        let (events, mut receiver) = tokio::sync::mpsc::channel(4);
        let clock = tokio_clock();
        let mut machine = call::Call::with_clock(clock.clone());
        // Answered after 10 s, held after a minute: the hold times out 10
        // minutes later, with the sender still open.
        let sender = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(10)).await;
            events.send(call::Action::Answer).await.unwrap();
            tokio::time::sleep(Duration::from_secs(50)).await;
            events.send(call::Action::Hold).await.unwrap();
            events
        });
        let real = Instant::now();
        let mut log = Vec::new();
        let stopped = driver::run(&mut machine, &mut receiver, record(&mut log)).await;
        assert_eq!(stopped, Stopped::Terminal);
        assert_eq!(
            log,
            [
                "`ringing` --answer--> `talking`",
                "`talking` --hold--> `held`",
                "timer 0 of `held` -> `ended`",
            ]
        );
        let elapsed = clock
            .now()
            .to_system_time()
            .duration_since(UNIX_EPOCH + Duration::from_secs(1_768_037_535));
        assert_eq!(
            elapsed.unwrap().as_secs(),
            660,
            "tokio's time moved to the deadline"
        );
        assert!(
            real.elapsed() < Duration::from_secs(60),
            "paused time: {:?}",
            real.elapsed()
        );
        drop(sender.await.unwrap());
    });
}

#[test]
fn the_async_driver_stops_when_the_channel_closes() {
    paused_runtime().block_on(async {
        let (events, mut receiver) = tokio::sync::mpsc::channel(4);
        events.send(call::Action::Answer).await.unwrap();
        drop(events);
        let mut machine = call::Call::with_clock(tokio_clock());
        let mut log = Vec::new();
        let stopped = driver::run(&mut machine, &mut receiver, record(&mut log)).await;
        assert_eq!((stopped, log.len()), (Stopped::Closed, 1));
        assert_eq!(machine.state(), call::State::Talking);
    });
}

/// The time on `clock`, in seconds after `manual_clock()` started.
fn seconds_on(clock: &ManualClock) -> u64 {
    let start = UNIX_EPOCH + Duration::from_secs(1_768_037_535);
    clock
        .now()
        .to_system_time()
        .duration_since(start)
        .unwrap()
        .as_secs()
}

#[test]
fn virtual_time_fires_the_script_then_moves_from_deadline_to_deadline() {
    use call::Action;
    let clock = manual_clock();
    let mut machine = call::Call::with_clock(clock.clone());
    let mut log = Vec::new();
    let minute = Duration::from_secs(60);
    let stopped = run_virtual(
        &mut machine,
        &clock,
        [Action::Answer, Action::Hold],
        minute,
        record(&mut log),
    );
    // The events all fire at once; then the minute passes, with the hold's
    // 10 min timer armed and not due.
    assert_eq!((stopped, seconds_on(&clock)), (Stopped::Elapsed, 60));
    assert_eq!(
        log,
        ["`ringing` --answer--> `talking`", "`talking` --hold--> `held`"]
    );
    let hour = Duration::from_secs(3600);
    let stopped = run_virtual(&mut machine, &clock, [], hour, record(&mut log));
    // Terminal at the deadline that ended it, not at the end of the hour.
    assert_eq!((stopped, seconds_on(&clock)), (Stopped::Terminal, 600));
    assert_eq!(log[2..], ["timer 0 of `held` -> `ended`"]);
    // A machine that starts terminal returns at once.
    assert_eq!(
        run_virtual(&mut machine, &clock, [Action::Answer], hour, |_, _| panic!(
            "nothing fires"
        )),
        Stopped::Terminal
    );
    assert_eq!(seconds_on(&clock), 600);
}

#[test]
fn virtual_time_stops_a_heartbeat_when_the_time_has_passed() {
    let clock = manual_clock();
    let mut machine = beat::Beat::with_clock(clock.clone());
    let mut beats = 0;
    let stopped = run_virtual(
        &mut machine,
        &clock,
        [],
        Duration::from_millis(10_500),
        |_, step| {
            assert!(matches!(step, Step::Timer(Ok(_))));
            beats += 1;
        },
    );
    assert_eq!((stopped, beats), (Stopped::Elapsed, 10));
    assert_eq!(
        clock.now().to_system_time(),
        UNIX_EPOCH + Duration::from_millis(1_768_037_535_000 + 10_500)
    );
    assert_eq!(machine.state(), beat::State::Beating);
    assert_eq!(
        run_virtual(
            &mut machine,
            &clock,
            [beat::Action::Stop],
            Duration::ZERO,
            |_, _| {}
        ),
        Stopped::Terminal
    );
}

#[test]
fn virtual_time_asks_a_channel_again_after_each_timer() {
    // The caller answers each check, `ready` on the third: the answers are
    // queued by the callback, and fired before time moves on.
    let clock = manual_clock();
    let mut machine = poll::Poll::with_clock(clock.clone());
    let (events, receiver) = mpsc::channel();
    let mut checks = 0;
    let stopped = run_virtual(
        &mut machine,
        &clock,
        receiver.try_iter(),
        Duration::from_secs(3600),
        |machine, step| {
            if let Step::Timer(Ok(_)) = step {
                checks += 1;
                assert_eq!(machine.state(), poll::State::Checking);
                let answer = if checks == 3 {
                    poll::Action::Ready
                } else {
                    poll::Action::NotReady
                };
                events.send(answer).unwrap();
            }
        },
    );
    assert_eq!((stopped, checks, seconds_on(&clock)), (Stopped::Terminal, 3, 15));
}

#[test]
fn virtual_time_fires_a_timer_already_due_first_and_never_turns_the_clock_back() {
    let clock = manual_clock();
    let mut machine = call::Call::with_clock(clock.clone());
    // The call rang out before the answer came.
    clock.advance(Duration::from_secs(31));
    let mut log = Vec::new();
    let stopped = run_virtual(
        &mut machine,
        &clock,
        [call::Action::Answer],
        Duration::ZERO,
        record(&mut log),
    );
    assert_eq!(stopped, Stopped::Terminal);
    assert_eq!(log, ["timer 0 of `ringing` -> `missed` (emit `voicemail`)"]);
    assert_eq!(seconds_on(&clock), 31);
}

#[test]
#[should_panic(expected = "run_virtual: the machine does not read its time from the clock it was given")]
fn virtual_time_refuses_a_machine_on_another_clock() {
    let mut machine = call::Call::with_clock(manual_clock());
    run_virtual(
        &mut machine,
        &manual_clock(),
        [],
        Duration::from_secs(60),
        |_, _| {},
    );
}
