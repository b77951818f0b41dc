# Qt's SCXML compiler for tests/scxml/check.sh, which has every machine fsmc exports as
# SCXML read and checked by a real SCXML tool. Sourced by .ci/run; `install_qscxmlc`
# installs Debian's `libqt6scxml6-bin` (which holds /usr/lib/qt6/libexec/qscxmlc) if it
# is missing (as root, with apt-get).

install_qscxmlc() {
    if ! command -v qscxmlc >/dev/null 2>&1 && [ ! -x /usr/lib/qt6/libexec/qscxmlc ]; then
        if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
            echo "error: qscxmlc is not installed, and installing it needs root and apt-get" >&2
            return 1
        fi
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libqt6scxml6-bin >/dev/null || return 1
    fi
    "$(command -v qscxmlc || echo /usr/lib/qt6/libexec/qscxmlc)" --version
}
