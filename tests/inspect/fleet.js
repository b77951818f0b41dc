// Drives the page of `fsmc inspect --fleet` in headless Chromium, as a user
// would, over the fleet of fsm-fleet's `orders` example: the count on each
// state of the diagram against `fsmc fleet list` (an instance counts in its
// leaves and every state around them), the totals, a state clicked and its
// instances listed a page at a time, an instance clicked and shown as
// `fsmc fleet show` prints it, and counts that follow the fleet when it
// changes. Any failure, Chromium that does not start included, exits 1.
//
// Usage: node fleet.js FSMC CHROMIUM WORKDIR ORDERS   (check.sh calls it;
// ORDERS is the built `orders` example, which fills WORKDIR/fleet.db)
"use strict";
const path = require("path");
const { spawn, spawnSync } = require("child_process");
const puppeteer = require("puppeteer-core");

const [fsmc, chromium, work, orders] = process.argv.slice(2);
let checks = 0;
let failures = 0;

function check(ok, what) {
    checks += 1;
    if (!ok) {
        failures += 1;
        console.error(`FAIL: ${what}`);
    }
}

/// `value` with the keys of its objects in order, so that two maps compare
/// by their entries.
function canonical(value) {
    if (Array.isArray(value)) return value.map(canonical);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical(value[k])]));
}

function same(a, b, what) {
    const [x, y] = [JSON.stringify(canonical(a)), JSON.stringify(canonical(b))];
    check(x === y, `${what}: ${x} is not ${y}`);
}

function run(program, args) {
    const done = spawnSync(program, args, { cwd: work });
    if (done.status !== 0) throw new Error(`${program} ${args.join(" ")}: ${done.stderr}`);
    return done.stdout.toString();
}

function startInspector() {
    const child = spawn(fsmc, ["inspect", "--fleet", "fleet.db", "orders.fsm"], {
        cwd: work,
        stdio: ["ignore", "pipe", "inherit"],
    });
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

/// What each state of the diagram should show, from `fsmc fleet list`: the
/// instances of each configuration, on its leaves and their ancestors.
function expectedCounts(ancestors) {
    const list = JSON.parse(run(fsmc, ["fleet", "list", "fleet.db", "--limit", "1", "--format", "json"]));
    const counts = {};
    for (const row of list.counts) {
        const states = new Set();
        for (const leaf of row.state.split(", ")) {
            states.add(leaf);
            for (const a of ancestors[leaf] || []) states.add(a);
        }
        for (const s of states) counts[s] = (counts[s] || 0) + row.instances;
    }
    return { counts, total: list.total, parked: list.parked };
}

/// The number on each state's first badge, as the page draws it.
async function drawnCounts(page) {
    return page.evaluate(() => {
        const out = {};
        for (const g of document.querySelectorAll("#diagram g[data-state]")) {
            const badge = g.querySelector(":scope > g.count.instances text");
            if (badge) out[g.getAttribute("data-state")] = Number(badge.textContent);
        }
        return out;
    });
}

async function main() {
    run(orders, ["fleet.db", "300"]);
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
        const page = await browser.newPage();
        const errors = [];
        page.on("pageerror", (e) => errors.push(e.message));
        page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
        await page.setViewport({ width: 1400, height: 1000 });
        await page.goto(url);
        await page.waitForSelector("#diagram g.count");

        // The states around each leaf: those whose box holds its box.
        const ancestors = {};
        const fleet = await page.evaluate(async () => (await fetch("api/fleet")).json());
        const machine = fleet.machines.find((m) => m.name === "Order");
        const boxes = await page.evaluate(() => {
            const out = {};
            for (const g of document.querySelectorAll("#diagram g[data-state]")) {
                const r = g.querySelector(":scope > rect");
                if (r) {
                    out[g.getAttribute("data-state")] = ["x", "y", "width", "height"].map((k) => Number(r.getAttribute(k)));
                }
            }
            return out;
        });
        const inside = (a, b) => a[0] >= b[0] && a[1] >= b[1] && a[0] + a[2] <= b[0] + b[2] && a[1] + a[3] <= b[1] + b[3];
        for (const [leaf, box] of Object.entries(boxes)) {
            ancestors[leaf] = Object.entries(boxes)
                .filter(([other, b]) => other !== leaf && inside(box, b))
                .map(([other]) => other);
        }
        const expected = expectedCounts(ancestors);
        same(await drawnCounts(page), expected.counts, "the count on each state");
        same(
            Object.fromEntries(Object.entries(machine.states).map(([s, c]) => [s, c.instances])),
            expected.counts,
            "the counts the server sends",
        );
        same(machine.totals.instances, expected.total, "the machine's total");
        same(machine.totals.parked, expected.parked, "parked instances");
        const totals = await page.$$eval("#totals tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
        same(totals[1].slice(0, 3), ["fleet", String(expected.total), String(expected.parked)], "the totals table");
        const placed = machine.states.placed;
        check(placed.due > 0 && placed.parked > 0 && placed.dead > 0, `placed has due, parked and dead: ${JSON.stringify(placed)}`);
        const badges = await page.$$eval('#diagram g[data-state="placed"] > g.count text', (t) => t.map((e) => e.textContent));
        same(badges, [String(placed.instances), `${placed.due} due`, `${placed.parked} parked`, `${placed.dead} dead`], "placed's badges");
        check(
            (await page.$$('#diagram g[data-state="late"].empty')).length === 1,
            "a state no instance is in is drawn as empty",
        );

        // A state clicked: its instances, 50 at a time.
        await page.click('#diagram g[data-state="fulfilling"] > rect');
        await page.waitForFunction(() => document.querySelectorAll("#instances li").length > 0);
        const heading = await page.$eval("#instances-of", (e) => e.textContent);
        same(heading, `in fulfilling (${expected.counts.fulfilling})`, "the list's heading");
        let listed = await page.$$eval("#instances li a", (a) => a.map((e) => e.textContent));
        same(listed.length, Math.min(50, expected.counts.fulfilling), "the first page");
        check([...listed].sort().join() === listed.join(), "instances by id");
        if (expected.counts.fulfilling > 50) {
            await page.click("#more");
            await page.waitForFunction(() => document.querySelectorAll("#instances li").length > 50);
            listed = await page.$$eval("#instances li a", (a) => a.map((e) => e.textContent));
            same(new Set(listed).size, listed.length, "no instance listed twice");
        }
        check(
            (await page.$$('#diagram g[data-state="fulfilling"].chosen')).length === 1,
            "the state clicked is marked",
        );

        // An instance clicked: `fsmc fleet show`, and its leaves highlighted.
        const id = listed[0];
        await page.click("#instances li a");
        await page.waitForFunction(() => !document.getElementById("instance-section").hidden);
        const shown = await page.$eval("#instance", (e) => e.textContent);
        same(shown, run(fsmc, ["fleet", "show", "fleet.db", id]), "the instance as `fsmc fleet show` prints it");
        const lit = await page.$$eval("#diagram g.state.leaf", (g) => g.map((e) => e.getAttribute("data-state")).sort());
        const state = JSON.parse(run(fsmc, ["fleet", "show", "fleet.db", id, "--format", "json"])).state;
        same(lit, state.split(", ").sort(), "the instance's leaves are highlighted");

        // The fleet changes while the page is open: more orders, counted
        // again without a reload.
        const before = expected.counts.placed;
        run(orders, ["--add", "fleet.db", "40"]);
        const after = expectedCounts(ancestors);
        check(after.counts.placed > before, "the example added placed orders");
        await page.waitForFunction(
            (want) => {
                const t = document.querySelector('#diagram g[data-state="placed"] > g.count.instances text');
                return t && Number(t.textContent) === want;
            },
            { timeout: 15000 },
            after.counts.placed,
        );
        same(await drawnCounts(page), after.counts, "the counts after the change");
        same(errors, [], "errors in the page");
        if (process.env.FLEET_SCREENSHOT) await page.screenshot({ path: process.env.FLEET_SCREENSHOT });
    } finally {
        await browser.close();
        child.kill();
    }
}

main()
    .then(() => {
        console.log(`fsmc inspect --fleet in Chromium: ${checks - failures}/${checks} checks passed`);
        process.exit(failures === 0 ? 0 : 1);
    })
    .catch((e) => {
        console.error(`error: ${e.message}`);
        process.exit(1);
    });
