//! `fsmc lsp`'s re-check after an edit, end to end: a 1,000-transition
//! machine is opened in a real `fsmc lsp` process, then edited one keystroke
//! at a time, as a user types: a character is added to a transition's target
//! (an unknown state, with a "did you mean" search) and removed again. Each
//! sample is the wall time from writing the `didChange` to reading the
//! `publishDiagnostics` of that version: applying the change, the front end's
//! whole check, converting the diagnostics and both pipes.
//!
//! ```sh
//! cargo build --release -p fsm-cli
//! cargo run --release --manifest-path bench/Cargo.toml --bin lsp_recheck -- target/release/fsmc
//! ```

use fsm_bench::generator;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const TRANSITIONS: usize = 1_000;
const WARMUP: usize = 20;
const SAMPLES: usize = 201;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_none_or(|a| a == "--help" || a == "-h") {
        eprintln!("usage: lsp_recheck PATH/TO/fsmc   (build it with `cargo build --release -p fsm-cli`)");
        std::process::exit(2);
    }
    let generated = generator::machine("Bench", TRANSITIONS, generator::SEED);
    let text = generated.text;
    // The edit point: just after the first transition target.
    let arrow = text.find("-> ").expect("a transition with a target") + 3;
    let end = arrow + text[arrow..].find(';').expect("`;`");
    let (line, character) = position(&text, end);

    let mut child = Command::new(&args[0])
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", args[0]));
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    send(
        &mut stdin,
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } }),
    );
    receive(&mut stdout);
    send(
        &mut stdin,
        json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }),
    );
    let uri = "file:///bench/bench.fsm";
    send(
        &mut stdin,
        json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": { "uri": uri, "languageId": "fsm", "version": 1, "text": text } } }),
    );
    let opened = diagnostics(&mut stdout, 1);
    println!(
        "{} transitions, {} states, {} bytes, {} diagnostics on open",
        generated.transitions,
        generated.states,
        text.len(),
        opened
    );

    let mut samples = Vec::with_capacity(SAMPLES);
    let mut counts = [0, 0];
    for i in 0..WARMUP + SAMPLES {
        let version = i as i64 + 2;
        let typing = i % 2 == 0;
        let change = if typing {
            json!({ "range": range(line, character, line, character), "text": "x" })
        } else {
            json!({ "range": range(line, character, line, character + 1), "text": "" })
        };
        let start = Instant::now();
        send(
            &mut stdin,
            json!({ "jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": { "uri": uri, "version": version }, "contentChanges": [change] } }),
        );
        let count = diagnostics(&mut stdout, version);
        let elapsed = start.elapsed();
        counts[usize::from(typing)] = count;
        if i >= WARMUP {
            samples.push(elapsed);
        }
    }
    send(
        &mut stdin,
        json!({ "jsonrpc": "2.0", "id": 2, "method": "shutdown" }),
    );
    receive(&mut stdout);
    send(&mut stdin, json!({ "jsonrpc": "2.0", "method": "exit" }));
    child.wait().unwrap();

    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "diagnostics after an edit: {} with the typo, {} without",
        counts[1], counts[0]
    );
    println!(
        "edit -> diagnostics, {} samples: median {:.2} ms, p90 {:.2} ms, min {:.2} ms, max {:.2} ms",
        samples.len(),
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() * 9 / 10]),
        ms(samples[0]),
        ms(samples[samples.len() - 1])
    );
}

fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].encode_utf16().count())
}

fn range(l1: usize, c1: usize, l2: usize, c2: usize) -> Value {
    json!({ "start": { "line": l1, "character": c1 }, "end": { "line": l2, "character": c2 } })
}

fn send(stdin: &mut ChildStdin, message: Value) {
    let body = message.to_string();
    write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    stdin.flush().unwrap();
}

fn receive(stdout: &mut BufReader<ChildStdout>) -> Value {
    let mut length = 0;
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the server closed its output"
        );
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    stdout.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

/// Wait for the diagnostics of `version`; their number.
fn diagnostics(stdout: &mut BufReader<ChildStdout>, version: i64) -> usize {
    loop {
        let m = receive(stdout);
        if m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == version {
            return m["params"]["diagnostics"].as_array().map_or(0, Vec::len);
        }
    }
}
