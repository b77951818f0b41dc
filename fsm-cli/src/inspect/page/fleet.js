// The page of `fsmc inspect --fleet`. Plain JavaScript, no framework,
// nothing loaded from elsewhere: it asks the server (relative URLs, under
// the token in the page's URL) for the fleet's counts, draws them on each
// machine's diagram, and lists the instances of the state clicked.
"use strict";

const $ = (id) => document.getElementById(id);
let fleet = null;
let chosen = null; // the machine shown
let drawnFor = null; // the machine whose diagram is loaded
let listing = null; // {machine, state, after}

async function call(path) {
    const response = await fetch(path);
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

const q = (params) => new URLSearchParams(params).toString();

async function refresh() {
    try {
        const next = await call(fleet ? `api/fleet?since=${fleet.version}` : "api/fleet");
        if (!next.unchanged) await show(next);
    } catch (e) {
        say(`the inspector does not answer: ${e.message}`);
    }
}

function machineOf(name) {
    return (fleet.machines || []).find((m) => m.name === name);
}

async function show(next) {
    fleet = next;
    say(next.error ? `counting failed: ${next.error}` : "");
    $("database").textContent = next.database || "";
    $("counted").textContent = next.took_ms === undefined ? "" : `counted in ${next.took_ms} ms`;
    const select = $("machine-choice");
    const names = (next.machines || []).map((m) => m.name);
    if (select.options.length !== names.length || names.some((n, i) => select.options[i].value !== n)) {
        select.replaceChildren(...names.map((n) => new Option(n, n)));
    }
    if (!names.includes(chosen)) chosen = names[0] || null;
    select.value = chosen || "";
    showTotals();
    const machine = chosen && machineOf(chosen);
    if (!machine) {
        $("diagram").replaceChildren();
        $("notes").textContent = "The fleet has no instances, and no file was given.";
        return;
    }
    const drawn = machine.file !== null && machine.drawn;
    $("diagram").hidden = !drawn;
    $("no-diagram").hidden = drawn;
    if (drawn) {
        if (drawnFor !== machine.name) await loadDiagram(machine.name);
        showCounts(machine);
    } else {
        drawnFor = null;
        showRows(machine);
    }
    showNotes(machine);
}

function showTotals() {
    const machine = chosen && machineOf(chosen);
    const rows = [["fleet", fleet.totals]];
    if (machine) rows.push([machine.name, machine.totals]);
    const body = $("totals").tBodies[0];
    body.replaceChildren();
    const head = body.insertRow();
    for (const h of ["", "instances", "parked", "due", "dead"]) head.insertCell().textContent = h;
    for (const [name, t] of rows) {
        const row = body.insertRow();
        row.insertCell().textContent = name;
        for (const k of ["instances", "parked", "due", "dead"]) {
            const cell = row.insertCell();
            cell.className = "n";
            cell.textContent = t ? t[k] : 0;
        }
    }
}

async function loadDiagram(name) {
    const box = $("diagram");
    const response = await fetch(`api/diagram.svg?${q({ machine: name })}`);
    const text = await response.text();
    if (!response.ok) {
        box.textContent = text;
        return;
    }
    const svg = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
    if (svg.nodeName !== "svg") {
        box.textContent = "the diagram could not be read";
        return;
    }
    box.replaceChildren(document.importNode(svg, true));
    drawnFor = name;
    for (const g of box.querySelectorAll("g[data-state]")) {
        g.addEventListener("click", (event) => {
            event.stopPropagation();
            const state = g.getAttribute("data-state");
            if (!g.classList.contains("occupied")) return;
            list({ machine: name, state, after: null }, true);
        });
    }
}

const SVG = "http://www.w3.org/2000/svg";

/// A badge just above the top edge of `rect`, ending at `right`; the
/// left end of the badges so far is returned.
function badge(g, rect, text, kind, right) {
    const width = 8 + 6.5 * text.length;
    const x = right - width;
    const y = Number(rect.getAttribute("y")) - 8;
    const group = document.createElementNS(SVG, "g");
    group.setAttribute("class", `count ${kind}`);
    const back = document.createElementNS(SVG, "rect");
    back.setAttribute("x", x);
    back.setAttribute("y", y);
    back.setAttribute("width", width);
    back.setAttribute("height", 15);
    back.setAttribute("rx", 7);
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", x + width / 2);
    label.setAttribute("y", y + 11);
    label.setAttribute("text-anchor", "middle");
    label.textContent = text;
    group.append(back, label);
    g.append(group);
    return x - 3;
}

function showCounts(machine) {
    const box = $("diagram");
    for (const old of box.querySelectorAll("g.count")) old.remove();
    for (const g of box.querySelectorAll("g[data-state]")) {
        const name = g.getAttribute("data-state");
        const counts = machine.states[name];
        const rect = g.querySelector(":scope > rect");
        g.classList.toggle("occupied", !!counts);
        g.classList.toggle("empty", !counts);
        g.classList.toggle("chosen", !!listing && listing.machine === machine.name && listing.state === name);
        let title = g.querySelector(":scope > title.count-title");
        if (!counts || !rect) {
            if (title) title.remove();
            continue;
        }
        let right = Number(rect.getAttribute("x")) + Number(rect.getAttribute("width")) - 3;
        right = badge(g, rect, String(counts.instances), "instances", right);
        for (const kind of ["due", "parked", "dead"]) {
            if (counts[kind] > 0) right = badge(g, rect, `${counts[kind]} ${kind}`, kind, right);
        }
        if (!title) {
            title = document.createElementNS(SVG, "title");
            title.setAttribute("class", "count-title");
            g.prepend(title);
        }
        title.textContent =
            `${name}: ${counts.instances} instance${counts.instances === 1 ? "" : "s"}, ` +
            `${counts.due} due, ${counts.parked} parked, ${counts.dead} dead`;
    }
}

function showRows(machine) {
    const body = $("rows").tBodies[0];
    body.replaceChildren();
    for (const r of machine.rows || []) {
        const row = body.insertRow();
        const state = row.insertCell();
        const link = document.createElement("a");
        link.href = "#";
        link.textContent = r.state;
        link.addEventListener("click", (event) => {
            event.preventDefault();
            list({ machine: machine.name, state: r.state, after: null }, true);
        });
        state.append(link);
        for (const k of ["instances", "parked", "due", "dead"]) {
            const cell = row.insertCell();
            cell.className = "n";
            cell.textContent = r[k];
        }
    }
    const skipped = $("rows-skipped");
    skipped.hidden = !machine.rows_skipped;
    skipped.textContent = `and ${machine.rows_skipped} more states`;
}

function showNotes(machine) {
    const notes = [];
    if (fleet.truncated) notes.push(`Only the first ${fleet.truncated} states of the fleet were counted.`);
    if (machine.diagram_error) notes.push(machine.diagram_error);
    if (machine.definitions && machine.definitions.length > 1) {
        notes.push(
            "Saved by " +
                machine.definitions.map((d) => `${d.instances} by the definition of fingerprint ${d.fingerprint}`).join(", ") +
                ".",
        );
    }
    for (const d of machine.other_definitions || []) {
        notes.push(
            `${d.instances} instance${d.instances === 1 ? " was" : "s were"} saved by another definition ` +
                `(fingerprint ${d.fingerprint}; the file's is ${machine.fingerprint}).`,
        );
    }
    for (const u of machine.unknown_states || []) {
        notes.push(`${u.instances} in \`${u.state}\`, which ${machine.file} does not define.`);
    }
    $("notes").textContent = notes.join(" ");
}

async function list(what, fresh) {
    listing = what;
    const items = $("instances");
    if (fresh) {
        items.replaceChildren();
        if (fleet && chosen === what.machine) {
            const machine = machineOf(chosen);
            if (machine && machine.states) showCounts(machine);
        }
    }
    $("pick").hidden = true;
    try {
        const params = { machine: what.machine, state: what.state };
        if (what.after) params.after = what.after;
        const page = await call(`api/instances?${q(params)}`);
        $("instances-of").textContent =
            `in ${what.state} (${page.total})` +
            (page.configurations_skipped
                ? `; only those in its first 256 configurations are listed, not ${page.configurations_skipped} more`
                : "");
        for (const i of page.instances) {
            const item = document.createElement("li");
            const link = document.createElement("a");
            link.href = "#";
            link.textContent = i.id;
            link.addEventListener("click", (event) => {
                event.preventDefault();
                showInstance(i.id);
            });
            item.append(link, ` ${i.state}`);
            if (i.parked) {
                const parked = document.createElement("span");
                parked.className = "parked";
                parked.textContent = " parked";
                parked.title = i.parked;
                item.append(parked);
            }
            items.append(item);
        }
        const last = page.instances[page.instances.length - 1];
        listing = { ...what, after: last ? last.id : null };
        $("more").hidden = !page.more;
    } catch (e) {
        say(e.message);
    }
}

async function showInstance(id) {
    try {
        const detail = await call(`api/instance?${q({ id })}`);
        $("instance-section").hidden = false;
        $("instance-id").textContent = detail.id;
        $("instance").textContent = detail.text;
        const leaves = new Set(detail.leaves);
        for (const g of $("diagram").querySelectorAll("g[data-state]")) {
            g.classList.toggle("leaf", detail.machine === drawnFor && leaves.has(g.getAttribute("data-state")));
        }
    } catch (e) {
        say(e.message);
    }
}

function wire() {
    $("machine-choice").addEventListener("change", (event) => {
        chosen = event.target.value;
        listing = null;
        $("instances").replaceChildren();
        $("instances-of").textContent = "";
        $("pick").hidden = false;
        $("more").hidden = true;
        if (fleet) show(fleet);
    });
    $("more").addEventListener("click", () => listing && list(listing, false));
}

wire();
refresh();
setInterval(refresh, 1000);
