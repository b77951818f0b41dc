#!/usr/bin/env bash
# How long `fsmc inspect --fleet` takes over a fleet of a million instances: the count
# before its URL is printed (`inspect::tallies`, read from indexes), then the page, its
# counts and its diagram, as a browser asks for them. Each of RUNS runs starts a fresh
# `fsmc inspect`; the first run reads a cold file. Needs sqlite3 and curl.
#
# Usage: bench/scripts/fleet_inspect.sh [FSMC] [ORDERS] [RUNS]
#   FSMC    the fsmc to measure (default target/release/fsmc: cargo build --release -p fsm-cli)
#   ORDERS  fsm-fleet's `orders` example (default target/release/examples/orders:
#           cargo build --release -p fsm-fleet --example orders)
#
# The fleet: 1,000 orders at every stage (some parked, due and dead) from the example, each
# copied 1,000 times with its events by SQL, then opened once by a `Fleet` (so it has schema 5's
# indexes): 1,000,000 instances and about 2,000,000 events, in a temporary directory (or,
# with FLEET_DB=PATH, the fleet in PATH, made by an earlier run with FLEET_KEEP=PATH).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fsmc="${1:-$root/target/release/fsmc}"
orders="${2:-$root/target/release/examples/orders}"
runs="${3:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
db="${FLEET_DB:-$work/fleet.db}"
if [ -z "${FLEET_DB:-}" ]; then
"$orders" "$db" 1000 >/dev/null
thousand="(WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM c WHERE v < 999) SELECT v FROM c)"
sqlite3 "$db" "PRAGMA synchronous = OFF;
INSERT INTO fsm_instances SELECT id || '-' || n.v, machine, fingerprint, state, snapshot, version,
    next_wake, error, created_at, updated_at FROM fsm_instances, $thousand n;
INSERT INTO fsm_inbox (instance, machine, dedup_key, event, status, error, sent_at, consumed_at)
    SELECT e.instance || '-' || n.v, e.machine, e.dedup_key, e.event, e.status, e.error, e.sent_at,
    e.consumed_at FROM fsm_inbox e, $thousand n;"
"$orders" --add "$db" 0 >/dev/null
fi
echo "instances: $(sqlite3 "$db" 'SELECT COUNT(*) FROM fsm_instances'), events: $(sqlite3 "$db" 'SELECT COUNT(*) FROM fsm_inbox'), file: $(du -h "$db" | cut -f1)"
for run in $(seq "$runs"); do
    out="$work/out.txt"
    start=$(date +%s%N)
    "$fsmc" inspect --fleet "$db" "$root/fsm-fleet/examples/orders.fsm" >"$out" 2>&1 &
    pid=$!
    until grep -q http "$out"; do
        sleep 0.01
        kill -0 "$pid" 2>/dev/null || { cat "$out"; exit 1; }
    done
    printed=$(date +%s%N)
    url=$(grep -o "http://[^ ]*" "$out")
    for path in "" fleet.js api/fleet "api/diagram.svg?machine=Order"; do
        status=$(curl -s -o "$work/answer" -w '%{http_code}' "$url$path") || status="no answer"
        if [ "$status" != 200 ]; then
            echo "error: GET /$path: $status: $(head -c 300 "$work/answer")" >&2
            exit 1
        fi
        [ "$path" != api/fleet ] || cp "$work/answer" "$work/fleet.json"
    done
    loaded=$(date +%s%N)
    took=$(sed -n 's/.*"took_ms":\([0-9]*\).*/\1/p' "$work/fleet.json")
    echo "run $run: first count ${took} ms; URL printed after $(((printed - start) / 1000000)) ms; page, counts and diagram in $(((loaded - printed) / 1000000)) ms"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
done
if [ -n "${FLEET_KEEP:-}" ]; then
    mv "$db" "$FLEET_KEEP"
fi
