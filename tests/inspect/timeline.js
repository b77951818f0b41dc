// A long timeline in the page of `fsmc inspect`, in headless Chromium: the
// page shows the last 500 steps and loads earlier ones a page at a time,
// numbered as `fsmc run` numbers its lines, and going back from an earlier
// page keeps the steps before it. Any failure exits 1.
//
// Usage: node timeline.js FSMC CHROMIUM WORKDIR   (check.sh calls it; WORKDIR holds phone.fsm)
"use strict";
const { spawn } = require("child_process");
const puppeteer = require("puppeteer-core");

const [fsmc, chromium, work] = process.argv.slice(2);
let checks = 0;
let failures = 0;

function same(a, b, what) {
    checks += 1;
    const [x, y] = [JSON.stringify(a), JSON.stringify(b)];
    if (x !== y) {
        failures += 1;
        console.error(`FAIL: ${what}: ${x} is not ${y}`);
    }
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

const rows = (page) => page.$$eval("#timeline tbody tr:not(.earlier)", (r) => r.map((e) => e.cells[0].textContent));

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
        const page = await browser.newPage();
        await page.goto(url);
        await page.waitForSelector("#diagram svg");
        // 1,200 steps, loaded as a script.
        const script = Array.from({ length: 1200 }, (_, i) => `{"advance": "${i + 1}ms"}`).join("\n") + "\n";
        await page.evaluate(async (body) => {
            const r = await fetch("api/script", { method: "POST", body, headers: { "Content-Type": "text/plain" } });
            if (!r.ok) throw new Error(await r.text());
        }, script);
        await page.waitForFunction(() => document.querySelectorAll("#timeline tbody tr").length > 400, { timeout: 15000 });
        let numbers = await rows(page);
        same([numbers.length, numbers[0], numbers[499]], [500, "701", "1200"], "the last 500 steps");
        same(await page.$eval("#earlier", (b) => b.textContent), "earlier steps (700 more)", "the earlier button");
        await page.click("#earlier");
        await page.waitForFunction(() => document.querySelectorAll("#timeline tbody tr:not(.earlier)").length === 1000);
        await page.click("#earlier");
        await page.waitForFunction(() => document.querySelectorAll("#timeline tbody tr:not(.earlier)").length === 1200);
        numbers = await rows(page);
        same(numbers, Array.from({ length: 1200 }, (_, i) => String(i + 1)), "every step, numbered");
        same(await page.$$("#earlier"), [], "no earlier steps left");
        const line = await page.$eval("#timeline tbody tr:nth-child(100)", (r) => r.dataset.line);
        same(line, '{"advance": "100ms"}', "step 100's line");
        // Back to before step 100: 99 steps are left, all shown.
        await page.click("#timeline tbody tr:nth-child(100) button.back");
        await page.waitForFunction(() => document.querySelectorAll("#timeline tbody tr").length === 99);
        numbers = await rows(page);
        same([numbers.length, numbers[98]], [99, "99"], "the steps before step 100");
    } finally {
        await browser.close();
        child.kill();
    }
}

main()
    .then(() => {
        console.log(`fsmc inspect's timeline in Chromium: ${checks - failures}/${checks} checks passed`);
        process.exit(failures === 0 ? 0 : 1);
    })
    .catch((e) => {
        console.error(`error: ${e.message}`);
        process.exit(1);
    });
