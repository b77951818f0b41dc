# Sourced by .ci/run: what the editor-support tests (editors/test.sh) need on a
# fresh machine, beyond the Rust toolchain.
#
# - Node.js and npm: on the machine. `npm ci` in editors/vscode installs the
#   pinned packages of package-lock.json; editors/vscode/.npmrc turns install
#   scripts off, so nothing downloads a binary at install time.
# - The tree-sitter CLI, at the version that generated editors/tree-sitter-fsm/src
#   (editors/tree-sitter-fsm/cli-version): built from crates.io with cargo unless
#   that version is already on PATH (the npm package would download a binary).
#   About 2.5 minutes of build on 2 cores.
# - A C compiler (the CLI compiles the generated parser to test it): gcc is on the machine.

install_tree_sitter_cli() {
    local version
    version=$(tr -d '[:space:]' <editors/tree-sitter-fsm/cli-version)
    local bin="${CARGO_HOME:-$HOME/.cargo}/bin"
    case ":$PATH:" in
        *":$bin:"*) ;;
        *) export PATH="$bin:$PATH" ;;
    esac
    if command -v tree-sitter >/dev/null 2>&1 && [[ "$(tree-sitter --version)" == "tree-sitter $version"* ]]; then
        echo "tree-sitter $version is installed: $(command -v tree-sitter)"
        return 0
    fi
    echo "building tree-sitter-cli $version from crates.io"
    local start=$SECONDS
    # Its own target directory, thrown away after: the CLI's dependencies have
    # nothing to share with the workspace build.
    local target
    target=$(mktemp -d)
    CARGO_TARGET_DIR="$target" cargo install tree-sitter-cli --version "$version" --locked --root "${CARGO_HOME:-$HOME/.cargo}"
    rm -rf "$target"
    echo "tree-sitter-cli built in $((SECONDS - start)) s"
    tree-sitter --version
}

check_editor_tools() {
    local missing=()
    command -v node >/dev/null 2>&1 || missing+=(node)
    command -v npm >/dev/null 2>&1 || missing+=(npm)
    command -v cc >/dev/null 2>&1 || missing+=("cc (a C compiler)")
    if ((${#missing[@]})); then
        echo "error: the editor tests need ${missing[*]}" >&2
        return 1
    fi
    node --version
    npm --version
}
