//! The guide's Rust examples that no test of their own crate holds, built
//! and run here: each block of a page is a part of this file, word for word
//! (`guide::rust_blocks_are_code_that_is_built_and_run` looks for it).

// docs/rust.md, `module = self`.
/// Job priorities.
pub mod prio {
    fsm_runtime::fsm! {
        module = self;
        machine Prio {
            initial state low { on raise -> high; }
            state high { on lower -> low; }
        }
    }
    // Here: `Prio`, `State`, `Action`, ...; elsewhere `prio::Prio`, `prio::State::High`.
}

#[test]
fn rust_md_module_self() {
    let mut prio = prio::Prio::new();
    prio.fire(prio::Action::Raise).unwrap();
    assert_eq!(prio.state(), prio::State::High);
}

/// docs/runtime.md: the call with a context, payloads and timers, driven on
/// the calling thread, then in virtual time.
mod drivers {
    use std::time::Duration;

    fsm_runtime::fsm! {
        machine Call {
            context Attempts;
            action dial(String), answered;
            guard retries_left;
            effect count, remember(String);
            delay backoff;
            initial state idle { on dial -> ringing do remember; }
            state ringing {
                on answered -> talking;
                after 30s [retries_left] -> waiting do count;
                after 30s -> missed;
            }
            state waiting { after backoff -> ringing; }
            terminal state talking;
            terminal state missed;
        }
    }

    #[derive(Debug, Default)]
    struct Attempts {
        number: String,
        tries: u32,
    }

    impl call::Context for Attempts {
        fn retries_left(&self) -> bool {
            self.tries < 3
        }
        fn count(&mut self) {
            self.tries += 1;
        }
        fn remember(&mut self, number: &String) {
            self.number.clone_from(number);
        }
        fn backoff(&self) -> Duration {
            Duration::from_secs(1 << self.tries)
        }
    }

    #[test]
    fn on_the_calling_thread() {
        use fsm_runtime::driver::{run_blocking, Step};

        let (events, receiver) = std::sync::mpsc::channel();
        events.send(call::Event::Dial("555-0100".into())).unwrap();
        events.send(call::Event::Answered).unwrap();
        let mut machine = call::Call::new(Attempts::default());
        // Fires each event as it arrives and each timer when it is due; returns when
        // the channel closes or the machine reaches a terminal state.
        run_blocking(&mut machine, &receiver, |machine, step| match step {
            Step::Event(result) => println!("{:?}", result.map(|fired| fired.outputs)),
            Step::Timer(result) => println!("{:?} after {} tries", result, machine.context().tries),
        });
        assert_eq!(machine.state(), call::State::Talking);
        assert_eq!(machine.context().number, "555-0100");
    }

    #[test]
    fn in_virtual_time() {
        use fsm_runtime::driver::{run_virtual, Stopped};
        use fsm_runtime::ManualClock;
        use std::time::{Duration, UNIX_EPOCH};

        let clock = ManualClock::new(UNIX_EPOCH);
        let mut machine = call::Call::with_clock(Attempts::default(), clock.clone());
        let events = [call::Event::Dial("555-0100".into())];
        let stopped = run_virtual(&mut machine, &clock, events, Duration::from_secs(3600), |_, _| {});
        assert_eq!(stopped, Stopped::Terminal); // missed, after 3 retries with backoff
        assert_eq!(machine.context().tries, 3);
    }
}
