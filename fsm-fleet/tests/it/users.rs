//! What a fleet's users hit, on SQLite and on PostgreSQL: typed sends that
//! refuse an instance of another machine, the limits on instance ids and
//! deduplication keys (the same on both backends, checked before any
//! statement), and a prune given another definition than the one that saved
//! its instances, which says how many it skipped.

#![deny(warnings)]

use crate::support;

use fsm_fleet::{
    Fleet, FleetError, Machines, Prune, Pruned, Sent, TerminalStates, MAX_DEDUP_KEY_BYTES,
    MAX_INSTANCE_ID_BYTES,
};
use std::time::Duration;
use support::TestDb;

on_both_backends!(
    a_typed_send_takes_an_instance_of_its_machine_and_refuses_another_s,
    a_typed_send_in_the_caller_s_transaction_refuses_another_machine_s_instance,
    a_typed_batch_refuses_another_machine_s_instance_and_sends_none_of_it,
    an_id_and_a_key_at_their_limits_are_taken_on_both_backends,
    a_key_over_its_limit_is_refused_by_every_send_and_nothing_is_sent,
    an_id_over_its_limit_is_refused_at_create,
    a_prune_given_another_definition_counts_the_instances_it_skipped,
);

fsm_runtime::fsm! {
    /// A job: started, then two steps.
    machine Job {
        action start, step, cancel;
        output started;
        initial state queued { on start -> working emit started; }
        state working { on step -> done; }
        terminal state done;
        terminal state failed;
        any { on cancel -> failed; }
    }
}

fsm_runtime::fsm! {
    /// Another machine, with an action of the same name as a job's.
    machine Bell {
        action start;
        initial state quiet { on start -> ringing; }
        terminal state ringing;
    }
}

use job::{Action, Job};

fn machines() -> Machines {
    Machines::new().with::<Job>().with::<bell::Bell>()
}

/// Instance `id`'s events: key and status, in the order sent.
fn inbox(db: &TestDb, id: &str) -> Vec<(String, String)> {
    db.rows(&format!(
        "SELECT dedup_key, status FROM fsm_inbox WHERE instance = '{id}' ORDER BY seq"
    ))
    .into_iter()
    .map(|row| (row[0].clone(), row[1].clone()))
    .collect()
}

fn events_in_inbox(db: &TestDb) -> String {
    db.value("SELECT COUNT(*) FROM fsm_inbox")
}

/// `len` bytes of text that does not compress (hex digits of a seeded
/// generator): PostgreSQL compresses a long index value before it checks
/// its size, and a run of one letter would fit where a real key does not.
fn incompressible(len: usize, seed: u64) -> String {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..len).map(|_| rng.digit(16)).collect()
}

fn a_typed_send_takes_an_instance_of_its_machine_and_refuses_another_s(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("job", Job::new()).unwrap();
    fleet.create("bell", bell::Bell::new()).unwrap();
    assert_eq!(
        fleet.send_to::<Job>("job", &Action::Start, "start").unwrap(),
        Sent::Accepted
    );
    assert_eq!(
        fleet.send_to::<Job>("job", &Action::Start, "start").unwrap(),
        Sent::Duplicate
    );

    // `{"start"}` would read as a bell's event too: only the row tells.
    let error = fleet.send_to::<Job>("bell", &Action::Start, "start").unwrap_err();
    assert_eq!(
        error.to_string(),
        "instance `bell` is of machine `Bell`, not `Job`: an event of `Job` is not sent to it"
    );
    assert!(
        matches!(&error, FleetError::WrongMachine { id, machine, sent }
            if id == "bell" && machine == "Bell" && sent == "Job"),
        "{error:?}"
    );
    assert!(inbox(db, "bell").is_empty(), "nothing inserted");

    // A key the instance has already seen: still the wrong machine, not a
    // duplicate.
    assert_eq!(
        fleet.send("bell", &bell::Action::Start, "ring").unwrap(),
        Sent::Accepted
    );
    assert!(matches!(
        fleet.send_to::<Job>("bell", &Action::Start, "ring"),
        Err(FleetError::WrongMachine { .. })
    ));
    assert!(matches!(
        fleet.send_to::<Job>("nobody", &Action::Start, "start"),
        Err(FleetError::UnknownInstance { id }) if id == "nobody"
    ));

    // The untyped path is unchanged: it takes any value, and the worker
    // sets aside what is not the machine's.
    assert_eq!(
        fleet
            .send("job", &serde_json::json!({"ring": 1}), "foreign")
            .unwrap(),
        Sent::Accepted
    );
    let worked = fleet.work(&machines(), 10).unwrap();
    assert_eq!((worked.instances, worked.events), (2, 3));
    assert_eq!(
        inbox(db, "job"),
        [("start".into(), "done".into()), ("foreign".into(), "dead".into())]
    );
    assert_eq!(inbox(db, "bell"), [("ring".into(), "done".into())]);
}

fn a_typed_send_in_the_caller_s_transaction_refuses_another_machine_s_instance(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("job", Job::new()).unwrap();
    fleet.create("bell", bell::Bell::new()).unwrap();
    // Both sends in one transaction of the caller's, which commits: the
    // job's event is sent, the bell is refused.
    let results = if let Some(conn) = fleet.sqlite() {
        let mut tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .unwrap();
        let results = (
            fsm_fleet::send_to::<Job>(&mut tx, "job", &Action::Start, "start"),
            fsm_fleet::send_to::<Job>(&mut tx, "bell", &Action::Start, "start"),
        );
        tx.commit().unwrap();
        results
    } else {
        #[cfg(feature = "postgres")]
        {
            let client = fleet.postgres().unwrap();
            let mut tx = client.transaction().unwrap();
            let results = (
                fsm_fleet::send_to::<Job>(&mut tx, "job", &Action::Start, "start"),
                fsm_fleet::send_to::<Job>(&mut tx, "bell", &Action::Start, "start"),
            );
            tx.commit().unwrap();
            results
        }
        #[cfg(not(feature = "postgres"))]
        unreachable!("a fleet on {}", db.backend())
    };
    assert_eq!(results.0.unwrap(), Sent::Accepted);
    assert!(
        matches!(&results.1, Err(FleetError::WrongMachine { id, .. }) if id == "bell"),
        "{:?}",
        results.1
    );
    assert_eq!(inbox(db, "job"), [("start".into(), "pending".into())]);
    assert!(inbox(db, "bell").is_empty());
}

fn a_typed_batch_refuses_another_machine_s_instance_and_sends_none_of_it(db: &TestDb) {
    let mut fleet = db.open();
    for id in ["a", "b"] {
        fleet.create(id, Job::new()).unwrap();
    }
    fleet.create("bell", bell::Bell::new()).unwrap();
    let sent = fleet
        .send_batch_to::<Job>(&[
            ("a", Action::Start, "start"),
            ("b", Action::Start, "start"),
            ("a", Action::Step, "step"),
            ("a", Action::Start, "start"),
        ])
        .unwrap();
    assert_eq!(
        sent,
        [Sent::Accepted, Sent::Accepted, Sent::Accepted, Sent::Duplicate]
    );

    // The bell, between two jobs' events: the first instance at fault
    // fails the whole batch.
    let error = fleet
        .send_batch_to::<Job>(&[
            ("b", Action::Step, "step"),
            ("bell", Action::Start, "start"),
            ("nobody", Action::Start, "start"),
        ])
        .unwrap_err();
    assert!(
        matches!(&error, FleetError::WrongMachine { id, machine, sent }
            if id == "bell" && machine == "Bell" && sent == "Job"),
        "{error:?}"
    );
    let error = fleet
        .send_batch_to::<Job>(&[
            ("b", Action::Step, "step"),
            ("nobody", Action::Start, "start"),
            ("bell", Action::Start, "start"),
        ])
        .unwrap_err();
    assert!(
        matches!(&error, FleetError::UnknownInstance { id } if id == "nobody"),
        "{error:?}"
    );
    assert_eq!(events_in_inbox(db), "3", "nothing of the refused batches");

    let worked = fleet.work(&machines(), 10).unwrap();
    assert_eq!((worked.instances, worked.events), (2, 3));
    assert_eq!(fleet.instance("a").unwrap().unwrap().state, "done");
    assert_eq!(fleet.instance("b").unwrap().unwrap().state, "working");
}

fn an_id_and_a_key_at_their_limits_are_taken_on_both_backends(db: &TestDb) {
    let mut fleet = db.open();
    let id = incompressible(MAX_INSTANCE_ID_BYTES, 1);
    let key = incompressible(MAX_DEDUP_KEY_BYTES, 2);
    fleet.create(&id, Job::new()).unwrap();
    assert_eq!(fleet.send(&id, &Action::Start, &key).unwrap(), Sent::Accepted);
    assert_eq!(fleet.send(&id, &Action::Start, &key).unwrap(), Sent::Duplicate);
    let other = incompressible(MAX_DEDUP_KEY_BYTES, 3);
    assert_eq!(
        fleet
            .send_batch_to::<Job>(&[(&id, Action::Step, &other)])
            .unwrap(),
        [Sent::Accepted]
    );
    let worked = fleet.work(&machines(), 10).unwrap();
    assert_eq!((worked.events, worked.outputs), (2, 1));

    // The reply to an output of the longest id fits a key.
    let claimed = fleet.claim_outputs(10, Duration::from_secs(30)).unwrap();
    assert_eq!(claimed.len(), 1);
    let reply = claimed[0].reply_key();
    assert!(reply.len() <= MAX_DEDUP_KEY_BYTES, "{}", reply.len());
    assert_eq!(
        fleet.send_to::<Job>(&id, &Action::Cancel, &reply).unwrap(),
        Sent::Accepted
    );
    assert!(fleet.output_done(&claimed[0]).unwrap());
    assert_eq!(fleet.instance(&id).unwrap().unwrap().state, "done");
}

fn a_key_over_its_limit_is_refused_by_every_send_and_nothing_is_sent(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("a", Job::new()).unwrap();
    let over = "k".repeat(MAX_DEDUP_KEY_BYTES + 1);
    let mebibyte = "k".repeat(1 << 20);
    // A key is measured in bytes: 342 three-byte characters are 1,026.
    let wide = "€".repeat(342);
    let refused = |result: Result<Sent, FleetError>, length: usize| {
        let error = result.unwrap_err();
        assert!(
            matches!(&error, FleetError::DedupKeyTooLong { id, length: l, limit }
                if id == "a" && *l == length && *limit == MAX_DEDUP_KEY_BYTES),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            format!(
                "instance `a`: the deduplication key is {length} bytes long: a key is at most 1024 bytes"
            )
        );
    };
    for key in [&over, &mebibyte, &wide] {
        refused(fleet.send("a", &Action::Start, key), key.len());
        refused(fleet.send_to::<Job>("a", &Action::Start, key), key.len());
        refused(
            fleet
                .send_batch(&[("a", Action::Start, "fine"), ("a", Action::Step, key)])
                .map(|sent| sent[0]),
            key.len(),
        );
        refused(
            fleet
                .send_batch_to::<Job>(&[("a", Action::Start, "fine"), ("a", Action::Step, key)])
                .map(|sent| sent[0]),
            key.len(),
        );
        let in_transaction = |fleet: &mut Fleet, typed: bool| -> Result<Sent, FleetError> {
            if let Some(conn) = fleet.sqlite() {
                return if typed {
                    fsm_fleet::send_to::<Job>(conn, "a", &Action::Start, key)
                } else {
                    fsm_fleet::send(conn, "a", &Action::Start, key)
                };
            }
            #[cfg(feature = "postgres")]
            if let Some(client) = fleet.postgres() {
                return if typed {
                    fsm_fleet::send_to::<Job>(client, "a", &Action::Start, key)
                } else {
                    fsm_fleet::send(client, "a", &Action::Start, key)
                };
            }
            unreachable!("a fleet on {}", db.backend())
        };
        refused(in_transaction(&mut fleet, false), key.len());
        refused(in_transaction(&mut fleet, true), key.len());
    }
    assert_eq!(events_in_inbox(db), "0");

    // The message quotes a long id cut short.
    let long_id = "i".repeat(10_000);
    let error = fleet.send(&long_id, &Action::Start, &over).unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with(&format!(
            "instance `{}…`: the deduplication key is 1025",
            "i".repeat(64)
        )),
        "{message}"
    );
    assert!(message.len() < 200, "{}", message.len());
}

fn an_id_over_its_limit_is_refused_at_create(db: &TestDb) {
    let mut fleet = db.open();
    // Over the limit by one byte, by one character of two bytes, and by a
    // mebibyte (which PostgreSQL alone would refuse with `index row
    // requires … bytes`).
    let over = incompressible(MAX_INSTANCE_ID_BYTES + 1, 4);
    let wide = "é".repeat(MAX_INSTANCE_ID_BYTES / 2 + 1);
    let mebibyte = "i".repeat(1 << 20);
    for id in [&over, &wide, &mebibyte] {
        let error = fleet.create(id, Job::new()).unwrap_err();
        assert!(
            matches!(&error, FleetError::InstanceIdTooLong { id: i, length, limit }
                if i == id && *length == id.len() && *limit == MAX_INSTANCE_ID_BYTES),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(
            message.ends_with(&format!(
                "…` is {} bytes long: an id is at most 512 bytes",
                id.len()
            )),
            "{message}"
        );
        assert!(message.len() < 250, "{}", message.len());
    }
    assert_eq!(db.value("SELECT COUNT(*) FROM fsm_instances"), "0");
}

/// Ten days, in the tables' milliseconds.
const TEN_DAYS: i64 = 10 * 24 * 3600 * 1000;

const DAY: Duration = Duration::from_secs(24 * 3600);

fn a_prune_given_another_definition_counts_the_instances_it_skipped(db: &TestDb) {
    let mut fleet = db.open();
    // Three jobs finish (two `done`, one `failed`), one is still working,
    // and one finishes but recently.
    for id in ["done-1", "done-2", "failed", "working", "recent"] {
        fleet.create(id, Job::new()).unwrap();
        fleet.send_to::<Job>(id, &Action::Start, "start").unwrap();
    }
    for id in ["done-1", "done-2", "recent"] {
        fleet.send_to::<Job>(id, &Action::Step, "step").unwrap();
    }
    fleet.send_to::<Job>("failed", &Action::Cancel, "cancel").unwrap();
    fleet.work(&machines(), 10).unwrap();
    // Each job's one output, performed.
    let claimed = fleet.claim_outputs(10, Duration::from_secs(30)).unwrap();
    assert_eq!(claimed.len(), 5);
    for output in &claimed {
        assert!(fleet.output_done(output).unwrap());
    }
    db.execute(&format!(
        "UPDATE fsm_instances SET updated_at = updated_at - {TEN_DAYS} WHERE id <> 'recent';
         UPDATE fsm_inbox SET consumed_at = consumed_at - {TEN_DAYS} WHERE instance <> 'recent';
         UPDATE fsm_outbox SET settled_at = settled_at - {TEN_DAYS} WHERE instance <> 'recent'"
    ));

    // An older definition of `Job`, with the same terminal states: the
    // three old finished jobs are skipped, not judged, and said so.
    let older = TerminalStates::new().with("Job", "0123456789abcdef", ["done", "failed"]);
    let skipped = Pruned {
        skipped: 3,
        ..Pruned::default()
    };
    let dry_run = Prune::new().finished(DAY, older.clone()).dry_run(true);
    assert_eq!(fleet.prune(&dry_run).unwrap(), skipped);
    assert_eq!(
        fleet.prune(&Prune::new().finished(DAY, older.clone())).unwrap(),
        skipped
    );
    assert_eq!(db.value("SELECT COUNT(*) FROM fsm_instances"), "5");

    // Given both definitions, the older one and the one that saved them:
    // judged, deleted, nothing skipped.
    let both =
        fsm_fleet::Machines::terminal_states(&machines()).with("Job", "0123456789abcdef", ["done", "failed"]);
    let pruned = fleet.prune(&Prune::new().finished(DAY, both)).unwrap();
    assert_eq!((pruned.instances, pruned.skipped), (3, 0));
    assert_eq!(
        fleet.prune(&Prune::new().finished(DAY, older)).unwrap(),
        Pruned::default()
    );

    // Without a finished rule nothing is counted.
    db.execute(&format!(
        "UPDATE fsm_instances SET updated_at = updated_at - {TEN_DAYS}, fingerprint = 'elsewhere'"
    ));
    assert_eq!(
        fleet
            .prune(&Prune::new().events(DAY).dry_run(true))
            .unwrap()
            .skipped,
        0
    );
    let this = Machines::new().with::<Job>();
    assert_eq!(
        fleet.prune(&Prune::new().finished(DAY, &this)).unwrap().skipped,
        1
    );
}
