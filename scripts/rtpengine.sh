#!/usr/bin/env bash
# Starts/stops the AstraSIP test rtpengine (media relay, WebRTC <-> plain RTP) on 127.0.0.1
# (see docs/kamailio.md "Media through rtpengine").
#
#   scripts/rtpengine.sh start|stop|status|env
#
#   start   start rtpengine in the foreground under setsid (userspace forwarding, no kernel
#           module, no config file), wait until its NG control port answers a ping; exit 0 when
#           ready
#   stop    SIGTERM, then SIGKILL the process group after 0.5 s (rtpengine has nothing to save
#           and its threads notice SIGTERM only once a second)
#   status  exit 0 when running
#   env     print the effective settings (KEY=VALUE)
#
# Environment (defaults in brackets):
#   RTPENGINE_NG_PORT   [2223] UDP control port (NG protocol) on 127.0.0.1; Kamailio is pointed
#                       at it with KAMAILIO_RTPENGINE=127.0.0.1:<port>
#   RTPENGINE_PORT_MIN  [30000] RTPENGINE_PORT_MAX [RTPENGINE_PORT_MIN + 99] media ports
#   RTPENGINE_RUN_DIR   [${TMPDIR:-/tmp}/astra-rtpengine-$RTPENGINE_NG_PORT] pid, rtpengine.log
#   RTPENGINE_LOG_LEVEL [6] syslog level (7 = debug: every ICE check and DTLS step)
#   RTPENGINE_DTLS_PASSIVE  when 1, --dtls-passive: rtpengine prefers the DTLS server role
#                       (answers a=setup:passive, offers passive)
#   RTPENGINE_BIN       [rtpengine]
#   RTPENGINE_OWNER_PID when set, rtpengine is killed (and its run dir removed) once that
#                       process is gone: tests pass their own pid so a crash leaves nothing
set -euo pipefail
ng_port=${RTPENGINE_NG_PORT:-2223}
port_min=${RTPENGINE_PORT_MIN:-30000}
port_max=${RTPENGINE_PORT_MAX:-$((port_min + 99))}
run_dir=${RTPENGINE_RUN_DIR:-${TMPDIR:-/tmp}/astra-rtpengine-$ng_port}
log_level=${RTPENGINE_LOG_LEVEL:-6}
rtpengine_bin=${RTPENGINE_BIN:-rtpengine}
extra_args=()
[[ "${RTPENGINE_DTLS_PASSIVE:-}" == 1 ]] && extra_args+=(--dtls-passive)
pid_file="$run_dir/rtpengine.pid"
log_file="$run_dir/rtpengine.log"

log() { echo "rtpengine.sh: $*" >&2; }
source "$(cd "$(dirname "$0")" && pwd)/daemon.sh"

pgid() { daemon_pid "$pid_file"; }

# NG protocol ping (bencoded): d7:command4:pinge -> d6:result4:ponge. Bash has no UDP
# request/response, so python3 (in the Debian list) asks.
ng_ping() {
    python3 - "$ng_port" <<'PY' 2>/dev/null
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.2)
s.sendto(b"astra d7:command4:pinge", ("127.0.0.1", int(sys.argv[1])))
data = s.recv(1024)
sys.exit(0 if b"pong" in data else 1)
PY
}

start() {
    if ! command -v "$rtpengine_bin" >/dev/null; then
        log "$rtpengine_bin is not installed (Debian package rtpengine-daemon; make deps)"
        return 127
    fi
    if pgid >/dev/null; then
        log "already running (pid $(cat "$pid_file"))"
        return 0
    fi
    mkdir -p "$run_dir"
    : > "$log_file"
    # Signal mask cleared, own process group, owner watchdog: scripts/daemon.sh.
    # --config-file=none: never read /etc/rtpengine/rtpengine.conf. --table=-1: userspace
    # forwarding only (no kernel module, no iptables).
    spawn_daemon "$log_file" "$pid_file" "${RTPENGINE_OWNER_PID:-}" "$run_dir" -- \
        "$rtpengine_bin" --config-file=none --table=-1 --foreground --log-stderr \
        --log-level="$log_level" --interface=127.0.0.1 --listen-ng="127.0.0.1:$ng_port" \
        --port-min="$port_min" --port-max="$port_max" --timeout=60 --delete-delay=0 ${extra_args[@]+"${extra_args[@]}"}
    local deadline=$((SECONDS + 15))
    while ((SECONDS < deadline)); do
        if ! pgid >/dev/null; then
            log "rtpengine exited during start; last log lines:"
            tail -n 20 "$log_file" >&2
            rm -f "$pid_file"
            return 1
        fi
        if ng_ping; then
            log "ready: ng 127.0.0.1:$ng_port, media $port_min-$port_max (run dir $run_dir)"
            return 0
        fi
        sleep 0.1
    done
    log "rtpengine did not answer a ping within 15 s"
    stop
    return 1
}

stop() {
    stop_daemon "$pid_file" TERM 10
    log "stopped"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status)
        if pid=$(pgid); then echo "running pid $pid run dir $run_dir"; else echo "stopped"; exit 3; fi ;;
    env)
        echo "RTPENGINE_NG_PORT=$ng_port"; echo "RTPENGINE_PORT_MIN=$port_min"
        echo "RTPENGINE_PORT_MAX=$port_max"; echo "RTPENGINE_RUN_DIR=$run_dir"
        echo "KAMAILIO_RTPENGINE=127.0.0.1:$ng_port" ;;
    *) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64 ;;
esac
