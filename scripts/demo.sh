#!/usr/bin/env bash
# make demo: the main job end to end on a local Kamailio (started here, stopped at the end).
#   1. the SIP parser and digest on real messages: a REGISTER over UDP with --sip-trace
#      (the 401 challenge is parsed, answered with digest; credentials are redacted)
#   2. verify a line over WSS and over UDP (astra-register)
#   3. a line through a sealed QR code and back: astra-qr encode | astra-qr decode | astra-register
#   4. the iOS wake rules: astra-pushsim check (correct policy passes, naive policy is caught)
#   5. a call between a WSS line and a UDP line, when scripts/demo-call.sh exists
#   6. push wake end to end: astra-pushsim live killed (its own Kamailio with the wake gateway,
#      astra-wakegw, a real caller and the live phone): the correct policy must pass
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
export PATH="$bin:$PATH"
work=$(mktemp -d)
base=${DEMO_PORT_BASE:-15060}
export KAMAILIO_SIP_PORT=$base KAMAILIO_TLS_PORT=$((base + 1)) KAMAILIO_WS_PORT=$((base + 2))
export KAMAILIO_WSS_PORT=$((base + 3)) KAMAILIO_RUN_DIR="$work/kamailio"
ca="$KAMAILIO_RUN_DIR/ca.crt"
cleanup() { scripts/kamailio.sh stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "Start Kamailio on 127.0.0.1 (UDP/TCP $base, TLS $((base + 1)), WS $((base + 2)), WSS $((base + 3)))"
scripts/kamailio.sh start

step "1. Parser + digest on real messages: REGISTER 1001 over UDP, SIP trace on stderr"
astra-register --sip-trace --password astra1001 --server "127.0.0.1:$base" sip:1001@127.0.0.1 \
    2> >(grep -v '^[[:space:]]*$' | sed 's/^/   trace| /' >&2) | tail -1
sleep 0.2

step "2. Verify a line over WSS (wss://127.0.0.1:$((base + 3))/ws) and over UDP"
astra-register --password astra1002 --server "127.0.0.1:$((base + 3))" --transport wss --ca-file "$ca" \
    sip:1002@127.0.0.1 | tail -1
astra-register --password astra1003 --server "127.0.0.1:$base" --transport udp sip:1003@127.0.0.1 | tail -1

step "3. Line → sealed QR code → decode → astra-register"
printf 'demo passphrase\n' > "$work/passphrase"
# The code names the line; the CA that verifies the server is the consumer's own (--ca-file):
# astra-qr decode refuses a code that names a local CA file.
printf '{"v":1,"user":"1004","password":"astra1004","domain":"127.0.0.1","server":"127.0.0.1:%s","transport":"wss"}\n' \
    "$((base + 3))" > "$work/line.json"
astra-qr encode --passphrase-file "$work/passphrase" -o "$work/line.png" < "$work/line.json"
echo "   wrote $work/line.png; zbarimg reads: $(zbarimg --quiet --raw "$work/line.png" 2>/dev/null | cut -c1-60)…"
astra-qr decode --passphrase-file "$work/passphrase" "$work/line.png" | astra-register --ca-file "$ca" | tail -1

step "4. iOS PushKit/CallKit wake rules (astra-pushsim)"
astra-pushsim run dead-phone | tail -2
astra-pushsim check | tail -1 && echo "   correct policy: every built-in scenario passes"
if astra-pushsim check --policy naive >/dev/null 2>"$work/naive.err"; then
    echo "   naive policy unexpectedly passed" >&2; exit 1
fi
echo "   naive policy caught: $(cat "$work/naive.err" | cut -c1-150)…"

if [[ -x scripts/demo-call.sh ]]; then
    step "5. A call: WSS line ↔ UDP line through Kamailio, a tone each way, recordings checked"
    scripts/demo-call.sh
fi

step "6. Push wake end to end: a call to a killed phone (astra-pushsim live killed --policy correct)"
# astra-pushsim starts its own Kamailio (random ports, KAMAILIO_WAKE_GATEWAY) and astra-wakegw
# beside itself and stops both: the demo's Kamailio above has no wake gateway in its path.
field() { sed -n "s/.*\"$1\":\(\"[^\"]*\"\|\[[^]]*\]\|[^,}]*\).*/\1/p" | head -1; }
wake_status=0
(unset KAMAILIO_SIP_PORT KAMAILIO_TLS_PORT KAMAILIO_WS_PORT KAMAILIO_WSS_PORT KAMAILIO_RUN_DIR
    astra-pushsim live killed --policy correct) >"$work/wake.jsonl" 2>"$work/wake.err" || wake_status=$?
verdict=$(grep '"event":"verdict"' "$work/wake.jsonl" || true)
for event in call_start apns_delivered ack_sent callkit_report phone_registered invite_claimed caller_ringing call_connected; do
    line=$(grep -m1 "\"event\":\"$event\"" "$work/wake.jsonl" || true)
    if [[ -n $line ]]; then echo "   t=$(field t <<<"$line") ms  $event"; fi
done
echo "   verdict: ok $(field ok <<<"$verdict"), outcomes $(field outcomes <<<"$verdict"), push-to-ring $(field push_to_ring_ms <<<"$verdict") ms, two-way audio $(field two_way_audio <<<"$verdict")"
if [[ $wake_status != 0 || $(field ok <<<"$verdict") != true ]]; then
    echo "   push wake FAILED (exit $wake_status): $(tail -3 "$work/wake.err")" >&2
    exit 1
fi

step "Done: every step ran against a local Kamailio"
