//! Generic code drives any generated machine through `Machine` and `Fire`:
//! with guards by value, as `dyn Guards`, borrowing data, and without guards;
//! and a machine without guards through `FireEvent`, as `fire(action)`. Both
//! traits are imported throughout, so every call here also shows that they
//! do not make `fire` ambiguous.

#![deny(warnings, missing_docs, rust_2018_idioms, unreachable_pub)]

include!("../generated/door.rs");
include!("../generated/keywords.rs");

use fsm_runtime::{Fire, FireError, FireEvent, Fired, Machine, NoGuards, Restore, Symbol};

/// What a history or store would do: fire, and keep what happened.
struct Recorded<M: Machine> {
    machine: M,
    log: Vec<Fired<M>>,
    rejected: Vec<FireError<M>>,
}

impl<M: Machine + Default> Recorded<M> {
    fn new() -> Self {
        Recorded {
            machine: M::default(),
            log: Vec::new(),
            rejected: Vec::new(),
        }
    }

    fn fire<G: ?Sized>(&mut self, action: M::Event, guards: &G) -> bool
    where
        M: Fire<G>,
    {
        match self.machine.fire(action, guards) {
            Ok(fired) => {
                self.log.push(fired);
                true
            }
            Err(error) => {
                self.rejected.push(error);
                false
            }
        }
    }

    /// The states visited, by name (a leaf's, or a configuration's leaves
    /// separated by `, `).
    fn path(&self) -> Vec<String> {
        let mut path = vec![M::INITIAL.to_string()];
        path.extend(self.log.iter().map(|f| f.to.to_string()));
        path
    }
}

/// Guards that borrow their data: `&dyn Guards + 'static` could not take it.
struct Keyring<'a> {
    keys: &'a [&'a str],
}

impl door::Guards for Keyring<'_> {
    fn has_key(&self) -> bool {
        self.keys.contains(&"front door")
    }
}

#[test]
fn drives_a_machine_with_borrowed_guards() {
    let keys = vec!["front door"];
    let keyring = Keyring { keys: &keys };
    let mut door = Recorded::<door::Door>::new();
    assert!(door.fire(door::Action::Lock, &keyring));
    assert!(!door.fire(door::Action::Open, &keyring));
    assert!(door.fire(door::Action::Unlock, &keyring));
    assert_eq!(door.path(), ["closed", "locked", "closed"]);
    assert_eq!(door.rejected.len(), 1);
}

#[test]
fn drives_a_machine_through_dyn_guards() {
    let keys = vec![];
    let keyring = Keyring { keys: &keys };
    let guards: &dyn door::Guards = &keyring;
    let mut door = Recorded::<door::Door>::new();
    assert!(!door.fire(door::Action::Lock, guards));
    assert!(matches!(door.rejected[0], FireError::GuardRejected(_)));
}

#[test]
fn drives_a_machine_without_guards() {
    let mut machine = Recorded::<result::Result>::new();
    assert!(machine.fire(result::Action::Err, &NoGuards));
    // A machine without guards ignores whatever guards value it is given.
    assert!(machine.fire(result::Action::Some, &"anything"));
    assert_eq!(machine.path(), ["Ok", "None", "Ok"]);
    assert_eq!(machine.log[1].outputs, [result::Output::Option]);
    // The inherent `fire` takes no guards at all.
    let mut direct = result::Result::new();
    assert_eq!(direct.fire(result::Action::Err).unwrap().to, result::State::None);
}

/// Fire `actions` on a machine without guards, as its inherent methods
/// would, checking `can_fire` against what `fire` does; the states visited,
/// by name.
fn walk<M, A>(machine: &mut M, actions: &[A]) -> Vec<String>
where
    M: FireEvent<Event = A, Action = A>,
    A: Symbol,
{
    let mut path = vec![machine.state().to_string()];
    for &action in actions {
        let predicted = machine.can_fire(&action);
        match machine.fire(action) {
            Ok(fired) => {
                assert!(predicted);
                path.push(fired.to.to_string());
            }
            Err(error) => {
                assert!(!predicted);
                assert_eq!(error.action(), action);
            }
        }
    }
    path
}

#[test]
fn drives_a_machine_without_guards_as_fire_action() {
    use result::{Action, Output, State};
    let mut machine = result::Result::new();
    assert_eq!(
        walk(&mut machine, &[Action::Err, Action::Err, Action::Some]),
        ["Ok", "None", "Ok"]
    );
    assert_eq!(machine.state(), State::Ok);
    // The trait call reads as the inherent one, on a value or a reference.
    let fired = FireEvent::fire(&mut machine, Action::Err).unwrap();
    assert_eq!(fired.to, State::None);
    let by_ref = &mut machine;
    assert_eq!(by_ref.fire(Action::Some).unwrap().outputs, [Output::Option]);
    assert!(!FireEvent::can_fire(&machine, &Action::Some));
}

fsm_runtime::fsm! {
    /// Without guards, with history memory: `resume` goes back to the leaf
    /// `on` was left from.
    machine Lamp {
        initial state off { on power -> on.history; }
        state on {
            on power -> off;
            initial state dim { on brighter -> bright; }
            state bright { on dimmer -> dim; }
        }
    }
}

#[test]
fn unguarded_fire_keeps_the_history_memory() {
    use lamp::{Action, Composite, Lamp, State};
    let mut machine = Lamp::new();
    let path = walk(
        &mut machine,
        &[Action::Power, Action::Brighter, Action::Power, Action::Power],
    );
    // Back to `bright`, where `on` was left: the trait's `fire` is the
    // machine's own, not `transition` from a machine that remembers nothing.
    assert_eq!(path, ["off", "dim", "bright", "off", "bright"]);
    assert_eq!(machine.last_active(Composite::On), Some(State::Bright));
    // `transition` starts from no memory.
    assert_eq!(
        Lamp::transition(State::Off, Action::Power).map(|f| f.to),
        Ok(State::Dim)
    );
}

/// Snapshot and restore, knowing nothing of the machine.
fn reload<M: Restore>(machine: &M) -> M {
    M::restore(&machine.snapshot().expect("no context")).expect("a snapshot of this very build")
}

#[test]
fn snapshots_work_generically() {
    let door = door::Door::from_state(door::State::Opened);
    assert_eq!(reload(&door), door);
    let matched = r#match::Match::from_state(r#match::State::Self_);
    assert_eq!(reload(&matched), matched);
    assert_eq!(matched.snapshot().current_state(), "self");
    assert_eq!(matched.snapshot().machine(), "match");
}

struct Keywords;

impl r#match::Guards for Keywords {
    fn r#if(&self) -> bool {
        true
    }

    fn self_(&self) -> bool {
        true
    }

    fn crate_(&self) -> bool {
        false
    }

    fn r#type(&self) -> bool {
        false
    }

    fn clone(&self) -> bool {
        true
    }
}

#[test]
fn keyword_names_work() {
    use r#match::{Action, Match, Output, State};
    let mut machine = Match::new();
    let fired = machine.fire(Action::Match, &Keywords).unwrap();
    assert_eq!((fired.to, fired.outputs), (State::Loop, &[Output::Box][..]));
    assert_eq!(State::Loop.name(), "loop");
    assert_eq!("Self".parse::<Action>(), Ok(Action::Self_));
    assert_eq!("self".parse::<State>(), Ok(State::Self_));
    machine.fire(Action::Match, &Keywords).unwrap();
    // `clone` is a guard here, not `Clone::clone`.
    assert_eq!(machine.fire(Action::Move, &Keywords).unwrap().to, State::Fn);
    assert!(machine.is_terminal());
    let error = Match::new().fire(Action::Return, &Keywords).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `return` rejected in state `type`: guard `crate` was false (-> self)"
    );
}

#[test]
fn a_machine_named_like_the_guards_parameter() {
    struct Yes;
    impl g::Guards for Yes {
        fn g(&self) -> bool {
            true
        }
    }
    let mut machine = g::G::new();
    let fired = machine.fire(g::Action::T, &Yes).unwrap();
    assert_eq!((fired.from, fired.to), (g::State::S, g::State::S));
}

#[test]
fn machines_named_like_prelude_items() {
    struct Sends(bool);
    impl sized::Guards for Sends {
        fn send(&self) -> bool {
            self.0
        }
    }
    // `Sized` is the machine type, and its `fire` still takes unsized guards.
    let guards: &dyn sized::Guards = &Sends(true);
    let mut machine = sized::Sized::default();
    let fired = machine.fire(sized::Action::Clone, guards).unwrap();
    assert_eq!(
        (fired.to, fired.outputs),
        (sized::State::Copy, &[sized::Output::Into][..])
    );
    assert!(machine.is_terminal());
    assert!(!sized::Sized::new().can_fire(sized::Action::Clone, &Sends(false)));
    let mut recorded = Recorded::<sized::Sized>::new();
    assert!(recorded.fire(sized::Action::Clone, guards));

    let mut machine = option::Option::new();
    let fired = machine.fire(option::Action::Iterator).unwrap();
    assert_eq!(
        fired.outputs,
        [option::Output::String, option::Output::Vec, option::Output::Box]
    );
    assert_eq!(reload(&machine), machine);
    assert_eq!("ToString".parse::<option::State>(), Ok(option::State::ToString));
    assert_eq!(
        option::Option::transition(option::State::ToString, option::Action::From).map(|f| f.to),
        Ok(option::State::Some)
    );
}
