//! `fsmc inspect`: a page in the browser that simulates one machine of a
//! `.fsm` file, or shows a fleet, served on loopback.
//!
//! The page is built into the binary ([`page`]); the server ([`server`])
//! answers it and nothing else, behind a random token in the URL; the
//! simulation ([`simulation`]) is a `fsmc run` session, so that every step
//! the page shows is a line `fsmc run` would print for the same input; a
//! fleet ([`fleet`]) is read from its database, read-only. With `--listen
//! ADDR`, the page watches running programs instead ([`live`]).
//! docs/inspecting.md is the guide.

mod fleet;
mod live;
mod page;
mod server;
mod simulation;

use crate::console;
use crate::exit::Exit;
use clap::Args;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

/// Arguments of `fsmc inspect`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Serves a page that draws the machine, highlights where it is, and drives it: buttons for its \
actions, a table of guard values, a clock, a timeline of steps to go back through, snapshots to \
download and restore, and the steps as a `fsmc run` script. Every step is a line of `fsmc run`'s \
protocol, and its output is the line `fsmc run` prints. Editing the file reloads the machine. \
docs/inspecting.md is the guide.

With --fleet DB, it shows a fleet instead (an SQLite file, or PostgreSQL `key=value` parameters or \
URL), read-only: each machine whose .fsm FILE is given is drawn with how many instances are in \
each state, and how many of them are parked, due and dead; the other machines are listed by \
state. A state lists its instances, and an instance shows what `fsmc fleet show` prints. The counts \
refresh while the page is open.

With --listen ADDR it watches running programs instead: their machines (observed with \
fsm-runtime's `inspect` feature) send their steps to ADDR, and the page lists the instances and \
follows the one chosen, live; the FILEs, if given, draw their machines.

It listens on 127.0.0.1 only, on a free port unless --port says which, and prints the page's \
URL, which holds a random token: a request without it is refused. Another address is used only \
when --bind names it, with a warning when it is not a loopback address.

Exit status:
  0  never, while serving (stop it with Ctrl-C)
  1  a FILE with errors (with --fleet), a database that is not a fleet's or is of a newer schema
  2  usage errors, a file that cannot be read, an unknown --machine, a database that cannot be \
read, and an address that cannot be listened on")]
pub struct InspectArgs {
    /// The `.fsm` file that defines the machine; with --fleet, any number of files, whose
    /// machines are drawn; with --listen, the files of the machines the programs run, when they
    /// do not send their definitions.
    #[arg(value_name = "FILE", required_unless_present_any = ["fleet", "listen"])]
    files: Vec<PathBuf>,

    /// Show the fleet in this database instead: an SQLite file, or PostgreSQL `key=value`
    /// parameters or a `postgres://` URL.
    #[arg(long, value_name = "DB", conflicts_with_all = ["machine", "context", "delays"])]
    fleet: Option<String>,

    /// Watch running programs instead: listen for the steps their machines send (fsm-runtime's
    /// `inspect` feature) on ADDR, a port (`7171`, on 127.0.0.1) or an address and port. An
    /// address that is not a loopback address is warned about.
    #[arg(long, value_name = "ADDR", value_parser = listen_address,
          conflicts_with_all = ["machine", "context", "delays", "fleet"])]
    listen: Option<SocketAddr>,

    /// The machine to simulate (required when the file has several).
    #[arg(long, value_name = "NAME")]
    machine: Option<String>,

    /// The port to listen on (0, the default, takes a free one).
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    port: u16,

    /// The address to listen on. Without it, 127.0.0.1. Any address that is not a loopback
    /// address makes the inspector reachable from other machines, and is warned about.
    #[arg(long, value_name = "ADDR")]
    bind: Option<IpAddr>,

    /// The machine's context: a JSON file (the context is `null` without it).
    #[arg(long, value_name = "FILE")]
    context: Option<PathBuf>,

    /// The value of a named delay, in fsmc's duration syntax (`--delay backoff=30s`), as for
    /// `fsmc run`.
    #[arg(long = "delay", value_name = "NAME=DURATION")]
    delays: Vec<String>,
}

/// Serve the page until stopped; see [`InspectArgs`] for the exit status.
pub fn run(args: &InspectArgs) -> Exit {
    if let Some(listen) = args.listen {
        return watch(args, listen);
    }
    if let Some(db) = &args.fleet {
        return match fleet::FleetView::open(db, &args.files) {
            Ok(view) => serve(args, view),
            Err(exit) => exit,
        };
    }
    let [file] = args.files.as_slice() else {
        console::error(format_args!(
            "`fsmc inspect` simulates one file, and was given {}; to show a fleet with its \
             machines drawn, add --fleet DB",
            args.files.len()
        ));
        return Exit::Trouble;
    };
    match simulation::Simulation::open(
        file.clone(),
        args.machine.clone(),
        args.context.clone(),
        args.delays.clone(),
    ) {
        Ok(simulation) => serve(args, simulation),
        Err(exit) => exit,
    }
}

/// Listen where `args` say, and serve `app` there.
fn serve(args: &InspectArgs, app: impl server::App) -> Exit {
    match page_server(args) {
        Some(server) => server.serve(app),
        None => Exit::Trouble,
    }
}

/// `fsmc inspect --listen ADDR [FILE]`: the page of running programs.
fn watch(args: &InspectArgs, listen: SocketAddr) -> Exit {
    if !listen.ip().is_loopback() {
        console::stderr(&format!(
            "warning: listening for programs on {listen}, which is not a loopback address: programs on \
             other machines can send steps to the inspector\n"
        ));
    }
    let Some(server) = page_server(args) else {
        return Exit::Trouble;
    };
    live::run(listen, args.files.clone(), server)
}

/// The page's server, on its own address (127.0.0.1 unless --bind), with
/// a fresh token; `None` after saying why it cannot listen.
fn page_server(args: &InspectArgs) -> Option<server::Server> {
    let address = args.bind.unwrap_or(IpAddr::from([127, 0, 0, 1]));
    if !address.is_loopback() {
        console::stderr(&format!(
            "warning: listening on {address}, which is not a loopback address: other machines can \
             reach the inspector, and anyone who learns its URL can drive it\n"
        ));
    }
    let token = match server::token() {
        Ok(token) => token,
        Err(error) => {
            console::error(format_args!("cannot draw a random token: {error}"));
            return None;
        }
    };
    match server::Server::bind(address, args.port, token) {
        Ok(server) => Some(server),
        Err(error) => {
            console::error(format_args!(
                "cannot listen on {address} port {}: {error}",
                args.port
            ));
            None
        }
    }
}

/// `7171` (on 127.0.0.1) or `ADDRESS:PORT`.
fn listen_address(text: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse::<SocketAddr>().map_err(|_| {
        format!("`{text}` is not a port (`7171`) or an address and port (`127.0.0.1:7171`, `[::1]:7171`)")
    })
}
