//! `fsm.toml`: the project configuration that `fsmc check` and `fsmc lsp`
//! read. It is found by searching upward from a `.fsm` file's directory;
//! the nearest one applies.
//!
//! ```toml
//! [lints]
//! allow = ["unreachable-state"]   # warnings to drop
//! deny = ["dead-end"]             # warnings to turn into errors
//! deny-warnings = false           # turn every warning into an error
//! ```

use crate::check::{parse_code, parse_warning_code};
use fsm_grammar::{Code, LintOptions};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The file's name.
pub const FILE_NAME: &str = "fsm.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    lints: LintsTable,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct LintsTable {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
    #[serde(default)]
    deny_warnings: bool,
}

/// The nearest `fsm.toml` in `dir` or a directory above it.
pub fn find(dir: &Path) -> Option<PathBuf> {
    let dir = std::path::absolute(dir).ok()?;
    dir.ancestors()
        .map(|d| d.join(FILE_NAME))
        .find(|candidate| candidate.is_file())
}

/// The lint options of the `fsm.toml` that applies to a file in `dir`
/// (the defaults when there is none), and the file's path.
///
/// # Errors
///
/// A message naming the file and the problem when it cannot be read, is not
/// TOML, or names an unknown code.
pub fn lints_for(dir: &Path) -> Result<(Option<PathBuf>, LintOptions), String> {
    let Some(path) = find(dir) else {
        return Ok((None, LintOptions::default()));
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let lints = parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((Some(path), lints))
}

/// The lint options of an `fsm.toml` text.
///
/// # Errors
///
/// What is wrong with it, in one message.
pub fn parse(text: &str) -> Result<LintOptions, String> {
    let file: ConfigFile = toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())?;
    let codes = |names: &[String], key: &str, parse: fn(&str) -> Result<Code, String>| {
        names
            .iter()
            .map(|name| parse(name).map_err(|e| format!("`[lints] {key}`: {e}")))
            .collect::<Result<Vec<Code>, String>>()
    };
    let allow = codes(&file.lints.allow, "allow", parse_warning_code)?;
    let deny = codes(&file.lints.deny, "deny", parse_code)?;
    if let Some(code) = allow.iter().find(|c| deny.contains(c)) {
        return Err(format!("`{code}` is both allowed and denied in `[lints]`"));
    }
    Ok(LintOptions {
        allow,
        deny,
        deny_warnings: file.lints.deny_warnings,
    })
}

/// `file`'s options with `command_line`'s on top: a code the command line
/// allows or denies is taken out of the file's other list.
pub fn merge(file: &LintOptions, command_line: &LintOptions) -> LintOptions {
    let keep = |codes: &[Code], overridden: &[Code], added: &[Code]| {
        let mut out: Vec<Code> = codes
            .iter()
            .filter(|c| !overridden.contains(c))
            .copied()
            .collect();
        for code in added {
            if !out.contains(code) {
                out.push(*code);
            }
        }
        out
    };
    LintOptions {
        allow: keep(&file.allow, &command_line.deny, &command_line.allow),
        deny: keep(&file.deny, &command_line.allow, &command_line.deny),
        deny_warnings: file.deny_warnings || command_line.deny_warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lints_parse_and_bad_codes_are_named() {
        let lints = parse("[lints]\nallow = [\"unreachable-state\"]\ndeny = [\"fsm::dead-end\"]\n").unwrap();
        assert_eq!(lints.allow, [Code::UnreachableState]);
        assert_eq!(lints.deny, [Code::DeadEnd]);
        assert!(parse("").unwrap().allow.is_empty());
        assert_eq!(
            parse("[lints]\nallow = [\"unreachable-stat\"]").unwrap_err(),
            "`[lints] allow`: unknown diagnostic code `unreachable-stat`; did you mean `unreachable-state`?"
        );
        assert!(parse("[lints]\nallow = [\"unknown-state\"]")
            .unwrap_err()
            .contains("only warnings can be allowed"));
        assert!(parse("[lint]\n").unwrap_err().contains("unknown field `lint`"));
        assert!(parse("[lints]\nallow = [\"dead-end\"]\ndeny = [\"dead-end\"]").is_err());
    }

    #[test]
    fn the_command_line_wins() {
        let file = LintOptions {
            allow: vec![Code::DeadEnd],
            deny: vec![Code::UnreachableState],
            deny_warnings: false,
        };
        let cli = LintOptions {
            allow: vec![Code::UnreachableState],
            deny: vec![],
            deny_warnings: false,
        };
        let merged = merge(&file, &cli);
        assert_eq!(merged.allow, [Code::DeadEnd, Code::UnreachableState]);
        assert!(merged.deny.is_empty());
    }
}
