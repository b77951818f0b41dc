//! `fsmc history`: print the history a stored snapshot carries, as a table.

use crate::console;
use crate::exit::Exit;
use crate::files;
use crate::table::{name, Align, Table};
use clap::Args;
use fsm_runtime::{HistoryEntry, Snapshot};
use serde_json::Value;
use std::path::PathBuf;

/// Arguments of `fsmc history`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
FILE is a snapshot as `serde_json` writes `fsm_runtime::Snapshot` ({\"type\": \"fsm\", \"machine\", \
\"fingerprint\", \"current_state\" or \"configuration\", \"history\"}), a `FileStore` file ({\"version\", \"snapshot\"}), \
or a runtime record, the JSON in which an execution runtime logs a machine's state changes \
({\"id\", \"current_state\", \"history\": [{\"from\", \"to\", \"timestamp\", \"reason\"}]}, the \
action under `reason`, entries numbered in order when they carry no `seq`). The history is the \
one recorded by `fsm_runtime::Recorded` or `fsm_runtime::Shared::recording`; it prints oldest \
first, with timestamps in UTC, and names wider than 64 columns cut to an `…`. A key given twice \
in one JSON object is an error, whatever the file.

Exit status:
  0  printed
  1  the file is not JSON, has a key twice, is not a snapshot or record, or carries no history
  2  usage errors, and files that cannot be read")]
pub struct HistoryArgs {
    /// The snapshot or store file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

/// Print the history; see [`HistoryArgs`] for the exit status.
pub fn run(args: &HistoryArgs) -> Exit {
    let text = match files::read(&args.file) {
        Ok(text) => text,
        Err(error) => {
            console::error(error);
            return Exit::Trouble;
        }
    };
    let name = args.file.display();
    let history = match read_history(&text) {
        Ok(history) => history,
        Err(problem) => {
            console::error(format_args!("`{name}` {problem}"));
            return Exit::Problems;
        }
    };
    if history.entries.is_empty() {
        console::error(format_args!("`{name}` has no history: {}", history.empty_because));
        return Exit::Problems;
    }
    console::stdout(&table(&history.entries));
    Exit::Clean
}

/// The history a file holds, oldest first.
struct FileHistory {
    entries: Vec<HistoryEntry>,
    /// Why a file without entries has none, as the rest of a sentence.
    empty_because: String,
}

/// The history in `text`: a snapshot, a store file, or a runtime record; or
/// what is wrong with it, as the rest of a sentence that starts with the file
/// name.
fn read_history(text: &str) -> Result<FileHistory, String> {
    // Not `serde_json::Value`'s reader, which keeps the last of two values
    // for one key.
    let mut value = fsm_store::json::from_str(text).map_err(|error| {
        if error.is_data() {
            format!("is ambiguous: {error}") // a duplicate key
        } else {
            format!("is not JSON: {error}")
        }
    })?;
    let Some(object) = value.as_object_mut() else {
        return Err("is not a snapshot: expected a JSON object".to_owned());
    };
    // A snapshot has a `type`; a store file wraps one in `snapshot`; a
    // runtime record has neither, just a `history`.
    let snapshot: Snapshot = if object.contains_key("type") {
        serde_json::from_value(value).map_err(|error| format!("is not a snapshot: {error}"))?
    } else if let Some(snapshot) = object.remove("snapshot") {
        serde_json::from_value(snapshot)
            .map_err(|error| format!("is a store file whose `snapshot` is invalid: {error}"))?
    } else if let Some(history) = object.remove("history") {
        return runtime_record_history(history, object.get("id"));
    } else {
        return Err(
            "is not a snapshot: expected an object with `type` (a snapshot), `snapshot` (a store \
             file) or `history` (a runtime record)"
                .to_owned(),
        );
    };
    // A machine with parallel states is in a configuration of leaves.
    let place = match snapshot.configuration() {
        Some(leaves) if leaves.len() > 1 => {
            let leaves: Vec<String> = leaves.iter().map(|leaf| format!("`{leaf}`")).collect();
            format!("in the leaves {}", leaves.join(", "))
        }
        _ => format!("in state `{}`", snapshot.leaves().join("")),
    };
    Ok(FileHistory {
        empty_because: format!(
            "its snapshot of machine `{}` ({place}) was saved without one; record one with \
             `fsm_runtime::Recorded` or `Shared::recording`",
            snapshot.machine(),
        ),
        entries: snapshot.history().to_vec(),
    })
}

/// The `history` of a runtime record, the JSON in which an execution runtime
/// logs a machine's state changes (`{"id", "states", "current_state",
/// "history": [{"from", "to", "timestamp", "reason"}]}`): entries without a
/// `seq` are numbered by their position.
fn runtime_record_history(history: Value, id: Option<&Value>) -> Result<FileHistory, String> {
    let Value::Array(items) = history else {
        return Err("is not a runtime record: its `history` is not an array".to_owned());
    };
    let entries = items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            record_entry(index, item).map_err(|error| {
                format!("is a runtime record whose `history` is invalid: entry {index}: {error}")
            })
        })
        .collect::<Result<Vec<HistoryEntry>, String>>()?;
    if let Some(pair) = entries.windows(2).find(|pair| pair[1].seq() <= pair[0].seq()) {
        return Err(format!(
            "is a runtime record whose `history` is invalid: entries must have increasing `seq`: {} \
             follows {}",
            pair[1].seq(),
            pair[0].seq()
        ));
    }
    let record = match id.and_then(Value::as_str) {
        Some(id) => format!("its runtime record of `{id}`"),
        None => "its runtime record".to_owned(),
    };
    Ok(FileHistory {
        entries,
        empty_because: format!("{record} has an empty `history`"),
    })
}

/// Entry `index` of a runtime record's `history`: `{"from", "to",
/// "timestamp", "reason"}`, numbered `index` unless it has its own `seq`.
fn record_entry(index: usize, item: Value) -> Result<HistoryEntry, String> {
    let Value::Object(mut fields) = item else {
        let found = match item {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => unreachable!("objects are read above"),
        };
        return Err(format!(
            "expected an object with `from`, `to`, `timestamp` and `reason`, found {found}"
        ));
    };
    // The record names the action `reason`; `HistoryEntry` takes it, but
    // would call it `action` (its own name) if both were missing.
    let has_action =
        fields.contains_key("action") || fields.get("reason").is_some_and(|reason| !reason.is_null());
    if !has_action {
        return Err("missing field `reason`".to_owned());
    }
    fields.entry("seq").or_insert_with(|| Value::from(index));
    serde_json::from_value(Value::Object(fields)).map_err(|error| error.to_string())
}

/// The entries as a table with a header: `seq` right-aligned, the rest
/// left-aligned, names escaped and cut (see [`crate::table`]).
fn table(entries: &[HistoryEntry]) -> String {
    let mut table = Table::new(&[
        ("seq", Align::Right),
        ("time", Align::Left),
        ("from", Align::Left),
        ("action", Align::Left),
        ("to", Align::Left),
    ]);
    for entry in entries {
        table.row(vec![
            entry.seq().to_string().into(),
            entry.at().to_string().into(),
            name(entry.from()),
            name(entry.action()),
            name(entry.to()),
        ]);
    }
    table.render("")
}

#[cfg(test)]
mod tests {
    use super::{read_history, table};

    #[test]
    fn the_table_aligns_its_columns() {
        let history = read_history(
            r#"{"type": "fsm", "machine": "M", "fingerprint": "f", "current_state": "b", "history": [
                {"seq": 9, "from": "a", "to": "bee\n", "action": "go", "timestamp": "2026-01-10T09:32:15Z"},
                {"seq": 10, "from": "bee\n", "to": "bee\n", "action": "wait", "timestamp": "2026-01-10T09:32:16.5Z"}
            ]}"#,
        )
        .unwrap();
        assert_eq!(
            table(&history.entries),
            "\
seq  time                      from   action  to
  9  2026-01-10T09:32:15.000Z  a      go      bee\\n
 10  2026-01-10T09:32:16.500Z  bee\\n  wait    bee\\n
"
        );
    }

    #[test]
    fn store_files_snapshots_and_runtime_records_are_told_apart() {
        let snapshot = r#"{"type": "fsm", "machine": "M", "fingerprint": "f", "current_state": "a"}"#;
        let why = |text: &str| read_history(text).map(|history| history.empty_because);
        assert_eq!(
            why(snapshot).unwrap(),
            "its snapshot of machine `M` (in state `a`) was saved without one; record one with \
             `fsm_runtime::Recorded` or `Shared::recording`"
        );
        let stored = format!(r#"{{"version": 2, "snapshot": {snapshot}}}"#);
        assert_eq!(why(&stored).unwrap(), why(snapshot).unwrap());
        assert_eq!(
            why(r#"{"id": "execution_fsm_v1", "current_state": "idle", "history": []}"#).unwrap(),
            "its runtime record of `execution_fsm_v1` has an empty `history`"
        );
        assert_eq!(
            why(r#"{"version": 2, "snapshot": {"type": "fsm"}}"#).unwrap_err(),
            "is a store file whose `snapshot` is invalid: missing field `machine`"
        );
        assert_eq!(
            why(r#"{"id": "x", "history": {}}"#).unwrap_err(),
            "is not a runtime record: its `history` is not an array"
        );
        assert_eq!(
            why(r#"{"id": "x"}"#).unwrap_err(),
            "is not a snapshot: expected an object with `type` (a snapshot), `snapshot` (a store \
             file) or `history` (a runtime record)"
        );
        assert_eq!(
            why("[1]").unwrap_err(),
            "is not a snapshot: expected a JSON object"
        );
        assert_eq!(
            why("{").unwrap_err(),
            "is not JSON: EOF while parsing an object at line 1 column 1"
        );
    }

    #[test]
    fn runtime_record_entries_are_numbered_in_order() {
        let history = read_history(
            r#"{"id": "execution_fsm_v1", "states": ["idle", "executing", "completed", "failed"],
                "current_state": "completed", "history": [
                {"from": "idle", "to": "executing", "timestamp": "2026-01-10T09:32:15Z", "reason": "start_execution"},
                {"from": "executing", "to": "completed", "timestamp": "2026-01-10T09:40:00Z", "reason": "success"}
            ]}"#,
        )
        .unwrap();
        let entries: Vec<_> = history
            .entries
            .iter()
            .map(|e| (e.seq(), e.from(), e.action(), e.to()))
            .collect();
        assert_eq!(
            entries,
            [
                (0, "idle", "start_execution", "executing"),
                (1, "executing", "success", "completed")
            ]
        );
        assert_eq!(
            read_history(
                r#"{"history": [
                    {"seq": 4, "from": "a", "to": "b", "timestamp": "2026-01-10T09:32:15Z", "reason": "go"},
                    {"seq": 2, "from": "b", "to": "a", "timestamp": "2026-01-10T09:32:16Z", "reason": "go"}]}"#
            )
            .map(|_| ())
            .unwrap_err(),
            "is a runtime record whose `history` is invalid: entries must have increasing `seq`: 2 follows 4"
        );
        assert_eq!(
            read_history(r#"{"history": [{"from": "a", "to": "b", "timestamp": "2026-01-10T09:32:15Z"}]}"#)
                .map(|_| ())
                .unwrap_err(),
            "is a runtime record whose `history` is invalid: entry 0: missing field `reason`"
        );
    }

    #[test]
    fn runtime_record_errors_name_the_entry_and_the_records_own_fields() {
        let error = |entries: &str| {
            read_history(&format!(r#"{{"id": "x", "history": [{entries}]}}"#))
                .map(|_| ())
                .unwrap_err()
        };
        let good = r#"{"from": "a", "to": "b", "timestamp": "2026-01-10T09:32:15Z", "reason": "go"}"#;
        // Said `missing field `action``, a field the record format does not have.
        assert_eq!(
            error(&format!(
                r#"{good}, {{"from": "b", "to": "c", "timestamp": "2026-01-10T09:32:16Z", "reason": null}}"#
            )),
            "is a runtime record whose `history` is invalid: entry 1: missing field `reason`"
        );
        assert_eq!(
            error(&format!(
                r#"{good}, {good}, {{"from": "b", "to": "c", "reason": "go"}}"#
            )),
            "is a runtime record whose `history` is invalid: entry 2: missing field `timestamp`"
        );
        assert_eq!(
            error(&format!("{good}, 7")),
            "is a runtime record whose `history` is invalid: entry 1: expected an object with `from`, \
             `to`, `timestamp` and `reason`, found a number"
        );
        // An `action` stands in for the `reason`, as snapshots write it.
        let history = read_history(
            r#"{"history": [{"from": "a", "to": "b", "timestamp": "2026-01-10T09:32:15Z", "action": "go"}]}"#,
        )
        .unwrap();
        assert_eq!(history.entries[0].action(), "go");
    }

    #[test]
    fn a_key_given_twice_is_refused_wherever_it_is() {
        let error = |text: &str| read_history(text).map(|_| ()).unwrap_err();
        let snapshot = r#"{"type": "fsm", "machine": "M", "fingerprint": "f", "current_state": "a"}"#;
        // Read as version 5 before.
        assert_eq!(
            error(&format!(
                r#"{{"version": 1, "version": 5, "snapshot": {snapshot}}}"#
            )),
            "is ambiguous: duplicate key `version` at line 1 column 24"
        );
        assert_eq!(
            error(
                r#"{"type": "fsm", "machine": "M", "machine": "N", "fingerprint": "f", "current_state": "a"}"#
            ),
            "is ambiguous: duplicate key `machine` at line 1 column 41"
        );
        assert_eq!(
            error(
                r#"{"history": [{"from": "a", "to": "b", "timestamp": "2026-01-10T09:32:15Z", "reason": "go", "reason": "stop"}]}"#
            ),
            "is ambiguous: duplicate key `reason` at line 1 column 99"
        );
    }

    #[test]
    fn cells_of_any_width_are_aligned_and_long_ones_cut() {
        let entry = |name: &str| {
            format!(
                r#"{{"seq": 0, "from": "{name}", "to": "b", "action": "go", "timestamp": "2026-01-10T09:32:15Z"}}"#
            )
        };
        // Formatting padding panicked from 65,536 characters on.
        let long = "x".repeat(70_000);
        let history = read_history(&format!(
            r#"{{"type": "fsm", "machine": "M", "fingerprint": "f", "current_state": "b", "history": [{}]}}"#,
            entry(&long)
        ))
        .unwrap();
        let printed = table(&history.entries);
        assert_eq!(
            printed,
            format!(
                "seq  time                      from{}  action  to\n  0  2026-01-10T09:32:15.000Z  {}…  go      b\n",
                " ".repeat(60),
                "x".repeat(63)
            )
        );
        // Columns are terminal columns: a CJK character takes two.
        let history = read_history(&format!(
            r#"{{"type": "fsm", "machine": "M", "fingerprint": "f", "current_state": "b", "history": [{}, {}]}}"#,
            entry("待機"),
            entry("abcde").replace(r#""seq": 0"#, r#""seq": 1"#)
        ))
        .unwrap();
        assert_eq!(
            table(&history.entries),
            "\
seq  time                      from   action  to
  0  2026-01-10T09:32:15.000Z  待機   go      b
  1  2026-01-10T09:32:15.000Z  abcde  go      b
"
        );
        // A wide character is not split at the cut.
        let wide = "待".repeat(40);
        let history = read_history(&format!(
            r#"{{"type": "fsm", "machine": "M", "fingerprint": "f", "current_state": "b", "history": [{}]}}"#,
            entry(&wide)
        ))
        .unwrap();
        let row = table(&history.entries).lines().nth(1).unwrap().to_owned();
        assert_eq!(
            row,
            format!("  0  2026-01-10T09:32:15.000Z  {}…  go      b", "待".repeat(31))
        );
    }
}
