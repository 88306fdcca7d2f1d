#!/usr/bin/env bash
# Runs the whole test suite in three phases (docs/decisions.md D6):
#   1. everything that is CPU-bound or in virtual time, in parallel;
#   2. real-time media suites (paced RTP over real UDP sockets), alone, so a busy CPU does not
#      starve their 20 ms pacing;
#   3. real-peer suites (Kamailio, sipp), which start their peers on 127.0.0.1 themselves.
# Each phase is a `swift test` run; the script fails if any phase fails.
set -uo pipefail
cd "$(dirname "$0")/.."
realtime='MediaTests\.(MediaSession|ICESession|DTLSSession|DTLSInterop)'
peers='KamailioTests\.'
status=0
echo "== run-tests: phase 1/3: unit and virtual-time tests" >&2
swift test --skip "$realtime" --skip "$peers" || status=1
echo "== run-tests: phase 2/3: real-time media over real sockets" >&2
swift test --filter "$realtime" || status=1
echo "== run-tests: phase 3/3: real peers (Kamailio)" >&2
swift test --filter "$peers" || status=1
exit $status
