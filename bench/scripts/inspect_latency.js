// The browser side of `inspect_latency`: opens the page of `fsmc inspect
// --listen` in headless Chromium with `#latency`, which makes the page record,
// for every step it receives, the time from the step (its `at_us`, stamped by
// the program when the machine fired) to the next frame after the highlight
// was drawn. Prints `ready` once the page follows the program's instance and
// shows its steps (the delays so far are forgotten: they include the steps
// before the page opened), then, when a line arrives on stdin, the delays in
// ms as one JSON array.
//
// Usage: node inspect_latency.js URL CHROMIUM   (NODE_PATH=tests/inspect/node_modules)
"use strict";
const puppeteer = require("puppeteer-core");
const [url, chromium] = process.argv.slice(2);

async function main() {
    const browser = await puppeteer.launch({
        executablePath: chromium,
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    try {
        const page = await browser.newPage();
        await page.setViewport({ width: 1280, height: 900 });
        await page.goto(`${url}#latency`);
        await page.waitForFunction(() => window.fsmcLatencies && window.fsmcLatencies.length > 0, { timeout: 30000, polling: 50 });
        // Measure from here: the first answers carry the steps before the page opened.
        await page.evaluate(() => window.fsmcLatencies.splice(0));
        console.log("ready");
        await new Promise((resolve) => process.stdin.once("data", resolve));
        const latencies = await page.evaluate(() => window.fsmcLatencies.slice());
        console.log(JSON.stringify(latencies));
    } finally {
        await browser.close();
    }
}

main().then(
    () => process.exit(0),
    (e) => {
        console.error(`error: ${e.stack || e}`);
        process.exit(1);
    },
);
