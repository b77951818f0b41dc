//! Generated machines with payloads or timers but no context: the caller's
//! `Guards` read the payload of the event (`generated/order.fsm`), and timers
//! run on a clock the machine holds, with the caller's guards
//! (`generated/session.fsm`).

#![deny(warnings)]

include!("../generated/order.rs");
include!("../generated/session.rs");

use fsm_runtime::{ArmedTimer, FingerprintPolicy, ManualClock, Timestamp};
use std::cell::Cell;
use std::time::{Duration, UNIX_EPOCH};

/// The caller's guards, counting how often each is asked.
#[derive(Default)]
struct Shop {
    stock: u32,
    price: u64,
    open: bool,
    asked: Cell<u32>,
}

impl order::Guards for Shop {
    fn in_stock(&self, quantity: &u32) -> bool {
        self.asked.set(self.asked.get() + 1);
        *quantity <= self.stock
    }
    fn enough(&self, amount: &u64) -> bool {
        self.asked.set(self.asked.get() + 1);
        *amount >= self.price
    }
    fn open_hours(&self) -> bool {
        self.asked.set(self.asked.get() + 1);
        self.open
    }
}

fn shop() -> Shop {
    Shop {
        stock: 3,
        price: 100,
        open: true,
        ..Shop::default()
    }
}

#[test]
fn payload_guards_read_the_payload_of_the_event() {
    use order::{Event, Order, Output, State};
    let shop = shop();
    let mut too_many = Order::new();
    let fired = too_many.fire(Event::Place(4), &shop).unwrap();
    assert_eq!((fired.to, fired.outputs), (State::Rejected, &[][..]));

    let mut order = Order::new();
    let fired = order.fire(Event::Place(3), &shop).unwrap();
    assert_eq!((fired.from, fired.to), (State::Cart, State::Placed));
    assert_eq!(fired.outputs, [Output::Reserve]);
    assert_eq!(fired.action, order::Action::Place);

    // `enough && open_hours`: the payload first, then the caller's state.
    assert!(!order.can_fire(&Event::Pay(99), &shop));
    assert!(order.can_fire(&Event::Pay(100), &shop));
    let closed = Shop {
        open: false,
        ..self::shop()
    };
    assert!(!order.can_fire(&Event::Pay(100), &closed));
    assert_eq!(order.state(), State::Placed, "can_fire changes nothing");
    let fired = order.fire(Event::Pay(150), &shop).unwrap();
    assert_eq!((fired.to, fired.outputs), (State::Paid, &[Output::Charge][..]));
}

#[test]
fn a_rejected_event_is_handed_back_with_its_payload() {
    use order::{Event, Order, State};
    let shop = shop();
    let mut order = Order::new();
    order.fire(Event::Place(1), &shop).unwrap();
    let asked = shop.asked.get();
    let error = order.fire(Event::Pay(5), &shop).unwrap_err();
    assert_eq!(
        shop.asked.get(),
        asked + 1,
        "`enough` failed: `open_hours` is not asked"
    );
    assert_eq!(error.state(), State::Placed);
    assert_eq!(
        error.to_string(),
        "action `pay` rejected in state `placed`: guard `enough && open_hours` was false (-> paid)"
    );
    assert!(matches!(error.into_event(), Event::Pay(5)));

    let error = order.fire(Event::Ship("parcel".to_string()), &shop).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `ship` is not valid in state `placed`; valid actions: `pay`, `cancel`"
    );
    match error.into_event() {
        Event::Ship(label) => assert_eq!(label, "parcel"),
        other => panic!("got back {other:?}"),
    }
    assert!(!order.can_fire(&Event::Ship(String::new()), &shop));
    assert_eq!(order.state(), State::Placed);
}

#[test]
fn a_payload_machine_is_a_plain_value_with_snapshots() {
    use order::{Event, Order, State};
    let mut order = Order::default();
    order.fire(Event::Place(1), &shop()).unwrap();
    let copy = order;
    assert_eq!(copy, order);
    assert_eq!(format!("{order:?}"), "Order { state: Placed, .. }");
    let snapshot = order.snapshot();
    assert_eq!(snapshot.current_state(), "placed");
    assert_eq!(Order::restore(&snapshot).unwrap().state(), State::Placed);
    assert_eq!(
        Order::restore_with(&snapshot, FingerprintPolicy::Ignore)
            .unwrap()
            .state(),
        State::Placed
    );
}

struct Alive(bool);

impl session::Guards for Alive {
    fn keep_alive(&self) -> bool {
        self.0
    }
}

const START: u64 = 1_768_037_535_000;

fn at(millis_after_start: u64) -> Timestamp {
    Timestamp::from_unix_millis(START + millis_after_start).unwrap()
}

fn session() -> (session::Session<ManualClock>, ManualClock) {
    let clock = ManualClock::new(UNIX_EPOCH + Duration::from_millis(START));
    (session::Session::with_clock(clock.clone()), clock)
}

#[test]
fn timers_without_a_context_use_the_callers_guards() {
    use session::{Output, State};
    let (mut machine, clock) = session();
    assert_eq!(machine.next_deadline(), Some(at(600_000)));
    assert_eq!(machine.fire_next_due(&Alive(true)), None, "nothing is due yet");

    clock.advance(Duration::from_secs(600));
    let fired = machine.fire_next_due(&Alive(true)).unwrap().unwrap();
    assert_eq!(
        (fired.from, fired.to, fired.timer),
        (State::Active, State::Active, 0)
    );
    assert_eq!(fired.outputs, [Output::Warn]);
    // The internal timer fired once and is disarmed; the 15m group is armed.
    assert_eq!(machine.next_deadline(), Some(at(900_000)));
    assert_eq!(machine.fire_next_due(&Alive(true)), None);

    // At 15m, `keep_alive` holds: the self transition re-arms every timer.
    clock.advance(Duration::from_secs(300));
    let mut fired = Vec::new();
    assert_eq!(
        machine.fire_due(&Alive(true), |r| fired.push(r.unwrap().timer)),
        1
    );
    assert_eq!(fired, [1]);
    assert_eq!(machine.next_deadline(), Some(at(1_500_000)));

    // At the next 15m it does not: the unguarded timer of the group fires.
    clock.advance(Duration::from_secs(900));
    let mut fired = Vec::new();
    machine.fire_due(&Alive(false), |r| fired.push(r.unwrap()));
    assert_eq!(fired.len(), 2, "the 10m warning, then the 15m expiry: {fired:?}");
    assert_eq!((fired[0].timer, fired[1].timer), (0, 2));
    assert_eq!(fired[1].outputs, [Output::Expire]);
    assert_eq!(machine.state(), State::Closed);
    assert_eq!(machine.next_deadline(), None);
}

#[test]
fn actions_rearm_timers_and_snapshots_keep_deadlines() {
    use session::{Action, Session, State};
    let (mut machine, clock) = session();
    clock.advance(Duration::from_secs(60));
    assert!(machine.can_fire(Action::Touch, &Alive(false)));
    machine.fire(Action::Touch, &Alive(false)).unwrap();
    assert_eq!(machine.next_deadline(), Some(at(660_000)));
    assert_eq!(
        format!("{machine:?}"),
        "Session { state: Active, deadlines: [Some(Timestamp(2026-01-10T09:43:15.000Z)), \
         Some(Timestamp(2026-01-10T09:48:15.000Z)), Some(Timestamp(2026-01-10T09:48:15.000Z))], .. }"
    );

    let snapshot = machine.snapshot();
    assert_eq!(
        snapshot.timers(),
        [
            ArmedTimer::new("active", 0, at(660_000)),
            ArmedTimer::new("active", 1, at(960_000)),
            ArmedTimer::new("active", 2, at(960_000)),
        ]
    );
    // Restored an hour later, the timers fire at the times first promised.
    clock.advance(Duration::from_secs(3600));
    let mut restored = Session::restore_with(&snapshot, FingerprintPolicy::Strict, clock.clone()).unwrap();
    assert_eq!(restored.next_deadline(), Some(at(660_000)));
    let mut dues = Vec::new();
    restored.fire_due(&Alive(false), |r| dues.push(r.unwrap().due));
    assert_eq!(dues, [at(660_000), at(960_000)]);
    assert_eq!(restored.state(), State::Closed);
    let error = restored.fire(Action::Touch, &Alive(true)).unwrap_err();
    assert!(
        error.to_string().contains("not valid in state `closed`"),
        "{error}"
    );
}
