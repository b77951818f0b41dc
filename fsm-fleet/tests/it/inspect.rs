//! `fsm_fleet::inspect`: read-only, bounded by its limits, counted by the
//! database, on SQLite and on PostgreSQL.

use crate::support;

use fsm_fleet::{inspect, FleetError, Machines};
use fsm_runtime::Timestamp;
use support::TestDb;

on_both_backends!(
    lists_are_bounded_and_counts_cover_everything,
    only_fleets_are_opened,
    an_instance_due_for_an_event_is_not_waiting_for_its_timer
);

fsm_runtime::fsm! {
    machine Ticket {
        action open, close;
        initial state new { on open -> open; }
        state open { on close -> closed; }
        terminal state closed;
    }
}

use ticket::{Action, Ticket};

fn lists_are_bounded_and_counts_cover_everything(db: &TestDb) {
    let mut fleet = db.open();
    for n in 0..5 {
        fleet.create(&format!("t{n}"), Ticket::new()).unwrap();
    }
    for n in 0..3 {
        fleet.send(&format!("t{n}"), &Action::Open, "open").unwrap();
    }
    fleet.work(&Machines::new().with::<Ticket>(), 10).unwrap();
    for key in ["a", "b", "c", "d"] {
        fleet.send("t4", &Action::Open, key).unwrap();
    }

    let mut conn = inspect::open(&db.target()).unwrap();
    let listed = inspect::instances(&mut conn, None, None, 2).unwrap();
    let ids: Vec<&str> = listed.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["t0", "t1"]);
    let open = inspect::instances(&mut conn, Some("Ticket"), Some("new"), 10).unwrap();
    assert_eq!(open.len(), 2);
    let counts: Vec<(String, String, u64)> = inspect::counts(&mut conn)
        .unwrap()
        .into_iter()
        .map(|c| (c.machine, c.state, c.instances))
        .collect();
    assert_eq!(
        counts,
        [
            ("Ticket".to_owned(), "new".to_owned(), 2),
            ("Ticket".to_owned(), "open".to_owned(), 3)
        ]
    );

    let detail = inspect::instance_with_limit(&mut conn, "t4", 3).unwrap().unwrap();
    assert_eq!(detail.inbox.pending, 4);
    let keys: Vec<&str> = detail
        .pending_events
        .iter()
        .map(|e| e.dedup_key.as_str())
        .collect();
    assert_eq!(keys, ["a", "b", "c"]);
    assert_eq!(detail.snapshot.as_ref().unwrap().state, "new");
    assert!(inspect::instance(&mut conn, "t9").unwrap().is_none());

    let due = inspect::due(&mut conn, Timestamp::now()).unwrap();
    assert_eq!((due.instances_due, due.events_pending, due.parked), (1, 4, 0));
    assert_eq!(
        inspect::due(&mut conn, Timestamp::UNIX_EPOCH)
            .unwrap()
            .instances_due,
        0
    );
}

fsm_runtime::fsm! {
    machine Reminder {
        initial state waiting { after 1h -> late; on done -> finished; }
        state late { on done -> finished; }
        terminal state finished;
    }
}

fn an_instance_due_for_an_event_is_not_waiting_for_its_timer(db: &TestDb) {
    let mut fleet = db.open();
    fleet.create("r1", reminder::Reminder::new()).unwrap();
    fleet.send("r1", &reminder::Action::Done, "done-1").unwrap();
    let mut conn = inspect::open(&db.target()).unwrap();
    // Its deadline is an hour away, but its event is due now.
    let due = inspect::due(&mut conn, Timestamp::now()).unwrap();
    assert_eq!(
        (due.instances_due, due.instances_waiting, due.next_wake),
        (1, 0, None)
    );
    // Another one, waiting for its timer alone, names its deadline.
    fleet.create("r2", reminder::Reminder::new()).unwrap();
    let due = inspect::due(&mut conn, Timestamp::now()).unwrap();
    assert_eq!((due.instances_due, due.instances_waiting), (1, 1));
    let r2 = inspect::instance(&mut conn, "r2").unwrap().unwrap();
    assert_eq!(due.next_wake, r2.next_wake);
    assert!(due.next_wake.is_some());
}

fn only_fleets_are_opened(db: &TestDb) {
    let not_a_fleet = |error: FleetError| {
        assert!(matches!(error, FleetError::Schema { .. }), "{error:?}");
        assert!(error.to_string().contains("is not a fleet database"), "{error}");
    };
    match db.backend() {
        "sqlite" => {
            // A file that is SQLite, without the fleet's tables.
            db.execute("CREATE TABLE t (x)");
            not_a_fleet(inspect::open(&db.target()).unwrap_err());
            // A file that is not SQLite.
            let dir = tempfile::tempdir().unwrap();
            let text = dir.path().join("notes.txt");
            std::fs::write(
                &text,
                "not a database, but long enough to have a page header of its own. ".repeat(2),
            )
            .unwrap();
            not_a_fleet(inspect::open_read_only(&text).unwrap_err());
            // A file that is missing is not created.
            let missing = dir.path().join("missing.db");
            assert!(matches!(
                inspect::open_read_only(&missing),
                Err(FleetError::Database(_))
            ));
            assert!(!missing.exists());
        }
        _ => {
            // A schema without the fleet's tables: reading never creates them.
            not_a_fleet(inspect::open(&db.target()).unwrap_err());
            assert_eq!(
                db.value("SELECT COUNT(*) FROM pg_tables WHERE tablename LIKE 'fsm_%' AND schemaname = current_schema()"),
                "0"
            );
        }
    }
    // A fleet of a newer schema is refused by name.
    let db2 = match db.backend() {
        "sqlite" => TestDb::sqlite(),
        _ => TestDb::postgres("only_fleets_are_opened_newer").unwrap(),
    };
    drop(db2.open());
    db2.execute("UPDATE fsm_fleet_meta SET value = '99' WHERE key = 'schema_version'");
    let error = inspect::open(&db2.target()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("has schema version 99, written by a newer fsm-fleet"),
        "{error}"
    );
}
