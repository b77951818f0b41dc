#!/usr/bin/env bash
# Every machine fsmc exports as SCXML, read by a real SCXML tool: Qt's SCXML compiler
# (`qscxmlc`, Debian's libqt6scxml6-bin), which parses a document, checks it (every target
# and initial state exists, every element is where SCXML allows it, `In()` names a state)
# and compiles it to C++. Each machine of each fixture that checks clean (tests/fixtures/ok
# and warn) and of each example is exported with `fsmc export --format scxml` and compiled;
# any error fails the check. It fails, never skips, when qscxmlc is missing.
#
# Usage: tests/scxml/check.sh [path/to/fsmc]   (default: target/debug/fsmc)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fsmc="${1:-${CARGO_TARGET_DIR:-$root/target}/debug/fsmc}"
qscxmlc="${QSCXMLC:-$(command -v qscxmlc || echo /usr/lib/qt6/libexec/qscxmlc)}"
if [ ! -x "$qscxmlc" ]; then
    echo "error: Qt's SCXML compiler is not installed (Debian: apt-get install libqt6scxml6-bin)" >&2
    exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
documents=0
failed=0
for file in "$root"/tests/fixtures/ok/*.fsm "$root"/tests/fixtures/warn/*.fsm "$root"/examples/*.fsm "$root"/examples/*/*.fsm "$root"/fsm-fleet/examples/*.fsm; do
    # The machines of the file, as `fsmc export --format json` names them (`fsm_id`).
    machines=$("$fsmc" export --format json "$file" 2>/dev/null | node -e '
        let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
            const doc = JSON.parse(s);
            for (const m of Array.isArray(doc) ? doc : [doc]) console.log(m.fsm_id);
        });') || continue
    for machine in $machines; do
        out="$work/$(basename "$file" .fsm)-$machine.scxml"
        if ! "$fsmc" export --format scxml --machine "$machine" "$file" -o "$out" 2>"$work/export.txt"; then
            echo "FAIL: fsmc export --format scxml --machine $machine $file:" >&2
            cat "$work/export.txt" >&2
            failed=$((failed + 1))
            continue
        fi
        documents=$((documents + 1))
        if ! "$qscxmlc" "$out" -o "$work/compiled" >"$work/qscxmlc.txt" 2>&1; then
            echo "FAIL: qscxmlc refuses machine $machine of $file:" >&2
            cat "$work/qscxmlc.txt" >&2
            failed=$((failed + 1))
        fi
    done
done
if [ "$documents" -lt 50 ]; then
    echo "error: only $documents documents were exported; expected every fixture and example" >&2
    exit 1
fi
echo "scxml: $((documents - failed)) of $documents exported machines compiled by $("$qscxmlc" --version 2>&1 | head -1)"
[ "$failed" -eq 0 ]
