// `module = self`: the machine's items go into the module around `fsm!`, so
// `fsm!` inside `mod prio` gives `prio::Prio`, not `prio::prio::Prio`; the
// `.fsm` text's types still resolve in that module, and its own items win
// over the machine's re-exported ones.
#![deny(warnings, missing_docs)]
//! Machines placed in their own modules.

/// A priority queue's lifecycle, written inline.
pub mod prio {
    fsm_runtime::fsm! {
        module = self;
        /// Priorities.
        machine Prio {
            initial state low { on raise -> high; }
            state high { on lower -> low; }
        }
    }

    /// An item of the user's own beside the machine's.
    pub fn raised() -> State {
        let mut prio = Prio::new();
        prio.fire(Action::Raise).expect("raises");
        prio.state()
    }
}

/// The door of `machines/door.fsm`, read from the file.
pub mod door {
    fsm_runtime::fsm!(file = "machines/door.fsm", module = self);
}

/// A counter whose context type lives in the module around `fsm!`.
pub mod counter {
    /// What the counter remembers.
    #[derive(Debug, Default)]
    pub struct Tally {
        /// Increments so far.
        pub count: u32,
    }

    fsm_runtime::fsm! {
        module = self;
        /// Counts up to three.
        machine Counter {
            context Tally;
            action bump(u32);
            guard below_three;
            effect add(u32);
            initial state counting {
                on bump [below_three] -> counting do add;
                on bump -> full;
            }
            terminal state full;
        }
    }

    impl Context for Tally {
        fn below_three(&self) -> bool {
            self.count < 3
        }
        fn add(&mut self, by: &u32) {
            self.count += by;
        }
    }

    /// A user's own `Output` wins over the machine's re-exported one (this
    /// machine has no outputs, but the rule is Rust's for every glob).
    pub struct Output;
}

fn main() {
    assert_eq!(prio::raised(), prio::State::High);
    let mut prio = prio::Prio::new();
    assert_eq!(prio.state(), prio::State::Low);
    prio.fire(prio::Action::Raise).expect("raises");

    use door::{Action, Door};
    let mut door = Door::new();
    door.fire(Action::Open).expect("opens");
    door.fire(Action::Remove).expect("is removed");
    assert!(door.is_terminal());

    let mut counter = counter::Counter::new(counter::Tally::default());
    counter.fire(counter::Event::Bump(2)).expect("bumps");
    counter.fire(counter::Event::Bump(2)).expect("bumps");
    let fired = counter.fire(counter::Event::Bump(2)).expect("fills up");
    assert_eq!(fired.to, counter::State::Full);
    assert_eq!(counter.context().count, 4);
    let _: counter::Output = counter::Output;
}
