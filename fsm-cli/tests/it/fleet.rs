//! End-to-end tests of `fsmc fleet`: a fleet built with `fsm_fleet::Fleet`
//! (instances stepped by a worker, one parked, a dead event, a dead output),
//! then listed, shown and counted by the binary, and its errors.

use crate::harness;

use fsm_fleet::{Fleet, Machines, SCHEMA_VERSION};
use fsm_runtime::Machine;
use harness::{Run, Scratch};
use serde_json::{json, Value};
use std::time::Duration;

fsm_runtime::fsm! {
    /// An order: paid, then shipped within the hour.
    machine Order {
        context Cart;
        action pay(u32), ship;
        effect charge(u32);
        output charge_card, dispatch, overdue;

        initial state placed { on pay -> paid do charge emit charge_card; }
        state paid { on ship -> shipped emit dispatch; after 1h -> late emit overdue; }
        terminal state shipped;
        terminal state late;
    }
}

/// The refund as the worker of this test knows it: a later definition, so
/// the instance saved by the first one is parked.
mod refund_v2 {
    fsm_runtime::fsm! {
        machine Refund {
            initial state requested { on approve -> approved; on deny -> denied; }
            terminal state approved;
            terminal state denied;
        }
    }
}

fsm_runtime::fsm! {
    /// A refund, saved by a definition the worker no longer has.
    machine Refund {
        initial state requested { on approve -> approved; }
        terminal state approved;
    }
}

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cart {
    paid: u32,
}

impl order::Context for Cart {
    fn charge(&mut self, amount: &u32) {
        self.paid += amount;
    }
}

use order::{Event, Order};

/// Every RFC 3339 time in `text` (`2026-01-10T09:32:15.000Z`), replaced by
/// a mask of the same width, so that tables keep their alignment.
fn masked(text: &str) -> String {
    const MASK: &str = "YYYY-MM-DDTHH:MM:SS.mmmZ";
    let bytes = text.as_bytes();
    let is_time = |at: usize| {
        bytes.len() >= at + MASK.len()
            && MASK.bytes().enumerate().all(|(i, m)| {
                let b = bytes[at + i];
                match m {
                    b'-' | b':' | b'.' | b'T' | b'Z' => b == m,
                    _ => b.is_ascii_digit(),
                }
            })
    };
    let mut out = String::new();
    let mut at = 0;
    while at < text.len() {
        if is_time(at) {
            out.push_str(MASK);
            at += MASK.len();
        } else {
            let c = text[at..].chars().next().unwrap();
            out.push(c);
            at += c.len_utf8();
        }
    }
    out
}

/// A fleet in `dir/fleet.db`:
/// - `order-1` paid 30 (its one-hour timer armed), sent a dead event, its
///   output performed;
/// - `order-2` new, with a payment waiting (due now);
/// - `order-3` paid and shipped, its first output dead, its second pending;
/// - `refund-1` parked (the worker's `Refund` is a later definition), its
///   event still pending.
fn build(dir: &Scratch) -> Fleet {
    fill(Fleet::open(dir.path("fleet.db")).unwrap())
}

/// `fleet`, filled as [`build`] says.
fn fill(fleet: Fleet) -> Fleet {
    let mut fleet = fleet.with_max_attempts(1);
    for id in ["order-1", "order-2", "order-3"] {
        fleet.create(id, Order::new(Cart::default())).unwrap();
    }
    fleet.create("refund-1", refund::Refund::new()).unwrap();
    fleet.send("order-1", &Event::Pay(30), "pay-1").unwrap();
    fleet.send("order-1", &json!({"refund": 30}), "bogus").unwrap();
    fleet.send("order-3", &Event::Pay(12), "pay-3").unwrap();
    fleet.send("order-3", &Event::Ship, "ship-3").unwrap();
    fleet
        .send("refund-1", &refund::Action::Approve, "approve-1")
        .unwrap();
    let machines = Machines::new()
        .with::<Order>()
        .with::<refund_v2::refund::Refund>();
    let worked = fleet.work(&machines, 10).unwrap();
    assert_eq!((worked.instances, worked.events, worked.parked.len()), (2, 4, 1));

    let claimed = fleet.claim_outputs(10, Duration::from_secs(30)).unwrap();
    let keys: Vec<&str> = claimed.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(keys, ["order-1/0/0", "order-3/0/0"]);
    assert!(fleet.output_done(&claimed[0]).unwrap());
    assert_eq!(
        fleet.output_failed(&claimed[1], "card declined").unwrap(),
        fsm_fleet::Failed::Dead
    );

    fleet.send("order-2", &Event::Pay(5), "pay-2").unwrap();
    fleet
}

fn fingerprint() -> &'static str {
    <Order as Machine>::FINGERPRINT
}

/// Why `refund-1` is parked.
fn parked() -> String {
    format!(
        "instance `refund-1` of machine `Refund` was saved by a different definition \
         (fingerprint {}, this worker has {})",
        <refund::Refund as Machine>::FINGERPRINT,
        <refund_v2::refund::Refund as Machine>::FINGERPRINT
    )
}

/// What `serde_json` says of the dead event `{"refund": 30}`.
const DEAD: &str =
    "unknown action `refund` in machine `Order`; expected one of `pay`, `ship` at line 1 column 9";

fn list_text() -> String {
    let parked = parked();
    format!(
        "\
id        machine  state      version  next wake
order-1   Order    paid             1  YYYY-MM-DDTHH:MM:SS.mmmZ
order-2   Order    placed           0  YYYY-MM-DDTHH:MM:SS.mmmZ
order-3   Order    shipped          1  -
refund-1  Refund   requested        0  -                         parked: {parked}

machine  state      instances  parked
Order    paid               1       0
Order    placed             1       0
Order    shipped            1       0
Refund   requested          1       1
total                       4       1
"
    )
}

#[test]
fn list_prints_each_instance_then_the_counts() {
    let dir = Scratch::new();
    let fleet = build(&dir);
    // While the fleet is open (its WAL in use), and after it is closed.
    let run = dir.fsmc(&["fleet", "list", "fleet.db"]).expect(0);
    assert_eq!(masked(&run.stdout()), list_text());
    assert_eq!(run.stderr(), "");
    drop(fleet);
    let run = dir.fsmc(&["fleet", "list", "fleet.db"]).expect(0);
    assert_eq!(masked(&run.stdout()), list_text());

    let run = dir
        .fsmc(&["fleet", "list", "fleet.db", "--machine", "Order", "--limit", "1"])
        .expect(0);
    assert_eq!(
        masked(&run.stdout()),
        "\
id       machine  state  version  next wake
order-1  Order    paid         1  YYYY-MM-DDTHH:MM:SS.mmmZ
… 2 more of machine `Order` (--limit 3 lists them all)

machine  state    instances  parked
Order    paid             1       0
Order    placed           1       0
Order    shipped          1       0
total                     3       0
"
    );
    let run = dir
        .fsmc(&["fleet", "list", "fleet.db", "--state", "late"])
        .expect(0);
    assert_eq!(run.stdout(), "no instances in state `late`\n");
}

/// The same fleet in PostgreSQL, in a schema of its own, named by `key=value`
/// parameters: listed and counted as in SQLite. Skipped (saying so) without
/// a server, except in CI.
#[test]
fn a_fleet_in_postgres_is_listed_and_counted_the_same() {
    const URL_VAR: &str = "FSM_TEST_POSTGRES_URL";
    let url = match std::env::var(URL_VAR) {
        Ok(url) if !url.trim().is_empty() && !url.contains("://") => url,
        _ => {
            let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
            assert!(
                !ci,
                "{URL_VAR} is not set (as `key=value` parameters), and CI needs it"
            );
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "skipped: {URL_VAR} is not set (see .ci/run)");
            return;
        }
    };
    let schema = format!("fsmc_fleet_test_{}", std::process::id());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .unwrap();
    let params = format!("{url} options='-c search_path={schema}'");
    let dir = Scratch::new();
    let fleet = fill(Fleet::connect(&params).unwrap());
    let run = dir.fsmc(&["fleet", "list", &params]).expect(0);
    assert_eq!(masked(&run.stdout()), list_text());
    let run = dir.fsmc(&["fleet", "show", &params, "order-9"]).expect(2);
    assert_eq!(
        run.stderr(),
        "error: the PostgreSQL database has no instance `order-9` (`fsmc fleet list` lists them)\n"
    );
    let run = dir.fsmc(&["fleet", "due", &params, "--format", "json"]).expect(0);
    let due: Value = serde_json::from_str(&run.stdout()).unwrap();
    assert_eq!(
        (due["instances_due"].as_u64(), due["parked"].as_u64()),
        (Some(1), Some(1))
    );
    // Pruned too: nothing is a day old yet.
    let run = dir
        .fsmc(&[
            "fleet", "prune", &params, "--events", "1d", "--dead", "1d", "--format", "json",
        ])
        .expect(0);
    let pruned: Value = serde_json::from_str(&run.stdout()).unwrap();
    assert_eq!(
        (pruned["events"].as_u64(), pruned["dead_events"].as_u64()),
        (Some(0), Some(0))
    );
    // Drawn by `fsmc inspect --fleet` with the same counts as in SQLite.
    let drawn = Scratch::new();
    drawn.write("order.fsm", ORDER_FSM);
    let inspector = crate::inspect::Inspector::start(drawn, &["--fleet", &params, "order.fsm"]);
    let counts = inspector.get("api/fleet").json();
    assert_eq!(counts["database"], "the PostgreSQL database");
    assert_eq!(
        counts["totals"],
        json!({"instances": 4, "parked": 1, "due": 1, "dead": 2})
    );
    assert_eq!(counts["machines"][0]["states"]["paid"]["dead"], 1);
    let listed = inspector.get("api/instances?machine=Order&state=placed").json();
    assert_eq!(listed["instances"][0]["id"], "order-2");
    drop(inspector);
    drop(fleet);
    admin
        .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
        .unwrap();
}

#[test]
fn list_as_json() {
    let dir = Scratch::new();
    let _fleet = build(&dir);
    let run = dir
        .fsmc(&["fleet", "list", "fleet.db", "--state", "paid", "--format", "json"])
        .expect(0);
    let listed: Value = serde_json::from_str(&masked(&run.stdout())).unwrap();
    assert_eq!(
        listed,
        json!({
            "instances": [{
                "id": "order-1", "machine": "Order", "state": "paid", "version": 1,
                "next_wake": "YYYY-MM-DDTHH:MM:SS.mmmZ", "parked": null
            }],
            "counts": [{"machine": "Order", "state": "paid", "instances": 1, "parked": 0}],
            "total": 1,
            "parked": 0
        })
    );
}

#[test]
fn show_prints_an_instance_in_full() {
    let dir = Scratch::new();
    let _fleet = build(&dir);
    let run = dir.fsmc(&["fleet", "show", "fleet.db", "order-1"]).expect(0);
    assert_eq!(
        masked(&run.stdout()),
        format!(
            "\
instance     order-1
machine      Order
fingerprint  {}
state        paid
version      1
next wake    YYYY-MM-DDTHH:MM:SS.mmmZ
created      YYYY-MM-DDTHH:MM:SS.mmmZ
updated      YYYY-MM-DDTHH:MM:SS.mmmZ

context:
  {{
    \"paid\": 30
  }}

deadlines:
  state  timer  due
  paid       0  YYYY-MM-DDTHH:MM:SS.mmmZ

inbox: 0 pending, 1 done, 0 rejected, 1 dead
  dead events:
    seq  key    sent                      event          error
      2  bogus  YYYY-MM-DDTHH:MM:SS.mmmZ  {{\"refund\":30}}  not an event of machine `Order`: {DEAD}

outbox: 0 pending, 1 done, 0 dead

history:
  seq  time                      from    action  to
    0  YYYY-MM-DDTHH:MM:SS.mmmZ  placed  pay     paid
",
            fingerprint()
        )
    );

    let run = dir.fsmc(&["fleet", "show", "fleet.db", "order-3"]).expect(0);
    let shown = masked(&run.stdout());
    assert!(
        shown.contains(
            "\
outbox: 1 pending, 0 done, 1 dead
  pending outputs:
    key          output    attempts  next attempt              leased until  error
    order-3/1/0  dispatch         0  YYYY-MM-DDTHH:MM:SS.mmmZ  -
  dead outputs:
    key          output       attempts  next attempt              leased until  error
    order-3/0/0  charge_card         1  YYYY-MM-DDTHH:MM:SS.mmmZ  -             card declined
"
        ),
        "{shown}"
    );
    assert!(shown.contains("\ndeadlines: none\n"), "{shown}");
    assert!(
        shown.ends_with(
            "\
history:
  seq  time                      from    action  to
    0  YYYY-MM-DDTHH:MM:SS.mmmZ  placed  pay     paid
    1  YYYY-MM-DDTHH:MM:SS.mmmZ  paid    ship    shipped
"
        ),
        "{shown}"
    );
}

#[test]
fn show_a_parked_instance_with_its_waiting_event() {
    let dir = Scratch::new();
    let _fleet = build(&dir);
    let run = dir.fsmc(&["fleet", "show", "fleet.db", "refund-1"]).expect(0);
    let parked = parked();
    assert_eq!(
        masked(&run.stdout()),
        format!(
            "\
instance     refund-1
machine      Refund
fingerprint  {}
state        requested
version      0
next wake    -
parked       {parked}
created      YYYY-MM-DDTHH:MM:SS.mmmZ
updated      YYYY-MM-DDTHH:MM:SS.mmmZ

context: none

deadlines: none

inbox: 1 pending, 0 done, 0 rejected, 0 dead
  pending events:
    seq  key        sent                      event
      5  approve-1  YYYY-MM-DDTHH:MM:SS.mmmZ  \"approve\"

outbox: 0 pending, 0 done, 0 dead

history: none
",
            <refund::Refund as Machine>::FINGERPRINT
        )
    );
}

#[test]
fn show_as_json() {
    let dir = Scratch::new();
    let _fleet = build(&dir);
    let run = dir
        .fsmc(&["fleet", "show", "fleet.db", "order-1", "--format", "json"])
        .expect(0);
    let shown: Value = serde_json::from_str(&masked(&run.stdout())).unwrap();
    let time = "YYYY-MM-DDTHH:MM:SS.mmmZ";
    assert_eq!(
        shown,
        json!({
            "id": "order-1",
            "machine": "Order",
            "fingerprint": fingerprint(),
            "state": "paid",
            "version": 1,
            "next_wake": time,
            "parked": null,
            "created_at": time,
            "updated_at": time,
            "snapshot": {
                "current_state": "paid",
                "context": {"paid": 30},
                "timers": [{"state": "paid", "timer": 0, "due": time}],
                "last_active": {},
                "history": [{"seq": 0, "timestamp": time, "from": "placed", "action": "pay", "to": "paid"}]
            },
            "inbox": {
                "pending": 0, "done": 1, "rejected": 0, "dead": 1,
                "pending_events": [],
                "dead_events": [{
                    "seq": 2, "dedup_key": "bogus", "event": {"refund": 30}, "sent_at": time,
                    "error": format!("not an event of machine `Order`: {DEAD}")
                }]
            },
            "outbox": {"pending": 0, "done": 1, "dead": 0, "pending_outputs": [], "dead_outputs": []}
        })
    );
}

#[test]
fn due_counts_what_is_due_now() {
    let dir = Scratch::new();
    let _fleet = build(&dir);
    let run = dir.fsmc(&["fleet", "due", "fleet.db"]).expect(0);
    assert_eq!(
        masked(&run.stdout()),
        "\
instances due      1
instances waiting  1  the next at YYYY-MM-DDTHH:MM:SS.mmmZ
parked instances   1
pending events     2
dead events        1
outputs due        1
outputs leased     0
outputs waiting    0  to be retried
dead outputs       1
"
    );
    let run = dir
        .fsmc(&["fleet", "due", "fleet.db", "--format", "json"])
        .expect(0);
    let due: Value = serde_json::from_str(&masked(&run.stdout())).unwrap();
    assert_eq!(
        due,
        json!({
            "now": "YYYY-MM-DDTHH:MM:SS.mmmZ",
            "instances_due": 1,
            "instances_waiting": 1,
            "next_wake": "YYYY-MM-DDTHH:MM:SS.mmmZ",
            "parked": 1,
            "events_pending": 2,
            "events_dead": 1,
            "outputs_due": 1,
            "outputs_leased": 0,
            "outputs_waiting": 0,
            "outputs_dead": 1
        })
    );
}

fn error(run: Run, code: i32) -> String {
    let run = run.expect(code);
    assert_eq!(run.stdout(), "");
    run.stderr()
}

#[test]
fn errors_name_the_problem() {
    let dir = Scratch::new();
    let missing = error(dir.fsmc(&["fleet", "list", "missing.db"]), 2);
    assert!(
        missing.starts_with("error: cannot open `missing.db`: "),
        "{missing}"
    );
    assert!(!dir.exists("missing.db"), "a read-only look creates nothing");
    dir.write("dir/keep", "");
    assert_eq!(
        error(dir.fsmc(&["fleet", "due", "dir"]), 2),
        "error: cannot open `dir`: it is a directory\n"
    );

    dir.write(
        "notes.txt",
        "not a database, but long enough to be read as one's header\n",
    );
    assert_eq!(
        error(dir.fsmc(&["fleet", "list", "notes.txt"]), 1),
        "error: the fleet's database cannot be used: `notes.txt` is not a fleet database: it is not an \
         SQLite database\n"
    );
    dir.write("empty.db", "");
    assert_eq!(
        error(dir.fsmc(&["fleet", "due", "empty.db"]), 1),
        "error: the fleet's database cannot be used: `empty.db` is not a fleet database: it has no \
         `fsm_fleet_meta` table\n"
    );

    let mut fleet = build(&dir);
    assert_eq!(
        error(dir.fsmc(&["fleet", "show", "fleet.db", "order-9"]), 2),
        "error: `fleet.db` has no instance `order-9` (`fsmc fleet list` lists them)\n"
    );
    fleet
        .sqlite()
        .unwrap()
        .execute(
            "UPDATE fsm_fleet_meta SET value = ?1",
            [(SCHEMA_VERSION + 1).to_string()],
        )
        .unwrap();
    assert_eq!(
        error(dir.fsmc(&["fleet", "show", "fleet.db", "order-1"]), 1),
        format!(
            "error: the fleet's database cannot be used: `fleet.db` has schema version {}, written by a \
             newer fsm-fleet; this build reads version {SCHEMA_VERSION}: upgrade it\n",
            SCHEMA_VERSION + 1
        )
    );
    fleet
        .sqlite()
        .unwrap()
        .execute("DROP TABLE fsm_fleet_meta", [])
        .unwrap();
    assert_eq!(
        error(dir.fsmc(&["fleet", "list", "fleet.db"]), 1),
        "error: the fleet's database cannot be used: `fleet.db` is not a fleet database: it has no \
         `fsm_fleet_meta` table\n"
    );
}

#[test]
fn an_empty_fleet_says_so() {
    let dir = Scratch::new();
    let _fleet = Fleet::open(dir.path("fleet.db")).unwrap();
    let run = dir.fsmc(&["fleet", "list", "fleet.db"]).expect(0);
    assert_eq!(run.stdout(), "the fleet has no instances\n");
}

#[test]
fn a_snapshot_that_does_not_read_is_shown_as_such() {
    let dir = Scratch::new();
    let mut fleet = build(&dir);
    fleet
        .sqlite()
        .unwrap()
        .execute(
            "UPDATE fsm_instances SET snapshot = '{\"type\": \"fsm\"' WHERE id = 'order-2'",
            [],
        )
        .unwrap();
    let run = dir.fsmc(&["fleet", "show", "fleet.db", "order-2"]).expect(0);
    let shown = masked(&run.stdout());
    assert!(
        shown.contains(
            "\nsnapshot: does not read: EOF while parsing an object at line 1 column 14\n\ninbox: 1 pending,"
        ),
        "{shown}"
    );
    assert!(!shown.contains("history"), "{shown}");
}

/// `Order`'s definition, as the `fsm!` above has it: its fingerprint is the
/// generated code's.
const ORDER_FSM: &str = "\
machine Order {
    context Cart;
    action pay(u32), ship;
    effect charge(u32);
    output charge_card, dispatch, overdue;

    initial state placed { on pay -> paid do charge emit charge_card; }
    state paid { on ship -> shipped emit dispatch; after 1h -> late emit overdue; }
    terminal state shipped;
    terminal state late;
}
";

/// The fleet of [`build`], then `order-4`: shipped, both outputs performed,
/// so finished (the worker takes `order-2`'s payment too); then everything
/// made `days` old.
fn build_to_prune(dir: &Scratch, days: u64) -> Fleet {
    let mut fleet = build(dir);
    fleet.create("order-4", Order::new(Cart::default())).unwrap();
    fleet.send("order-4", &Event::Pay(7), "pay-4").unwrap();
    fleet.send("order-4", &Event::Ship, "ship-4").unwrap();
    let machines = Machines::new().with::<Order>();
    assert_eq!(fleet.work(&machines, 10).unwrap().instances, 2);
    for _ in 0..2 {
        let claimed = fleet.claim_outputs(10, Duration::from_secs(30)).unwrap();
        let output = claimed.iter().find(|c| c.instance == "order-4").unwrap();
        assert!(fleet.output_done(output).unwrap());
    }
    let ms = days * 86_400_000;
    fleet
        .sqlite()
        .unwrap()
        .execute_batch(&format!(
            "UPDATE fsm_instances SET updated_at = updated_at - {ms};
             UPDATE fsm_inbox SET consumed_at = consumed_at - {ms};
             UPDATE fsm_outbox SET settled_at = settled_at - {ms};"
        ))
        .unwrap();
    fleet
}

#[test]
fn prune_counts_then_deletes_by_age() {
    let dir = Scratch::new();
    drop(build_to_prune(&dir, 10));
    dir.write("order.fsm", ORDER_FSM);
    let before = dir.fsmc(&["fleet", "list", "fleet.db"]).expect(0).stdout();
    let rules = [
        "--events",
        "1d",
        "--outputs",
        "24h",
        "--finished",
        "1d",
        "--machines",
        "order.fsm",
        "--dead",
        "7d",
    ];

    let dry_run = [&["fleet", "prune", "fleet.db"][..], &rules, &["--dry-run"]].concat();
    let run = dir.fsmc(&dry_run).expect(0);
    assert_eq!(
        run.stdout(),
        "\
dry run: nothing deleted; a prune would delete
  events              6  consumed more than 1d ago (the finished instances' included)
  outputs             3  done more than 1d ago (the finished instances' included)
  dead events         1  settled more than 7d ago
  dead outputs        1  settled more than 7d ago
  finished instances  1  unchanged for more than 1d
  skipped instances   0  in a terminal state, saved by a definition --machines does not give: not judged
"
    );
    assert_eq!(run.stderr(), "");
    assert_eq!(
        dir.fsmc(&["fleet", "list", "fleet.db"]).expect(0).stdout(),
        before
    );

    let prune = [
        &["fleet", "prune", "fleet.db"][..],
        &rules,
        &["--format", "json", "--batch", "2"],
    ]
    .concat();
    let run = dir.fsmc(&prune).expect(0);
    assert_eq!(
        serde_json::from_str::<Value>(&run.stdout()).unwrap(),
        json!({
            "dry_run": false,
            "events": 6,
            "dead_events": 1,
            "outputs": 3,
            "dead_outputs": 1,
            "instances": 1,
            "skipped": 0
        })
    );
    // `order-4` is gone; what is pending or held is kept: the parked
    // refund's event, and the outputs not performed.
    let run = dir
        .fsmc(&["fleet", "due", "fleet.db", "--format", "json"])
        .expect(0);
    let due: Value = serde_json::from_str(&run.stdout()).unwrap();
    assert_eq!(
        (
            &due["events_pending"],
            &due["events_dead"],
            &due["outputs_dead"],
            &due["parked"]
        ),
        (&json!(1), &json!(0), &json!(0), &json!(1))
    );
    let listed = dir.fsmc(&["fleet", "list", "fleet.db"]).expect(0).stdout();
    assert!(!listed.contains("order-4"), "{listed}");
    assert!(listed.contains("order-3"), "{listed}");
    let run = dir.fsmc(&["fleet", "show", "fleet.db", "order-3"]).expect(0);
    assert!(run.stdout().contains("order-3/1/0"), "{}", run.stdout());

    // Again: nothing left to delete.
    let run = dir
        .fsmc(&[&["fleet", "prune", "fleet.db"][..], &rules].concat())
        .expect(0);
    assert_eq!(
        run.stdout(),
        "\
deleted
  events              0  consumed more than 1d ago (the finished instances' included)
  outputs             0  done more than 1d ago (the finished instances' included)
  dead events         0  settled more than 7d ago
  dead outputs        0  settled more than 7d ago
  finished instances  0  unchanged for more than 1d
  skipped instances   0  in a terminal state, saved by a definition --machines does not give: not judged
"
    );
}

#[test]
fn prune_given_another_definition_says_how_many_instances_it_skipped() {
    let dir = Scratch::new();
    let mut fleet = build(&dir);
    // Ten days old: `order-3` is shipped (a terminal state).
    fleet
        .sqlite()
        .unwrap()
        .execute_batch("UPDATE fsm_instances SET updated_at = updated_at - 864000000")
        .unwrap();
    drop(fleet);
    // An older `Order`: the same states, another timer, so another
    // fingerprint than the one that saved the instances.
    dir.write("old.fsm", &ORDER_FSM.replace("after 1h", "after 2h"));
    let prune = [
        "fleet",
        "prune",
        "fleet.db",
        "--finished",
        "1d",
        "--machines",
        "old.fsm",
    ];

    let run = dir.fsmc(&[&prune[..], &["--dry-run"]].concat()).expect(0);
    assert_eq!(
        run.stdout(),
        "\
dry run: nothing deleted; a prune would delete
  events              0  (the finished instances' included)
  outputs             0  (the finished instances' included)
  finished instances  0  unchanged for more than 1d
  skipped instances   1  in a terminal state, saved by a definition --machines does not give: not judged
1 instance was skipped: its fingerprint is not that of any definition the --machines files give; give \
the .fsm that saved it (`fsmc fleet show` prints an instance's fingerprint)
"
    );
    assert_eq!(run.stderr(), "");
    let run = dir.fsmc(&[&prune[..], &["--format", "json"]].concat()).expect(0);
    assert_eq!(
        serde_json::from_str::<Value>(&run.stdout()).unwrap(),
        json!({
            "dry_run": false,
            "events": 0,
            "dead_events": 0,
            "outputs": 0,
            "dead_outputs": 0,
            "instances": 0,
            "skipped": 1
        })
    );
    assert!(dir
        .fsmc(&["fleet", "list", "fleet.db"])
        .expect(0)
        .stdout()
        .contains("order-3"));

    // Given the definition that saved them too: judged, nothing skipped.
    dir.write("order.fsm", ORDER_FSM);
    let run = dir
        .fsmc(&[&prune[..], &["--machines", "order.fsm", "--format", "json"]].concat())
        .expect(0);
    let pruned: Value = serde_json::from_str(&run.stdout()).unwrap();
    assert_eq!(pruned["skipped"], json!(0), "{pruned}");
}

#[test]
fn prune_without_a_rule_names_the_rules() {
    let dir = Scratch::new();
    drop(build(&dir));
    let stderr = error(dir.fsmc(&["fleet", "prune", "fleet.db"]), 2);
    assert_eq!(
        stderr,
        "error: `fsmc fleet prune` needs a rule: --events AGE, --outputs AGE, --finished AGE (with \
         --machines FILE) or --dead AGE\nhelp: an age is like `30d`, `12h` or `30m`; --dry-run counts \
         what a prune would delete\n"
    );
    let stderr = error(dir.fsmc(&["fleet", "prune", "fleet.db", "--events", "7"]), 2);
    assert!(stderr.contains("`7` is not an age like `30d`"), "{stderr}");
    let stderr = error(dir.fsmc(&["fleet", "prune", "fleet.db", "--finished", "7d"]), 2);
    assert!(stderr.contains("--machines <FILE>"), "{stderr}");
    // A missing file is not created.
    let stderr = error(dir.fsmc(&["fleet", "prune", "missing.db", "--events", "7d"]), 2);
    assert!(stderr.starts_with("error: cannot open `missing.db`"), "{stderr}");
    assert!(!dir.exists("missing.db"));
}

/// `docs/fleet.md`, the reference of `fsmc fleet`.
fn fleet_md() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/fleet.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The fenced blocks of a markdown text whose fence is exactly ```` ```LANG ````:
/// the line of each fence and its text.
fn md_blocks(text: &str, lang: &str) -> Vec<(usize, String)> {
    let fence = format!("```{lang}");
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((at, line)) = lines.next() {
        if line != fence {
            continue;
        }
        let body: Vec<&str> = lines
            .by_ref()
            .map(|(_, l)| l)
            .take_while(|l| *l != "```")
            .collect();
        found.push((at + 1, body.iter().map(|l| format!("{l}\n")).collect()));
    }
    found
}

/// True when `printed` is what a transcript `shown` shows: the same, times
/// masked on both sides, where a line `…` alone stands for lines left out.
fn transcript_shows(printed: &str, shown: &str) -> bool {
    let (printed, shown) = (masked(printed), masked(shown));
    let mut parts = vec![String::new()];
    for line in shown.lines() {
        if line == "…" {
            parts.push(String::new());
        } else {
            let last = parts.last_mut().unwrap();
            last.push_str(line);
            last.push('\n');
        }
    }
    let (first, rest) = parts.split_first().unwrap();
    let Some(mut left) = printed.strip_prefix(first.as_str()) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return left.is_empty();
    };
    for part in middle {
        match left.find(part.as_str()) {
            Some(at) => left = &left[at + part.len()..],
            None => return false,
        }
    }
    left.ends_with(last.as_str())
}

/// True when the JSON `shown` in the docs is `printed`, times masked on both
/// sides, where a string ending in `…` stands for any string it begins.
fn json_shows(printed: &Value, shown: &Value) -> bool {
    match (printed, shown) {
        (Value::String(printed), Value::String(shown)) => match shown.strip_suffix('…') {
            Some(start) => printed.starts_with(start),
            None => printed == shown,
        },
        (Value::Array(printed), Value::Array(shown)) => {
            printed.len() == shown.len() && printed.iter().zip(shown).all(|(p, s)| json_shows(p, s))
        }
        (Value::Object(printed), Value::Object(shown)) => {
            printed.len() == shown.len()
                && shown
                    .iter()
                    .all(|(key, s)| printed.get(key).is_some_and(|p| json_shows(p, s)))
        }
        _ => printed == shown,
    }
}

/// Every `$ fsmc fleet` transcript of docs/fleet.md is what the binary
/// prints, times aside: `list`, `show` and `due` on the fleet of [`build`],
/// `prune` on that fleet a hundred days on, with `order-4` finished
/// ([`build_to_prune`]), its `order.fsm` the definition that saved the
/// instances and `order-v1.fsm` an older one. So is the JSON of
/// `fsmc fleet show --format json`.
#[test]
fn fleet_md_transcripts_are_what_fsmc_prints() {
    let doc = fleet_md();
    let dir = Scratch::new();
    let _fleet = build(&dir);
    let later = Scratch::new();
    drop(build_to_prune(&later, 100));
    later.write("order.fsm", ORDER_FSM);
    later.write("order-v1.fsm", &ORDER_FSM.replace("after 1h", "after 2h"));
    let mut checked = 0;
    for (line, block) in md_blocks(&doc, "text") {
        let Some((command, shown)) = block.strip_prefix("$ fsmc ").and_then(|b| b.split_once('\n')) else {
            continue;
        };
        let args: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(args[0], "fleet", "docs/fleet.md:{line}: `fsmc {command}`");
        let run = if args[1] == "prune" { &later } else { &dir }.fsmc(&args);
        let printed = format!("{}{}", run.stdout(), run.stderr());
        assert!(
            transcript_shows(&printed, shown),
            "docs/fleet.md:{line}: `fsmc {command}` prints otherwise:\n{printed}\nthe page shows:\n{shown}"
        );
        checked += 1;
    }
    assert!(checked >= 7, "only {checked} transcripts in docs/fleet.md");

    let json = md_blocks(&doc, "json");
    let [(line, shown)] = &json[..] else {
        panic!("docs/fleet.md shows one ```json block, that of `fsmc fleet show --format json`");
    };
    let shown: Value = serde_json::from_str(&masked(shown)).unwrap();
    let id = shown["id"].as_str().expect("the JSON shows an instance");
    let run = dir
        .fsmc(&["fleet", "show", "fleet.db", id, "--format", "json"])
        .expect(0);
    let printed: Value = serde_json::from_str(&masked(&run.stdout())).unwrap();
    assert!(
        json_shows(&printed, &shown),
        "docs/fleet.md:{line}: `fsmc fleet show fleet.db {id} --format json` prints otherwise:\n{printed:#}"
    );
}

/// `fsmc inspect --fleet`: the fleet of [`build`], with `Order`'s file given
/// and `Refund`'s not: counts on each state of `Order`'s diagram (and on
/// the states around them), `Refund` by state, the instances of a state a
/// page at a time, an instance as `fsmc fleet show` prints it, and counts
/// that follow the fleet while the page is open.
#[test]
fn inspect_shows_the_fleet_by_state() {
    let dir = Scratch::new();
    let mut fleet = build(&dir);
    dir.write("order.fsm", ORDER_FSM);
    let inspector = crate::inspect::Inspector::start(dir, &["--fleet", "fleet.db", "order.fsm"]);
    let page = inspector.get("");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<script src=\"fleet.js\""), "{}", page.body);
    assert_eq!(inspector.get("fleet.js").status, 200);

    let counts = inspector.get("api/fleet").json();
    assert_eq!(counts["database"], "`fleet.db`");
    assert_eq!(
        counts["totals"],
        json!({"instances": 4, "parked": 1, "due": 1, "dead": 2})
    );
    let order = &counts["machines"][0];
    assert_eq!(
        (order["name"].as_str(), order["drawn"].as_bool()),
        (Some("Order"), Some(true))
    );
    assert_eq!(order["fingerprint"], fingerprint());
    assert_eq!(
        order["states"],
        json!({
            "paid": {"instances": 1, "parked": 0, "due": 0, "dead": 1},
            "placed": {"instances": 1, "parked": 0, "due": 1, "dead": 0},
            "shipped": {"instances": 1, "parked": 0, "due": 0, "dead": 1},
        })
    );
    assert_eq!(order["other_definitions"], json!([]));
    let refund = &counts["machines"][1];
    assert_eq!(refund["file"], Value::Null);
    assert_eq!(
        refund["rows"],
        json!([{"state": "requested", "instances": 1, "parked": 1, "due": 0, "dead": 0}])
    );
    assert_eq!(
        refund["definitions"],
        json!([{"fingerprint": <refund::Refund as Machine>::FINGERPRINT, "instances": 1}])
    );

    let svg = inspector.get("api/diagram.svg?machine=Order");
    assert_eq!(svg.status, 200);
    assert!(svg.body.contains("data-state=\"paid\""), "{}", svg.body);
    let none = inspector.get("api/diagram.svg?machine=Refund");
    assert_eq!(
        (none.status, none.body.as_str()),
        (404, "no file given defines machine `Refund`\n")
    );

    let listed = inspector.get("api/instances?machine=Order&state=paid").json();
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["instances"][0]["id"], "order-1");
    assert_eq!(listed["more"], false);
    let unknown = inspector.get("api/instances?machine=Order&state=nowhere");
    assert_eq!(unknown.status, 409);
    assert_eq!(unknown.json()["error"], "machine `Order` has no state `nowhere`");
    let refunds = inspector
        .get("api/instances?machine=Refund&state=requested")
        .json();
    assert_eq!(refunds["instances"][0]["parked"], parked());

    let shown = inspector.get("api/instance?id=order-1").json();
    assert_eq!(shown["leaves"], json!(["paid"]));
    assert!(
        shown["text"]
            .as_str()
            .unwrap()
            .starts_with("instance     order-1\n"),
        "{}",
        shown["text"]
    );
    let missing = inspector.get("api/instance?id=order%2D9");
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["error"], "`fleet.db` has no instance `order-9`");

    // A change: more instances, counted again once the page asks.
    let version = counts["version"].as_u64().unwrap();
    let unchanged = inspector.get(&format!("api/fleet?since={version}")).json();
    assert_eq!(unchanged["unchanged"], true);
    for n in 0..120 {
        fleet
            .create(&format!("order-{}", 100 + n), Order::new(Cart::default()))
            .unwrap();
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    // (A count may see some of them first: the page is told of each.)
    let mut seen = version;
    loop {
        let answer = inspector.get(&format!("api/fleet?since={seen}")).json();
        if answer["unchanged"] != true {
            assert!(answer["version"].as_u64().unwrap() > seen);
            seen = answer["version"].as_u64().unwrap();
            if answer["machines"][0]["states"]["placed"]["instances"] == 121 {
                break;
            }
        }
        assert!(std::time::Instant::now() < deadline, "the counts never caught up");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Pages of 50, by id.
    let first = inspector.get("api/instances?machine=Order&state=placed").json();
    assert_eq!(
        (first["total"].as_u64(), first["more"].as_bool()),
        (Some(121), Some(true))
    );
    let ids: Vec<&str> = first["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!((ids.len(), ids[0], ids[49]), (50, "order-100", "order-149"));
    let next = inspector
        .get("api/instances?machine=Order&state=placed&after=order-149")
        .json();
    assert_eq!(next["instances"][0]["id"], "order-150");
}

/// `fsmc inspect --fleet`'s errors, before it serves anything: as `fsmc
/// fleet`'s for the database, as `fsmc check`'s for a file.
#[test]
fn inspect_of_a_fleet_names_the_problem() {
    let dir = Scratch::new();
    let missing = error(dir.fsmc(&["inspect", "--fleet", "missing.db"]), 2);
    assert!(
        missing.starts_with("error: cannot open `missing.db`: "),
        "{missing}"
    );
    dir.write(
        "notes.txt",
        "not a database, but long enough to be read as one's header\n",
    );
    assert_eq!(
        error(dir.fsmc(&["inspect", "--fleet", "notes.txt"]), 1),
        "error: the fleet's database cannot be used: `notes.txt` is not a fleet database: it is not an \
         SQLite database\n"
    );
    let _fleet = build(&dir);
    dir.write(
        "broken.fsm",
        "machine Order { initial state a { on go -> nowhere; } }\n",
    );
    let broken = error(dir.fsmc(&["inspect", "--fleet", "fleet.db", "broken.fsm"]), 1);
    assert!(broken.contains("unknown state `nowhere`"), "{broken}");
    dir.write("order.fsm", ORDER_FSM);
    dir.write("again.fsm", ORDER_FSM);
    assert_eq!(
        error(
            dir.fsmc(&["inspect", "--fleet", "fleet.db", "order.fsm", "again.fsm"]),
            2
        ),
        "error: machine `Order` is defined in both `order.fsm` and `again.fsm`; give one of them\n"
    );
    assert_eq!(
        error(dir.fsmc(&["inspect", "order.fsm", "again.fsm"]), 2),
        "error: `fsmc inspect` simulates one file, and was given 2; to show a fleet with its machines \
         drawn, add --fleet DB\n"
    );
    let both = error(
        dir.fsmc(&["inspect", "--fleet", "fleet.db", "--machine", "Order"]),
        2,
    );
    assert!(both.contains("cannot be used with"), "{both}");
}
