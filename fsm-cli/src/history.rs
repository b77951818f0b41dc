//! `fsmc history`: print the history a stored snapshot carries, as a table.

use crate::console;
use crate::exit::Exit;
use crate::files;
use clap::Args;
use fsm_runtime::{HistoryEntry, Snapshot};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::Write;
use std::path::PathBuf;

/// Arguments of `fsmc history`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
FILE is a snapshot as `serde_json` writes `fsm_runtime::Snapshot` ({\"type\": \"fsm\", \"machine\", \
\"fingerprint\", \"current_state\", \"history\"}), a `FileStore` file ({\"version\", \"snapshot\"}), \
or seed 004's runtime record ({\"id\", \"current_state\", \"history\": [{\"from\", \"to\", \"timestamp\", \
\"reason\"}]}, entries numbered in order when they carry no `seq`). The history is the one recorded by `fsm_runtime::Recorded` or `fsm_runtime::Shared::recording`; \
it prints oldest first, with timestamps in UTC.

Exit status:
  0  printed
  1  the file is not JSON, not a snapshot or record, or carries no history
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

/// The history in `text`: a snapshot, a store file, or seed 004's runtime
/// record; or what is wrong with it, as the rest of a sentence that starts
/// with the file name.
fn read_history(text: &str) -> Result<FileHistory, String> {
    let mut value: Value = serde_json::from_str(text).map_err(|error| format!("is not JSON: {error}"))?;
    let Some(object) = value.as_object_mut() else {
        return Err("is not a snapshot: expected a JSON object".to_owned());
    };
    // A snapshot has a `type`; a store file wraps one in `snapshot`; seed
    // 004's record has neither, just a `history`.
    let snapshot: Snapshot = if object.contains_key("type") {
        serde_json::from_value(value).map_err(|error| format!("is not a snapshot: {error}"))?
    } else if let Some(snapshot) = object.remove("snapshot") {
        serde_json::from_value(snapshot)
            .map_err(|error| format!("is a store file whose `snapshot` is invalid: {error}"))?
    } else if let Some(history) = object.remove("history") {
        return seed_record_history(history, object.get("id"));
    } else {
        return Err(
            "is not a snapshot: expected an object with `type` (a snapshot), `snapshot` (a store \
             file) or `history` (a runtime record)"
                .to_owned(),
        );
    };
    Ok(FileHistory {
        empty_because: format!(
            "its snapshot of machine `{}` (in state `{}`) was saved without one; record one with \
             `fsm_runtime::Recorded` or `Shared::recording`",
            snapshot.machine(),
            snapshot.current_state()
        ),
        entries: snapshot.history().to_vec(),
    })
}

/// The `history` of seed 004's runtime record (`{"id", "states",
/// "current_state", "history": [{"from", "to", "timestamp", "reason"}]}`):
/// entries without a `seq` are numbered by their position.
fn seed_record_history(history: Value, id: Option<&Value>) -> Result<FileHistory, String> {
    let Value::Array(mut entries) = history else {
        return Err("is not a runtime record: its `history` is not an array".to_owned());
    };
    for (index, entry) in entries.iter_mut().enumerate() {
        if let Value::Object(fields) = entry {
            fields.entry("seq").or_insert_with(|| Value::from(index));
        }
    }
    let entries: Vec<HistoryEntry> = serde_json::from_value(Value::Array(entries))
        .map_err(|error| format!("is a runtime record whose `history` is invalid: {error}"))?;
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

const HEADERS: [&str; 5] = ["seq", "time", "from", "action", "to"];

/// The entries as a table with a header: columns separated by two spaces,
/// `seq` right-aligned, the rest left-aligned, no trailing spaces.
fn table(entries: &[HistoryEntry]) -> String {
    let rows: Vec<[Cow<'_, str>; 5]> = entries
        .iter()
        .map(|entry| {
            [
                entry.seq().to_string().into(),
                entry.at().to_string().into(),
                cell(entry.from()),
                cell(entry.action()),
                cell(entry.to()),
            ]
        })
        .collect();
    let mut widths = HEADERS.map(|header| header.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header = HEADERS.map(Cow::Borrowed);
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (column, (cell, width)) in row.iter().zip(widths).enumerate() {
            if column == 0 {
                let _ = write!(line, "{cell:>width$}");
            } else {
                let _ = write!(line, "  {cell:<width$}");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A name as shown in the table: names read from a file may hold control
/// characters, which would break the layout, so those are escaped.
fn cell(name: &str) -> Cow<'_, str> {
    if name.chars().any(char::is_control) {
        Cow::Owned(name.escape_debug().to_string())
    } else {
        Cow::Borrowed(name)
    }
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
    fn seed_004_records_are_numbered_in_order() {
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
            "is a runtime record whose `history` is invalid: missing field `action`"
        );
    }
}
