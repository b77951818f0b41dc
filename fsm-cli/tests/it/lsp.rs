//! `fsmc lsp` driven over stdio as an editor drives it: initialize, open,
//! incremental changes, diagnostics, every request the server offers,
//! shutdown and exit. It runs on every fixture, and checks that the
//! diagnostics are those of `fsmc check --format json`.

use crate::harness;

use harness::Scratch;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// A minimal LSP client talking to one `fsmc lsp` process.
struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    /// Notifications read while waiting for something else.
    notifications: Vec<Value>,
    next_id: i64,
    /// The result of `initialize`.
    initialized: Value,
}

impl Client {
    /// Start `fsmc lsp` in `dir` and initialize it, offering UTF-8 positions if `utf8`.
    fn start(dir: &Path, utf8: bool) -> Client {
        Client::start_with(dir, utf8, Value::Null)
    }

    /// [`Client::start`], sending `options` as `initializationOptions` (unless null).
    fn start_with(dir: &Path, utf8: bool, options: Value) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fsmc"))
            .arg("lsp")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start fsmc lsp");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, messages) = channel();
        std::thread::spawn(move || loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(n) = line.strip_prefix("Content-Length: ") {
                    length = n.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; length.expect("Content-Length")];
            stdout.read_exact(&mut body).expect("message body");
            if send
                .send(serde_json::from_slice(&body).expect("JSON message"))
                .is_err()
            {
                return;
            }
        });
        let mut client = Client {
            child,
            stdin,
            messages,
            notifications: Vec::new(),
            next_id: 0,
            initialized: Value::Null,
        };
        let encodings = if utf8 {
            json!(["utf-8", "utf-16"])
        } else {
            json!(["utf-16"])
        };
        let capabilities = json!({
            "general": { "positionEncodings": encodings },
            "textDocument": { "completion": { "completionItem": { "snippetSupport": true } } }
        });
        let mut params = json!({ "capabilities": capabilities });
        if !options.is_null() {
            params["initializationOptions"] = options;
        }
        let result = client.request("initialize", params);
        client.initialized = result["result"].clone();
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn receive(&mut self) -> Value {
        self.messages
            .recv_timeout(Duration::from_secs(20))
            .expect("the server answers within 20 s")
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Send a request and wait for its response (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.receive();
            if message["id"] == json!(id) {
                return message;
            }
            self.notifications.push(message);
        }
    }

    /// A request that must succeed; its result.
    fn ok(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params.clone());
        assert!(response.get("error").is_none(), "{method} {params}: {response}");
        response["result"].clone()
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let is_for =
            |m: &Value| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri;
        if let Some(i) = self.notifications.iter().position(is_for) {
            let m = self.notifications.remove(i);
            return m["params"]["diagnostics"].as_array().unwrap().clone();
        }
        loop {
            let m = self.receive();
            if is_for(&m) {
                return m["params"]["diagnostics"].as_array().unwrap().clone();
            }
            self.notifications.push(m);
        }
    }

    fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "fsm", "version": 1, "text": text } }),
        );
        self.diagnostics(uri)
    }

    /// Shut down and exit; the process must end with status 0.
    fn finish(mut self) {
        assert_eq!(self.ok("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "fsmc lsp exited with {status}");
    }
}

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display()).replace(' ', "%20")
}

fn position(line: usize, character: usize) -> Value {
    json!({ "line": line, "character": character })
}

/// The UTF-16 position of 1-based line `line` and character column `column`.
fn utf16_position(text: &str, line: usize, column: usize) -> Value {
    let line_text = text.split('\n').nth(line - 1).unwrap_or("");
    let line_text = if line == 1 {
        line_text.trim_start_matches('\u{feff}')
    } else {
        line_text
    };
    let units: usize = line_text.chars().take(column - 1).map(char::len_utf16).sum();
    let bom = usize::from(line == 1 && text.starts_with('\u{feff}'));
    position(line - 1, units + bom)
}

/// The UTF-16 position of byte `offset`.
fn offset_position(text: &str, offset: usize) -> Value {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    position(line, before[start..].encode_utf16().count())
}

/// The `.fsm` fixtures of `dirs` (of `tests/fixtures`).
fn fixtures(dirs: &[&str]) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut out = Vec::new();
    for dir in dirs {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "fsm") {
                out.push(path);
            }
        }
    }
    out.sort();
    assert!(out.len() > 40, "fixtures found in {dirs:?}: {}", out.len());
    out
}

/// `(code, start, end)` of each diagnostic, as `fsmc check --format json` reports them.
fn check_json(path: &Path, text: &str) -> Vec<(String, Value, Value)> {
    let output = Command::new(env!("CARGO_BIN_EXE_fsmc"))
        .args(["check", "--format", "json"])
        .arg(path)
        .output()
        .unwrap();
    let records: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    records
        .iter()
        .map(|r| {
            let at = |line: &str, column: &str| {
                utf16_position(
                    text,
                    r[line].as_u64().unwrap() as usize,
                    r[column].as_u64().unwrap() as usize,
                )
            };
            (
                r["code"].as_str().unwrap().to_string(),
                at("line", "column"),
                at("end_line", "end_column"),
            )
        })
        .collect()
}

fn codes_and_ranges(diagnostics: &[Value]) -> Vec<(String, Value, Value)> {
    diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["range"]["start"].clone(),
                d["range"]["end"].clone(),
            )
        })
        .collect()
}

/// Fixtures with up to this many word starts and ends get every request at
/// each of them.
const EVERY_WORD_UP_TO: usize = 1_000;

/// The offsets of `offsets` that get every request: all of them, but in a
/// long fixture the first and last `EVERY_WORD_UP_TO / 2` and every 16th
/// between. The one such fixture, `err/chain-too-long.fsm`, repeats one
/// line 1,100 times: it held a third of the words of all fixtures, and a
/// request on it costs about eight times one on a small fixture, so it took
/// over half of this test's time (62 s of CPU in CI, now 34 s).
fn probed(offsets: &[usize]) -> Vec<usize> {
    let edge = EVERY_WORD_UP_TO / 2;
    offsets
        .iter()
        .enumerate()
        .filter(|&(i, _)| {
            offsets.len() <= EVERY_WORD_UP_TO || i < edge || i >= offsets.len() - edge || i % 16 == 0
        })
        .map(|(_, &offset)| offset)
        .collect()
}

#[test]
fn a_long_fixture_is_probed_at_its_ends_and_evenly_between() {
    let short: Vec<usize> = (0..EVERY_WORD_UP_TO).collect();
    assert_eq!(probed(&short), short);
    let long: Vec<usize> = (0..10 * EVERY_WORD_UP_TO).collect();
    let probed = probed(&long);
    assert_eq!(probed[..EVERY_WORD_UP_TO / 2], long[..EVERY_WORD_UP_TO / 2]);
    assert_eq!(
        probed[probed.len() - EVERY_WORD_UP_TO / 2..],
        long[long.len() - EVERY_WORD_UP_TO / 2..]
    );
    assert!(
        probed.windows(2).all(|w| w[1] - w[0] <= 16),
        "a gap wider than 16"
    );
    assert!(probed.len() < 2 * EVERY_WORD_UP_TO, "{}", probed.len());
}

// Two halves of about as many words each, one server each, so that they run
// side by side.
#[test]
fn every_ok_and_warn_fixture_through_the_whole_protocol() {
    through_the_whole_protocol(&fixtures(&["ok", "warn"]));
}

#[test]
fn every_err_fixture_through_the_whole_protocol() {
    through_the_whole_protocol(&fixtures(&["err"]));
}

/// Each of `fixtures` opened in one server, diagnosed as `fsmc check` does,
/// every request at every word (see [`probed`]), an edit and its undo, and
/// closed.
fn through_the_whole_protocol(fixtures: &[PathBuf]) {
    let dir = Scratch::new();
    let mut client = Client::start(&dir.path(""), false);
    assert_eq!(client.initialized["capabilities"]["positionEncoding"], "utf-16");
    for path in fixtures {
        let text = std::fs::read_to_string(path).unwrap();
        let uri = uri_of(path);
        let name = path.display();
        let doc = json!({ "uri": uri });

        let diagnostics = client.open(&uri, &text);
        let expected = check_json(path, &text);
        assert_eq!(codes_and_ranges(&diagnostics), expected, "{name}");
        for d in &diagnostics {
            // fsmc has no published URL of its own: no link unless configured.
            assert!(d.get("codeDescription").is_none(), "{d}");
            assert!(d["message"].as_str().unwrap().contains("\nhelp: "), "{d}");
        }

        // Every request at the start of every word and one past its end.
        let mut offsets: Vec<usize> = Vec::new();
        let mut previous_is_word = false;
        for (i, c) in text.char_indices() {
            let is_word = c.is_ascii_alphanumeric() || c == '_';
            if is_word != previous_is_word {
                offsets.push(i);
            }
            previous_is_word = is_word;
        }
        for offset in probed(&offsets) {
            let at = json!({ "textDocument": doc, "position": offset_position(&text, offset) });
            client.ok("textDocument/hover", at.clone());
            client.ok("textDocument/definition", at.clone());
            let mut with_context = at.clone();
            with_context["context"] = json!({ "includeDeclaration": true });
            client.ok("textDocument/references", with_context);
            client.ok("textDocument/completion", at.clone());
            // Renaming may be refused, with a reason, but never fail otherwise.
            let prepared = client.request("textDocument/prepareRename", at.clone());
            if let Some(error) = prepared.get("error") {
                assert_eq!(error["code"], -32803, "{name}: {prepared}");
            }
        }
        let tokens = client.ok("textDocument/semanticTokens/full", json!({ "textDocument": doc }));
        assert_eq!(tokens["data"].as_array().unwrap().len() % 5, 0);
        client.ok("textDocument/documentSymbol", json!({ "textDocument": doc }));
        client.ok("textDocument/foldingRange", json!({ "textDocument": doc }));
        client.ok(
            "textDocument/formatting",
            json!({ "textDocument": doc, "options": { "tabSize": 4, "insertSpaces": true } }),
        );
        let end = offset_position(&text, text.len());
        let actions = client.ok(
            "textDocument/codeAction",
            json!({ "textDocument": doc, "range": { "start": position(0, 0), "end": end },
                    "context": { "diagnostics": [] } }),
        );
        // Every diagnostic with a suggestion has a quick fix replacing its word.
        let with_help = diagnostics
            .iter()
            .filter(|d| d["message"].as_str().unwrap().contains("did you mean"))
            .count();
        let replacements = actions
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["title"].as_str().unwrap().starts_with("Replace "))
            .count();
        assert!(replacements <= with_help, "{name}");

        // An incremental edit in the middle and its undo give the same diagnostics.
        let middle = offsets.get(offsets.len() / 2).copied().unwrap_or(0);
        let at = offset_position(&text, middle);
        client.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": 2 },
                    "contentChanges": [{ "range": { "start": at, "end": at }, "text": "}x{ é" }] }),
        );
        client.diagnostics(&uri);
        let end_of_insert = json!({ "line": at["line"], "character": at["character"].as_u64().unwrap() + 5 });
        client.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": 3 },
                    "contentChanges": [{ "range": { "start": at, "end": end_of_insert }, "text": "" }] }),
        );
        assert_eq!(
            codes_and_ranges(&client.diagnostics(&uri)),
            expected,
            "{name} after undo"
        );
        client.notify("textDocument/didClose", json!({ "textDocument": doc }));
        assert!(client.diagnostics(&uri).is_empty());
    }
    client.finish();
}

const TYPO: &str = "machine Door {\n    initial state closed { on open -> opend; }\n    state opened { on close -> closed; }\n}\n";

#[test]
fn a_misspelled_target_is_fixed_then_a_state_renamed_and_the_file_formatted() {
    let dir = Scratch::new();
    dir.write("door.fsm", TYPO);
    let uri = uri_of(&dir.path("door.fsm"));
    let doc = json!({ "uri": uri });
    let mut client = Client::start(&dir.path(""), false);
    let diagnostics = client.open(&uri, TYPO);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let d = &diagnostics[0];
    assert_eq!(d["code"], "unknown-state");
    assert_eq!(d["severity"], 1);
    assert_eq!(
        d["range"],
        json!({ "start": position(1, 38), "end": position(1, 43) })
    );
    assert_eq!(
        d["message"],
        "transition on `open` targets unknown state `opend`\nhelp: did you mean `opened`?"
    );

    let actions = client.ok(
        "textDocument/codeAction",
        json!({ "textDocument": doc, "range": d["range"], "context": { "diagnostics": [d] } }),
    );
    let fix = &actions[0];
    assert_eq!(fix["title"], "Replace `opend` with `opened`");
    assert_eq!(fix["isPreferred"], true);
    let edit = &fix["edit"]["changes"][&uri][0];
    assert_eq!(edit["newText"], "opened");
    assert_eq!(edit["range"], d["range"]);
    assert!(actions
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["title"] == "Declare state `opend`"));

    let fixed = TYPO.replace("opend", "opened");
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 },
                "contentChanges": [{ "range": d["range"], "text": "opened" }] }),
    );
    assert!(client.diagnostics(&uri).is_empty());

    // Definition of the target is the state; rename `opened` everywhere.
    let target = json!({ "textDocument": doc, "position": position(1, 40) });
    let definition = client.ok("textDocument/definition", target.clone());
    assert_eq!(definition["range"]["start"], position(2, 10));
    let prepared = client.ok("textDocument/prepareRename", target.clone());
    assert_eq!(prepared["placeholder"], "opened");
    let mut rename = target.clone();
    rename["newName"] = json!("open_");
    let edits = client.ok("textDocument/rename", rename.clone())["changes"][&uri].clone();
    assert_eq!(edits.as_array().unwrap().len(), 2);
    rename["newName"] = json!("closed");
    let refused = client.request("textDocument/rename", rename.clone());
    assert_eq!(
        refused["error"]["message"],
        "this machine already has a state named `closed`"
    );
    rename["newName"] = json!("not a name");
    assert!(client.request("textDocument/rename", rename)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("is not a name"));

    // Hover on the state lists its transitions; formatting edits only what changes.
    let hover = client.ok("textDocument/hover", target);
    let hover = hover["contents"]["value"].as_str().unwrap();
    assert!(hover.starts_with("state `opened`"), "{hover}");
    assert!(hover.contains("`closed` on `open` → `opened`"), "{hover}");
    let formatted = client.ok(
        "textDocument/formatting",
        json!({ "textDocument": doc, "options": { "tabSize": 4, "insertSpaces": true } }),
    );
    let mut text = fixed.clone();
    for edit in formatted.as_array().unwrap() {
        let (start, end) = (&edit["range"]["start"], &edit["range"]["end"]);
        let offset = |p: &Value| {
            let line = p["line"].as_u64().unwrap() as usize;
            let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
            start + p["character"].as_u64().unwrap() as usize
        };
        let (a, b) = (offset(start), offset(end));
        text.replace_range(a..b, edit["newText"].as_str().unwrap());
    }
    let output = Command::new(env!("CARGO_BIN_EXE_fsmc"))
        .args(["fmt", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(fixed.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(text, String::from_utf8(output.stdout).unwrap());
    client.finish();
}

#[test]
fn diagnostics_link_to_the_page_the_client_names_and_nowhere_otherwise() {
    let dir = Scratch::new();
    dir.write("door.fsm", TYPO);
    let uri = uri_of(&dir.path("door.fsm"));
    let page = "https://docs.example.org/fsmc/diagnostics.md";
    let mut client = Client::start_with(&dir.path(""), false, json!({ "diagnosticsUrl": page }));
    let diagnostics = client.open(&uri, TYPO);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let link = json!({ "href": format!("{page}#unknown-state") });
    assert_eq!(diagnostics[0]["codeDescription"], link);
    // The diagnostic a quick fix names is the published one.
    let actions = client.ok(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": diagnostics[0]["range"],
                "context": { "diagnostics": [diagnostics[0]] } }),
    );
    assert_eq!(actions[0]["diagnostics"][0], diagnostics[0]);
    client.finish();

    // A value that is not a page is ignored (and logged): no link, and the
    // server works as without it.
    for bad in [
        json!("docs/diagnostics.md"),
        json!(7),
        json!(format!("{page}#top")),
    ] {
        let mut client = Client::start_with(&dir.path(""), false, json!({ "diagnosticsUrl": bad }));
        let diagnostics = client.open(&uri, TYPO);
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert!(
            diagnostics[0].get("codeDescription").is_none(),
            "{bad}: {}",
            diagnostics[0]
        );
        client.finish();
    }
}

const RESEARCH: &str = "machine Research {
    initial state idle { on start -> collect; }
    /// Both researchers work at once.
    parallel state collect {
        on cancel -> cancelled;
        done [in(a_done)] priority 1 -> synthesis emit spawn_synthesizer;
        done -> synthesis emit spawn_synthesizer;
        state researcher_a {
            initial state a_running { on a_written -> a_done; on a_failed -> a_gave_up; }
            final state a_done;
            final state a_gave_up;
        }
        state researcher_b {
            initial state b_running { on b_written -> b_done; }
            final state b_done;
        }
    }
    state synthesis { on s_written -> delivered; always [in(synthesis)] -> delivered; }
    terminal state delivered;
    terminal state cancelled;
}
";

#[test]
fn parallel_states_done_always_and_in_through_the_whole_protocol() {
    let dir = Scratch::new();
    dir.write("research.fsm", RESEARCH);
    let uri = uri_of(&dir.path("research.fsm"));
    let doc = json!({ "uri": uri });
    let mut client = Client::start(&dir.path(""), false);
    assert!(client.open(&uri, RESEARCH).is_empty());
    let at = |needle: &str, plus: usize| json!({ "textDocument": doc, "position": offset_position(RESEARCH, RESEARCH.find(needle).unwrap() + plus) });
    let hover = |client: &mut Client, needle: &str, plus: usize| {
        client.ok("textDocument/hover", at(needle, plus))["contents"]["value"]
            .as_str()
            .unwrap()
            .to_string()
    };

    // Hover: a parallel state and its regions, a final state, the keywords.
    let collect = hover(&mut client, "collect {", 0);
    assert!(collect.starts_with("state `collect` (parallel)\n\nBoth researchers work at once.\n\n**Regions**: `researcher_a`, `researcher_b`"), "{collect}");
    assert!(
        collect.contains("- `collect` done [`in(a_done)`] → `synthesis`"),
        "{collect}"
    );
    assert!(hover(&mut client, "a_gave_up;", 0).starts_with("state `a_gave_up` (final)"));
    let done = hover(&mut client, "done [", 0);
    assert!(
        done.starts_with("keyword `done`\n\nA completion transition"),
        "{done}"
    );
    let always = hover(&mut client, "always", 0);
    assert!(
        always.ends_with("`synthesis` always [`in(synthesis)`] → `delivered`"),
        "{always}"
    );

    // Definition, references and rename of a state through `in(...)`.
    let in_a_done = at("a_done)", 0);
    let definition = client.ok("textDocument/definition", in_a_done.clone());
    assert_eq!(
        definition["range"]["start"],
        offset_position(
            RESEARCH,
            RESEARCH.find("final state a_done").unwrap() + "final state ".len()
        )
    );
    let mut with_context = in_a_done.clone();
    with_context["context"] = json!({ "includeDeclaration": true });
    let references = client.ok("textDocument/references", with_context);
    assert_eq!(references.as_array().unwrap().len(), 3, "{references}");
    let mut rename = in_a_done;
    rename["newName"] = json!("a_finished");
    let edits = client.ok("textDocument/rename", rename)["changes"][&uri].clone();
    let mut text = RESEARCH.to_string();
    let mut edits = edits.as_array().unwrap().clone();
    edits.sort_by_key(|e| {
        (
            e["range"]["start"]["line"].as_u64(),
            e["range"]["start"]["character"].as_u64(),
        )
    });
    for edit in edits.iter().rev() {
        let offset = |p: &Value| {
            let line = p["line"].as_u64().unwrap() as usize;
            let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
            start + p["character"].as_u64().unwrap() as usize
        };
        let (a, b) = (offset(&edit["range"]["start"]), offset(&edit["range"]["end"]));
        text.replace_range(a..b, edit["newText"].as_str().unwrap());
    }
    assert_eq!(text, RESEARCH.replace("a_done", "a_finished"));

    // Completion after `in(` offers the states.
    let typing = RESEARCH.replace("done -> synthesis", "done [in(");
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": typing }] }),
    );
    client.diagnostics(&uri);
    let offset = typing.find("[in(").unwrap() + 4;
    let items = client.ok(
        "textDocument/completion",
        json!({ "textDocument": doc, "position": offset_position(&typing, offset) }),
    );
    let labels: Vec<&str> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    for state in ["collect", "a_done", "researcher_b", "b_done"] {
        assert!(labels.contains(&state), "{labels:?}");
    }
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 3 }, "contentChanges": [{ "text": RESEARCH }] }),
    );
    assert!(client.diagnostics(&uri).is_empty());

    // The outline, folding and semantic tokens know the new constructs.
    let outline = client.ok("textDocument/documentSymbol", json!({ "textDocument": doc }));
    let collect = &outline[0]["children"][1];
    assert_eq!(
        (&collect["name"], &collect["detail"]),
        (&json!("collect"), &json!("parallel"))
    );
    let names: Vec<&str> = collect["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "on cancel -> cancelled",
            "done -> synthesis",
            "done -> synthesis",
            "researcher_a",
            "researcher_b"
        ]
    );
    assert_eq!(collect["children"][3]["children"][1]["detail"], "final");
    let folds = client.ok("textDocument/foldingRange", json!({ "textDocument": doc }));
    let folds: Vec<(u64, u64)> = folds
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["startLine"].as_u64().unwrap(), f["endLine"].as_u64().unwrap()))
        .collect();
    assert_eq!(folds, [(0, 20), (3, 16), (7, 11), (12, 15)]);
    let legend = &client.initialized["capabilities"]["semanticTokensProvider"]["legend"]["tokenTypes"];
    let keyword = legend
        .as_array()
        .unwrap()
        .iter()
        .position(|t| t == "keyword")
        .unwrap() as u64;
    let tokens = client.ok("textDocument/semanticTokens/full", json!({ "textDocument": doc }));
    let data = tokens["data"].as_array().unwrap();
    let keywords = data.chunks(5).filter(|t| t[3] == keyword).count();
    // `parallel`, two `done`, three `final`, `always`, two `in`.
    assert_eq!(keywords, 9);
    client.finish();
}

const GATE: &str = "\
machine Gate {
    initial state closed { on open -> opened; }
    state opened { on close -> closed; on jam -> locked_out; }
    terminal state locked_out;

    /// Nobody is ever locked out.
    property no_lockout: never in(locked_out);
    recoverable in(closed) || terminal;
}
";

#[test]
fn properties_through_the_whole_protocol() {
    let dir = Scratch::new();
    dir.write("gate.fsm", GATE);
    let uri = uri_of(&dir.path("gate.fsm"));
    let doc = json!({ "uri": uri });
    let mut client = Client::start(&dir.path(""), false);
    assert!(client.open(&uri, GATE).is_empty());
    let at = |needle: &str, plus: usize| json!({ "textDocument": doc, "position": offset_position(GATE, GATE.find(needle).unwrap() + plus) });
    let hover = |client: &mut Client, needle: &str, plus: usize| {
        client.ok("textDocument/hover", at(needle, plus))["contents"]["value"]
            .as_str()
            .unwrap()
            .to_string()
    };

    // Hover: a property's name, its kind's keyword, `terminal`, and a state
    // named in one.
    let name = hover(&mut client, "no_lockout", 0);
    assert_eq!(
        name, "property `no_lockout`\n\n`never in(locked_out)`\n\nNobody is ever locked out.",
        "{name}"
    );
    let never = hover(&mut client, "never in", 0);
    assert!(
        never.starts_with("keyword `never`\n\nA property `fsmc verify` checks"),
        "{never}"
    );
    assert!(
        never.ends_with("`never in(locked_out)`\n\nNobody is ever locked out."),
        "{never}"
    );
    let terminal = hover(&mut client, "terminal;", 0);
    assert!(terminal.starts_with("keyword `terminal`"), "{terminal}");
    assert!(
        terminal.contains("`recoverable in(closed) || terminal`"),
        "{terminal}"
    );
    let state = hover(&mut client, "locked_out);", 0);
    assert!(state.starts_with("state `locked_out` (terminal)"), "{state}");
    assert!(state.contains("`no_lockout`"), "{state}");

    // Definition and references of a state through a property.
    let in_closed = at("closed) ||", 0);
    let definition = client.ok("textDocument/definition", in_closed.clone());
    assert_eq!(
        definition["range"]["start"],
        offset_position(GATE, GATE.find("closed {").unwrap())
    );
    let mut with_context = in_closed;
    with_context["context"] = json!({ "includeDeclaration": true });
    let references = client.ok("textDocument/references", with_context);
    assert_eq!(references.as_array().unwrap().len(), 3, "{references}");

    // Diagnostics on the property's formula: an unknown state, with its fix.
    let broken = GATE.replace("in(closed) ||", "in(clsoed) ||");
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": broken }] }),
    );
    let diagnostics = client.diagnostics(&uri);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "unknown-state");
    let start = broken.find("clsoed").unwrap();
    assert_eq!(diagnostics[0]["range"]["start"], offset_position(&broken, start));
    assert_eq!(
        diagnostics[0]["range"]["end"],
        offset_position(&broken, start + "clsoed".len())
    );
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 3 }, "contentChanges": [{ "text": GATE }] }),
    );
    assert!(client.diagnostics(&uri).is_empty());

    // The outline lists the properties, by name or text.
    let outline = client.ok("textDocument/documentSymbol", json!({ "textDocument": doc }));
    let entries: Vec<(&str, &str)> = outline[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .skip(3)
        .map(|c| (c["name"].as_str().unwrap(), c["detail"].as_str().unwrap()))
        .collect();
    assert_eq!(
        entries,
        [("no_lockout", "never"), ("in(closed) || terminal", "recoverable")]
    );
    client.finish();
}

#[test]
fn positions_are_utf8_when_the_client_offers_it() {
    let dir = Scratch::new();
    for utf8 in [false, true] {
        let mut client = Client::start(&dir.path(""), utf8);
        let expected = if utf8 { "utf-8" } else { "utf-16" };
        assert_eq!(client.initialized["capabilities"]["positionEncoding"], expected);
        let uri = "file:///nowhere/m.fsm";
        // A stray `é`: 2 bytes of UTF-8, 1 unit of UTF-16.
        let diagnostics = client.open(uri, "machine M { initial state a { on go -> a; } } \u{e9}");
        let syntax = diagnostics
            .iter()
            .find(|d| d["code"] == "syntax")
            .expect("a syntax error");
        let range = &syntax["range"];
        let start = range["start"]["character"].as_u64().unwrap();
        let end = range["end"]["character"].as_u64().unwrap();
        assert_eq!((start, end - start), (46, if utf8 { 2 } else { 1 }), "{range}");
        client.finish();
    }
}

const UNREACHABLE: &str = "machine Door {\n    initial state closed { on open -> opened; }\n    state opened { on close -> closed; }\n    state spare { on open -> closed; }\n}\n";

#[test]
fn fsm_toml_lints_apply_to_check_and_to_the_server() {
    let dir = Scratch::new();
    dir.write("project/machines/door.fsm", UNREACHABLE);
    let uri = uri_of(&dir.path("project/machines/door.fsm"));
    // Without a configuration: the warning.
    assert!(dir
        .fsmc(&["check", "project"])
        .expect(0)
        .stderr()
        .contains("unreachable-state"));
    let mut client = Client::start(&dir.path(""), false);
    assert_eq!(
        codes_and_ranges(&client.open(&uri, UNREACHABLE))[0].0,
        "unreachable-state"
    );

    // Found upward from the file: allowed.
    dir.write("project/fsm.toml", "[lints]\nallow = [\"unreachable-state\"]\n");
    assert!(!dir
        .fsmc(&["check", "project"])
        .expect(0)
        .stderr()
        .contains("unreachable-state"));
    // Standard input is configured like the file it names, wherever fsmc runs.
    let piped = ["check", "--stdin-filename", "project/machines/door.fsm", "-"];
    assert!(!dir
        .fsmc_with_stdin(&piped, UNREACHABLE)
        .expect(0)
        .stderr()
        .contains("unreachable-state"));
    assert!(dir
        .fsmc_with_stdin(&["check", "-"], UNREACHABLE)
        .expect(0)
        .stderr()
        .contains("unreachable-state"));
    client.notify("textDocument/didSave", json!({ "textDocument": { "uri": uri } }));
    assert!(client.diagnostics(&uri).is_empty());

    // Denied: an error; the command line wins over the file.
    dir.write("project/fsm.toml", "[lints]\ndeny = [\"unreachable-state\"]\n");
    dir.fsmc(&["check", "project"]).expect(1);
    dir.fsmc(&["check", "project", "--allow", "unreachable-state"])
        .expect(0);
    client.notify("textDocument/didSave", json!({ "textDocument": { "uri": uri } }));
    assert_eq!(client.diagnostics(&uri)[0]["severity"], 1);

    // A broken file is an error for `check` and a warning message from the server.
    dir.write("project/fsm.toml", "[lints]\nallow = [\"unreachable-stat\"]\n");
    let run = dir.fsmc(&["check", "project"]).expect(2);
    assert!(
        run.stderr().contains(
            "`[lints] allow`: unknown diagnostic code `unreachable-stat`; did you mean `unreachable-state`?"
        ),
        "{}",
        run.stderr()
    );
    client.notify("textDocument/didSave", json!({ "textDocument": { "uri": uri } }));
    assert_eq!(client.diagnostics(&uri)[0]["severity"], 2, "the defaults apply");
    let shown = client
        .notifications
        .iter()
        .find(|m| m["method"] == "window/showMessage")
        .expect("a message about fsm.toml");
    assert!(shown["params"]["message"].as_str().unwrap().contains("fsm.toml"));
    client.finish();
}

#[test]
fn bad_messages_get_errors_and_the_server_goes_on() {
    let dir = Scratch::new();
    let mut client = Client::start(&dir.path(""), false);
    let unknown = client.request("textDocument/unknownThing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    let invalid = client.request("textDocument/hover", json!({ "nonsense": true }));
    assert_eq!(invalid["error"]["code"], -32602);
    let closed = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": "file:///x.fsm" }, "position": position(0, 0) }),
    );
    assert_eq!(closed["error"]["code"], -32602);
    // A change to a document never opened, and positions far outside the text.
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": "file:///x.fsm", "version": 2 }, "contentChanges": [{ "text": "x" }] }),
    );
    client.open("file:///y.fsm", "machine M { initial state a; }");
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": "file:///y.fsm", "version": 2 },
                "contentChanges": [{ "range": { "start": position(99, 99), "end": position(0, 5) }, "text": "é" }] }),
    );
    client.diagnostics("file:///y.fsm");
    let hover = client.ok(
        "textDocument/hover",
        json!({ "textDocument": { "uri": "file:///y.fsm" }, "position": position(u32::MAX as usize, 7) }),
    );
    assert_eq!(hover, Value::Null);
    client.finish();
}

/// A client we did not write: Neovim headless runs editors/nvim/test.lua
/// (diagnostic, quick fix, rename, formatting, final text). Skipped when
/// `nvim` is missing, except in CI (`CI` set), where it fails instead.
#[test]
fn neovim_fixes_renames_and_formats_through_the_server() {
    let nvim_present = Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !nvim_present {
        let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        assert!(
            !in_ci,
            "`nvim` is not installed, and in CI this test needs it (.ci/neovim.sh installs it)"
        );
        eprintln!("skipped: `nvim` is not installed (Debian: apt-get install neovim)");
        return;
    }
    let editors = Path::new(env!("CARGO_MANIFEST_DIR")).join("../editors/nvim");
    let dir = Scratch::new();
    dir.write(
        "door.fsm",
        &std::fs::read_to_string(editors.join("door.fsm")).unwrap(),
    );
    let output = Command::new("nvim")
        .args(["--headless", "--clean", "-c"])
        .arg(format!("luafile {}", editors.join("test.lua").display()))
        .env("FSMC", env!("CARGO_BIN_EXE_fsmc"))
        .env("FSM_FILE", dir.path("door.fsm"))
        .current_dir(dir.path(""))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && log.contains("PASS"), "{log}");
    assert_eq!(
        dir.read("door.fsm"),
        std::fs::read_to_string(editors.join("door.fsm")).unwrap(),
        "the script never writes the file"
    );
}
