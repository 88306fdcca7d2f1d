#!/usr/bin/env bash
# Counts heap allocations per parse+serialize in bench-sip (release) with an LD_PRELOAD malloc
# counter; prints one JSON object. Shows that allocations do not grow with the header count.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
swift build -c release --product bench-sip >&2
mkdir -p .build-fuzz
clang -O2 -shared -fPIC scripts/malloc-count.c -o .build-fuzz/libmalloc-count.so
LD_PRELOAD="$PWD/.build-fuzz/libmalloc-count.so" "$(swift build -c release --show-bin-path)/bench-sip" --allocations
