//! The command line the runtime benchmarks share (`runtime_speed`,
//! `data_speed`, `nested_speed`): the same options, help, errors and
//! `--print-generated`.

use std::process::ExitCode;

/// What a runtime benchmark was asked to do.
pub struct Options {
    /// Events per trace.
    pub events: usize,
    /// Timed runs per implementation and trace.
    pub runs: usize,
    /// Share of invalid events in the second trace, in percent.
    pub reject_percent: u64,
    /// Print the generated code and exit.
    pub print_generated: bool,
    /// Time only the hand-written code and the implementations whose name
    /// contains this.
    pub only: Option<String>,
}

/// The help text of benchmark `bin`, whose machine is described as `machine`
/// (`the agent machine`).
fn usage(bin: &str, machine: &str) -> String {
    let pad = " ".repeat(bin.len());
    format!(
        "\
usage: {bin} [--events N] [--runs N] [--reject-percent P] [--only TEXT]
       {pad} [--print-generated]

  --events N          events per trace (default 1000000)
  --runs N            timed runs per implementation and trace (default 21)
  --reject-percent P  share of invalid events in the second trace (default 10)
  --only TEXT         time only the hand-written `match` and the implementations whose
                      name contains TEXT (for profiling one of them, e.g. with perf)
  --print-generated   print the code `fsm!` generates for {machine} and exit"
    )
}

/// The options of `args` (without the program name), or the exit status
/// after printing the help (`-h`, `--help`) or a usage error.
pub fn parse(bin: &str, machine: &str, args: impl Iterator<Item = String>) -> Result<Options, ExitCode> {
    match parse_args(args) {
        Ok(options) => Ok(options),
        Err(message) if message.is_empty() => {
            println!("{}", usage(bin, machine));
            Err(ExitCode::SUCCESS)
        }
        Err(message) => {
            eprintln!("error: {message}\n\n{}", usage(bin, machine));
            Err(ExitCode::from(2))
        }
    }
}

/// The options, or a usage error's message (empty for `--help`).
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        events: 1_000_000,
        runs: 21,
        reject_percent: 10,
        print_generated: false,
        only: None,
    };
    while let Some(arg) = args.next() {
        let mut number = |flag: &str, min: u64, max: u64| -> Result<u64, String> {
            let value = args.next().ok_or_else(|| format!("`{flag}` needs a value"))?;
            match value.replace('_', "").parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                _ => Err(format!(
                    "`{flag}` takes a number from {min} to {max}, not `{value}`"
                )),
            }
        };
        match arg.as_str() {
            "--events" => options.events = number("--events", 1, 1 << 32)? as usize,
            "--runs" => options.runs = number("--runs", 1, 1001)? as usize,
            "--reject-percent" => options.reject_percent = number("--reject-percent", 0, 100)?,
            "--print-generated" => options.print_generated = true,
            "--only" => options.only = Some(args.next().ok_or("`--only` needs a value")?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unexpected argument `{other}`")),
        }
    }
    Ok(options)
}

/// Print the code `fsm!` generates for the `.fsm` text `source` (named
/// `file_name`), or its errors.
pub fn print_generated(source: &str, file_name: &str) -> ExitCode {
    match fsm_codegen::render_source(source, file_name, &fsm_codegen::Options::default()) {
        Ok(source) => {
            print!("{source}");
            ExitCode::SUCCESS
        }
        Err(diagnostics) => {
            for d in diagnostics {
                eprintln!("error[{}]: {}", d.code, d.message);
            }
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> impl Iterator<Item = String> + '_ {
        text.split_whitespace().map(str::to_owned)
    }

    #[test]
    fn options_and_their_errors() {
        let o = parse_args(args("--events 1_000 --runs 3 --reject-percent 0 --only gen")).unwrap();
        assert_eq!((o.events, o.runs, o.reject_percent), (1000, 3, 0));
        assert_eq!(o.only.as_deref(), Some("gen"));
        assert_eq!(
            parse_args(args("--runs 0")).err().unwrap(),
            "`--runs` takes a number from 1 to 1001, not `0`"
        );
        assert_eq!(parse_args(args("--help")).err().unwrap(), "");
        let help = usage("nested_speed", "the nested machine");
        let lines: Vec<&str> = help.lines().collect();
        assert_eq!(lines[0].find("[--events"), lines[1].find("[--print-generated]"));
    }
}
