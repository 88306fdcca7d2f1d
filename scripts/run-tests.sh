#!/usr/bin/env bash
# Runs the whole test suite in five phases (docs/decisions.md D6):
#   1. everything CPU-bound or in virtual time, in parallel;
#   2. real-time media suites (paced RTP, ICE, DTLS over real UDP sockets), alone, so a busy
#      CPU does not starve their 20 ms pacing; then (2b) the aiortc interop on its own;
#   3. transport suites over real sockets (in-test peers: TCP, TLS, WebSocket, UDP);
#   4. real-peer suites (Kamailio, sipp), which start their peers on 127.0.0.1 themselves; then
#      (4b) the two longest of them, the live push-wake scenarios and the gateway kill rounds,
#      under their own time limit (together they take over half of phase 4's time on a busy CPU);
#   5. the fuzz smoke: every libFuzzer target of astra-fuzz for a few seconds from its seeds
#      (scripts/fuzz.sh --smoke, docs/fuzzing.md), so a target that no longer builds or crashes
#      at once fails the run;
# and between 1 and 2 (1b) the client examples: Examples/ built and judged through
# `astra-pushsim check --client-cmd` (scripts/check-examples.sh), and (1c) the install test:
# `make install PREFIX=$(mktemp -d)` of the debug build, each tool's --version, the man page,
# bash completion, `make uninstall` (scripts/check-install.sh, ~20 s), and (1d) the API docs:
# `docc convert` of every library product, failing on a broken symbol link (scripts/docs.sh).
# Phases 1-4 are `swift test` runs; the script fails if any phase fails. Last, the whole output
# (every phase tees into .build/test-output.log) is checked for secrets: the test passwords and
# tokens, and keys, ICE passwords, digest responses in clear (scripts/check-test-secrets.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
# The independent WebRTC peer (aiortc) for MediaTests.DTLSInterop, when make deps installed it.
source scripts/interop/venv.sh
if astra_interop_ready; then
    export ASTRA_AIORTC_PYTHON="$ASTRA_INTEROP_VENV/bin/python"
else
    echo "== run-tests: no aiortc venv at $ASTRA_INTEROP_VENV (scripts/install-interop.sh): interop tests skip" >&2
fi
realtime='MediaTests\.(MediaSession|ICESession|DTLSSession)|CallSessionTests\.CallLoopback'
# The aiortc interop runs Python media peers: after the other real-time suites, on its own, so
# it never starves their pacing (docs/decisions.md D15).
interop='MediaTests\.DTLSInterop'
sockets='SIPTransportTests\.|PushKitLiveTests\.|WakeGatewayTests\.|HTTPLiteTests\.|HTTP2Tests\.'
peers='KamailioTests\.'
longPeers='KamailioTests\..*(PushWakeLiveTests|WakeGatewayKillTests)'
status=0
# The phases and steps that failed, named again at the very end: CI shows the tail of a run, and a
# failure in phase 1 is thousands of lines above it.
failed=()
# Every phase's output goes to the terminal and to one log, which the last step checks for
# secrets (scripts/check-test-secrets.sh: test passwords, tokens, keys in clear).
log=.build/test-output.log
mkdir -p .build
: >"$log"
# Each phase has a time limit, so a hung test fails the run with its phase named instead of
# holding CI until its own cut-off (docs/decisions.md D29). The test process runs in its own
# session so that the limit kills the test binary too, not only `swift test`.
phase_timeout="${ASTRA_PHASE_TIMEOUT:-900}"
phase() {
    local name="$1"
    echo "== run-tests: phase $name/5: $2" | tee -a "$log" >&2
    shift 2
    setsid timeout --kill-after=15 "$phase_timeout" swift test "$@" > >(tee -a "$log") 2>&1 &
    local pid=$!
    wait "$pid"
    local rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "== run-tests: phase $name did not finish within ${phase_timeout} s (a hung test); killed" | tee -a "$log" >&2
        pkill -KILL -s "$pid" 2>/dev/null
    fi
    # A test that leaves a peer running (a gateway, a Kamailio) is named here and the leftovers
    # are killed, so they neither hold ports nor load the CPU for the phases after it. Only the
    # program and its first argument are named (a later argument could be a test password).
    local left
    left=$(pgrep -s "$pid" | paste -sd, -)
    if [ -n "$left" ]; then
        echo "== run-tests: phase $name left processes behind, killed: $(ps -o args= -p "$left" | awk '{ print $1, $2 }' | sort | uniq -c | paste -sd';' -)" | tee -a "$log" >&2
        pkill -KILL -s "$pid" 2>/dev/null
    fi
    [ "$rc" -eq 0 ] || { status=1; failed+=("phase $name (swift test exit $rc)"); }
}
phase 1 "unit and virtual-time tests" --skip "$realtime" --skip "$interop" --skip "$sockets" --skip "$peers"
echo "== run-tests: phase 1b/5: client examples through astra-pushsim check --client-cmd" | tee -a "$log" >&2
scripts/check-examples.sh 2>&1 | tee -a "$log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || { status=1; failed+=("phase 1b (client examples)"); }
echo "== run-tests: phase 1c/5: make install PREFIX=\$(mktemp -d), then --version, man, completion, uninstall" | tee -a "$log" >&2
scripts/check-install.sh 2>&1 | tee -a "$log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || { status=1; failed+=("phase 1c (install)"); }
echo "== run-tests: phase 1d/5: API documentation (scripts/docs.sh: docc, warnings are errors)" | tee -a "$log" >&2
scripts/docs.sh 2>&1 | tee -a "$log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || { status=1; failed+=("phase 1d (API docs)"); }
phase 2 "real-time media over real sockets" --filter "$realtime"
phase 2b "WebRTC interop with aiortc (independent peer)" --filter "$interop"
phase 3 "transport over real sockets" --filter "$sockets"
phase 4 "real peers (Kamailio)" --filter "$peers" --skip "$longPeers"
phase 4b "live push wake and gateway kill rounds (Kamailio)" --filter "$longPeers"
echo "== run-tests: phase 5/5: fuzz smoke (every astra-fuzz target, ${FUZZ_SMOKE_SECONDS:-10} s each)" | tee -a "$log" >&2
scripts/fuzz.sh --smoke 2>&1 | tee -a "$log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || { status=1; failed+=("phase 5 (fuzz smoke)"); }
wait  # the phases' tee processes have written the whole log
echo "== run-tests: last step: no secret in the test output ($log)" >&2
scripts/check-test-secrets.sh "$log" || { status=1; failed+=("secret scan"); }
if [ "$status" -ne 0 ]; then
    echo "== run-tests: FAILED: ${#failed[@]} step(s)" >&2
    for f in "${failed[@]}"; do echo "==   $f" >&2; done
    # The failing tests themselves, by name (Swift Testing's ✘ lines and XCTest's "failed"),
    # at most 40 of them, so the end of the run says what to look at.
    grep -aE '^✘ (Test|Suite) .* failed|^Test Case .* failed|did not finish within|left processes behind' "$log" \
        | sed -E 's/^/==   /' | sort -u | head -40 >&2
else
    echo "== run-tests: all phases passed" >&2
fi
exit $status
