#!/usr/bin/env bash
# Runs every benchmark executable (Benchmarks/bench-*/, release build) and prints one JSON
# object per benchmark on stdout (JSON Lines). Diagnostics go to stderr.
# Benchmarks that need real peers (Kamailio, sipp) start them themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --show-bin-path)
status=0
for dir in Benchmarks/bench-*/; do
    name=$(basename "$dir")
    swift build -c release --product "$name" >&2
    # bench-call drives the release astra-call (and Kamailio) as processes.
    if [[ $name == bench-call ]]; then swift build -c release --product astra-call >&2; fi
    echo "bench: running $name" >&2
    if ! "$bin/$name"; then
        echo "bench: $name failed" >&2
        status=1
    fi
done
exit "$status"
