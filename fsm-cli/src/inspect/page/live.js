// The page of `fsmc inspect --listen`: the machine instances of running
// programs, live. Plain JavaScript, nothing loaded from elsewhere. The
// server sends an event (`api/live/events`) as soon as anything changes, so
// a step shows within milliseconds. Read-only: the page never drives a
// program.
"use strict";

const $ = (id) => document.getElementById(id);
/// The most rows the timeline keeps (the server keeps more).
const MAX_ROWS = 200;
let chosen = null;
let after = 0;
let lastSeq = null;
let drawnFor = null;
let source = null;
let shown = Promise.resolve();
let waiting = null;
let framed = false;
/// Step-to-screen delays, for the latency benchmark (`#latency` in the URL).
const latencies = [];
window.fsmcLatencies = latencies;

function say(message) {
    const box = $("message");
    box.textContent = message || "";
    box.hidden = !message;
}

/// Follow the server's events: one each time something changes, carrying
/// the list and the chosen instance's new steps. The browser reconnects by
/// itself when the stream breaks (steps already shown are skipped).
function follow() {
    if (source) source.close();
    const query = new URLSearchParams();
    if (chosen !== null) {
        query.set("instance", chosen);
        query.set("after", after);
    }
    const asked = chosen;
    waiting = null;
    source = new EventSource(`api/live/events?${query}`);
    source.onmessage = (event) => {
        say("");
        const answer = JSON.parse(event.data);
        // Drawn once a frame: the events that came since, together (the
        // latest answer, with every event's steps), so that a page slower
        // than the events never falls behind.
        if (waiting && waiting.selected && answer.selected) {
            answer.selected.steps = waiting.selected.steps.concat(answer.selected.steps);
        }
        waiting = answer;
        if (framed) return;
        framed = true;
        requestAnimationFrame(() => {
            framed = false;
            const next = waiting;
            waiting = null;
            shown = shown.then(() => show(next, asked === chosen)).catch((e) => say(e.message));
        });
    };
    source.onerror = () => say("the inspector does not answer; trying again");
}

function choose(id) {
    if (id === chosen) return;
    chosen = id;
    for (const row of $("instances").tBodies[0].rows) row.classList.toggle("chosen", Number(row.dataset.id) === id);
    after = 0;
    lastSeq = null;
    $("timeline").tBodies[0].replaceChildren();
    follow();
}

async function show(answer, forChosen) {
    $("where").textContent = `programs connect to ${answer.listen}` + (answer.file ? ` · definitions from ${answer.file}` : "");
    const live = answer.instances.filter((i) => i.live).length;
    $("counts").textContent =
        `${answer.observers} program${answer.observers === 1 ? "" : "s"} connected · ` +
        `${live} live instance${live === 1 ? "" : "s"}, ${answer.instances.length} shown (at most ${answer.limits.instances})` +
        (answer.refused ? ` · ${answer.refused} refused` : "");
    showMalformed(answer.malformed);
    if (chosen === null && answer.instances.length > 0) {
        const first = answer.instances.find((i) => i.live) || answer.instances[0];
        choose(first.id);
        return;
    }
    showInstances(answer.instances);
    if (forChosen && answer.selected && answer.selected.id === chosen) await showChosen(answer);
}

function showMalformed(malformed) {
    const box = $("malformed");
    box.hidden = malformed.count === 0;
    if (malformed.count === 0) return;
    box.replaceChildren();
    const title = document.createElement("strong");
    title.textContent = `${malformed.count} line${malformed.count === 1 ? "" : "s"} from programs could not be read and ${malformed.count === 1 ? "was" : "were"} skipped; the last:`;
    const list = document.createElement("ul");
    for (const why of malformed.last) {
        const item = document.createElement("li");
        item.textContent = why;
        list.append(item);
    }
    box.append(title, list);
}

/// The rows are updated in place, never replaced, so that a click lands
/// however fast the instances move.
function showInstances(instances) {
    const body = $("instances").tBodies[0];
    $("no-instances").hidden = instances.length > 0;
    const rows = new Map([...body.rows].map((r) => [Number(r.dataset.id), r]));
    const keep = new Set();
    for (const i of instances) {
        keep.add(i.id);
        let row = rows.get(i.id);
        if (!row) {
            row = body.insertRow();
            row.dataset.id = i.id;
            row.dataset.instance = i.instance;
            for (let c = 0; c < 5; c += 1) row.insertCell();
            row.addEventListener("click", () => choose(i.id));
        }
        row.className = (i.id === chosen ? "chosen " : "") + (i.live ? "" : "ended");
        row.title = `${i.machine} ${i.instance}, fingerprint ${i.fingerprint}` + (i.ended ? ` (${i.ended})` : "") +
            (i.last ? `\nlast step: ${i.last.action}` : "");
        const cells = [
            i.instance + (i.live ? "" : ` (${i.ended})`),
            i.machine,
            i.state.join(", "),
            String(i.steps),
            String(i.dropped),
        ];
        cells.forEach((text, c) => {
            if (row.cells[c].textContent !== text) row.cells[c].textContent = text;
        });
        row.cells[4].className = "dropped" + (i.dropped > 0 ? " some" : "");
    }
    for (const [id, row] of rows) if (!keep.has(id)) row.remove();
}

async function showChosen(answer) {
    const selected = answer.selected;
    const instance = answer.instances.find((i) => i.id === chosen);
    $("chosen").hidden = false;
    $("machine").textContent = instance ? instance.machine : "fsmc inspect";
    document.title = `${instance ? `${instance.machine} ${instance.instance}` : "live"} · fsmc inspect`;
    $("chosen-name").textContent = instance ? `${instance.machine} ${instance.instance}` : "";
    $("chosen-fingerprint").textContent = selected.fingerprint;
    $("place").textContent = selected.leaves.join(", ");
    const context = $("context");
    context.hidden = selected.context === null || selected.context === undefined;
    context.textContent = context.hidden ? "" : JSON.stringify(selected.context, null, 2);
    const key = `${chosen}/${selected.fingerprint}/${selected.diagram_error || ""}`;
    if (drawnFor !== key) {
        drawnFor = key;
        await loadDiagram(selected);
    }
    appendSteps(selected.steps);
    highlight(selected);
    if (location.hash === "#latency" && selected.steps.length) {
        // When the highlight reaches the screen: the next frame.
        const steps = selected.steps;
        requestAnimationFrame(() => {
            const now = (performance.timeOrigin + performance.now()) * 1000;
            for (const step of steps) latencies.push((now - step.at_us) / 1000);
        });
    }
}

async function loadDiagram(selected) {
    const box = $("diagram");
    const note = $("diagram-note");
    box.replaceChildren();
    note.hidden = !selected.diagram_error;
    note.textContent = selected.diagram_error || "";
    if (selected.diagram_error) return;
    const response = await fetch(`api/live/diagram.svg?instance=${chosen}`);
    const text = await response.text();
    if (!response.ok) {
        note.hidden = false;
        note.textContent = text;
        return;
    }
    const svg = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
    if (svg.nodeName !== "svg") {
        note.hidden = false;
        note.textContent = "the diagram could not be read";
        return;
    }
    box.replaceChildren(document.importNode(svg, true));
}

function appendSteps(steps) {
    const body = $("timeline").tBodies[0];
    // Read before the rows change (the layout is still clean then): the
    // newest stays in view only if it was.
    const box = $("timeline-box");
    const atEnd = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    const list = (xs) => (xs || []).join(", ");
    for (const step of steps) {
        if (step.n <= after) continue;
        after = step.n;
        const row = body.insertRow();
        row.dataset.n = step.n;
        row.dataset.step = step.step;
        row.dataset.action = step.action;
        row.dataset.to = list(step.to);
        if (step.step === "rejected" || step.step === "timer_rejected") row.className = "refused";
        const notes = [];
        if (lastSeq !== null && step.seq > lastSeq + 1) notes.push(`${step.seq - lastSeq - 1} step(s) missed before it`);
        lastSeq = step.seq;
        if (step.error) notes.push(step.error);
        if (step.declared_in) notes.push(`declared in ${step.declared_in}`);
        if (step.internal) notes.push("internal");
        const what = step.step === "rejected" ? `${step.action} (refused)` : step.action;
        const cells = [
            String(step.n),
            what,
            list(step.from),
            step.step === "fired" || step.step === "timer" ? list(step.to) : "",
            list(step.outputs),
            step.payload === undefined ? "" : JSON.stringify(step.payload),
            notes.join(" · "),
        ];
        for (const text of cells) row.insertCell().textContent = text;
        row.title = new Date(step.at_us / 1000).toISOString();
    }
    while (body.rows.length > MAX_ROWS) body.deleteRow(0);
    // The newest in view, inside the timeline's own box (the page stays put).
    if (steps.length && atEnd) box.scrollTop = 1e9;
}

/// The active states, and the transition the last step took, by the
/// diagram's stable names (as the simulation's page does).
function highlight(selected) {
    const box = $("diagram");
    const active = new Set(selected.active);
    const leaves = new Set(selected.leaves);
    for (const g of box.querySelectorAll("g[data-state]")) {
        const name = g.getAttribute("data-state");
        g.classList.toggle("active", active.has(name));
        g.classList.toggle("leaf", leaves.has(name));
    }
    const last = selected.steps[selected.steps.length - 1];
    if (!last) return;
    for (const element of box.querySelectorAll(".taken, .internal")) element.classList.remove("taken", "internal");
    if (last.step !== "fired" && last.step !== "timer") return;
    if (last.internal) {
        for (const from of last.from) {
            const g = box.querySelector(`g[data-state="${CSS.escape(from)}"]`);
            if (g) g.classList.add("internal");
        }
        return;
    }
    const trigger = last.step === "timer" ? "after" : last.action;
    const paths = [...box.querySelectorAll("path.edge[data-from][data-to][data-trigger]")];
    const matching = (sources, targets) =>
        paths.filter((p) => sources.has(p.dataset.from) && targets.has(p.dataset.to) && p.dataset.trigger === trigger);
    const up = (names) => names.flatMap((n) => [n, ...(selected.ancestors[n] || [])]);
    let found = matching(new Set(last.from), new Set(last.to));
    if (found.length === 0) found = matching(new Set([...up(last.from), "any"]), new Set(up(last.to)));
    for (const path of found) {
        path.classList.add("taken");
        const label = box.querySelector(`g.label[data-edge="${CSS.escape(path.id)}"]`);
        if (label) label.classList.add("taken");
    }
}

follow();
