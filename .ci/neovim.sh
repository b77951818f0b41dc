# Neovim for the real-editor test of `fsmc lsp` (fsm-cli/tests/it/lsp.rs runs
# editors/nvim/test.lua). Sourced by .ci/run; `install_test_neovim` installs Debian's
# `neovim` package if `nvim` is missing (as root, with apt-get). With CI set, the test
# fails rather than skips when `nvim` is missing.

install_test_neovim() {
    if ! command -v nvim >/dev/null 2>&1; then
        if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
            echo "error: Neovim is not installed, and installing it needs root and apt-get" >&2
            return 1
        fi
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null || return 1
    fi
    nvim --version | head -n 1
}
