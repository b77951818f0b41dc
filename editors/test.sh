#!/usr/bin/env bash
# Editor support tests, as CI runs them (.ci/run, section "editors"):
#   1. the VS Code extension: its TextMate grammar against the annotated files in
#      editors/vscode/test (vscode-tmgrammar-test), its unit tests, and the .vsix;
#   2. the tree-sitter grammar: the committed src/ is what grammar.js generates,
#      and the corpus tests pass;
#   3. the agreement test (editors/agreement.js): fsm.pest, tree-sitter and the
#      TextMate grammar accept every fixture under tests/fixtures/ok, and reject
#      the syntax fixtures alike;
#   4. the Vim syntax file against the annotated editors/nvim/syntax.fsm, in
#      headless Neovim (skipped without `nvim`, except in CI).
#
# Needs node and npm, the tree-sitter CLI ($TREE_SITTER, or `tree-sitter` on PATH;
# build it with `cargo install tree-sitter-cli --locked`), a C compiler (the CLI
# compiles the parser), and fsmc ($FSMC, or `fsmc` on PATH, or built here with cargo).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

step() {
    printf '\n--> %s\n' "$*"
}

tree_sitter=${TREE_SITTER:-tree-sitter}
if ! command -v "$tree_sitter" >/dev/null 2>&1; then
    echo "error: the tree-sitter CLI ($tree_sitter) is not installed; run: cargo install tree-sitter-cli --locked" >&2
    exit 1
fi
"$tree_sitter" --version

if [[ -n "${FSMC:-}" ]]; then
    fsmc=$FSMC
    if [[ ! -x "$fsmc" ]]; then
        echo "error: FSMC=$fsmc is not an executable" >&2
        exit 1
    fi
else
    step "cargo build -p fsm-cli (fsmc, for the agreement test)"
    cargo build -q -p fsm-cli
    fsmc="$(cargo metadata --format-version 1 --no-deps | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')/debug/fsmc"
fi

# The tree-sitter CLI keeps compiled parsers in its own cache; a fresh, private
# one keeps the run from using a stale parser or anyone's configuration.
ts_home=$(mktemp -d)
trap 'rm -rf "$ts_home"' EXIT
export TREE_SITTER_DIR="$ts_home/config" TREE_SITTER_LIBDIR="$ts_home/lib"
mkdir -p "$TREE_SITTER_DIR"
printf '{"parser-directories": []}\n' >"$TREE_SITTER_DIR/config.json"

step "VS Code extension: npm ci"
cd "$root/editors/vscode"
if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
    # .npmrc sets ignore-scripts: no install script runs, so nothing downloads a binary.
    npm ci --no-audit --no-fund
fi

step "VS Code extension: TextMate grammar tests (vscode-tmgrammar-test)"
npx --no-install vscode-tmgrammar-test --grammar syntaxes/fsm.tmLanguage.json 'test/*.fsm'

step "VS Code extension: unit tests (node --test)"
node --test test/

step "VS Code extension: package the .vsix (vsce)"
rm -f fsm.vsix
vsce_log=$(npx --no-install vsce package --skip-license --out fsm.vsix 2>&1) || { echo "$vsce_log"; exit 1; }
echo "$vsce_log" | grep -v '^npm warn'
# The package holds the grammar and the client library extension.js requires.
for needed in fsm.tmLanguage.json language-configuration.json extension.js server-path.js vscode-languageclient/; do
    if ! grep -qF -- "$needed" <<<"$vsce_log"; then
        echo "error: fsm.vsix lacks $needed" >&2
        exit 1
    fi
done
test -s fsm.vsix
node scripts/check-vsix.js fsm.vsix

step "tree-sitter: the committed src/ is what grammar.js generates"
cd "$root/editors/tree-sitter-fsm"
# Generated in a copy, so the work tree is never touched. The generated parser
# depends on the CLI's version: compare only with the version that generated
# the committed src/ (cli-version).
pinned=$(tr -d '[:space:]' <cli-version)
if [[ "$("$tree_sitter" --version)" != "tree-sitter $pinned"* ]]; then
    echo "warning: tree-sitter is not version $pinned (cli-version); not checking that src/ is up to date" >&2
else
    generated="$ts_home/generate"
    mkdir -p "$generated"
    cp grammar.js tree-sitter.json "$generated/"
    (cd "$generated" && "$tree_sitter" generate)
    if ! diff -r "$generated/src" src >/dev/null; then
        diff -r "$generated/src" src | head -20 >&2 || true
        echo "error: editors/tree-sitter-fsm/src differs from what grammar.js generates: run \`tree-sitter generate\` there and commit src/" >&2
        exit 1
    fi
    echo "src/ is up to date"
fi

step "tree-sitter: corpus and highlight tests"
"$tree_sitter" test

step "agreement: fsm.pest, tree-sitter and TextMate on the fixtures"
cd "$root"
node editors/agreement.js --fsmc "$fsmc" --tree-sitter "$(command -v "$tree_sitter")"

step "Vim syntax file: the groups marked in editors/nvim/syntax.fsm (headless Neovim)"
if command -v nvim >/dev/null 2>&1; then
    timeout 60 nvim --headless --clean -c "luafile $root/editors/nvim/syntax.lua"
elif [[ -n "${CI:-}" && "${CI:-}" != "false" && "${CI:-}" != "0" ]]; then
    echo "error: nvim is not installed, and in CI this step needs it (.ci/neovim.sh installs it)" >&2
    exit 1
else
    echo "skipped: nvim is not installed"
fi
