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

/// docs/durability.md, the outbox: save, perform, acknowledge, save, against
/// a store of versions in memory that saves as `fsm_store::Store` does (a
/// compare-and-swap on the version).
mod outbox {
    use fsm_runtime::{Recorded, Snapshot};
    use std::collections::HashMap;
    use std::error::Error;
    use std::sync::Mutex;

    fsm_runtime::fsm! {
        machine Order {
            initial state placed { on pay -> paid emit charge_card, send_receipt; }
            terminal state paid;
        }
    }

    #[derive(Default)]
    struct Memory(Mutex<HashMap<String, (u64, Snapshot)>>);

    impl Memory {
        fn save(&self, id: &str, expected: u64, snapshot: &Snapshot) -> Result<u64, String> {
            let mut saved = self.0.lock().unwrap();
            let current = saved.get(id).map_or(0, |(version, _)| *version);
            if current != expected {
                return Err(format!("conflict: expected version {expected}, stored {current}"));
            }
            saved.insert(id.to_string(), (expected + 1, snapshot.clone()));
            Ok(expected + 1)
        }
    }

    /// One event fired, its outputs performed under their keys.
    fn step(
        store: &Memory,
        id: &str,
        mut version: u64,
        run: &mut Recorded<order::Order>,
        event: order::Action,
        performed: &mut Vec<String>,
    ) -> Result<u64, Box<dyn Error>> {
        let mut perform = |output: order::Output, key: &str| -> Result<(), Box<dyn Error>> {
            performed.push(format!("{output:?} {key}"));
            Ok(())
        };
        let fired = run.fire(event)?;
        version = store.save(id, version, &run.snapshot()?)?; // the state and its outputs, pending
        for pending in run.pending().to_vec() {
            perform(pending.output, &format!("{id}/{}", pending.key))?; // idempotency key
            run.ack(pending.key);
        }
        version = store.save(id, version, &run.snapshot()?)?; // the acknowledgments
        assert_eq!(fired.outputs.len(), 2);
        Ok(version)
    }

    #[test]
    fn durability_md_save_perform_acknowledge_save() {
        let store = Memory::default();
        let mut run = Recorded::new(order::Order::new()).with_outbox();
        let mut performed = Vec::new();
        let version = step(
            &store,
            "order-17",
            0,
            &mut run,
            order::Action::Pay,
            &mut performed,
        )
        .unwrap();
        assert_eq!(version, 2);
        assert_eq!(performed, ["ChargeCard order-17/0/0", "SendReceipt order-17/0/1"]);
        assert!(run.pending().is_empty());
        // A save against a version already saved over is refused.
        let stale = step(
            &store,
            "order-17",
            0,
            &mut Recorded::new(order::Order::new()).with_outbox(),
            order::Action::Pay,
            &mut Vec::new(),
        );
        assert!(stale.is_err());
    }
}

/// docs/editors.md, Zed's extension, built here against a stand-in for the
/// items of `zed_extension_api` it uses, with their signatures in that
/// crate (Zed's, built to WebAssembly, not a dependency of this workspace):
/// this checks the outline's own code, not Zed's API.
mod zed_outline {
    mod zed_extension_api {
        pub type Result<T, E = String> = std::result::Result<T, E>;

        pub struct LanguageServerId;

        /// A worktree, with the binaries on its `PATH`.
        pub struct Worktree {
            pub path: Vec<String>,
        }

        impl Worktree {
            pub fn which(&self, binary_name: &str) -> Option<String> {
                let name = format!("/{binary_name}");
                self.path.iter().find(|binary| binary.ends_with(&name)).cloned()
            }
        }

        pub struct Command {
            pub command: String,
            pub args: Vec<String>,
            pub env: Vec<(String, String)>,
        }

        pub trait Extension {
            fn new() -> Self
            where
                Self: Sized;

            fn language_server_command(
                &mut self,
                language_server_id: &LanguageServerId,
                worktree: &Worktree,
            ) -> Result<Command>;
        }

        /// Zed's registers the extension; this one gives it to the test.
        macro_rules! register_extension {
            ($extension:ty) => {
                fn registered() -> $extension {
                    <$extension as crate::docs::examples::zed_outline::zed_extension_api::Extension>::new()
                }
            };
        }
        pub(crate) use register_extension;
    }

    use zed_extension_api::{self as zed, LanguageServerId, Result};

    struct Fsm;

    impl zed::Extension for Fsm {
        fn new() -> Self {
            Fsm
        }

        fn language_server_command(
            &mut self,
            _id: &LanguageServerId,
            worktree: &zed::Worktree,
        ) -> Result<zed::Command> {
            let command = worktree
                .which("fsmc")
                .ok_or("fsmc is not on PATH: install it with `cargo install --path fsm-cli`")?;
            Ok(zed::Command {
                command,
                args: vec!["lsp".into()],
                env: Vec::new(),
            })
        }
    }

    zed::register_extension!(Fsm);

    #[test]
    fn editors_md_zed_extension_starts_fsmc_lsp() {
        use zed::Extension as _;

        let mut extension = registered();
        let on_path = zed::Worktree {
            path: vec!["/usr/local/bin/fsmc".to_string()],
        };
        let command = extension
            .language_server_command(&LanguageServerId, &on_path)
            .unwrap();
        assert_eq!(command.command, "/usr/local/bin/fsmc");
        assert_eq!(command.args, ["lsp"]);
        assert!(command.env.is_empty());
        let elsewhere = zed::Worktree { path: Vec::new() };
        let error = extension
            .language_server_command(&LanguageServerId, &elsewhere)
            .err()
            .expect("no fsmc on PATH");
        assert!(error.contains("cargo install --path fsm-cli"), "{error}");
    }
}
