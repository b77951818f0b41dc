//! Tables as the CLI prints them (`fsmc history`, `fsmc fleet`): columns
//! two spaces apart, widths in terminal columns (a CJK character takes two),
//! no trailing spaces, and names escaped and cut so that text read from a
//! file cannot break the layout.

use std::borrow::Cow;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The widest a name is shown, in terminal columns:
/// longer ones are cut, ending in `…`.
const MAX_CELL_WIDTH: usize = 64;

/// Free text read from the database (an id, an error), with control
/// characters escaped so that they cannot break the layout.
pub(crate) fn text(value: &str) -> Cow<'_, str> {
    if value.chars().any(char::is_control) {
        Cow::Owned(value.escape_debug().to_string())
    } else {
        Cow::Borrowed(value)
    }
}

/// A name (a machine, a state, an action, an event) as a table shows it:
/// escaped, and cut to [`MAX_CELL_WIDTH`] columns.
pub(crate) fn name(value: &str) -> Cow<'_, str> {
    let shown = text(value);
    if shown.width() <= MAX_CELL_WIDTH {
        return shown;
    }
    let mut cut = String::new();
    let mut width = 0;
    for c in shown.chars() {
        let next = width + c.width().unwrap_or(0);
        if next > MAX_CELL_WIDTH - 1 {
            break;
        }
        cut.push(c);
        width = next;
    }
    cut.push('…');
    Cow::Owned(cut)
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

/// A table as `fsmc history` and `fsmc fleet` print them: columns separated
/// by two spaces, widths in terminal columns, no trailing spaces.
pub(crate) struct Table<'a> {
    header: Option<Vec<Cow<'a, str>>>,
    align: Vec<Align>,
    rows: Vec<Vec<Cow<'a, str>>>,
}

impl<'a> Table<'a> {
    pub(crate) fn new(columns: &[(&'static str, Align)]) -> Table<'a> {
        Table {
            header: Some(columns.iter().map(|(name, _)| Cow::Borrowed(*name)).collect()),
            align: columns.iter().map(|(_, align)| *align).collect(),
            rows: Vec::new(),
        }
    }

    pub(crate) fn headless(align: &[Align]) -> Table<'a> {
        Table {
            header: None,
            align: align.to_vec(),
            rows: Vec::new(),
        }
    }

    pub(crate) fn row(&mut self, row: Vec<Cow<'a, str>>) {
        self.rows.push(row);
    }

    /// The table, each line starting with `indent`.
    pub(crate) fn render(&self, indent: &str) -> String {
        let mut widths = vec![0; self.align.len()];
        for row in self.header.iter().chain(&self.rows) {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.width());
            }
        }
        let mut out = String::new();
        for row in self.header.iter().chain(&self.rows) {
            let mut line = String::from(indent);
            for (column, ((cell, width), align)) in row.iter().zip(&widths).zip(&self.align).enumerate() {
                if column > 0 {
                    line.push_str("  ");
                }
                // By hand: `format!`'s padding counts chars, not columns.
                let padding = " ".repeat(width - cell.width());
                match align {
                    Align::Left => {
                        line.push_str(cell);
                        line.push_str(&padding);
                    }
                    Align::Right => {
                        line.push_str(&padding);
                        line.push_str(cell);
                    }
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{name, Align, Table};

    #[test]
    fn tables_align_by_terminal_columns_and_cut_long_names() {
        let mut table = Table::new(&[("seq", Align::Right), ("from", Align::Left), ("", Align::Left)]);
        table.row(vec!["9".into(), "待機".into(), "".into()]);
        table.row(vec!["10".into(), name("a\nb"), "note".into()]);
        assert_eq!(
            table.render("  "),
            "  seq  from\n    9  待機\n   10  a\\nb  note\n"
        );
        let long = "x".repeat(70);
        assert_eq!(name(&long), format!("{}…", "x".repeat(63)));
    }
}
