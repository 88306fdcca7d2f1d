#!/usr/bin/env bash
# Runs every benchmark (release build, static Swift runtime like the shipped tools) and prints
# one JSON object per benchmark on stdout (JSON Lines). Diagnostics go to stderr.
# Benchmarks/bench-X/main.swift is an executable target; Benchmarks/bench-X/run.py drives the
# release tools against real peers (Kamailio, sipp) that it starts itself.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC2207
flags=(-c release --static-swift-stdlib $(scripts/release-flags.sh))
bin=$(swift build "${flags[@]}" --show-bin-path)
swift build "${flags[@]}" >&2
status=0
for dir in Benchmarks/bench-*/; do
    name=$(basename "$dir")
    echo "bench: running $name" >&2
    if [[ -x "$dir/run.py" ]]; then
        "$dir/run.py" "$bin" || { echo "bench: $name failed" >&2; status=1; }
    else
        "$bin/$name" || { echo "bench: $name failed" >&2; status=1; }
    fi
done
exit "$status"
