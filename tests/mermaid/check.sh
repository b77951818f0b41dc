#!/usr/bin/env bash
# Every Mermaid diagram fsmc draws must render in Mermaid itself: this draws each machine of
# the examples and of tests/fixtures/{ok,warn} with `fsmc graph`, renders them all with the
# Mermaid of package-lock.json in headless Chromium, and fails, naming the machine and
# Mermaid's message, on any diagram Mermaid refuses or draws without a single state.
#
# Usage: tests/mermaid/check.sh [path/to/fsmc]   (default: target/debug/fsmc, built if missing)
# Needs Node.js and npm (for `npm ci`; install scripts are off, see .npmrc) and Chromium.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fsmc="${1:-${CARGO_TARGET_DIR:-$root/target}/debug/fsmc}"
if [ ! -x "$fsmc" ]; then
    cargo build --manifest-path "$root/Cargo.toml" -p fsm-cli
fi
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "error: Chromium is not installed (Debian: apt-get install chromium)" >&2
    exit 1
fi
(cd "$here" && npm ci --no-audit --no-fund --silent)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/diagrams"
count=0
shopt -s nullglob
for file in "$root"/examples/*.fsm "$root"/examples/*/*.fsm "$root"/tests/fixtures/ok/*.fsm "$root"/tests/fixtures/warn/*.fsm; do
    # The machines of the file, by name (a file may hold several).
    while read -r machine; do
        count=$((count + 1))
        name="${file#"$root"/}: $machine"
        printf '%s' "$name" >"$work/diagrams/$count.name"
        # Its warnings are the fixtures' point; an error stops the check.
        if ! "$fsmc" graph --format mermaid --machine "$machine" "$file" >"$work/diagrams/$count.mmd" 2>"$work/stderr"; then
            cat "$work/stderr" >&2
            echo "error: fsmc graph failed on $name" >&2
            exit 1
        fi
    done < <(sed -n 's/^[[:space:]]*machine[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$file")
done
if [ "$count" -lt 20 ]; then
    echo "error: only $count machines found" >&2
    exit 1
fi

# One page renders every diagram in turn and writes what happened into the DOM.
node - "$work" "$here/node_modules/mermaid/dist/mermaid.min.js" <<'JS'
const fs = require("fs");
const [work, mermaidJs] = process.argv.slice(2);
const dir = `${work}/diagrams`;
const diagrams = fs.readdirSync(dir).filter((f) => f.endsWith(".mmd")).map((f) => ({
    name: fs.readFileSync(`${dir}/${f.replace(".mmd", ".name")}`, "utf8"),
    text: fs.readFileSync(`${dir}/${f}`, "utf8"),
}));
const page = `<!doctype html><html><body><pre id="result">running</pre>
<script>${fs.readFileSync(mermaidJs, "utf8").replace(/<\/script/gi, "<\\/script")}</script>
<script>
const diagrams = ${JSON.stringify(diagrams)};
mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
(async () => {
    const failures = [];
    for (const [i, d] of diagrams.entries()) {
        try {
            const { svg } = await mermaid.render("d" + i, d.text);
            if (!/class="[^"]*node/.test(svg)) failures.push(d.name + ": Mermaid drew no state");
        } catch (e) {
            failures.push(d.name + ": " + String((e && (e.message || e.str)) || e));
        }
    }
    document.getElementById("result").textContent =
        JSON.stringify({ rendered: diagrams.length, failures });
})();
</script></body></html>`;
fs.writeFileSync(`${work}/page.html`, page);
JS

"$chromium" --headless --no-sandbox --disable-gpu --virtual-time-budget=60000 \
    --dump-dom "file://$work/page.html" 2>/dev/null >"$work/dom.html"
node - "$work/dom.html" "$count" <<'JS'
const fs = require("fs");
const [domFile, expected] = process.argv.slice(2);
const dom = fs.readFileSync(domFile, "utf8");
const match = dom.match(/<pre id="result">([^<]*)<\/pre>/);
const text = match ? match[1].replace(/&quot;/g, '"').replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">") : "";
if (!text.startsWith("{")) {
    console.error(`error: the page did not finish rendering (${text || "no result"})`);
    process.exit(1);
}
const result = JSON.parse(text);
if (result.rendered !== Number(expected)) {
    console.error(`error: ${result.rendered} diagrams rendered, ${expected} expected`);
    process.exit(1);
}
for (const failure of result.failures) console.error(`error: ${failure}`);
if (result.failures.length > 0) process.exit(1);
console.log(`mermaid: all ${result.rendered} diagrams render`);
JS
