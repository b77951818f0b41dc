# Chromium for tests/mermaid/check.sh, which renders every Mermaid diagram fsmc draws
# with Mermaid itself. Sourced by .ci/run; `install_chromium` installs Debian's
# `chromium` package if it is missing (as root, with apt-get). Mermaid comes from npm
# (tests/mermaid/package-lock.json; install scripts are off, nothing is downloaded at
# install time).

install_chromium() {
    if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
        if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
            echo "error: Chromium is not installed, and installing it needs root and apt-get" >&2
            return 1
        fi
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || return 1
    fi
    "$(command -v chromium || command -v chromium-browser)" --version
}
