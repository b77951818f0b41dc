#!/usr/bin/env bash
# Builds the `#![no_std]` check crates as static libraries (a build that links
# `std` anywhere fails: see Cargo.toml), links each into a C program and runs it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
target=${CARGO_TARGET_DIR:-target}
for crate in core alloc; do
    # One crate per build: built together, their features would unify, and
    # the `core` check would get `alloc` from its sibling.
    cargo build --locked --release -p "no-std-$crate"
    lib="$target/release/libno_std_${crate}.a"
    # `--gc-sections`: the precompiled `core` names an unwinding personality that
    # nothing calls with `panic = "abort"`.
    cc -o "$target/check-$crate" main.c "$lib" -Wl,--gc-sections
    printf '%s: ' "$crate"
    "$target/check-$crate"
done
