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
\"fingerprint\", \"current_state\", \"history\"}), or a `FileStore` file ({\"version\", \"snapshot\"}). \
The history is the one recorded by `fsm_runtime::Recorded` or `fsm_runtime::Shared::recording`; \
it prints oldest first, with timestamps in UTC.

Exit status:
  0  printed
  1  the file is not JSON, not a snapshot, or carries no history
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
    let snapshot = match read_snapshot(&text) {
        Ok(snapshot) => snapshot,
        Err(problem) => {
            console::error(format_args!("`{name}` {problem}"));
            return Exit::Problems;
        }
    };
    if snapshot.history().is_empty() {
        console::error(format_args!(
            "`{name}` has no history: its snapshot of machine `{}` (in state `{}`) was saved without \
             one; record one with `fsm_runtime::Recorded` or `Shared::recording`",
            snapshot.machine(),
            snapshot.current_state()
        ));
        return Exit::Problems;
    }
    console::stdout(&table(snapshot.history()));
    Exit::Clean
}

/// The snapshot in `text`, a snapshot or a store file; or what is wrong with
/// it, as the rest of a sentence that starts with the file name.
fn read_snapshot(text: &str) -> Result<Snapshot, String> {
    let mut value: Value = serde_json::from_str(text).map_err(|error| format!("is not JSON: {error}"))?;
    let Some(object) = value.as_object_mut() else {
        return Err("is not a snapshot: expected a JSON object".to_owned());
    };
    // A store file wraps the snapshot; a snapshot has a `type`.
    if !object.contains_key("type") {
        if let Some(snapshot) = object.remove("snapshot") {
            return serde_json::from_value(snapshot)
                .map_err(|error| format!("is a store file whose `snapshot` is invalid: {error}"));
        }
    }
    serde_json::from_value(value).map_err(|error| format!("is not a snapshot: {error}"))
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
    use super::{read_snapshot, table};

    #[test]
    fn the_table_aligns_its_columns() {
        let snapshot = read_snapshot(
            r#"{"type": "fsm", "machine": "M", "fingerprint": "f", "current_state": "b", "history": [
                {"seq": 9, "from": "a", "to": "bee\n", "action": "go", "timestamp": "2026-01-10T09:32:15Z"},
                {"seq": 10, "from": "bee\n", "to": "bee\n", "action": "wait", "timestamp": "2026-01-10T09:32:16.5Z"}
            ]}"#,
        )
        .unwrap();
        assert_eq!(
            table(snapshot.history()),
            "\
seq  time                      from   action  to
  9  2026-01-10T09:32:15.000Z  a      go      bee\\n
 10  2026-01-10T09:32:16.500Z  bee\\n  wait    bee\\n
"
        );
    }

    #[test]
    fn store_files_and_snapshots_are_told_apart() {
        let snapshot = r#"{"type": "fsm", "machine": "M", "fingerprint": "f", "current_state": "a"}"#;
        assert_eq!(read_snapshot(snapshot).unwrap().machine(), "M");
        let record = format!(r#"{{"version": 2, "snapshot": {snapshot}}}"#);
        assert_eq!(read_snapshot(&record).unwrap().current_state(), "a");
        assert_eq!(
            read_snapshot(r#"{"version": 2, "snapshot": {"type": "fsm"}}"#).unwrap_err(),
            "is a store file whose `snapshot` is invalid: missing field `machine`"
        );
        assert_eq!(
            read_snapshot("[1]").unwrap_err(),
            "is not a snapshot: expected a JSON object"
        );
        assert_eq!(
            read_snapshot("{").unwrap_err(),
            "is not JSON: EOF while parsing an object at line 1 column 1"
        );
    }
}
