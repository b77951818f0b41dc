#!/usr/bin/env bash
# The page of `fsmc inspect` in a real browser: tests/inspect/check.js drives it in headless
# Chromium (fires actions, toggles a guard, advances the clock, goes back a step, loads a
# script, restores a downloaded snapshot, breaks and mends the file) and checks the
# highlighted states and the timeline against `fsmc run` on the same script. It fails, never
# skips, when Chromium cannot start.
#
# Then tests/inspect/timeline.js checks a long timeline, loaded a page at a time, and
# tests/inspect/fleet.js drives the page of `fsmc inspect --fleet` the same way, and
# tests/inspect/live.js watches a running program (fsm-runtime's `observed` example, built
# here) through `fsmc inspect --listen`: the page lists its instances and follows one live.
#
# Usage: tests/inspect/check.sh [path/to/fsmc]   (default: target/debug/fsmc, built if missing)
# Needs Node.js and npm (for `npm ci` of puppeteer-core, which downloads no browser; install
# scripts are off, see .npmrc) and Chromium.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fsmc="${1:-${CARGO_TARGET_DIR:-$root/target}/debug/fsmc}"
if [ ! -x "$fsmc" ]; then
    cargo build --manifest-path "$root/Cargo.toml" -p fsm-cli
fi
fsmc="$(cd "$(dirname "$fsmc")" && pwd)/$(basename "$fsmc")"
# The observed program, beside fsmc in the same target directory.
CARGO_TARGET_DIR="$(dirname "$(dirname "$fsmc")")" cargo build --quiet --manifest-path "$root/Cargo.toml" \
    -p fsm-runtime --example observed
observed="$(dirname "$fsmc")/examples/observed"
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "error: Chromium is not installed (Debian: apt-get install chromium)" >&2
    exit 1
fi
(cd "$here" && npm ci --no-audit --no-fund --silent --prefer-offline)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/phone.fsm" "$work/phone.fsm"
NODE_PATH="$here/node_modules" timeout 120 node "$here/check.js" "$fsmc" "$chromium" "$work"
cp "$here/phone.fsm" "$work/phone.fsm"
NODE_PATH="$here/node_modules" timeout 120 node "$here/timeline.js" "$fsmc" "$chromium" "$work"

# The fleet's page, over the fleet of fsm-fleet's `orders` example (built beside fsmc; `cargo
# test` builds it, and so does this script when it is missing).
orders="$(dirname "$fsmc")/examples/orders"
if [ ! -x "$orders" ]; then
    cargo build --manifest-path "$root/Cargo.toml" -p fsm-fleet --example orders
fi
cp "$root/fsm-fleet/examples/orders.fsm" "$work/orders.fsm"
NODE_PATH="$here/node_modules" timeout 120 node "$here/fleet.js" "$fsmc" "$chromium" "$work" "$orders"

# A running program, watched live.
NODE_PATH="$here/node_modules" timeout 120 node "$here/live.js" "$fsmc" "$observed" "$chromium"
