#!/usr/bin/env bash
# Instructions per message of each bench-sip corpus pass (libre, lazy, typed), counted by
# valgrind (cachegrind `I refs`): a figure the machine's load does not move (decisions D43).
# Builds bench-sip the way `make bench` does (release, static Swift runtime), then for each pass
# runs `--pass P --rounds N` and `--pass P --rounds 0` (loading and preparing the corpus only)
# and prints one JSON object: (I refs of N rounds - I refs of 0 rounds) / (N * messages).
# Usage: scripts/bench-sip-instructions.sh [ROUNDS] (default 50). Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
rounds=${1:-50}
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
    echo "bench-sip-instructions: ROUNDS must be a positive integer, not '$rounds'" >&2
    exit 2
fi
if ! command -v valgrind >/dev/null; then
    echo "bench-sip-instructions: valgrind not found (apt-get install valgrind)" >&2
    exit 2
fi
# shellcheck disable=SC2207
flags=(-c release --static-swift-stdlib $(scripts/release-flags.sh))
swift build "${flags[@]}" --product bench-sip >&2
bin="$(swift build "${flags[@]}" --show-bin-path)/bench-sip"
refs() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$bin" --pass "$1" --rounds "$2" 2>&1 \
        | awk '/I[ ]+refs:/ { gsub(",", "", $NF); print $NF }'
}
fields=()
for pass in libre lazy typed; do
    messages=$("$bin" --pass "$pass" --rounds 0 | sed -n 's/.*"messages":\([0-9]*\).*/\1/p')
    full=$(refs "$pass" "$rounds")
    base=$(refs "$pass" 0)
    fields+=("\"${pass}_instructions_per_message\":$(((full - base) / (rounds * messages)))")
done
echo "{\"benchmark\":\"bench-sip-instructions\",\"rounds\":$rounds,\"messages\":$messages,$(IFS=,; echo "${fields[*]}")}"
