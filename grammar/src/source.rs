//! Reading `.fsm` sources, and the rule every generator applies to them.
//!
//! Every tool that reads a `.fsm` file reads it with [`read`]: each `fsmc`
//! subcommand, `fsm!(file = "...")` and the build-script API. A file that is
//! not UTF-8 is then reported the same way everywhere, with where the first
//! bad byte is and what it is, instead of the standard library's
//! `stream did not contain valid UTF-8`:
//!
//! ```text
//! cannot read `door.fsm`: invalid UTF-8 at line 2, column 19 (byte 0xFF)
//! ```
//!
//! Text that arrives some other way (standard input) goes through [`decode`].
//!
//! Every tool that turns a source into something (`fsmc build`, `fsmc graph`,
//! `fsm!`, the build-script API) refuses one that defines no machine, by the
//! one rule [`defines_no_machine`].

use crate::span::LineIndex;
use crate::Checked;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Read the source file at `path` as UTF-8 text.
///
/// # Errors
///
/// When the file cannot be read, or is not UTF-8: then the error's
/// [`io::Error`] is of kind [`io::ErrorKind::InvalidData`] and wraps a
/// [`NotUtf8`] saying where.
pub fn read(path: &Path) -> Result<String, ReadError> {
    let error = |error| ReadError {
        path: path.to_path_buf(),
        error,
    };
    let bytes = std::fs::read(path).map_err(error)?;
    decode(bytes).map_err(|not_utf8| error(not_utf8.into()))
}

/// The text of `bytes`, which should be UTF-8.
///
/// # Errors
///
/// Where the first byte that is not UTF-8 is, and what it is.
pub fn decode(bytes: Vec<u8>) -> Result<String, NotUtf8> {
    String::from_utf8(bytes).map_err(|error| NotUtf8::new(error.as_bytes(), error.utf8_error()))
}

/// A source file that could not be read.
#[derive(Debug)]
pub struct ReadError {
    /// The file.
    pub path: PathBuf,
    /// Why: an I/O error, or invalid UTF-8 (kind
    /// [`io::ErrorKind::InvalidData`], wrapping a [`NotUtf8`]).
    pub error: io::Error,
}

impl ReadError {
    /// Where the text stops being UTF-8, when that is why.
    pub fn not_utf8(&self) -> Option<&NotUtf8> {
        self.error.get_ref()?.downcast_ref()
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read `{}`: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<ReadError> for io::Error {
    /// The error without the path, for callers that name it themselves.
    fn from(error: ReadError) -> io::Error {
        error.error
    }
}

/// Where a text stops being UTF-8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotUtf8 {
    /// The 1-based line of the first bad byte.
    pub line: usize,
    /// Its 1-based column, counting the characters before it on its line.
    pub column: usize,
    /// Its byte offset in the file.
    pub offset: usize,
    /// The bytes that do not form a character: one invalid sequence, or the
    /// incomplete one the text ends with.
    pub bytes: Vec<u8>,
    /// The text starts with a UTF-16 byte order mark.
    pub utf16: bool,
}

impl NotUtf8 {
    fn new(bytes: &[u8], error: std::str::Utf8Error) -> NotUtf8 {
        let offset = error.valid_up_to();
        let valid = std::str::from_utf8(&bytes[..offset]).expect("valid up to here");
        let at = LineIndex::new(valid).line_col(valid, offset);
        let len = error.error_len().unwrap_or(bytes.len() - offset);
        NotUtf8 {
            line: at.line,
            column: at.column,
            offset,
            bytes: bytes[offset..offset + len].to_vec(),
            utf16: bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]),
        }
    }
}

impl fmt::Display for NotUtf8 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes: Vec<String> = self.bytes.iter().map(|b| format!("0x{b:02X}")).collect();
        let s = if bytes.len() == 1 { "" } else { "s" };
        write!(
            f,
            "invalid UTF-8 at line {}, column {} (byte{s} {})",
            self.line,
            self.column,
            bytes.join(" ")
        )?;
        if self.utf16 {
            f.write_str(": the file looks like UTF-16; save it as UTF-8")?;
        }
        Ok(())
    }
}

impl std::error::Error for NotUtf8 {}

impl From<NotUtf8> for io::Error {
    fn from(error: NotUtf8) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, error)
    }
}

/// Whether `checked` is a source that defines no machine and has no errors
/// that would explain why: an empty file, or one of comments only.
///
/// The rule every tool that generates or draws from a source applies: there
/// is nothing to generate, which is an error, not an empty success (a
/// mistyped or emptied file must not pass unnoticed). [`NO_MACHINE_HELP`] is
/// what to tell the user.
pub fn defines_no_machine(checked: &Checked) -> bool {
    checked.model.machines.is_empty() && !checked.has_errors()
}

/// The help for a source that [`defines_no_machine`].
pub const NO_MACHINE_HELP: &str = "write one, like `machine Door { initial state closed; }`";

#[cfg(test)]
mod tests {
    use super::*;

    fn not_utf8(bytes: &[u8]) -> NotUtf8 {
        decode(bytes.to_vec()).unwrap_err()
    }

    #[test]
    fn utf8_is_read_unchanged() {
        assert_eq!(decode("machine A { ç }".into()).unwrap(), "machine A { ç }");
    }

    #[test]
    fn the_first_bad_byte_is_found_by_line_and_column() {
        let error = not_utf8(b"machine A {\n  initial state x;\xff\n}");
        assert_eq!((error.line, error.column, error.offset), (2, 19, 30));
        assert_eq!(error.bytes, [0xFF]);
        assert_eq!(
            error.to_string(),
            "invalid UTF-8 at line 2, column 19 (byte 0xFF)"
        );
    }

    #[test]
    fn columns_count_characters_and_bytes_show_one_bad_sequence() {
        // `ç` is two bytes, one column; 0xE2 0x82 starts a three-byte
        // character that 0x41 cuts short.
        let error = not_utf8(
            "ç".bytes()
                .chain(*b"\xE2\x82A\xff")
                .collect::<Vec<_>>()
                .as_slice(),
        );
        assert_eq!((error.line, error.column), (1, 2));
        assert_eq!(
            error.to_string(),
            "invalid UTF-8 at line 1, column 2 (bytes 0xE2 0x82)"
        );
    }

    #[test]
    fn a_text_cut_short_in_a_character_shows_the_bytes_it_ends_with() {
        let error = not_utf8(b"a\nb\xF0\x9F\x98");
        assert_eq!((error.line, error.column), (2, 2));
        assert_eq!(error.bytes, [0xF0, 0x9F, 0x98]);
    }

    #[test]
    fn utf16_is_named() {
        let error = not_utf8(b"\xFF\xFEm\0");
        assert_eq!(
            error.to_string(),
            "invalid UTF-8 at line 1, column 1 (byte 0xFF): the file looks like UTF-16; save it as UTF-8"
        );
    }

    #[test]
    fn reading_names_the_path_and_the_position() {
        let path = std::env::temp_dir().join(format!("fsm-grammar-source-{}.fsm", std::process::id()));
        std::fs::write(&path, b"machine A {\n\x80}").unwrap();
        let error = read(&path).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(error.error.kind(), io::ErrorKind::InvalidData);
        assert_eq!(error.not_utf8().map(|e| (e.line, e.column)), Some((2, 1)));
        assert_eq!(
            error.to_string(),
            format!(
                "cannot read `{}`: invalid UTF-8 at line 2, column 1 (byte 0x80)",
                path.display()
            )
        );
    }

    #[test]
    fn a_missing_file_is_an_io_error() {
        let error = read(Path::new("/no/such/dir/x.fsm")).unwrap_err();
        assert_eq!(error.error.kind(), io::ErrorKind::NotFound);
        assert!(error.not_utf8().is_none());
    }

    #[test]
    fn empty_and_comment_only_sources_define_no_machine() {
        for text in ["", "  \n", "// nothing yet\n/// a doc\n"] {
            assert!(defines_no_machine(&crate::check(text)), "{text:?}");
        }
        assert!(!defines_no_machine(&crate::check(
            "machine M { initial state a; }"
        )));
        // A syntax error is reported for itself, not as a missing machine.
        assert!(!defines_no_machine(&crate::check("machine {")));
    }
}
