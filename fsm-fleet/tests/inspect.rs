//! `fsm_fleet::inspect`: read-only, bounded by its limits, counted by the
//! database.

use fsm_fleet::{inspect, Fleet, FleetError, Machines};
use fsm_runtime::Timestamp;

fsm_runtime::fsm! {
    machine Ticket {
        action open, close;
        initial state new { on open -> open; }
        state open { on close -> closed; }
        terminal state closed;
    }
}

use ticket::{Action, Ticket};

#[test]
fn lists_are_bounded_and_counts_cover_everything() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fleet.db");
    let mut fleet = Fleet::open(&path).unwrap();
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

    let conn = inspect::open_read_only(&path).unwrap();
    let listed = inspect::instances(&conn, None, None, 2).unwrap();
    let ids: Vec<&str> = listed.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["t0", "t1"]);
    let open = inspect::instances(&conn, Some("Ticket"), Some("new"), 10).unwrap();
    assert_eq!(open.len(), 2);
    let counts: Vec<(String, String, u64)> = inspect::counts(&conn)
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

    let detail = inspect::instance_with_limit(&conn, "t4", 3).unwrap().unwrap();
    assert_eq!(detail.inbox.pending, 4);
    let keys: Vec<&str> = detail
        .pending_events
        .iter()
        .map(|e| e.dedup_key.as_str())
        .collect();
    assert_eq!(keys, ["a", "b", "c"]);
    assert_eq!(detail.snapshot.as_ref().unwrap().state, "new");
    assert!(inspect::instance(&conn, "t9").unwrap().is_none());

    let due = inspect::due(&conn, Timestamp::now()).unwrap();
    assert_eq!((due.instances_due, due.events_pending, due.parked), (1, 4, 0));
    assert_eq!(
        inspect::due(&conn, Timestamp::UNIX_EPOCH).unwrap().instances_due,
        0
    );
}

#[test]
fn the_connection_cannot_write_and_opens_only_fleets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fleet.db");
    drop(Fleet::open(&path).unwrap());
    let conn = inspect::open_read_only(&path).unwrap();
    assert!(conn.execute("DELETE FROM fsm_instances", []).is_err());

    let missing = dir.path().join("missing.db");
    assert!(matches!(
        inspect::open_read_only(&missing),
        Err(FleetError::Database(_))
    ));
    assert!(!missing.exists());
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    let error = inspect::open_read_only(&other).unwrap_err();
    assert!(error.to_string().contains("is not a fleet database"), "{error}");
}
