// Drives the page of `fsmc inspect --listen` in headless Chromium while a
// program (fsm-runtime's `observed` example) runs two observed machines:
// the page lists both, follows the chosen one live (its highlighted leaf is
// where its last step went, and it moves), switches to the other, counts a
// malformed line, and marks the instances disconnected when the program
// stops. Any failure, Chromium that does not start included, exits 1.
//
// Usage: node live.js FSMC OBSERVED CHROMIUM [SCREENSHOT.png]   (check.sh calls it)
"use strict";
const net = require("net");
const { spawn } = require("child_process");
const puppeteer = require("puppeteer-core");

const [fsmc, observed, chromium, screenshot] = process.argv.slice(2);
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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/// `fsmc inspect --listen 127.0.0.1:0`: the page's URL and the address
/// programs connect to, from what it prints.
function startInspector() {
    const child = spawn(fsmc, ["inspect", "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
    return new Promise((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => {
            out += d;
            const match = out.match(/connect to (\S+) at (http:\/\/\S+\/)/);
            if (match) resolve({ child, listen: match[1], url: match[2] });
        });
        child.on("exit", (code) => reject(new Error(`fsmc inspect exited with ${code}: ${out}`)));
        setTimeout(() => reject(new Error("fsmc inspect printed no URL")), 10000);
    });
}

function send(listen, text) {
    const [host, port] = [listen.slice(0, listen.lastIndexOf(":")), Number(listen.slice(listen.lastIndexOf(":") + 1))];
    return new Promise((resolve, reject) => {
        const socket = net.connect(port, host, () => socket.end(text, resolve));
        socket.on("error", reject);
    });
}

async function main() {
    const { child, listen, url } = await startInspector();
    let browser;
    let program;
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
        await page.setViewport({ width: 1280, height: 860 });
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
        const response = await page.goto(url);
        check(response.status() === 200, `the page answers ${response.status()}`);
        check(/default-src 'self'/.test(response.headers()["content-security-policy"] || ""), "the page has its CSP");
        await page.waitForFunction(() => document.querySelector("#counts").textContent.includes("0 programs"), { timeout: 5000 })
            .catch(() => check(false, "the page never said no program is connected"));
        check(await page.$eval("#no-instances", (p) => !p.hidden), "no instance yet, and the page says so");

        program = spawn(observed, [listen, "--rate", "20", "--instances", "2"], { stdio: ["ignore", "ignore", "inherit"] });
        await page.waitForFunction(() => document.querySelectorAll("#instances tbody tr").length === 2, { timeout: 10000 })
            .catch(() => check(false, "the two instances never showed"));
        same(await page.$$eval("#instances tbody tr", (rs) => rs.map((r) => r.dataset.instance)), ["order-1", "order-2"],
            "both instances are listed");
        await page.waitForSelector("#diagram svg g[data-state]", { timeout: 5000 })
            .catch(() => check(false, "the chosen instance's diagram never showed (the program sends its definition)"));
        same(await page.$eval("#chosen-name", (c) => c.textContent), "Order order-1", "the first instance is chosen");

        // Live: the highlighted leaf is where the last step shown went, at
        // every moment, and it moves.
        const now = () => page.evaluate(() => {
            const rows = [...document.querySelectorAll("#timeline tbody tr")];
            const moved = rows.filter((r) => r.dataset.step === "fired" || r.dataset.step === "timer");
            const last = moved[moved.length - 1];
            return {
                rows: rows.length,
                to: last ? last.dataset.to : null,
                leaves: [...document.querySelectorAll("#diagram g.state.leaf")].map((g) => g.dataset.state),
                taken: document.querySelectorAll("#diagram path.edge.taken").length,
            };
        });
        await page.waitForFunction(() => document.querySelectorAll("#timeline tbody tr").length >= 4, { timeout: 10000 })
            .catch(() => check(false, "the chosen instance's steps never came"));
        const seen = new Set();
        for (let i = 0; i < 8; i += 1) {
            const shown = await now();
            if (shown.to !== null) {
                same(shown.leaves, [shown.to], `sample ${i}: the highlighted leaf is where the last step went`);
                seen.add(shown.to);
            }
            await sleep(150);
        }
        check(seen.size >= 3, `the instance moves on the page: it was seen in ${[...seen].join(", ")}`);
        check((await now()).rows >= 8, "the timeline grows");
        const refused = await page.$$eval("#timeline tbody tr.refused", (rs) => rs.map((r) => r.cells[6].textContent));
        check(refused.length > 0 && refused.every((t) => t.includes("not valid")), `refused steps are shown with why: ${refused[0]}`);

        // The other instance.
        await page.click('#instances tbody tr[data-instance="order-2"]');
        await page.waitForFunction(() => document.querySelector("#chosen-name").textContent === "Order order-2", { timeout: 5000 })
            .catch(() => check(false, "choosing order-2 did not show it"));
        await page.waitForFunction(() => document.querySelectorAll("#timeline tbody tr").length >= 2, { timeout: 5000 })
            .catch(() => check(false, "order-2's steps never came"));
        const shown = await now();
        same(shown.leaves, [shown.to], "order-2: the highlighted leaf is where its last step went");
        same(await page.$eval("#instances tr.chosen", (r) => r.dataset.instance), "order-2", "order-2 is marked chosen");

        // A program that sends nonsense is counted and shown, and nothing else changes.
        await send(listen, "this is not JSON\n{\"kind\": \"step\"}\n");
        await page.waitForFunction(() => /^2 lines/.test(document.querySelector("#malformed").textContent), { timeout: 5000 })
            .catch(() => check(false, "the malformed lines were never shown"));
        const malformed = await page.$eval("#malformed", (m) => m.textContent);
        check(malformed.includes("not JSON") && malformed.includes("no string `machine`"), `why each line was skipped: ${malformed}`);

        if (screenshot) {
            await page.click('#instances tbody tr[data-instance="order-1"]');
            await page.waitForFunction(() => document.querySelector("#chosen-name").textContent === "Order order-1");
            await page.setViewport({ width: 1280, height: 1080 });
            await page.mouse.move(0, 0);
            await sleep(1500);
            await page.screenshot({ path: screenshot });
        }

        // The program stops: its instances are marked, and stay listed.
        program.kill();
        program = null;
        await page.waitForFunction(
            () => [...document.querySelectorAll("#instances tbody tr")].every((r) => r.classList.contains("ended")),
            { timeout: 5000 },
        ).catch(() => check(false, "the instances were never marked ended"));
        const listed = await page.$$eval("#instances tbody tr", (rs) => rs.map((r) => r.cells[0].textContent));
        same(listed, ["order-1 (disconnected)", "order-2 (disconnected)"], "the ended instances say why");

        same(foreign, [], "no request leaves the inspector");
        same(consoleErrors, [], "no error in the console");
    } finally {
        if (program) program.kill();
        await browser.close();
        child.kill();
    }
}

main()
    .then(() => {
        console.log(`inspect --listen: ${checks - failures} passed, ${failures} failed`);
        process.exit(failures === 0 ? 0 : 1);
    })
    .catch((e) => {
        console.error(`error: ${e.stack || e}`);
        console.log(`inspect --listen: ${checks - failures} passed, ${failures + 1} failed`);
        process.exit(1);
    });
