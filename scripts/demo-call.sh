#!/usr/bin/env bash
# The call part of `make demo` (issue 8): given a running Kamailio (scripts/kamailio.sh start;
# ports from `scripts/kamailio.sh env`), line 1002 registers over UDP and waits; line 1001
# registers over WSS and calls it; a 440 Hz tone goes one way and 1000 Hz the other; each side
# checks the tone it heard (astra-call --expect-tone, Goertzel) and the WAV recordings are kept;
# the caller hangs up after 3 s. One line per step; exit 0 when every step passed.
# Usage: scripts/demo-call.sh [BIN_DIR]   (default: astra-call on PATH, else the release, else the debug build)
set -uo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/kamailio.sh env)"
if [[ -n ${1:-} ]]; then
    call=$1/astra-call
elif command -v astra-call >/dev/null; then
    call=$(command -v astra-call)  # scripts/demo.sh puts the release build on PATH
else
    call=.build/release/astra-call
    [[ -x $call ]] || call=.build/debug/astra-call
fi
[[ -x $call ]] || { echo "demo-call: $call is missing: build first (swift build -c release)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/astra-demo-call.XXXXXX")
callee_pid=
cleanup() { [[ -n $callee_pid ]] && kill "$callee_pid" 2>/dev/null; }
trap cleanup EXIT
step=0
say() { step=$((step + 1)); printf 'demo-call: [%d/6] %s\n' "$step" "$*"; }
fail() { printf 'demo-call: FAILED: %s (outputs in %s)\n' "$*" "$work" >&2; exit 1; }
field() { sed -n "s/.*\"$1\":\\(\"[^\"]*\"\\|[^,}]*\\).*/\\1/p" | tr -d '"' | head -1; }

"$call" answer --password astra1002 --server "127.0.0.1:$KAMAILIO_SIP_PORT" --transport udp \
    --tone 1000 --expect-tone 440 --record "$work/callee.wav" --after 0.5 sip:1002@127.0.0.1 \
    >"$work/callee.jsonl" 2>"$work/callee.err" &
callee_pid=$!
for _ in $(seq 100); do grep -q '"event":"waiting"' "$work/callee.jsonl" 2>/dev/null && break; sleep 0.1; done
grep -q '"event":"waiting"' "$work/callee.jsonl" || fail "1002 did not register over UDP: $(cat "$work/callee.err")"
say "1002 registered over UDP (127.0.0.1:$KAMAILIO_SIP_PORT), waiting for a call"

"$call" dial --password astra1001 --server "127.0.0.1:$KAMAILIO_WSS_PORT" --transport wss \
    --ca-file "$KAMAILIO_CA_FILE" --user 1001 --domain 127.0.0.1 --tone 440 --expect-tone 1000 \
    --record "$work/caller.wav" --dtmf 123# --duration 3 sip:1002@127.0.0.1 \
    >"$work/caller.jsonl" 2>"$work/caller.err"
caller_status=$?
wait "$callee_pid"
callee_status=$?
callee_pid=
grep -q '"event":"registered"' "$work/caller.jsonl" || fail "1001 did not register over WSS: $(cat "$work/caller.err")"
say "1001 registered over WSS (wss://127.0.0.1:$KAMAILIO_WSS_PORT/ws) and called sip:1002@127.0.0.1"
answered=$(grep '"event":"answered"' "$work/caller.jsonl") || fail "the call was not answered: $(cat "$work/caller.err")"
say "answered: codec $(field codec <<<"$answered"), set-up $(grep '"event":"ended"' "$work/caller.jsonl" | field setup_ms) ms"
caller_tone=$(grep '"event":"tone_check"' "$work/caller.jsonl")
callee_tone=$(grep '"event":"tone_check"' "$work/callee.jsonl")
[[ $(field ok <<<"$caller_tone") == true ]] || fail "1001 did not hear 1000 Hz: $caller_tone"
[[ $(field ok <<<"$callee_tone") == true ]] || fail "1002 did not hear 440 Hz: $callee_tone"
say "two-way audio: 1001 heard 1000 Hz for $(field tone_s <<<"$caller_tone") s, 1002 heard 440 Hz for $(field tone_s <<<"$callee_tone") s (recordings: $work/caller.wav, $work/callee.wav)"
digits=$(grep '"event":"dtmf"' "$work/callee.jsonl" | sed -n 's/.*"digit":"\([^"]*\)".*/\1/p' | tr -d '\n')
[[ $digits == "123#" ]] || fail "DTMF at 1002: '$digits' (expected 123#)"
say "DTMF 123# (RFC 4733) detected at 1002"
caller_end=$(grep '"event":"ended"' "$work/caller.jsonl" | field reason)
callee_end=$(grep '"event":"ended"' "$work/callee.jsonl" | field reason)
[[ $caller_status == 0 && $callee_status == 0 && $caller_end == local_hangup && $callee_end == remote_hangup ]] ||
    fail "hang-up: caller $caller_end (exit $caller_status), callee $callee_end (exit $callee_status)"
say "clean hang-up: 1001 sent BYE, both exited 0, MOS $(grep '"event":"ended"' "$work/caller.jsonl" | field mos) / $(grep '"event":"ended"' "$work/callee.jsonl" | field mos)"
