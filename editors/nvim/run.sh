#!/usr/bin/env bash
# Run editors/nvim/test.lua: Neovim headless, with `fsmc lsp` as its language server,
# on a copy of editors/nvim/door.fsm. Usage: editors/nvim/run.sh [path/to/fsmc]
# (default: target/debug/fsmc, built if missing). Exits with the script's status.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
fsmc="${1:-${CARGO_TARGET_DIR:-$root/target}/debug/fsmc}"
if [ ! -x "$fsmc" ]; then
    cargo build --manifest-path "$root/Cargo.toml" -p fsm-cli
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cp "$here/door.fsm" "$dir/door.fsm"
FSMC="$fsmc" FSM_FILE="$dir/door.fsm" timeout 60 nvim --headless --clean -c "luafile $here/test.lua"
