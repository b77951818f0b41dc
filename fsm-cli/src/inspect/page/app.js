// The page of `fsmc inspect`. Plain JavaScript, no framework, nothing
// loaded from elsewhere: it asks the server (relative URLs, under the token
// in the page's URL) and draws what it answers. Every step is a line of
// `fsmc run`'s input, and the timeline shows the line `fsmc run` printed.
"use strict";

const $ = (id) => document.getElementById(id);
let state = null;
let diagramLoads = -1;

async function call(method, path, body) {
    const options = { method, headers: {} };
    if (body !== undefined) {
        options.body = body;
        options.headers["Content-Type"] = "text/plain; charset=utf-8";
    }
    const response = await fetch(path, options);
    const text = await response.text();
    let value;
    try {
        value = JSON.parse(text);
    } catch {
        value = { error: text };
    }
    if (!response.ok) throw new Error(value.error || `${response.status} ${response.statusText}`);
    return value;
}

function say(message) {
    const box = $("message");
    box.textContent = message || "";
    box.hidden = !message;
}

/// Send one `fsmc run` line; the answer carries the new state.
async function send(line) {
    say("");
    try {
        const answer = await call("POST", "api/line", line);
        await show(answer.state);
        return answer;
    } catch (e) {
        say(e.message);
    }
}

async function post(path, body) {
    say("");
    try {
        const answer = await call("POST", path, body);
        await show(answer.state);
    } catch (e) {
        say(e.message);
    }
}

async function refresh() {
    try {
        const next = await call("GET", state ? `api/state?since=${state.version}` : "api/state");
        if (!next.unchanged) await show(next);
    } catch (e) {
        say(`the inspector does not answer: ${e.message}`);
    }
}

async function show(next) {
    state = next;
    document.title = `${next.machine || "fsmc inspect"} · fsmc inspect`;
    $("machine").textContent = next.machine || "fsmc inspect";
    $("file").textContent = next.file;
    const reload = $("reload");
    reload.hidden = !next.reload;
    if (next.reload) {
        reload.textContent = next.reload.text;
        reload.className = next.reload.ok ? "ok" : "bad";
    }
    const broken = next.report !== undefined;
    $("diagnostics").hidden = !broken;
    $("diagram").hidden = broken;
    document.body.classList.toggle("broken", broken);
    if (broken) {
        showDiagnostics(next);
        for (const control of document.querySelectorAll("aside button, aside input")) control.disabled = true;
        return;
    }
    for (const control of document.querySelectorAll("aside button, aside input")) control.disabled = false;
    if (next.loads !== diagramLoads) {
        await loadDiagram(next);
        diagramLoads = next.loads;
    }
    highlight(next);
    $("place").textContent = placeText(next.place) + (next.terminal ? " (terminal)" : "");
    showActions(next);
    showGuards(next);
    $("now").textContent = next.now;
    $("deadline").textContent = next.next_deadline || "none";
    $("to-deadline").disabled = next.next_deadline_in_ms === null;
    $("delays").textContent = next.delays.length
        ? "delays: " + next.delays.map((d) => `${d.name} = ${d.value}`).join(", ")
        : "";
    showTimeline(next);
}

function showDiagnostics(next) {
    const list = $("diagnostic-list");
    list.replaceChildren();
    for (const d of next.diagnostics || []) {
        const item = document.createElement("li");
        item.className = d.severity;
        item.textContent = `${d.file}:${d.line}:${d.column}: ${d.severity}[${d.code}]: ${d.message}`;
        list.append(item);
    }
    $("report").textContent = next.report;
}

async function loadDiagram(next) {
    const box = $("diagram");
    if (next.diagram_error) {
        box.textContent = next.diagram_error;
        return;
    }
    const response = await fetch("api/diagram.svg");
    const text = await response.text();
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const svg = doc.documentElement;
    if (svg.nodeName !== "svg") {
        box.textContent = "the diagram could not be read";
        return;
    }
    box.replaceChildren(document.importNode(svg, true));
}

/// The active states (leaves and their ancestors), and the transitions the
/// last step took, by the SVG's stable names.
function highlight(next) {
    const box = $("diagram");
    const active = new Set(next.active);
    const leaves = new Set(next.leaves);
    for (const g of box.querySelectorAll("g[data-state]")) {
        const name = g.getAttribute("data-state");
        g.classList.toggle("active", active.has(name));
        g.classList.toggle("leaf", leaves.has(name));
        g.classList.remove("internal");
    }
    for (const element of box.querySelectorAll(".taken")) element.classList.remove("taken");
    const last = next.steps[next.steps.length - 1];
    for (const t of (last && last.taken) || []) {
        if (t.to === null) {
            const from = box.querySelector(`g[data-state="${CSS.escape(t.from)}"]`);
            if (from) from.classList.add("internal");
            continue;
        }
        // A machine without parallel states names the leaves it left and
        // entered: the edge may be declared on an ancestor of the one (or
        // on `any`) and target an ancestor of the other.
        const paths = [...box.querySelectorAll("path.edge[data-from][data-to][data-trigger]")];
        const matching = (sources, targets) =>
            paths.filter((p) => sources.has(p.dataset.from) && targets.has(p.dataset.to) && p.dataset.trigger === t.trigger);
        let found = matching(new Set([t.from]), new Set([t.to]));
        if (found.length === 0) {
            found = matching(
                new Set([t.from, ...(next.ancestors[t.from] || []), "any"]),
                new Set([t.to, ...(next.ancestors[t.to] || [])]),
            );
        }
        for (const path of found) {
            path.classList.add("taken");
            const label = box.querySelector(`g.label[data-edge="${CSS.escape(path.id)}"]`);
            if (label) label.classList.add("taken");
        }
    }
}

function placeText(place) {
    return Array.isArray(place) ? place.join(", ") : String(place);
}

function showActions(next) {
    const box = $("actions");
    // Keep what was typed in the payload fields across redraws.
    const typed = {};
    for (const input of box.querySelectorAll("input[data-payload-for]")) typed[input.dataset.payloadFor] = input.value;
    box.replaceChildren();
    for (const action of next.actions) {
        const row = document.createElement("div");
        row.className = "action";
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = action.name;
        button.dataset.action = action.name;
        button.className = action.valid ? "valid" : "invalid";
        button.title = action.valid
            ? `fire ${action.name}`
            : `${action.name} is not valid here: firing it is refused`;
        row.append(button);
        let input = null;
        if (action.payload !== null) {
            input = document.createElement("input");
            input.type = "text";
            input.spellcheck = false;
            input.dataset.payloadFor = action.name;
            input.placeholder = `payload: ${action.payload} (JSON)`;
            input.setAttribute("aria-label", `payload of ${action.name}, ${action.payload}, as JSON`);
            input.value = typed[action.name] || "";
            input.addEventListener("keydown", (e) => {
                if (e.key === "Enter") button.click();
            });
            row.append(input);
        }
        button.addEventListener("click", () => fire(action.name, input));
        box.append(row);
    }
}

async function fire(name, input) {
    const line = { fire: name };
    const text = input ? input.value.trim() : "";
    if (text) {
        try {
            line.payload = JSON.parse(text);
        } catch (e) {
            say(`the payload of ${name} is not JSON: ${e.message}`);
            return;
        }
    }
    await send(JSON.stringify(line));
}

function showGuards(next) {
    const body = $("guards").tBodies[0];
    body.replaceChildren();
    $("no-guards").hidden = next.guards.length > 0;
    for (const guard of next.guards) {
        const row = body.insertRow();
        const box = document.createElement("input");
        box.type = "checkbox";
        box.checked = guard.value;
        box.dataset.guard = guard.name;
        box.id = `guard-${guard.name}`;
        box.addEventListener("change", () => send(JSON.stringify({ guards: { [guard.name]: box.checked } })));
        row.insertCell().append(box);
        const label = document.createElement("label");
        label.htmlFor = box.id;
        label.textContent = guard.name;
        row.insertCell().append(label);
    }
}

/// One row per step: what the line did, read from `fsmc run`'s output.
/// The steps the page knows, by index: the state's last ones, and earlier
/// ones asked for with "earlier steps". Forgotten when the timeline loses
/// steps (going back, starting over, a reload).
let known = { key: null, steps: new Map() };

function showTimeline(next) {
    const key = `${next.loads}:${next.timeline}`;
    if (known.key !== key) known = { key, steps: new Map() };
    next.steps.forEach((step, i) => known.steps.set(next.steps_from + i, step));
    for (const index of [...known.steps.keys()]) if (index >= next.steps_total) known.steps.delete(index);
    let first = next.steps_total;
    while (first > 0 && known.steps.has(first - 1)) first -= 1;
    const body = $("timeline").tBodies[0];
    body.replaceChildren();
    if (first > 0) {
        const row = body.insertRow();
        row.className = "earlier";
        const cell = row.insertCell();
        cell.colSpan = 8;
        const more = document.createElement("button");
        more.type = "button";
        more.id = "earlier";
        more.textContent = `earlier steps (${first} more)`;
        more.addEventListener("click", () => loadEarlier(first, key));
        cell.append(more);
    }
    for (let index = first; index < next.steps_total; index++) {
        const step = known.steps.get(index);
        const row = body.insertRow();
        row.dataset.output = step.output;
        row.dataset.line = step.line;
        let out = {};
        try {
            out = JSON.parse(step.output);
        } catch {
            out = {};
        }
        const cells = describe(step, out);
        row.className = !step.applied ? "error" : out.ok === false ? "refused" : "";
        const number = row.insertCell();
        number.textContent = String(index + 1);
        for (const text of cells) row.insertCell().textContent = text;
        const armed = (step.armed || []).map((t) => `${t.state}#${t.timer} due ${t.due}`);
        const timers = row.cells[6];
        timers.textContent = [timers.textContent, armed.length ? `armed: ${armed.join("; ")}` : ""]
            .filter(Boolean)
            .join(" · ");
        const back = document.createElement("button");
        back.type = "button";
        back.textContent = "⟲";
        back.className = "back";
        back.title = "go back to before this step (restore the snapshot taken before it)";
        back.addEventListener("click", () => post("api/back", JSON.stringify({ to: index })));
        row.insertCell().append(back);
        row.title = `${step.line}\n→ ${step.output}`;
    }
}

/// The page of steps before step `first`, then the timeline again.
async function loadEarlier(first, key) {
    try {
        const page = await call("GET", `api/steps?from=${Math.max(0, first - 500)}`);
        if (known.key !== key || `${page.loads}:${page.timeline}` !== key) return refresh();
        page.steps.forEach((step, i) => known.steps.set(page.from + i, step));
        showTimeline(state);
    } catch (e) {
        say(e.message);
    }
}

/// [step, from, to, outputs, effects, timers fired] of a step.
function describe(step, out) {
    const list = (xs) => (xs || []).join(", ");
    let line = {};
    try {
        line = JSON.parse(step.line);
    } catch {
        line = {};
    }
    if (out.error !== undefined && out.line !== undefined) return [step.line, "", "", "", "", `error: ${out.error}`];
    if (line.fire !== undefined) {
        const what = line.payload !== undefined ? `${line.fire}(${JSON.stringify(line.payload)})` : line.fire;
        if (out.ok) return [what, placeText(out.from), placeText(out.to), list(out.outputs), list(out.effects), ""];
        return [what, placeText(out.state ?? out.from ?? ""), `refused: ${out.error}`, list(out.outputs), "", ""];
    }
    if (line.advance !== undefined) {
        const fired = (out.fired || []).map((f) =>
            f.ok ? `after ${f.after} in ${f.declared_in} at ${f.due}` : `rejected: after ${f.after} in ${f.declared_in}`);
        const moved = (out.fired || []).filter((f) => f.ok);
        const first = moved[0];
        const last = moved[moved.length - 1];
        return [
            `advance ${line.advance}`,
            first ? placeText(first.from) : "",
            last ? placeText(last.to) : "",
            list(moved.flatMap((f) => f.outputs)),
            list(moved.flatMap((f) => f.effects)),
            fired.length ? `fired: ${fired.join("; ")}` : "",
        ];
    }
    if (line.guards !== undefined) {
        return ["guards " + Object.entries(line.guards).map(([k, v]) => `${k}=${v}`).join(", "), "", "", "", "", ""];
    }
    if (line.restore !== undefined) return ["restore", "", out.state ? placeText(out.state) : "", "", "", ""];
    if (line.delays !== undefined) return ["delays " + JSON.stringify(line.delays), "", "", "", "", ""];
    if (line.snapshot !== undefined) return ["snapshot", "", "", "", "", ""];
    return [step.line, "", "", "", "", ""];
}

function readFile(input) {
    return new Promise((resolve, reject) => {
        const file = input.files[0];
        if (!file) return reject(new Error("no file chosen"));
        const reader = new FileReader();
        reader.onload = () => resolve(String(reader.result));
        reader.onerror = () => reject(reader.error);
        reader.readAsText(file);
    });
}

function wire() {
    $("reset").addEventListener("click", () => post("api/reset", ""));
    $("advance").addEventListener("click", () => send(JSON.stringify({ advance: $("advance-by").value.trim() })));
    $("advance-by").addEventListener("keydown", (e) => {
        if (e.key === "Enter") $("advance").click();
    });
    $("to-deadline").addEventListener("click", () => {
        if (state && state.next_deadline_in_ms !== null) send(JSON.stringify({ advance: `${state.next_deadline_in_ms}ms` }));
    });
    $("send-line").addEventListener("click", () => send($("raw-line").value));
    $("raw-line").addEventListener("keydown", (e) => {
        if (e.key === "Enter") $("send-line").click();
    });
    $("load-script").addEventListener("change", async (e) => {
        try {
            await post("api/script", await readFile(e.target));
        } catch (error) {
            say(error.message);
        }
        e.target.value = "";
    });
    $("restore-snapshot").addEventListener("change", async (e) => {
        try {
            let snapshot = JSON.parse(await readFile(e.target));
            // What `{"snapshot": true}` prints holds the snapshot under `snapshot`.
            if (snapshot && typeof snapshot.snapshot === "object" && Object.keys(snapshot).length === 1) snapshot = snapshot.snapshot;
            await send(JSON.stringify({ restore: snapshot }));
        } catch (error) {
            say(`not a snapshot: ${error.message}`);
        }
        e.target.value = "";
    });
    refresh();
    setInterval(refresh, 1000);
}

wire();
