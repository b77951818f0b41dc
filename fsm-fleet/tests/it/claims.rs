//! Claims in batches, on SQLite and on PostgreSQL: outputs settled and
//! failed a batch at a time, with a lease lost within the batch; a burst of
//! timers fired by claims that start past the deadlines already fired; and
//! the plan of the claim of due timers, which must read the index of
//! deadlines in order however the planner's statistics stand.

#![deny(warnings)]

use crate::support;

use fsm_fleet::{Failed, Machines};
use std::time::Duration;
use support::TestDb;

on_both_backends!(
    a_batch_of_outputs_is_settled_at_once_and_a_lost_lease_only_loses_its_own,
    a_batch_of_outputs_fails_at_once_and_a_lost_lease_only_loses_its_own,
    a_burst_of_timers_fires_each_once_whatever_the_batch,
    a_deadline_behind_the_claims_bound_fires_at_the_next_sweep,
    the_claim_of_due_timers_reads_the_index_of_deadlines_in_order,
);

fsm_runtime::fsm! {
    /// Two outputs per event, so that an instance has several pending.
    machine Echo {
        action ping, stop;
        output first, second;
        initial state idle { on ping emit first, second; on stop -> stopped; }
        terminal state stopped;
    }
}

fsm_runtime::fsm! {
    /// No action: only a timer moves it.
    machine Nap {
        initial state waiting { after 1ms -> woken emit woke; }
        terminal state woken;
    }
}

fn machines() -> Machines {
    Machines::new().with::<echo::Echo>().with::<nap::Nap>()
}

/// Instances `a`, `b` and `c`, each pinged once and stepped: two pending
/// outputs each, of which a claim takes the first.
fn three_pinged(db: &TestDb) -> fsm_fleet::Fleet {
    let mut fleet = db.open().with_max_attempts(2);
    for id in ["a", "b", "c"] {
        fleet.create(id, echo::Echo::new()).unwrap();
        fleet.send(id, &echo::Action::Ping, "ping").unwrap();
    }
    assert_eq!(fleet.work(&machines(), 10).unwrap().outputs, 6);
    fleet
}

fn a_batch_of_outputs_is_settled_at_once_and_a_lost_lease_only_loses_its_own(db: &TestDb) {
    let mut fleet = three_pinged(db);
    // A slow handler's claims run out at once; a second handler takes one.
    let mut slow = fleet.claim_outputs(10, Duration::ZERO).unwrap();
    slow.sort_by(|x, y| x.key.cmp(&y.key));
    let keys: Vec<&str> = slow.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(keys, ["a/0/0", "b/0/0", "c/0/0"], "the first of each instance");
    let taken = fleet.claim_outputs(1, Duration::from_secs(30)).unwrap().remove(0);
    let lost = slow.iter().position(|o| o.key == taken.key).unwrap();
    let settled = fleet.outputs_done(&slow).unwrap();
    let expected: Vec<bool> = (0..3).map(|i| i != lost).collect();
    assert_eq!(settled, expected, "all but the one taken over");
    let status = |key: &str| db.value(&format!("SELECT status FROM fsm_outbox WHERE key = '{key}'"));
    assert_eq!(
        status(&taken.key),
        "pending",
        "the lost one is left to its new claim"
    );
    // Settled: their instances' next outputs are claimable, the lost one's
    // instance waits for it.
    let mut next: Vec<String> = fleet
        .claim_outputs(10, Duration::from_secs(30))
        .unwrap()
        .into_iter()
        .map(|o| o.key)
        .collect();
    next.sort();
    let mut expected: Vec<String> = ["a", "b", "c"]
        .iter()
        .filter(|id| !taken.key.starts_with(*id))
        .map(|id| format!("{id}/0/1"))
        .collect();
    expected.sort();
    assert_eq!(next, expected);
    // The new claim settles it; settling again, or a claim given twice in
    // one batch, settles nothing more.
    assert_eq!(
        fleet.outputs_done(&[taken.clone(), taken.clone()]).unwrap(),
        [true, false]
    );
    assert_eq!(fleet.outputs_done(&[taken]).unwrap(), [false]);
    assert_eq!(fleet.outputs_done(&slow).unwrap(), [false, false, false]);
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_outbox WHERE status = 'done' AND settled_at IS NOT NULL"),
        "3"
    );
    assert_eq!(fleet.outputs_done(&[]).unwrap(), Vec::<bool>::new());
}

fn a_batch_of_outputs_fails_at_once_and_a_lost_lease_only_loses_its_own(db: &TestDb) {
    let mut fleet = three_pinged(db);
    let mut slow = fleet.claim_outputs(10, Duration::ZERO).unwrap();
    slow.sort_by(|x, y| x.key.cmp(&y.key));
    let taken = fleet.claim_outputs(1, Duration::from_secs(30)).unwrap().remove(0);
    let lost = slow.iter().position(|o| o.key == taken.key).unwrap();
    let failed = fleet.outputs_failed(&slow, "the service said no").unwrap();
    for (i, failed) in failed.iter().enumerate() {
        if i == lost {
            assert_eq!(*failed, Failed::LeaseLost);
        } else {
            assert!(matches!(failed, Failed::RetryAt(_)), "{i}: {failed:?}");
        }
    }
    assert_eq!(
        db.rows("SELECT key, status, attempts, error FROM fsm_outbox WHERE attempts > 0 ORDER BY key")
            .len(),
        2
    );
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_outbox WHERE attempts = 1 AND error = 'the service said no'"),
        "2"
    );
    // Due again (the backoff set back by hand): the second attempt is the
    // last (two at most), and a batch of them dies.
    db.execute("UPDATE fsm_outbox SET next_attempt = 0 WHERE attempts = 1");
    let mut again: Vec<_> = fleet
        .claim_outputs(10, Duration::from_secs(30))
        .unwrap()
        .into_iter()
        .filter(|o| o.attempts == 1)
        .collect();
    again.sort_by(|x, y| x.key.cmp(&y.key));
    assert_eq!(again.len(), 2);
    assert_eq!(
        fleet.outputs_failed(&again, "no again").unwrap(),
        [Failed::Dead, Failed::Dead]
    );
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_outbox WHERE status = 'dead' AND settled_at IS NOT NULL"),
        "2"
    );
    // The one taken over is its new claim's to settle.
    assert_eq!(fleet.outputs_done(&[taken]).unwrap(), [true]);
}

/// Create `n` naps, due a millisecond after creation.
fn naps(fleet: &mut fsm_fleet::Fleet, prefix: &str, n: usize) {
    for i in 0..n {
        fleet.create(&format!("{prefix}{i}"), nap::Nap::new()).unwrap();
    }
    std::thread::sleep(Duration::from_millis(5));
}

fn a_burst_of_timers_fires_each_once_whatever_the_batch(db: &TestDb) {
    let mut fleet = db.open();
    // An instance of another machine with pending events: the claim of the
    // timers goes machine by machine, then to events.
    fleet.create("echo", echo::Echo::new()).unwrap();
    fleet.send("echo", &echo::Action::Ping, "ping").unwrap();
    naps(&mut fleet, "n", 250);
    let mut timers = 0;
    let mut events = 0;
    // Batches of 7: the bound moves past each full batch.
    for _ in 0..100 {
        let worked = fleet.work(&machines(), 7).unwrap();
        timers += worked.timers;
        events += worked.events;
        if worked.instances == 0 {
            break;
        }
    }
    assert_eq!((timers, events), (250, 1));
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_instances WHERE state = 'woken' AND version = 1"),
        "250",
        "each fired once"
    );
    // A second burst, after the first: due again, and fired.
    naps(&mut fleet, "m", 30);
    let worked = fleet.work(&machines(), 100).unwrap();
    assert_eq!(worked.timers, 30);
}

fn a_deadline_behind_the_claims_bound_fires_at_the_next_sweep(db: &TestDb) {
    let mut fleet = db.open();
    naps(&mut fleet, "n", 3);
    assert_eq!(fleet.work(&machines(), 2).unwrap().timers, 2);
    assert_eq!(fleet.work(&machines(), 2).unwrap().timers, 1);
    // Committed with a deadline long past (written by hand): behind the
    // bound the last claims left, so not claimed at once...
    fleet.create("late", nap::Nap::new()).unwrap();
    db.execute("UPDATE fsm_instances SET next_wake = 1000 WHERE id = 'late'");
    assert_eq!(fleet.work(&machines(), 10).unwrap().timers, 0);
    // ...but within the sweep's second.
    std::thread::sleep(Duration::from_millis(1_050));
    assert_eq!(fleet.work(&machines(), 10).unwrap().timers, 1);
    // A fleet opened afresh reads from the start at once.
    drop(fleet);
    let mut fleet = db.open();
    fleet.create("later", nap::Nap::new()).unwrap();
    db.execute("UPDATE fsm_instances SET next_wake = 1000 WHERE id = 'later'");
    drop(fleet);
    let mut fleet = db.open();
    assert_eq!(fleet.work(&machines(), 10).unwrap().timers, 1);
}

/// The plan of the claim of `machine`'s due timers, one line a node.
fn timers_plan(db: &TestDb, machine: &str, generic: bool) -> Vec<String> {
    let sql = fsm_fleet::timers_claim_statement(db.backend() == "postgres");
    if db.backend() == "sqlite" {
        // SQLite plans with the values at hand: written into the statement.
        let sql = sql
            .replace("?1", &(i64::MAX / 2).to_string())
            .replace("?2", "64")
            .replace("?3", &format!("'{machine}'"))
            .replace("?4", &i64::MIN.to_string())
            .replace("?5", "''");
        let _ = generic;
        return db
            .rows(&format!("EXPLAIN QUERY PLAN {sql}"))
            .into_iter()
            .map(|row| row[3].clone())
            .collect();
    }
    let sql = sql.replace('?', "$");
    // As a worker's transaction runs it.
    let settings = fsm_fleet::timers_claim_settings().replace("SET LOCAL", "SET");
    db.execute(&format!(
        "{settings}; SET plan_cache_mode = {}; DEALLOCATE ALL;
         PREPARE claim (BIGINT, BIGINT, TEXT, BIGINT, TEXT) AS {sql}",
        if generic {
            "force_generic_plan"
        } else {
            "force_custom_plan"
        }
    ));
    let now = i64::MAX / 2;
    let plan = db
        .rows(&format!(
            "EXPLAIN EXECUTE claim({now}, 64, '{machine}', {}, '')",
            i64::MIN
        ))
        .into_iter()
        .map(|row| row[0].trim().to_owned())
        .collect();
    db.execute("DEALLOCATE claim; RESET plan_cache_mode; RESET enable_bitmapscan; RESET enable_sort; RESET enable_seqscan");
    plan
}

/// The claim's plan reads `fsm_instances_due` in its order, stopping after
/// the batch: no sort, no bitmap (which reads every entry in range, dead
/// ones too), no other index or table scan.
fn assert_ordered_plan(plan: &[String], case: &str) {
    let text = plan.join(" / ");
    assert!(
        text.contains("fsm_instances_due"),
        "{case}: the index of deadlines is read: {text}"
    );
    for bad in [
        "Sort",
        "Bitmap",
        "Seq Scan",
        "TEMP B-TREE",
        "SCAN fsm_instances",
        "fsm_instances_machine_state",
    ] {
        assert!(!text.contains(bad), "{case}: `{bad}` in the plan: {text}");
    }
}

fn the_claim_of_due_timers_reads_the_index_of_deadlines_in_order(db: &TestDb) {
    drop(db.open());
    let postgres = db.backend() == "postgres";
    if postgres {
        // No statistics but those the test asks for.
        db.execute("ALTER TABLE fsm_instances SET (autovacuum_enabled = false)");
    }
    let fill = |machine: &str, from: i64, n: i64, due: &str| {
        let rows = if postgres {
            format!("SELECT g FROM generate_series({from}, {}) AS g", from + n - 1)
        } else {
            format!(
                "WITH RECURSIVE s(g) AS (SELECT {from} UNION ALL SELECT g + 1 FROM s WHERE g < {})
                 SELECT g FROM s",
                from + n - 1
            )
        };
        db.execute(&format!(
            "INSERT INTO fsm_instances
                 (id, machine, fingerprint, state, snapshot, version, next_wake, created_at, updated_at)
             SELECT '{machine}-' || g, '{machine}', 'f', 'waiting', '{{}}', 0, {due}, 0, 0 FROM ({rows}) AS r"
        ));
    };
    // A table filled at once, as a burst is, never analyzed: most
    // instances due, of one machine, beside another machine's.
    fill("Nap", 0, 20_000, "g");
    fill("Echo", 0, 5_000, "NULL");
    let cases: &[(&str, bool)] = &[("custom plan", false), ("generic plan", true)];
    for (case, generic) in cases {
        assert_ordered_plan(
            &timers_plan(db, "Nap", *generic),
            &format!("without statistics, {case}"),
        );
        assert_ordered_plan(
            &timers_plan(db, "Echo", *generic),
            &format!("without statistics, another machine, {case}"),
        );
    }
    db.execute("ANALYZE fsm_instances");
    for (case, generic) in cases {
        assert_ordered_plan(&timers_plan(db, "Nap", *generic), &format!("analyzed, {case}"));
    }
    // Every timer fired and the statistics say so; then a burst the
    // statistics do not know of.
    db.execute("UPDATE fsm_instances SET next_wake = NULL; ANALYZE fsm_instances");
    fill("Nap", 100_000, 20_000, "g");
    for (case, generic) in cases {
        assert_ordered_plan(
            &timers_plan(db, "Nap", *generic),
            &format!("analyzed before the burst, {case}"),
        );
    }
}
