// Drives the page of `fsmc inspect` in headless Chromium, as a user would:
// fires actions (one with a payload), toggles a guard, advances the clock and
// jumps to the next deadline, goes back a step, loads a script, restores a
// downloaded snapshot, and breaks and mends the file. After every step it
// checks the highlighted states and the last transition against the step's
// output, and at the end the timeline against `fsmc run` on the same script.
// Any failure, Chromium that does not start included, exits 1.
//
// Usage: node check.js FSMC CHROMIUM WORKDIR   (check.sh calls it)
"use strict";
const fs = require("fs");
const path = require("path");
const { spawn, spawnSync } = require("child_process");
const puppeteer = require("puppeteer-core");

const [fsmc, chromium, work] = process.argv.slice(2);
const machineFile = path.join(work, "phone.fsm");
const original = fs.readFileSync(machineFile, "utf8");
let checks = 0;
let failures = 0;

function check(ok, what) {
    checks += 1;
    if (!ok) {
        failures += 1;
        console.error(`FAIL: ${what}`);
    }
}

function same(a, b, what) {
    const [x, y] = [JSON.stringify(a), JSON.stringify(b)];
    check(x === y, `${what}: ${x} is not ${y}`);
}

function startInspector() {
    const child = spawn(fsmc, ["inspect", "phone.fsm"], { cwd: work, stdio: ["ignore", "pipe", "inherit"] });
    return new Promise((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => {
            out += d;
            const match = out.match(/http:\/\/\S+\//);
            if (match) resolve({ child, url: match[0] });
        });
        child.on("exit", (code) => reject(new Error(`fsmc inspect exited with ${code}: ${out}`)));
        setTimeout(() => reject(new Error("fsmc inspect printed no URL")), 10000);
    });
}

/// `fsmc run` on the lines, one output line each.
function fsmcRun(lines) {
    const run = spawnSync(fsmc, ["run", "phone.fsm"], { cwd: work, input: lines.map((l) => l + "\n").join("") });
    return run.stdout.toString().split("\n").filter((l) => l !== "");
}

/// Where the machine is after a step, from its output line: the leaves, or
/// null when the step does not say (guards, snapshot, errors).
function placeAfter(output) {
    const out = JSON.parse(output);
    const leaves = (p) => (Array.isArray(p) ? p : [p]);
    if (out.ok === true) return leaves(out.to);
    if (out.ok === false && out.state !== undefined) return leaves(out.state);
    if (out.fired !== undefined) {
        const moved = out.fired.filter((f) => f.ok);
        return moved.length ? leaves(moved[moved.length - 1].to) : null;
    }
    if (out.restored) return leaves(out.state);
    return null;
}

async function main() {
    const { child, url } = await startInspector();
    let browser;
    try {
        browser = await puppeteer.launch({
            executablePath: chromium,
            headless: true,
            args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        });
    } catch (e) {
        child.kill();
        throw new Error(`Chromium did not start: ${e.message}`);
    }
    try {
        await drive(browser, url);
    } finally {
        await browser.close();
        child.kill();
    }
}

async function drive(browser, url) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const origin = new URL(url).origin;
    const foreign = [];
    page.on("request", (r) => {
        if (!r.url().startsWith(origin)) foreign.push(r.url());
    });
    const consoleErrors = [];
    page.on("console", (m) => {
        if (m.type() === "error") consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    const response = await page.goto(url, { waitUntil: "networkidle0" });
    check(response.status() === 200, `the page answers ${response.status()}`);
    check(/default-src 'self'/.test(response.headers()["content-security-policy"] || ""), "the page has its CSP");
    await page.waitForSelector("#diagram svg g[data-state]");

    const rows = () => page.$$eval("#timeline tbody tr", (trs) => trs.map((tr) => ({ line: tr.dataset.line, output: tr.dataset.output })));
    const highlighted = () => page.$$eval("#diagram g.state.leaf", (gs) => gs.map((g) => g.dataset.state).sort());
    const active = () => page.$$eval("#diagram g.state.active", (gs) => gs.map((g) => g.dataset.state).sort());
    const taken = () => page.$$eval("#diagram path.edge.taken", (ps) => ps.map((p) => `${p.dataset.from}->${p.dataset.to}`));
    let expectedPlace = ["idle"];

    /// Wait for the timeline to have `count` rows, then check the
    /// highlight against the last step's output.
    async function stepped(count, what) {
        await page.waitForFunction((n) => document.querySelectorAll("#timeline tbody tr").length === n, { timeout: 5000 }, count)
            .catch(() => check(false, `${what}: the timeline never had ${count} steps`));
        const all = await rows();
        const last = all[all.length - 1];
        const place = last ? placeAfter(last.output) : null;
        if (place) expectedPlace = place.slice().sort();
        same(await highlighted(), expectedPlace, `${what}: highlighted leaves`);
        return last;
    }

    const fire = (name) => page.click(`#actions button[data-action="${name}"]`);

    same(await highlighted(), ["idle"], "the start is highlighted");
    same(await page.$$eval("#actions input[data-payload-for]", (is) => is.map((i) => i.dataset.payloadFor)), ["dial"],
        "a payload field for the action that takes one, only");
    same(await page.$$eval("#actions button.valid", (bs) => bs.map((b) => b.dataset.action)), ["dial"], "the valid actions");
    // Refused: the guard is false.
    await page.type('#actions input[data-payload-for="dial"]', '"555-0100"');
    await fire("dial");
    let last = await stepped(1, "dial while the guard is false");
    same(JSON.parse(last.line), { fire: "dial", payload: "555-0100" }, "the payload is sent");
    same(JSON.parse(last.output).error, "guard-rejected", "dial is refused by its guard");
    // The guard, toggled.
    await page.click('#guards input[data-guard="has_credit"]');
    last = await stepped(2, "toggle has_credit");
    same(JSON.parse(last.output), { guards: { has_credit: true } }, "the guards line");
    check(await page.$eval('#guards input[data-guard="has_credit"]', (b) => b.checked), "the toggle shows true");
    await fire("dial");
    await stepped(3, "dial");
    same(expectedPlace, ["ringing"], "dial enters ringing");
    same(await active(), ["call", "ringing"], "the composite ancestor is active");
    same(await taken(), ["idle->call"], "the transition taken is highlighted");
    // The next deadline: ringing times out after 30 s.
    const deadline = await page.$eval("#deadline", (t) => t.textContent);
    same(deadline, "1970-01-01T00:00:30.000Z", "the next deadline");
    await page.click("#to-deadline");
    last = await stepped(4, "to the next deadline");
    same(JSON.parse(last.line), { advance: "30000ms" }, "the advance line");
    same(expectedPlace, ["idle"], "the timer went back to idle");
    same(await taken(), ["ringing->idle"], "the timer's transition is highlighted");
    same(await page.$eval("#now", (t) => t.textContent), "1970-01-01T00:00:30.000Z", "the clock moved");
    const timerCell = await page.$eval("#timeline tbody tr:last-child", (tr) => tr.cells[6].textContent);
    check(timerCell.includes("fired: after 30s in ringing"), `the timeline shows the timer fired: ${timerCell}`);
    // Advance by an amount typed in.
    await fire("dial");
    await stepped(5, "dial again");
    const armed = await page.$eval("#timeline tbody tr:last-child", (tr) => tr.cells[6].textContent);
    check(armed.includes("armed: ringing#0 due 1970-01-01T00:01:00.000Z"), `the timeline shows the timer armed: ${armed}`);
    await page.$eval("#advance-by", (i) => (i.value = ""));
    await page.type("#advance-by", "5s");
    await page.click("#advance");
    await stepped(6, "advance 5s");
    same(await page.$eval("#now", (t) => t.textContent), "1970-01-01T00:00:35.000Z", "the clock moved by 5s");
    await fire("answer");
    last = await stepped(7, "answer");
    same(JSON.parse(last.output).effects, ["log_call"], "talking's enter effect ran");
    await fire("hold");
    await stepped(8, "hold");
    await fire("hang_up");
    await stepped(9, "hang_up");
    same(expectedPlace, ["idle"], "hang_up leaves the call");
    same(await taken(), ["call->idle"], "the transition declared on the composite is highlighted");
    // A refused action is a step too.
    await fire("resume");
    last = await stepped(10, "resume in idle");
    same(JSON.parse(last.output).error, "invalid-transition", "resume is refused in idle");

    // The timeline is what `fsmc run` prints for the same lines.
    let all = await rows();
    const lines = all.map((r) => r.line);
    same(all.map((r) => r.output), fsmcRun(lines), "the timeline is fsmc run's output");
    const script = await page.evaluate(async () => (await fetch("api/script")).text());
    same(script, lines.map((l) => l + "\n").join(""), "the script download holds the steps");

    // Back to before step 9 (hang_up): held again, the clock where it was.
    await page.click("#timeline tbody tr:nth-child(9) button.back");
    await stepped(8, "back to before hang_up");
    same(expectedPlace, ["held"], "going back restores held");
    same(await active(), ["call", "held"], "and its ancestor");
    all = await rows();
    same(all.map((r) => r.output), fsmcRun(lines.slice(0, 8)), "after going back, the timeline is fsmc run's");
    await fire("resume");
    await stepped(9, "resume after going back");
    same(expectedPlace, ["talking"], "the machine goes on from the restored snapshot");

    // Load a script: the page replays it.
    const scriptFile = path.join(work, "replay.jsonl");
    const replay = [
        '{"guards": {"has_credit": true}}',
        '{"fire": "dial", "payload": "555-0199"}',
        '{"fire": "answer"}',
        '{"advance": "1m"}',
        '{"snapshot": true}',
    ];
    fs.writeFileSync(scriptFile, replay.join("\n") + "\n");
    const input = await page.$("#load-script");
    await input.uploadFile(scriptFile);
    await stepped(5, "load a script");
    all = await rows();
    same(all.map((r) => r.output), fsmcRun(replay), "a loaded script replays as fsmc run runs it");
    same(expectedPlace, ["talking"], "the replay ends in talking");

    // Download the snapshot, move on, and restore it from the file.
    const snapshotFile = path.join(work, "Phone.snapshot.json");
    fs.writeFileSync(snapshotFile, await page.evaluate(async () => (await fetch("api/snapshot")).text()));
    await fire("hold");
    await stepped(6, "hold before the restore");
    same(expectedPlace, ["held"], "hold");
    await (await page.$("#restore-snapshot")).uploadFile(snapshotFile);
    last = await stepped(7, "restore the downloaded snapshot");
    same(JSON.parse(last.output), { restored: true, state: "talking" }, "the snapshot restores");
    same(await active(), ["call", "talking"], "the restored configuration is highlighted");
    all = await rows();
    same(all.map((r) => r.output), fsmcRun(all.map((r) => r.line)), "the restore is fsmc run's too");

    // A file with errors shows its diagnostics with line and column, not the diagram.
    fs.writeFileSync(machineFile, original.replace("on hold -> held;", "on hold -> nowhere;"));
    await page.waitForSelector("#diagnostics:not([hidden])", { timeout: 5000 })
        .catch(() => check(false, "the diagnostics never showed"));
    const diagnostics = await page.$eval("#diagnostic-list", (l) => l.textContent);
    check(/phone\.fsm:20:\d+: error\[unknown-state\]/.test(diagnostics), `the diagnostic has its line and column: ${diagnostics}`);
    check(await page.$eval("#diagram", (d) => d.hidden), "the diagram is hidden");
    // Mended: the machine comes back, and the snapshot still restores.
    fs.writeFileSync(machineFile, original + "\n");
    await page.waitForSelector("#diagnostics[hidden]", { timeout: 5000 })
        .catch(() => check(false, "the diagram never came back"));
    await page.waitForSelector("#diagram svg g[data-state]");
    const reload = await page.$eval("#reload", (r) => r.textContent);
    check(reload.includes("still restores"), `the reload says the snapshot restores: ${reload}`);
    same(await highlighted(), ["talking"], "the reloaded machine is where it was");
    fs.writeFileSync(machineFile, original);

    same(foreign, [], "no request leaves the inspector");
    same(consoleErrors, [], "no error in the console");
}

main()
    .then(() => {
        console.log(`inspect: ${checks - failures} passed, ${failures} failed`);
        process.exit(failures === 0 ? 0 : 1);
    })
    .catch((e) => {
        console.error(`error: ${e.stack || e}`);
        console.log(`inspect: ${checks - failures} passed, ${failures + 1} failed`);
        process.exit(1);
    });
