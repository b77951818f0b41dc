# A throwaway PostgreSQL server for the PgStore tests (fsm-store/tests/pg_store.rs).
# Sourced by .ci/run; `start_test_postgres` installs Debian's `postgresql` package if no
# server binaries are found, starts a private cluster listening only on a unix socket in
# a temporary directory, exports FSM_TEST_POSTGRES_URL, and stops the cluster at exit.
#
# If PostgreSQL cannot be installed or started, `start_test_postgres` says why and
# returns 1 with FSM_TEST_POSTGRES_URL unset. .ci/run then stops when CI is set (a CI
# run whose server did not start must fail, never count skipped tests as passes);
# elsewhere it goes on, and the PgStore tests report "skipped". Every step is checked
# explicitly, since `set -e` does not apply inside a function called as
# `start_test_postgres || ...`.

TEST_POSTGRES_DIR=""
TEST_POSTGRES_BINDIR=""
TEST_POSTGRES_AS=()

test_postgres_warn() {
    printf '\n!!!\n!!! PostgreSQL: %s\n!!! FSM_TEST_POSTGRES_URL is not set.\n!!!\n\n' "$*" >&2
}

# The directory holding initdb and pg_ctl: Debian's newest /usr/lib/postgresql/N/bin,
# else wherever initdb on PATH really lives.
test_postgres_bindir() {
    local dir initdb
    while read -r dir; do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
            echo "$dir"
            return 0
        fi
    done < <(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r)
    if initdb=$(command -v initdb) && dir=$(dirname "$(readlink -f "$initdb")") && [ -x "$dir/pg_ctl" ]; then
        echo "$dir"
        return 0
    fi
    return 1
}

test_postgres_install() {
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        test_postgres_warn "PostgreSQL is not installed, and installing it needs root and apt-get"
        return 1
    fi
    echo "PostgreSQL is not installed: apt-get install postgresql"
    if ! DEBIAN_FRONTEND=noninteractive timeout 600 apt-get update -qq; then
        test_postgres_warn "apt-get update failed"
        return 1
    fi
    if ! DEBIAN_FRONTEND=noninteractive timeout 900 \
        apt-get install -y -qq --no-install-recommends postgresql >/dev/null; then
        test_postgres_warn "apt-get install postgresql failed"
        return 1
    fi
}

# Runs a PostgreSQL binary as the cluster's owner: the `postgres` user when we are root
# (the server refuses to run as root), ourselves otherwise. From the cluster's directory,
# since the postgres user may not be allowed into the current one.
test_postgres_run() {
    (cd "$TEST_POSTGRES_DIR" && "${TEST_POSTGRES_AS[@]}" "$TEST_POSTGRES_BINDIR/$1" "${@:2}")
}

start_test_postgres() {
    local data socket log url
    if ! TEST_POSTGRES_BINDIR=$(test_postgres_bindir); then
        test_postgres_install || return 1
        if ! TEST_POSTGRES_BINDIR=$(test_postgres_bindir); then
            test_postgres_warn "the postgresql package is installed but initdb and pg_ctl were not found"
            return 1
        fi
    fi
    echo "PostgreSQL binaries: $TEST_POSTGRES_BINDIR"

    if [ "$(id -u)" -eq 0 ]; then
        if ! id postgres >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1; then
            test_postgres_warn "running as root, but there is no postgres user or no runuser to run the server as"
            return 1
        fi
        TEST_POSTGRES_AS=(runuser -u postgres --)
    fi

    # In /tmp rather than $TMPDIR, which may be under a home the postgres user cannot enter.
    if ! TEST_POSTGRES_DIR=$(mktemp -d /tmp/fsm-postgres.XXXXXX); then
        TEST_POSTGRES_DIR=""
        test_postgres_warn "could not create a temporary directory for the cluster"
        return 1
    fi
    trap stop_test_postgres EXIT
    data="$TEST_POSTGRES_DIR/data"
    socket="$TEST_POSTGRES_DIR"
    log="$TEST_POSTGRES_DIR/server.log"
    if [ "$(id -u)" -eq 0 ] && ! chown postgres "$TEST_POSTGRES_DIR"; then
        test_postgres_warn "could not give $TEST_POSTGRES_DIR to the postgres user"
        return 1
    fi

    if ! test_postgres_run initdb --pgdata="$data" --username=postgres --auth=trust \
        --encoding=UTF8 --no-locale --no-sync >"$TEST_POSTGRES_DIR/initdb.log" 2>&1; then
        cat "$TEST_POSTGRES_DIR/initdb.log" >&2
        test_postgres_warn "initdb failed (output above)"
        return 1
    fi
    # Unix socket only (no TCP port to collide with), and no fsync: the cluster is thrown away.
    if ! test_postgres_run pg_ctl --pgdata="$data" --log="$log" --wait --timeout=60 \
        --options="-k '$socket' -c listen_addresses='' -c fsync=off" start >/dev/null; then
        tail -n 30 "$log" >&2 2>/dev/null
        test_postgres_warn "the PostgreSQL server did not start (log above)"
        return 1
    fi
    if ! test_postgres_run createdb --host="$socket" --username=postgres fsm_test; then
        test_postgres_warn "createdb fsm_test failed"
        return 1
    fi

    url="host=$socket user=postgres dbname=fsm_test"
    if ! test_postgres_run psql "$url" --no-psqlrc --quiet --tuples-only --command="SELECT version()"; then
        test_postgres_warn "the PostgreSQL server does not answer at $url"
        return 1
    fi
    export FSM_TEST_POSTGRES_URL="$url"
    echo "FSM_TEST_POSTGRES_URL=$FSM_TEST_POSTGRES_URL"
}

stop_test_postgres() {
    if [ -z "$TEST_POSTGRES_DIR" ]; then
        return 0
    fi
    if [ -f "$TEST_POSTGRES_DIR/data/postmaster.pid" ]; then
        test_postgres_run pg_ctl --pgdata="$TEST_POSTGRES_DIR/data" --mode=immediate --wait stop >/dev/null 2>&1 ||
            echo "warning: could not stop the PostgreSQL server in $TEST_POSTGRES_DIR" >&2
    fi
    rm -rf "$TEST_POSTGRES_DIR"
    TEST_POSTGRES_DIR=""
}
