#!/usr/bin/env bash
# Runs the whole test suite in four phases (docs/decisions.md D6):
#   1. everything CPU-bound or in virtual time, in parallel;
#   2. real-time media suites (paced RTP, ICE, DTLS over real UDP sockets), alone, so a busy
#      CPU does not starve their 20 ms pacing;
#   3. transport suites over real sockets (in-test peers: TCP, TLS, WebSocket, UDP);
#   4. real-peer suites (Kamailio, sipp), which start their peers on 127.0.0.1 themselves.
# Each phase is a `swift test` run; the script fails if any phase fails.
set -uo pipefail
cd "$(dirname "$0")/.."
realtime='MediaTests\.(MediaSession|ICESession|DTLSSession|DTLSInterop)|CallSessionTests\.CallLoopback'
sockets='SIPTransportTests\.|PushKitLiveTests\.'
peers='KamailioTests\.'
status=0
phase() {
    echo "== run-tests: phase $1/4: $2" >&2
    shift 2
    swift test "$@" || status=1
}
phase 1 "unit and virtual-time tests" --skip "$realtime" --skip "$sockets" --skip "$peers"
phase 2 "real-time media over real sockets" --filter "$realtime"
phase 3 "transport over real sockets" --filter "$sockets"
phase 4 "real peers (Kamailio)" --filter "$peers"
exit $status
