# Graphviz for the tests that render fsmc's DOT output with `dot` itself
# (fsm-diagram/tests: Graphviz must accept every diagram and lay its labels out without
# overlaps). Sourced by .ci/run; `install_graphviz` installs Debian's `graphviz`
# package if `dot` is missing (as root, with apt-get).

install_graphviz() {
    if ! command -v dot >/dev/null 2>&1; then
        if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
            echo "error: Graphviz is not installed, and installing it needs root and apt-get" >&2
            return 1
        fi
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends graphviz >/dev/null || return 1
    fi
    dot -V
}
