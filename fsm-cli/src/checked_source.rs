//! Reading a `.fsm` file for the commands that turn its checked model into
//! something else (`export`, `graph`), choosing its machines, and writing
//! their output.

use crate::console::{self, HumanStyle};
use crate::exit::Exit;
use crate::files;
use fsm_grammar::model::Machine;
use fsm_grammar::{report, source, Checked, Model};
use std::path::{Path, PathBuf};

/// Read and check `path`. Warnings are reported on stderr and the text
/// read and its model are returned (the text locates what is said about
/// the model); errors are reported and refuse the file (status 1); a file
/// that cannot be read is status 2.
pub fn load_with_source(path: &Path, verb: &str) -> Result<(String, Model), Exit> {
    load_checked(path, verb).map(|(source, checked)| (source, checked.model))
}

/// [`load_with_source`], for a command that needs a machine to work on: a file that
/// defines none (empty, or comments only) is refused too (status 1), by the
/// rule `fsmc build`, `fsm!` and build scripts apply
/// ([`source::defines_no_machine`]).
pub fn load_machines(path: &Path, verb: &str) -> Result<Model, Exit> {
    load_machines_with_source(path, verb).map(|(_, model)| model)
}

/// [`load_machines`], with the text read (for places in it).
pub fn load_machines_with_source(path: &Path, verb: &str) -> Result<(String, Model), Exit> {
    let (source, checked) = load_checked(path, verb)?;
    if source::defines_no_machine(&checked) {
        console::error(format_args!(
            "`{}` defines no machine; nothing {verb}\nhelp: {}",
            path.display(),
            source::NO_MACHINE_HELP
        ));
        return Err(Exit::Problems);
    }
    Ok((source, checked.model))
}

fn load_checked(path: &Path, verb: &str) -> Result<(String, Checked), Exit> {
    let source = files::read(path).map_err(|error| {
        console::error(error);
        Exit::Trouble
    })?;
    let checked = fsm_grammar::check(&source);
    if !checked.diagnostics.is_empty() {
        let style = HumanStyle::detect();
        console::stderr(&report::human(
            &path.display().to_string(),
            &source,
            &checked.diagnostics,
            style.width,
            style.color,
        ));
    }
    let errors = checked.diagnostics.iter().filter(|d| d.is_error()).count();
    match errors {
        0 => Ok((source, checked)),
        n => {
            let errors = if n == 1 {
                "1 error".to_string()
            } else {
                format!("{n} errors")
            };
            console::error(format_args!("`{}` has {errors}; nothing {verb}", path.display()));
            Err(Exit::Problems)
        }
    }
}

/// The machine `--machine` names or, without it, the file's only machine; a
/// usage error (status 2) naming the machines there are otherwise.
pub fn chosen_machine<'m>(model: &'m Model, name: Option<&str>, path: &Path) -> Result<&'m Machine, Exit> {
    match (name, model.machines.as_slice()) {
        (Some(name), _) => machine(model, name, path),
        (None, [machine]) => Ok(machine),
        (None, _) => {
            console::error(format_args!(
                "`{}` defines {}; choose one with --machine",
                path.display(),
                machine_list(model)
            ));
            Err(Exit::Trouble)
        }
    }
}

/// The machine named `name`, or a usage error (status 2) naming the
/// machines there are.
pub fn machine<'m>(model: &'m Model, name: &str, path: &Path) -> Result<&'m Machine, Exit> {
    if let Some(machine) = model.machines.iter().find(|m| m.name == name) {
        return Ok(machine);
    }
    let names = model.machines.iter().map(|m| m.name.as_str());
    let hint = match fsm_grammar::closest(name, names) {
        Some(close) => format!("; did you mean `{close}`?"),
        None => format!("; it defines {}", machine_list(model)),
    };
    console::error(format_args!(
        "`{}` defines no machine named `{name}`{hint}",
        path.display()
    ));
    Err(Exit::Trouble)
}

/// `` `A` and `B` ``, or `no machine`.
pub fn machine_list(model: &Model) -> String {
    let names: Vec<String> = model.machines.iter().map(|m| format!("`{}`", m.name)).collect();
    match names.as_slice() {
        [] => "no machine".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Write `text` to `output`, or to stdout when there is none.
pub fn write_output(output: Option<&PathBuf>, text: &str) -> Exit {
    match output {
        None => {
            console::stdout(text);
            Exit::Clean
        }
        Some(path) => match files::write(path, text) {
            Ok(()) => Exit::Clean,
            Err(error) => {
                console::error(error);
                Exit::Trouble
            }
        },
    }
}
