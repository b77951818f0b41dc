//! The fleet on SQLite and on PostgreSQL, one suite for both: instances,
//! the inbox with deduplication, workers (events in order, timers at their
//! deadlines, one transaction a batch), the outbox with retries, and bad
//! input that parks one instance and loses nothing.

// The generated code of every machine here compiles without a warning: a
// machine of timers alone (no action) included.
#![deny(warnings)]

use crate::support;

use fsm_fleet::{Failed, Fleet, FleetError, Machines, Prune, Pruned, Sent, TerminalStates};
use serde_json::json;
use std::time::Duration;
use support::TestDb;

on_both_backends!(
    events_are_taken_once_and_in_order_and_outputs_keyed,
    a_refused_event_is_rejected_and_a_foreign_one_dead_and_the_rest_goes_on,
    timers_fire_at_their_deadline_and_not_before,
    bad_rows_park_their_instance_naming_it_and_lose_nothing,
    a_failing_output_is_retried_with_backoff_then_dead_and_the_next_goes_on,
    an_event_sent_in_the_caller_s_transaction_is_sent_with_it,
    a_schema_from_a_newer_version_is_refused,
    workers_in_two_threads_step_each_instance_once_per_event,
    a_machine_of_timers_alone_is_due_from_its_creation,
    a_handler_whose_lease_ran_out_cannot_settle_another_s_claim,
    a_timer_due_before_an_event_was_sent_fires_before_it,
    a_panicking_effect_parks_its_instance_and_the_batch_goes_on,
    an_instance_sent_many_events_steps_them_over_several_batches_in_order,
    a_batch_of_events_is_sent_in_order_once_and_all_or_nothing,
    a_database_of_schema_version_1_is_migrated_when_opened,
    a_write_refused_parks_its_instance_and_the_rest_of_the_batch_is_saved,
    a_database_of_schema_version_2_is_migrated_when_opened,
    each_prune_rule_deletes_what_it_names_and_nothing_else,
    a_deduplication_key_is_refused_until_its_event_is_pruned,
    pruning_a_backlog_larger_than_a_batch_takes_several_batches,
    a_dry_run_counts_what_a_prune_deletes_and_deletes_nothing,
    an_event_left_for_a_pruned_instance_is_deleted_by_the_next_prune,
    a_runaway_event_moves_its_instance_keeps_its_outputs_and_is_marked_runaway,
);

fsm_runtime::fsm! {
    /// A job: started with a size, then two steps, within a budget.
    machine Job {
        context Work;
        action start(u32), step, cancel;
        effect count(u32);
        output started, stepped, finished, timed_out;

        initial state queued { on start -> fetching do count emit started; }
        state fetching { on step -> processing emit stepped; after 200ms -> failed emit timed_out; }
        state processing { on step -> done emit finished; }
        terminal state done;
        terminal state failed;
        any { on cancel -> failed; }
    }
}

fsm_runtime::fsm! {
    /// No action: only a timer moves it.
    machine Sleeper {
        initial state waiting { after 50ms -> woken emit fired; }
        terminal state woken;
    }
}

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Work {
    size: u32,
}

impl job::Context for Work {
    fn count(&mut self, size: &u32) {
        self.size += size;
    }
}

fsm_runtime::fsm! {
    machine Fragile {
        context Glass;
        action tap;
        effect crack;
        initial state whole { on tap -> broken do crack; }
        terminal state broken;
    }
}
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Glass {
    strong: bool,
}
impl fragile::Context for Glass {
    fn crack(&mut self) {
        assert!(self.strong, "the glass broke");
    }
}

use job::{Event, Job};

fn machines() -> Machines {
    Machines::new().with::<Job>()
}

fn state(fleet: &mut Fleet, id: &str) -> String {
    fleet.instance(id).unwrap().unwrap().state
}

fn inbox(db: &TestDb, id: &str) -> Vec<(String, String)> {
    db.rows(&format!(
        "SELECT dedup_key, status FROM fsm_inbox WHERE instance = '{id}' ORDER BY seq"
    ))
    .into_iter()
    .map(|row| (row[0].clone(), row[1].clone()))
    .collect()
}

fn events_are_taken_once_and_in_order_and_outputs_keyed(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("a", Job::new(Work::default())).unwrap();
    assert!(matches!(
        fleet.create("a", Job::new(Work::default())),
        Err(FleetError::DuplicateInstance { id }) if id == "a"
    ));
    assert_eq!(fleet.send("a", &Event::Start(3), "e1").unwrap(), Sent::Accepted);
    assert_eq!(fleet.send("a", &Event::Start(3), "e1").unwrap(), Sent::Duplicate);
    assert_eq!(fleet.send("a", &Event::Step, "e2").unwrap(), Sent::Accepted);
    assert_eq!(fleet.send("a", &Event::Step, "e3").unwrap(), Sent::Accepted);
    assert!(matches!(
        fleet.send("nobody", &Event::Step, "e1"),
        Err(FleetError::UnknownInstance { .. })
    ));

    let worked = fleet.work(&machines(), 10).unwrap();
    assert_eq!((worked.instances, worked.events, worked.outputs), (1, 3, 3));
    let instance = fleet.instance("a").unwrap().unwrap();
    assert_eq!((instance.state.as_str(), instance.version), ("done", 1));
    assert_eq!(instance.next_wake, None, "terminal: nothing is due");
    assert!(
        instance.snapshot.contains(r#""context":{"size":3}"#),
        "{}",
        instance.snapshot
    );
    // A key repeated after the event was consumed is still recognized.
    assert_eq!(fleet.send("a", &Event::Start(3), "e1").unwrap(), Sent::Duplicate);

    let claimed = fleet.claim_outputs(10, Duration::from_secs(30)).unwrap();
    // One per instance at a time: its outputs go in order.
    assert_eq!(claimed.len(), 1);
    assert_eq!(
        (claimed[0].key.as_str(), claimed[0].output.as_str()),
        ("a/0/0", "started")
    );
    assert_eq!(
        (claimed[0].machine.as_str(), claimed[0].step, claimed[0].index),
        ("Job", 0, 0)
    );
    assert_eq!(claimed[0].reply_key(), "reply:a/0/0");
    assert!(
        fleet
            .claim_outputs(10, Duration::from_secs(30))
            .unwrap()
            .is_empty(),
        "leased"
    );
    assert!(fleet.output_done(&claimed[0]).unwrap());
    let mut keys = Vec::new();
    loop {
        let claimed = fleet.claim_outputs(10, Duration::from_secs(30)).unwrap();
        let Some(output) = claimed.first() else { break };
        keys.push(format!("{} {}", output.key, output.output));
        assert!(fleet.output_done(output).unwrap());
    }
    assert_eq!(keys, ["a/1/0 stepped", "a/2/0 finished"]);
}

fn a_refused_event_is_rejected_and_a_foreign_one_dead_and_the_rest_goes_on(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("a", Job::new(Work::default())).unwrap();
    fleet.send("a", &Event::Step, "too-early").unwrap();
    fleet.send("a", &json!({"launch": 1}), "foreign").unwrap();
    fleet.send("a", &Event::Start(1), "start").unwrap();
    let worked = fleet.work(&machines(), 10).unwrap();
    assert_eq!((worked.events, worked.parked.len()), (3, 0));
    assert_eq!(state(&mut fleet, "a"), "fetching");
    assert_eq!(
        inbox(db, "a"),
        [
            ("too-early".to_owned(), "rejected".to_owned()),
            ("foreign".to_owned(), "dead".to_owned()),
            ("start".to_owned(), "done".to_owned()),
        ]
    );
    let error = db.value("SELECT error FROM fsm_inbox WHERE dedup_key = 'foreign'");
    assert!(error.starts_with("not an event of machine `Job`: "), "{error}");

    // A dead event of 16 MiB: its row's error names the path and the type,
    // and quotes none of the value.
    let huge = "x".repeat(16 << 20);
    fleet.send("a", &json!({ "start": huge }), "huge").unwrap();
    assert_eq!(fleet.work(&machines(), 10).unwrap().events, 1);
    let error = db.value("SELECT error FROM fsm_inbox WHERE dedup_key = 'huge'");
    assert_eq!(
        error,
        "not an event of machine `Job`: at `start`: invalid type: string of 16777216 bytes, \
         expected u32 at line 1 column 16777227"
    );
}

fn timers_fire_at_their_deadline_and_not_before(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("a", Job::new(Work::default())).unwrap();
    fleet.send("a", &Event::Start(1), "start").unwrap();
    fleet.work(&machines(), 10).unwrap();
    let deadline = fleet
        .instance("a")
        .unwrap()
        .unwrap()
        .next_wake
        .expect("the timeout is armed");
    // Not due yet: nothing is claimed.
    assert_eq!(fleet.work(&machines(), 10).unwrap().instances, 0);
    while fsm_runtime::Timestamp::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let worked = fleet.work(&machines(), 10).unwrap();
    assert_eq!((worked.instances, worked.timers), (1, 1));
    assert_eq!(state(&mut fleet, "a"), "failed");
    assert_eq!(fleet.work(&machines(), 10).unwrap().instances, 0, "fired once");
}

fn bad_rows_park_their_instance_naming_it_and_lose_nothing(db: &TestDb) {
    let mut fleet = db.open();
    for id in ["good", "other", "fingerprint", "nonsense"] {
        fleet.create(id, Job::new(Work::default())).unwrap();
        fleet.send(id, &Event::Start(1), "start").unwrap();
    }
    // An instance of a machine this worker does not know (its events name
    // its machine).
    db.execute("UPDATE fsm_instances SET machine = 'Invoice' WHERE id = 'other'");
    db.execute("UPDATE fsm_inbox SET machine = 'Invoice' WHERE instance = 'other'");
    db.execute("UPDATE fsm_instances SET fingerprint = 'abc' WHERE id = 'fingerprint'");
    db.execute("UPDATE fsm_instances SET snapshot = '{\"type\": \"fsm\"' WHERE id = 'nonsense'");

    let worked = fleet.work(&machines(), 10).unwrap();
    assert_eq!(worked.instances, 1);
    assert_eq!(state(&mut fleet, "good"), "fetching");
    // A machine this worker does not know is another worker's: left due,
    // its event pending.
    let other = fleet.instance("other").unwrap().unwrap();
    assert_eq!((other.version, other.error.is_none()), (0, true));
    assert_eq!(inbox(db, "other"), [("start".to_owned(), "pending".to_owned())]);
    let parked: Vec<&str> = worked.parked.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(parked, ["fingerprint", "nonsense"]);
    for fsm_fleet::Parked { id, error } in &worked.parked {
        assert!(error.starts_with(&format!("instance `{id}`")), "{error}");
        let instance = fleet.instance(id).unwrap().unwrap();
        assert_eq!(instance.error.as_deref(), Some(error.as_str()));
        assert_eq!(
            (instance.version, instance.next_wake),
            (0, None),
            "{id}: untouched, and not claimed again"
        );
        assert_eq!(
            inbox(db, id),
            [("start".to_owned(), "held".to_owned())],
            "{id}: kept, held for it"
        );
    }
    let error = |id: &str| worked.parked.iter().find(|p| p.id == id).unwrap().error.clone();
    assert_eq!(
        error("fingerprint"),
        format!(
            "instance `fingerprint` of machine `Job` was saved by a different definition \
             (fingerprint abc, this worker has {})",
            <Job as fsm_runtime::Machine>::FINGERPRINT
        )
    );
    assert!(
        error("nonsense").contains("its snapshot does not read"),
        "{}",
        error("nonsense")
    );
    assert_eq!(fleet.work(&machines(), 10).unwrap().instances, 0);

    // Repaired, and put back to work: its event was kept for it.
    db.execute(&format!(
        "UPDATE fsm_instances SET fingerprint = '{}' WHERE id = 'fingerprint'",
        <Job as fsm_runtime::Machine>::FINGERPRINT
    ));
    assert!(fleet.unpark("fingerprint").unwrap());
    assert!(!fleet.unpark("good").unwrap(), "not parked");
    assert!(matches!(
        fleet.unpark("nobody"),
        Err(FleetError::UnknownInstance { .. })
    ));
    assert_eq!(fleet.work(&machines(), 10).unwrap().instances, 1);
    assert_eq!(state(&mut fleet, "fingerprint"), "fetching");
}

fn a_failing_output_is_retried_with_backoff_then_dead_and_the_next_goes_on(db: &TestDb) {
    let mut fleet = db.open().with_max_attempts(2);
    fleet.create("a", Job::new(Work::default())).unwrap();
    fleet.send("a", &Event::Start(1), "start").unwrap();
    fleet.send("a", &Event::Step, "step").unwrap();
    fleet.work(&machines(), 10).unwrap();
    let claimed = fleet.claim_outputs(10, Duration::from_secs(30)).unwrap();
    assert_eq!(claimed[0].key, "a/0/0");
    assert!(matches!(
        fleet
            .output_failed(&claimed[0], "the mail server said no")
            .unwrap(),
        Failed::RetryAt(_)
    ));
    // Backing off (1 s): neither it nor the output after it is claimed.
    assert!(fleet
        .claim_outputs(10, Duration::from_secs(30))
        .unwrap()
        .is_empty());
    db.execute("UPDATE fsm_outbox SET next_attempt = 0 WHERE key = 'a/0/0'");
    let claimed = fleet.claim_outputs(10, Duration::from_secs(30)).unwrap();
    assert_eq!((claimed[0].key.as_str(), claimed[0].attempts), ("a/0/0", 1));
    assert_eq!(
        fleet.output_failed(&claimed[0], "still no").unwrap(),
        Failed::Dead,
        "dead after 2 attempts"
    );
    let claimed = fleet.claim_outputs(10, Duration::from_secs(30)).unwrap();
    assert_eq!(
        claimed[0].key, "a/1/0",
        "a dead output does not hold back the next"
    );
    assert_eq!(
        db.rows("SELECT status, error FROM fsm_outbox WHERE key = 'a/0/0'"),
        [["dead", "still no"]]
    );
}

fn an_event_sent_in_the_caller_s_transaction_is_sent_with_it(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("a", Job::new(Work::default())).unwrap();
    // Sent in a transaction that rolls back (`commit` false), or commits.
    let send_in_transaction = |fleet: &mut Fleet, commit: bool| {
        if let Some(conn) = fleet.sqlite() {
            let mut tx = conn.transaction().unwrap();
            fsm_fleet::send(&mut tx, "a", &Event::Start(1), "start").unwrap();
            if commit {
                tx.commit().unwrap();
            }
            return;
        }
        #[cfg(feature = "postgres")]
        if let Some(client) = fleet.postgres() {
            let mut tx = client.transaction().unwrap();
            fsm_fleet::send(&mut tx, "a", &Event::Start(1), "start").unwrap();
            if commit {
                tx.commit().unwrap();
            }
            return;
        }
        unreachable!("a fleet on {}", db.backend());
    };
    send_in_transaction(&mut fleet, false);
    assert_eq!(
        fleet.work(&machines(), 10).unwrap().events,
        0,
        "rolled back: never sent"
    );
    send_in_transaction(&mut fleet, true);
    assert_eq!(fleet.work(&machines(), 10).unwrap().events, 1);
}

fn a_schema_from_a_newer_version_is_refused(db: &TestDb) {
    drop(db.open());
    db.execute(&format!(
        "UPDATE fsm_fleet_meta SET value = '{}' WHERE key = 'schema_version'",
        fsm_fleet::SCHEMA_VERSION + 1
    ));
    let target = db.target();
    let error = match db.backend() {
        "sqlite" => Fleet::open(&target).map(|_| ()).unwrap_err(),
        #[cfg(feature = "postgres")]
        "postgres" => Fleet::connect(&target).map(|_| ()).unwrap_err(),
        other => unreachable!("{other}"),
    };
    assert_eq!(
        error.to_string(),
        format!(
            "the fleet's database cannot be used: the database has schema version {}, written by a newer \
             fsm-fleet; this build reads version {}: upgrade it",
            fsm_fleet::SCHEMA_VERSION + 1,
            fsm_fleet::SCHEMA_VERSION
        )
    );
}

fn workers_in_two_threads_step_each_instance_once_per_event(db: &TestDb) {
    let mut fleet = db.open();
    for i in 0..50 {
        let id = format!("job-{i}");
        fleet.create(&id, Job::new(Work::default())).unwrap();
        fleet.send(&id, &Event::Start(1), "start").unwrap();
        fleet.send(&id, &Event::Step, "step-1").unwrap();
        fleet.send(&id, &Event::Step, "step-2").unwrap();
    }
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let target = db.target();
            std::thread::spawn(move || {
                let mut fleet = support::open_target(&target);
                let mut events = 0;
                loop {
                    let worked = fleet.work(&machines(), 7).unwrap();
                    if worked.instances == 0 {
                        return events;
                    }
                    events += worked.events;
                }
            })
        })
        .collect();
    let events: usize = workers.into_iter().map(|w| w.join().unwrap()).sum();
    assert_eq!(events, 150, "every event consumed once");
    for i in 0..50 {
        let instance = fleet.instance(&format!("job-{i}")).unwrap().unwrap();
        assert_eq!((instance.state.as_str(), instance.version), ("done", 1));
    }
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_outbox"),
        "150",
        "each output once"
    );
}

fn a_machine_of_timers_alone_is_due_from_its_creation(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("s", sleeper::Sleeper::new()).unwrap();
    let deadline = fleet
        .instance("s")
        .unwrap()
        .unwrap()
        .next_wake
        .expect("armed when created");
    let machines = Machines::new().with::<sleeper::Sleeper>();
    while fsm_runtime::Timestamp::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let worked = fleet.work(&machines, 10).unwrap();
    assert_eq!((worked.timers, worked.outputs), (1, 1));
    assert_eq!(state(&mut fleet, "s"), "woken");
}

fn a_handler_whose_lease_ran_out_cannot_settle_another_s_claim(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("a", Job::new(Work::default())).unwrap();
    fleet.send("a", &Event::Start(1), "start").unwrap();
    fleet.work(&machines(), 10).unwrap();
    let slow = fleet.claim_outputs(1, Duration::ZERO).unwrap().remove(0);
    // Its lease (none) has run out: another handler claims it, performs it.
    let fast = fleet.claim_outputs(1, Duration::from_secs(30)).unwrap().remove(0);
    assert_eq!(slow.key, fast.key);
    assert!(fleet.output_done(&fast).unwrap());
    // The slow handler's failure changes nothing: it stays done.
    assert_eq!(
        fleet.output_failed(&slow, "timed out").unwrap(),
        Failed::LeaseLost
    );
    assert!(!fleet.output_done(&slow).unwrap());
    assert!(fleet
        .claim_outputs(10, Duration::from_secs(30))
        .unwrap()
        .is_empty());
}

fn a_timer_due_before_an_event_was_sent_fires_before_it(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("a", Job::new(Work::default())).unwrap();
    fleet.send("a", &Event::Start(1), "start").unwrap();
    fleet.work(&machines(), 10).unwrap();
    let deadline = fleet.instance("a").unwrap().unwrap().next_wake.unwrap();
    while fsm_runtime::Timestamp::now() <= deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    // Sent after the 200 ms timeout came due, before any worker ran: the
    // timeout wins, and the step is refused in `failed`.
    fleet.send("a", &Event::Step, "late-step").unwrap();
    let worked = fleet.work(&machines(), 10).unwrap();
    assert_eq!((worked.timers, worked.events), (1, 1));
    assert_eq!(state(&mut fleet, "a"), "failed");
    assert_eq!(inbox(db, "a")[1], ("late-step".to_owned(), "rejected".to_owned()));
}

fn a_panicking_effect_parks_its_instance_and_the_batch_goes_on(db: &TestDb) {
    let mut fleet = db.open();
    fleet
        .create("weak", fragile::Fragile::new(Glass { strong: false }))
        .unwrap();
    fleet
        .create("strong", fragile::Fragile::new(Glass { strong: true }))
        .unwrap();
    fleet.send("weak", &fragile::Action::Tap, "tap").unwrap();
    fleet.send("strong", &fragile::Action::Tap, "tap").unwrap();
    let machines = Machines::new().with::<fragile::Fragile>();
    let worked = fleet.work(&machines, 10).unwrap();
    assert_eq!(worked.instances, 1);
    assert_eq!(worked.parked.len(), 1);
    assert_eq!(worked.parked[0].id, "weak");
    assert!(
        worked.parked[0]
            .error
            .ends_with("the step panicked: the glass broke"),
        "{}",
        worked.parked[0].error
    );
    assert_eq!(state(&mut fleet, "strong"), "broken");
    assert_eq!(state(&mut fleet, "weak"), "whole");
    assert_eq!(inbox(db, "weak"), [("tap".to_owned(), "held".to_owned())]);
}

fn an_instance_sent_many_events_steps_them_over_several_batches_in_order(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("a", Job::new(Work::default())).unwrap();
    fleet.send("a", &Event::Start(1), "start").unwrap();
    for i in 0..1_200 {
        fleet.send("a", &Event::Cancel, &format!("cancel-{i}")).unwrap();
    }
    let first = fleet.work(&machines(), 10).unwrap();
    assert_eq!(first.events, 1_000, "at most 1,000 events a step");
    let second = fleet.work(&machines(), 10).unwrap();
    assert_eq!(second.events, 201, "the rest at once: it stayed due");
    assert_eq!(fleet.work(&machines(), 10).unwrap().instances, 0);
}

fn a_batch_of_events_is_sent_in_order_once_and_all_or_nothing(db: &TestDb) {
    let mut fleet = db.open();
    for id in ["a", "b"] {
        fleet.create(id, Job::new(Work::default())).unwrap();
    }
    fleet.send("a", &Event::Start(1), "start-a").unwrap();
    // 250 events: three statements' worth, a key repeated in the batch and
    // one sent before.
    let mut batch = vec![
        ("a", Event::Start(1), "start-a".to_owned()),
        ("b", Event::Start(2), "start-b".to_owned()),
    ];
    for i in 0..246 {
        batch.push(("b", Event::Cancel, format!("cancel-{i}")));
    }
    batch.push(("b", Event::Cancel, "cancel-0".to_owned()));
    batch.push(("a", Event::Step, "step-a".to_owned()));
    let events: Vec<(&str, Event, &str)> = batch.iter().map(|(id, e, k)| (*id, *e, k.as_str())).collect();
    let sent = fleet.send_batch(&events).unwrap();
    assert_eq!(sent.len(), 250);
    assert_eq!(sent[0], Sent::Duplicate, "sent before");
    assert_eq!(sent[1..249].iter().filter(|s| **s == Sent::Accepted).count(), 247);
    assert_eq!(sent[248], Sent::Duplicate, "repeated in the batch");
    assert_eq!(sent[249], Sent::Accepted);
    let keys: Vec<String> = inbox(db, "b").into_iter().map(|(key, _)| key).collect();
    assert_eq!(keys.len(), 247);
    assert_eq!(
        (keys[0].as_str(), keys[1].as_str(), keys[246].as_str()),
        ("start-b", "cancel-0", "cancel-245")
    );

    // An unknown instance sends none of its batch.
    let error = fleet
        .send_batch(&[("a", Event::Cancel, "cancel-a"), ("nobody", Event::Cancel, "x")])
        .unwrap_err();
    assert!(matches!(error, FleetError::UnknownInstance { id } if id == "nobody"));
    assert_eq!(inbox(db, "a").len(), 2, "nothing of the failed batch");

    let worked = fleet.work(&machines(), 10).unwrap();
    assert_eq!((worked.instances, worked.events), (2, 249));
    assert_eq!(state(&mut fleet, "a"), "processing");
    assert_eq!(state(&mut fleet, "b"), "failed");

    // A key given twice in one statement is accepted once, as two sends
    // would be: the inbox holds it once.
    assert_eq!(
        fleet
            .send_batch(&[("a", Event::Cancel, "twice"), ("a", Event::Cancel, "twice")])
            .unwrap(),
        [Sent::Accepted, Sent::Duplicate]
    );
    assert_eq!(inbox(db, "a").len(), 3);
}

fn a_database_of_schema_version_1_is_migrated_when_opened(db: &TestDb) {
    let mut fleet = db.open();
    for id in ["a", "parked"] {
        fleet.create(id, Job::new(Work::default())).unwrap();
        fleet.send(id, &Event::Start(1), "start").unwrap();
    }
    drop(fleet);
    // What version 1 had: no machine in the inbox, no index of due events,
    // a parked instance's events pending, an event's instance due now.
    db.execute(UNDO_V3);
    db.execute(
        "DROP INDEX fsm_inbox_due;
         DROP INDEX fsm_instances_wake;
         ALTER TABLE fsm_inbox DROP COLUMN machine;
         UPDATE fsm_instances SET next_wake = 0;
         UPDATE fsm_instances SET error = 'parked by hand', next_wake = NULL WHERE id = 'parked';
         UPDATE fsm_fleet_meta SET value = '1' WHERE key = 'schema_version'",
    );
    let mut fleet = db.open();
    assert_eq!(
        db.value("SELECT value FROM fsm_fleet_meta WHERE key = 'schema_version'"),
        fsm_fleet::SCHEMA_VERSION.to_string()
    );
    assert_eq!(
        db.rows("SELECT instance, machine, status FROM fsm_inbox ORDER BY seq"),
        [["a", "Job", "pending"], ["parked", "Job", "held"]]
    );
    let worked = fleet.work(&machines(), 10).unwrap();
    assert_eq!((worked.instances, worked.events), (1, 1));
    assert_eq!(state(&mut fleet, "a"), "fetching");
    assert!(fleet.unpark("parked").unwrap());
    assert_eq!(
        fleet.work(&machines(), 10).unwrap().events,
        1,
        "its held event, once unparked"
    );
    // Opened again: migrated once.
    drop(db.open());
}

fn a_write_refused_parks_its_instance_and_the_rest_of_the_batch_is_saved(db: &TestDb) {
    let mut fleet = db.open();
    for id in ["a", "b", "c"] {
        fleet.create(id, Job::new(Work::default())).unwrap();
        fleet.send(id, &Event::Start(1), "start").unwrap();
    }
    assert_eq!(fleet.work(&machines(), 10).unwrap().instances, 3);
    // The key `b`'s next step will give its output, taken: as if its
    // history had been set back by hand.
    db.execute(
        "INSERT INTO fsm_outbox (key, instance, step, idx, output, next_attempt, created_at)
         VALUES ('b/1/0', 'b', 1, 0, 'stepped', 0, 0)",
    );
    for id in ["a", "b", "c"] {
        fleet.send(id, &Event::Step, "step").unwrap();
    }
    let worked = fleet.work(&machines(), 10).unwrap();
    assert_eq!((worked.instances, worked.events), (2, 2), "a and c saved");
    assert_eq!(worked.parked.len(), 1);
    assert_eq!(worked.parked[0].id, "b");
    assert_eq!(
        worked.parked[0].error,
        "instance `b` of machine `Job`: an output of this step is in the outbox already (`b/1/0`): its \
         history numbers a step it numbered before"
    );
    assert_eq!(state(&mut fleet, "a"), "processing");
    assert_eq!(state(&mut fleet, "c"), "processing");
    let b = fleet.instance("b").unwrap().unwrap();
    assert_eq!((b.state.as_str(), b.version), ("fetching", 1), "b untouched");
    assert_eq!(
        inbox(db, "b"),
        [
            ("start".to_owned(), "done".to_owned()),
            ("step".to_owned(), "held".to_owned())
        ]
    );
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_outbox WHERE instance = 'b'"),
        "2"
    );
}

/// Versions 4 and 3 undone: the indexes of deadlines as they were, no time
/// an output was settled, none of the indexes a prune reads.
const UNDO_V3: &str = "
    DROP INDEX fsm_instances_parked;
    DROP INDEX fsm_instances_definition;
    CREATE INDEX fsm_instances_wake ON fsm_instances (next_wake) WHERE next_wake IS NOT NULL;
    DROP INDEX fsm_instances_due;
    CREATE INDEX fsm_instances_due ON fsm_instances (machine, next_wake) WHERE next_wake IS NOT NULL;
    DROP INDEX fsm_outbox_settled;
    DROP INDEX fsm_outbox_instance;
    DROP INDEX fsm_inbox_consumed;
    DROP INDEX fsm_instances_machine_state;
    CREATE INDEX fsm_instances_machine_state ON fsm_instances (machine, state);
    ALTER TABLE fsm_outbox DROP COLUMN settled_at;
    UPDATE fsm_fleet_meta SET value = '2' WHERE key = 'schema_version'";

fn a_database_of_schema_version_2_is_migrated_when_opened(db: &TestDb) {
    let mut fleet = db.open().with_max_attempts(1);
    for id in ["done", "dead", "pending"] {
        fleet.create(id, Job::new(Work::default())).unwrap();
        fleet.send(id, &Event::Start(1), "start").unwrap();
    }
    fleet.work(&machines(), 10).unwrap();
    for output in fleet.claim_outputs(10, Duration::from_secs(30)).unwrap() {
        match output.instance.as_str() {
            "done" => assert!(fleet.output_done(&output).unwrap()),
            "dead" => assert_eq!(fleet.output_failed(&output, "no").unwrap(), Failed::Dead),
            _ => {}
        }
    }
    drop(fleet);
    db.execute(UNDO_V3);
    let mut fleet = db.open();
    assert_eq!(
        db.value("SELECT value FROM fsm_fleet_meta WHERE key = 'schema_version'"),
        fsm_fleet::SCHEMA_VERSION.to_string()
    );
    // Settled before version 3: as settled when written, the nearest time
    // the row holds; a pending output is not settled.
    assert_eq!(
        db.rows(
            "SELECT instance, status, CASE WHEN settled_at = created_at THEN 'created' \
             WHEN settled_at IS NULL THEN 'none' ELSE 'other' END FROM fsm_outbox ORDER BY instance"
        ),
        [
            ["dead", "dead", "created"],
            ["done", "done", "created"],
            ["pending", "pending", "none"]
        ]
    );
    db.execute(
        "UPDATE fsm_outbox SET created_at = created_at - 864000000, settled_at = settled_at - 864000000",
    );
    let pruned = fleet.prune(&Prune::new().outputs(DAY)).unwrap();
    assert_eq!(
        pruned,
        Pruned {
            outputs: 1,
            ..Pruned::default()
        }
    );
    // Opened again: migrated once.
    drop(db.open());
}

const DAY: Duration = Duration::from_secs(24 * 3600);

/// Ten days, in the tables' milliseconds.
const TEN_DAYS: i64 = 10 * 24 * 3600 * 1000;

/// Set instance `id`'s times ten days back: when it last changed, when its
/// events were consumed and its outputs settled.
fn age(db: &TestDb, id: &str) {
    db.execute(&format!(
        "UPDATE fsm_instances SET updated_at = updated_at - {TEN_DAYS} WHERE id = '{id}';
         UPDATE fsm_inbox SET consumed_at = consumed_at - {TEN_DAYS} WHERE instance = '{id}';
         UPDATE fsm_outbox SET settled_at = settled_at - {TEN_DAYS} WHERE instance = '{id}'"
    ));
}

/// A job sent `start` and `cancel`: `failed`, a terminal state, with two
/// events consumed and its output `started` written.
fn finish(fleet: &mut Fleet, id: &str) {
    fleet.create(id, Job::new(Work::default())).unwrap();
    fleet.send(id, &Event::Start(1), "start").unwrap();
    fleet.send(id, &Event::Cancel, "cancel").unwrap();
}

/// Every row of the fleet, for comparing before and after: instances with
/// their state, events with their status, outputs with theirs.
fn everything(db: &TestDb) -> Vec<Vec<String>> {
    let mut rows = db.rows("SELECT id, state FROM fsm_instances ORDER BY id");
    rows.extend(db.rows("SELECT instance, dedup_key, status FROM fsm_inbox ORDER BY instance, seq"));
    rows.extend(db.rows("SELECT key, status FROM fsm_outbox ORDER BY key"));
    rows
}

/// A fleet with one of each thing a prune must tell apart, every time of
/// those called old ten days back:
/// - `old-finished`: failed (terminal), its output done: finished;
/// - `new-finished`: the same, but now;
/// - `old-live`: processing (not terminal), with an event taken, one
///   rejected, one dead, one pending, and its outputs done;
/// - `old-pending-output`: failed, its output pending;
/// - `old-dead-output`: failed, its output dead;
/// - `old-parked`: failed, its output done, parked;
/// - `old-late-event`: failed, its output done, sent an event since;
/// - `parked`: queued and parked, an event held.
fn retention_fixture(db: &TestDb) -> Fleet {
    let mut fleet = db.open().with_max_attempts(1);
    for id in [
        "old-finished",
        "new-finished",
        "old-pending-output",
        "old-dead-output",
        "old-parked",
        "old-late-event",
    ] {
        finish(&mut fleet, id);
    }
    fleet.create("old-live", Job::new(Work::default())).unwrap();
    fleet.send("old-live", &Event::Start(1), "start").unwrap();
    fleet.send("old-live", &Event::Step, "step").unwrap();
    fleet.send("old-live", &Event::Start(2), "start-again").unwrap();
    fleet.send("old-live", &json!({"bogus": 1}), "bogus").unwrap();
    fleet.create("parked", Job::new(Work::default())).unwrap();
    db.execute("UPDATE fsm_instances SET error = 'parked by hand', next_wake = NULL WHERE id = 'parked'");
    fleet.send("parked", &Event::Start(1), "held").unwrap();
    let worked = fleet.work(&machines(), 100).unwrap();
    assert_eq!((worked.instances, worked.events, worked.outputs), (7, 16, 8));
    loop {
        let claimed = fleet.claim_outputs(100, Duration::from_secs(30)).unwrap();
        let mut settled = 0;
        for output in &claimed {
            match output.instance.as_str() {
                "old-pending-output" => {}
                "old-dead-output" => {
                    assert_eq!(fleet.output_failed(output, "no").unwrap(), Failed::Dead);
                    settled += 1;
                }
                _ => {
                    assert!(fleet.output_done(output).unwrap());
                    settled += 1;
                }
            }
        }
        if settled == 0 {
            break;
        }
    }
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_outbox WHERE (status = 'pending') = (settled_at IS NOT NULL)"),
        "0",
        "done and dead outputs say when they were settled, pending ones do not"
    );
    for id in [
        "old-finished",
        "old-live",
        "old-pending-output",
        "old-dead-output",
        "old-parked",
        "old-late-event",
        "parked",
    ] {
        age(db, id);
    }
    db.execute("UPDATE fsm_instances SET error = 'parked by hand' WHERE id = 'old-parked'");
    fleet.send("old-live", &Event::Step, "later").unwrap();
    fleet.send("old-late-event", &Event::Step, "late").unwrap();
    fleet
}

fn each_prune_rule_deletes_what_it_names_and_nothing_else(db: &TestDb) {
    let mut fleet = retention_fixture(db);
    assert_eq!(
        fleet.prune(&Prune::new()).unwrap(),
        Pruned::default(),
        "no rule, nothing deleted"
    );

    // Finished: only `old-finished`, with its events and output.
    let pruned = fleet.prune(&Prune::new().finished(DAY, &machines())).unwrap();
    assert_eq!(
        pruned,
        Pruned {
            instances: 1,
            events: 2,
            outputs: 1,
            ..Pruned::default()
        }
    );
    assert_eq!(fleet.instance("old-finished").unwrap(), None);
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_inbox WHERE instance = 'old-finished'"),
        "0"
    );
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_outbox WHERE instance = 'old-finished'"),
        "0"
    );
    assert!(matches!(
        fleet.send("old-finished", &Event::Step, "after"),
        Err(FleetError::UnknownInstance { .. })
    ));
    // Terminal states of another machine, or of another definition of this
    // one, finish none of its instances. Those another definition of `Job`
    // calls finished are counted as skipped: the five `failed` and the one
    // `queued` (`parked`).
    let other = Machines::new().with::<sleeper::Sleeper>();
    let other_definition = TerminalStates::new().with("Job", "0123456789abcdef", ["failed", "queued"]);
    for (terminal, skipped) in [(other.terminal_states(), 0), (other_definition, 6)] {
        assert_eq!(
            fleet
                .prune(&Prune::new().finished(Duration::ZERO, terminal))
                .unwrap(),
            Pruned {
                skipped,
                ..Pruned::default()
            }
        );
    }

    // Events: the old ones taken or rejected; not the dead one, the pending
    // ones, the held one, or the recent ones.
    let pruned = fleet.prune(&Prune::new().events(DAY)).unwrap();
    assert_eq!(
        pruned,
        Pruned {
            events: 11,
            ..Pruned::default()
        }
    );
    assert_eq!(
        db.rows("SELECT instance, dedup_key, status FROM fsm_inbox ORDER BY instance, seq"),
        [
            ["new-finished", "start", "done"],
            ["new-finished", "cancel", "done"],
            ["old-late-event", "late", "pending"],
            ["old-live", "bogus", "dead"],
            ["old-live", "later", "pending"],
            ["parked", "held", "held"],
        ]
    );

    // Outputs: the old done ones; not the pending one, the dead one, or the
    // recent one.
    let pruned = fleet.prune(&Prune::new().outputs(DAY)).unwrap();
    assert_eq!(
        pruned,
        Pruned {
            outputs: 4,
            ..Pruned::default()
        }
    );
    assert_eq!(
        db.rows("SELECT key, status FROM fsm_outbox ORDER BY key"),
        [
            ["new-finished/0/0", "done"],
            ["old-dead-output/0/0", "dead"],
            ["old-pending-output/0/0", "pending"],
        ]
    );

    // Nothing finished is left: each instance keeps something, or is recent.
    assert_eq!(
        fleet.prune(&Prune::new().finished(DAY, &machines())).unwrap(),
        Pruned::default()
    );

    // Dead rows, only when asked, and only the old ones; with them gone,
    // `old-dead-output` is finished.
    db.execute(&format!(
        "UPDATE fsm_inbox SET consumed_at = consumed_at + {TEN_DAYS} WHERE dedup_key = 'bogus'"
    ));
    assert_eq!(
        fleet.prune(&Prune::new().dead(DAY)).unwrap(),
        Pruned {
            dead_outputs: 1,
            ..Pruned::default()
        },
        "the dead event is recent, the dead output 10 days old"
    );
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_inbox WHERE status = 'dead'"),
        "1"
    );
    age(db, "old-live");
    // Another dead output of `old-dead-output`, which the same prune deletes
    // before it looks for finished instances.
    db.execute(
        "INSERT INTO fsm_outbox (key, instance, step, idx, output, status, next_attempt, created_at, settled_at)
         VALUES ('old-dead-output/9/0', 'old-dead-output', 9, 0, 'started', 'dead', 0, 0, 0)",
    );
    let pruned = fleet
        .prune(&Prune::new().dead(DAY).finished(DAY, &machines()))
        .unwrap();
    assert_eq!(
        pruned,
        Pruned {
            dead_events: 1,
            dead_outputs: 1,
            instances: 1,
            ..Pruned::default()
        }
    );
    assert_eq!(fleet.instance("old-dead-output").unwrap(), None);

    let left = db.rows(
        "SELECT id, state, CASE WHEN error IS NULL THEN '' ELSE 'parked' END FROM fsm_instances ORDER BY id",
    );
    assert_eq!(
        left,
        [
            ["new-finished", "failed", ""],
            ["old-late-event", "failed", ""],
            ["old-live", "processing", ""],
            ["old-parked", "failed", "parked"],
            ["old-pending-output", "failed", ""],
            ["parked", "queued", "parked"],
        ]
    );
    // What is left still works: the held event, once unparked, is taken.
    assert!(fleet.unpark("parked").unwrap());
    assert_eq!(fleet.work(&machines(), 10).unwrap().events, 3);
}

fn a_deduplication_key_is_refused_until_its_event_is_pruned(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("a", Job::new(Work::default())).unwrap();
    assert_eq!(fleet.send("a", &Event::Start(1), "k").unwrap(), Sent::Accepted);
    fleet.work(&machines(), 10).unwrap();
    assert_eq!(fleet.send("a", &Event::Start(1), "k").unwrap(), Sent::Duplicate);
    // Consumed now: younger than the rule's age, it is kept, and the key
    // still refused.
    assert_eq!(fleet.prune(&Prune::new().events(DAY)).unwrap(), Pruned::default());
    assert_eq!(fleet.send("a", &Event::Start(1), "k").unwrap(), Sent::Duplicate);
    age(db, "a");
    assert_eq!(fleet.prune(&Prune::new().events(DAY)).unwrap().events, 1);
    // Its row gone, the key is new again: the deduplication window is the
    // rule's age.
    assert_eq!(fleet.send("a", &Event::Start(1), "k").unwrap(), Sent::Accepted);
    assert_eq!(inbox(db, "a"), [("k".to_owned(), "pending".to_owned())]);
}

fn pruning_a_backlog_larger_than_a_batch_takes_several_batches(db: &TestDb) {
    let mut fleet = db.open();
    // Eleven finished instances (one recent, amid them in id order), three
    // rows each besides their own: more than a batch of three each.
    for n in 0..11 {
        finish(&mut fleet, &format!("job-{n:02}"));
    }
    // A terminal instance with 25 events: 24 of them refused.
    fleet.create("busy", Job::new(Work::default())).unwrap();
    for n in 0..25 {
        fleet
            .send("busy", &Event::Cancel, &format!("cancel-{n}"))
            .unwrap();
    }
    fleet.create("idle", Job::new(Work::default())).unwrap();
    fleet.work(&machines(), 100).unwrap();
    loop {
        let claimed = fleet.claim_outputs(100, Duration::from_secs(30)).unwrap();
        if claimed.is_empty() {
            break;
        }
        for output in &claimed {
            assert!(fleet.output_done(output).unwrap());
        }
    }
    for n in 0..11 {
        if n != 5 {
            age(db, &format!("job-{n:02}"));
        }
    }
    age(db, "busy");
    fleet.send("busy", &Event::Start(1), "pending").unwrap();

    let rules = Prune::new().finished(DAY, &machines()).batch_size(3);
    assert_eq!(
        fleet.prune(&rules).unwrap(),
        Pruned {
            instances: 10,
            events: 20,
            outputs: 10,
            ..Pruned::default()
        }
    );
    assert_eq!(
        db.rows("SELECT id FROM fsm_instances ORDER BY id"),
        [["busy"], ["idle"], ["job-05"]]
    );
    let rules = Prune::new().events(DAY).batch_size(3);
    assert_eq!(fleet.prune(&rules).unwrap().events, 25, "8 batches of 3, then 1");
    assert_eq!(inbox(db, "busy"), [("pending".to_owned(), "pending".to_owned())]);
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_inbox WHERE instance = 'job-05'"),
        "2"
    );
}

fn a_dry_run_counts_what_a_prune_deletes_and_deletes_nothing(db: &TestDb) {
    let mut fleet = retention_fixture(db);
    let rules = Prune::new()
        .events(DAY)
        .outputs(DAY)
        .finished(DAY, &machines())
        .dead(DAY)
        .batch_size(2);
    let before = everything(db);
    let counted = fleet.prune(&rules.clone().dry_run(true)).unwrap();
    assert_eq!(everything(db), before, "a dry run deletes nothing");
    // `old-finished` and, its dead output gone first, `old-dead-output`;
    // every old event taken or rejected, every old output done.
    assert_eq!(
        counted,
        Pruned {
            events: 13,
            dead_events: 1,
            outputs: 5,
            dead_outputs: 1,
            instances: 2,
            skipped: 0,
        }
    );
    assert_eq!(
        fleet.prune(&rules).unwrap(),
        counted,
        "what the dry run counted is deleted"
    );
    assert_eq!(
        fleet.prune(&rules.dry_run(true)).unwrap(),
        Pruned::default(),
        "nothing left to count"
    );
}

fn an_event_left_for_a_pruned_instance_is_deleted_by_the_next_prune(db: &TestDb) {
    let mut fleet = db.open();
    finish(&mut fleet, "gone");
    fleet.create("live", Job::new(Work::default())).unwrap();
    fleet.work(&machines(), 10).unwrap();
    let claimed = fleet.claim_outputs(10, Duration::from_secs(30)).unwrap();
    assert!(fleet.output_done(&claimed[0]).unwrap());
    age(db, "gone");
    assert_eq!(
        fleet
            .prune(&Prune::new().finished(DAY, &machines()))
            .unwrap()
            .instances,
        1
    );
    // What a send that read `gone` before the prune deleted it, and
    // committed after, leaves on PostgreSQL: a pending event of no instance.
    db.execute(
        "INSERT INTO fsm_inbox (instance, machine, dedup_key, event, status, sent_at)
         VALUES ('gone', 'Job', 'late', '\"Step\"', 'pending', 0)",
    );
    fleet.send("live", &Event::Start(1), "start").unwrap();
    assert_eq!(
        fleet.prune(&Prune::new().finished(DAY, &machines())).unwrap(),
        Pruned {
            events: 1,
            ..Pruned::default()
        }
    );
    assert_eq!(
        db.rows("SELECT instance, dedup_key, status FROM fsm_inbox ORDER BY seq"),
        [["live", "start", "pending"]]
    );
}

fsm_runtime::fsm! {
    /// `go` ends in a guarded cycle, which runs away while `spin` holds.
    #[allow(guarded-cycle)]
    machine Spinner {
        action go, reset;
        guard spin;
        output started, stopped;
        initial state idle { on go -> a emit started; }
        state a { always [spin] -> b; always -> idle; on reset -> idle emit stopped; }
        state b { always [spin] -> a; }
    }
}

/// `spin` always holds.
struct Spin;

impl spinner::Guards for Spin {
    fn spin(&self) -> bool {
        true
    }
}

fn a_runaway_event_moves_its_instance_keeps_its_outputs_and_is_marked_runaway(db: &TestDb) {
    let machines = Machines::new().with_guards::<spinner::Spinner, _>(Spin);
    let mut fleet = db.open();
    fleet.create("s", spinner::Spinner::new()).unwrap();
    fleet.send("s", &spinner::Action::Go, "go").unwrap();
    let worked = fleet.work(&machines, 10).unwrap();
    assert_eq!((worked.events, worked.outputs, worked.parked.len()), (1, 1, 0));
    // Where the 1,000th microstep left it (an even number of turns from `a`),
    // saved, with the move in its history.
    let instance = fleet.instance("s").unwrap().unwrap();
    assert_eq!(instance.state, "a");
    assert!(instance.snapshot.contains(r#""to":"a""#), "{}", instance.snapshot);
    assert_eq!(inbox(db, "s"), [("go".to_owned(), "runaway".to_owned())]);
    let error = db.value("SELECT error FROM fsm_inbox WHERE dedup_key = 'go'");
    assert!(
        error.starts_with("action `go` did not settle: ")
            && error.contains("stopped in `a` after emitting 1 outputs"),
        "{error}"
    );
    // Its output is delivered as a taken event's.
    let claimed = fleet.claim_outputs(10, Duration::from_secs(30)).unwrap();
    assert_eq!(
        claimed
            .iter()
            .map(|o| (o.key.as_str(), o.output.as_str()))
            .collect::<Vec<_>>(),
        [("s/0/0", "started")]
    );
    assert!(fleet.output_done(&claimed[0]).unwrap());

    // The next event steps from there.
    fleet.send("s", &spinner::Action::Reset, "reset").unwrap();
    let worked = fleet.work(&machines, 10).unwrap();
    assert_eq!((worked.events, worked.outputs), (1, 1));
    assert_eq!(state(&mut fleet, "s"), "idle");
    assert_eq!(inbox(db, "s")[1], ("reset".to_owned(), "done".to_owned()));

    // Inspection counts it and shows its error.
    let mut conn = fsm_fleet::inspect::open(&db.target()).unwrap();
    let detail = fsm_fleet::inspect::instance(&mut conn, "s").unwrap().unwrap();
    assert_eq!(
        (detail.inbox.done, detail.inbox.runaway, detail.inbox.rejected),
        (1, 1, 0)
    );
    assert_eq!(detail.runaway_events.len(), 1);
    assert_eq!(detail.runaway_events[0].error.as_deref(), Some(error.as_str()));

    // Consumed, it is pruned as the others are.
    let pruned = fleet.prune(&Prune::new().events(Duration::ZERO)).unwrap();
    assert_eq!(pruned.events, 2);
    assert!(inbox(db, "s").is_empty());
}
