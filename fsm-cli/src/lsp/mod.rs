//! `fsmc lsp`: the Language Server Protocol over stdio.
//!
//! A thin layer over `fsm-grammar`: every answer comes from the front end
//! `fsmc check` and `fsmc fmt` use, so the editor and the command line never
//! disagree. Built on rust-analyzer's `lsp-server` (a synchronous scaffold:
//! the stdio transport and the message types) and `lsp-types`.
//!
//! - [`server`]: the state and the dispatch of messages to the modules below;
//! - [`documents`]: open documents, incremental sync, position encodings;
//! - [`analysis`] and [`index`]: what is known about a document's text;
//! - one module per feature: [`diagnostics`], [`actions`] (quick fixes),
//!   [`navigation`], [`rename`], [`hover`], [`completion`], [`format`](mod@format),
//!   [`symbols`], [`folding`], [`semantic_tokens`].
//!
//! The loop reads every message already waiting before it re-checks, so a
//! burst of keystrokes costs one check; requests always see the current text.

pub mod actions;
pub mod analysis;
pub mod completion;
pub mod diagnostics;
pub mod documents;
pub mod folding;
pub mod format;
pub mod hover;
pub mod index;
pub mod navigation;
pub mod rename;
pub mod semantic_tokens;
pub mod server;
pub mod symbols;

use crate::exit::Exit;
use clap::Args;
use lsp_server::Connection;
use lsp_types::InitializeParams;
use server::{log, Flow, Server};

/// Arguments of `fsmc lsp`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Editors start it and talk to it over standard input and output; docs/editors.md shows how to set \
up VS Code, Neovim, Helix and Zed. Lint options come from `#[allow(...)]` in the file and from the \
nearest `fsm.toml` above it, as for `fsmc check`. Logs go to standard error.")]
pub struct LspArgs {
    /// Talk over standard input and output (the only transport, and the
    /// default; accepted because clients such as VS Code's pass it).
    #[arg(long)]
    stdio: bool,
}

/// Serve one client until it sends `exit` or closes the connection.
pub fn run(_args: &LspArgs) -> Exit {
    let (connection, io_threads) = Connection::stdio();
    let exit = serve(&connection);
    drop(connection);
    if let Err(e) = io_threads.join() {
        log(&format!("the connection failed: {e}"));
    }
    exit
}

fn serve(connection: &Connection) -> Exit {
    let (id, params) = match connection.initialize_start() {
        Ok(start) => start,
        Err(e) => {
            log(&format!("no initialize request: {e}"));
            return Exit::Trouble;
        }
    };
    let params: InitializeParams = serde_json::from_value(params).unwrap_or_else(|e| {
        log(&format!(
            "invalid initialize params ({e}); assuming a minimal client"
        ));
        InitializeParams::default()
    });
    let mut server = Server::new(&params);
    let result = serde_json::json!({
        "capabilities": server.capabilities(),
        "serverInfo": { "name": "fsmc", "version": env!("CARGO_PKG_VERSION") },
    });
    if let Err(e) = connection.initialize_finish(id, result) {
        log(&format!("initialization failed: {e}"));
        return Exit::Trouble;
    }
    let mut out = Vec::new();
    while let Ok(message) = connection.receiver.recv() {
        let mut flow = server.handle(message, &mut out);
        while flow == Flow::Continue {
            match connection.receiver.try_recv() {
                Ok(message) => flow = server.handle(message, &mut out),
                Err(_) => break,
            }
        }
        if flow == Flow::Continue {
            server.idle(&mut out);
        }
        for message in out.drain(..) {
            if connection.sender.send(message).is_err() {
                return Exit::Trouble;
            }
        }
        if let Flow::Exit { clean } = flow {
            return if clean { Exit::Clean } else { Exit::Problems };
        }
    }
    log("the client closed the connection without `exit`");
    Exit::Problems
}
