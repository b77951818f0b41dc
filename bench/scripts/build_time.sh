#!/usr/bin/env bash
# Build times a user sees, for one or more checkouts of fsmc side by side:
#   - `machine`: a crate with one `fsm!` machine (depends on fsm-runtime by path):
#     a cold `cargo build` (empty target directory) and an incremental one after
#     the machine's `.fsm` file changes;
#   - `dynamic`: a crate using the dynamic engine (fsm-dynamic, or before the crate
#     split, fsm-runtime's `dynamic` feature): a cold `cargo build`.
# Debug profile, as a user's default build. Runs alternate between the checkouts,
# so drift on a shared machine hits each alike; the median of RUNS is printed.
#
#   bash bench/scripts/build_time.sh RUNS /path/to/old/checkout /path/to/new/checkout
set -euo pipefail
runs=$1
shift
work=${BUILD_TIME_DIR:-/tmp/fsmc-build-time}
rm -rf "$work"
mkdir -p "$work"

machine_fsm() {
    local target=$1
    cat <<FSM
machine Order {
    context Cart;
    action add(u32), checkout, pay, ship, deliver, cancel;
    guard not_empty;
    effect put(u32);
    output charge, notify;
    initial state shopping { on add -> shopping do put; on checkout [not_empty] -> paying; }
    state paying { on pay -> $target emit charge; on cancel -> cancelled; after 15m -> cancelled; }
    state packing { on ship -> shipped emit notify; }
    state shipped { on deliver -> delivered emit notify; }
    terminal state delivered;
    terminal state cancelled;
}
FSM
}

setup() {
    local name=$1 root=$2
    local dir="$work/$name"
    mkdir -p "$dir/machine/src" "$dir/dynamic/src"
    cat >"$dir/machine/Cargo.toml" <<TOML
[package]
name = "machine-user"
version = "0.0.0"
edition = "2021"
[dependencies]
fsm-runtime = { path = "$root/fsm-runtime" }
[profile.dev]
debug = "line-tables-only"
TOML
    machine_fsm packing >"$dir/machine/machine.fsm"
    cat >"$dir/machine/src/lib.rs" <<'RS'
fsm_runtime::fsm!(file = "machine.fsm");

pub struct Cart(Vec<u32>);

impl order::Context for Cart {
    fn not_empty(&self) -> bool {
        !self.0.is_empty()
    }
    fn put(&mut self, item: &u32) {
        self.0.push(*item);
    }
}

pub fn drive(events: Vec<order::Event>) -> usize {
    let mut order = order::Order::new(Cart(Vec::new()));
    events.into_iter().filter(|e| order.fire(e.clone()).is_ok()).count()
}
RS
    if [[ -f "$root/fsm-dynamic/Cargo.toml" ]]; then
        dep="fsm-dynamic = { path = \"$root/fsm-dynamic\" }"
        use="pub use fsm_dynamic::Engine;"
    else
        dep="fsm-runtime = { path = \"$root/fsm-runtime\", features = [\"dynamic\"] }"
        use="pub use fsm_runtime::dynamic::Engine;"
    fi
    cat >"$dir/dynamic/Cargo.toml" <<TOML
[package]
name = "dynamic-user"
version = "0.0.0"
edition = "2021"
[dependencies]
$dep
[profile.dev]
debug = "line-tables-only"
TOML
    echo "$use" >"$dir/dynamic/src/lib.rs"
    # Resolve (and fetch) once, untimed, with the same lock for every run.
    (cd "$dir/machine" && cargo generate-lockfile -q)
    (cd "$dir/dynamic" && cargo generate-lockfile -q)
}

seconds() {
    local start end
    start=$(date +%s.%N)
    if ! "$@" >"$work/last-build.log" 2>&1; then
        cat "$work/last-build.log" >&2
        return 1
    fi
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

median() {
    sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'
}

names=()
i=0
for root in "$@"; do
    name="checkout$i"
    names+=("$name")
    setup "$name" "$(cd "$root" && pwd)"
    echo "$name: $root ($(git -C "$root" rev-parse --short HEAD))"
    i=$((i + 1))
done

for ((run = 1; run <= runs; run++)); do
    for name in "${names[@]}"; do
        dir="$work/$name"
        rm -rf "$dir/machine/target" "$dir/dynamic/target"
        seconds cargo build --offline --manifest-path "$dir/machine/Cargo.toml" >>"$dir/machine-cold"
        target=$([[ $((run % 2)) == 1 ]] && echo shipped || echo packing)
        machine_fsm "$target" >"$dir/machine/machine.fsm"
        seconds cargo build --offline --manifest-path "$dir/machine/Cargo.toml" >>"$dir/machine-incremental"
        seconds cargo build --offline --manifest-path "$dir/dynamic/Cargo.toml" >>"$dir/dynamic-cold"
    done
done

printf '| checkout | machine, cold | machine, incremental | dynamic engine, cold |\n|---|---:|---:|---:|\n'
for name in "${names[@]}"; do
    dir="$work/$name"
    printf '| %s | %.1f s | %.2f s | %.1f s |\n' "$name" \
        "$(median <"$dir/machine-cold")" "$(median <"$dir/machine-incremental")" "$(median <"$dir/dynamic-cold")"
done
