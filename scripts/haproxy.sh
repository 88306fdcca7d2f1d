#!/usr/bin/env bash
# Starts/stops the AstraSIP test HAProxy: TLS termination in front of Kamailio's WebSocket
# listener on 127.0.0.1 (docs/kamailio.md "TLS in front of Kamailio"). Phones connect with WSS
# to the front port; HAProxy ends TLS and passes the bytes (the WebSocket upgrade included) to
# Kamailio's plain WS listener, so Kamailio's TCP workers never run OpenSSL for them.
#
#   scripts/haproxy.sh start|stop|status|env
#
#   start   write haproxy.cfg and the certificate bundle into the run dir, start HAProxy in the
#           foreground under setsid, wait until the front port accepts; exit 0 when ready
#   stop    SIGUSR1 (HAProxy's soft stop), then SIGKILL the process group after 2 s
#   status  exit 0 when running
#   env     print the effective settings (KEY=VALUE)
#
# Environment (defaults in brackets):
#   HAPROXY_FRONT_PORT  [8089] WSS port phones connect to (127.0.0.1)
#   HAPROXY_BACKEND     [127.0.0.1:18089] Kamailio's plain WS listener (IP:PORT)
#   HAPROXY_CERT        server certificate (PEM), required
#   HAPROXY_KEY         its private key (PEM), required
#   HAPROXY_MAXCONN     [20000] connections at most (each is two descriptors in HAProxy)
#   HAPROXY_THREADS     [number of CPUs] worker threads (TLS handshakes spread over them)
#   HAPROXY_RUN_DIR     [${TMPDIR:-/tmp}/astra-haproxy-$HAPROXY_FRONT_PORT] cfg, bundle, pid, log
#   HAPROXY_BIN         [haproxy]
#   HAPROXY_OWNER_PID   when set, HAProxy is killed (and its run dir removed) once that process
#                       is gone: tests pass their own pid so a crash leaves nothing behind
set -euo pipefail
front_port=${HAPROXY_FRONT_PORT:-8089}
backend=${HAPROXY_BACKEND:-127.0.0.1:18089}
maxconn=${HAPROXY_MAXCONN:-20000}
threads=${HAPROXY_THREADS:-$(nproc)}
run_dir=${HAPROXY_RUN_DIR:-${TMPDIR:-/tmp}/astra-haproxy-$front_port}
haproxy_bin=${HAPROXY_BIN:-haproxy}
pid_file="$run_dir/haproxy.pid"
log_file="$run_dir/haproxy.log"
cfg_file="$run_dir/haproxy.cfg"

log() { echo "haproxy.sh: $*" >&2; }
source "$(cd "$(dirname "$0")" && pwd)/daemon.sh"

check_settings() {
    if [[ ! "$front_port" =~ ^[1-9][0-9]{0,4}$ ]] || ((front_port > 65535)); then
        log "HAPROXY_FRONT_PORT must be a port number, got '$front_port'"; exit 64
    fi
    if [[ ! "$backend" =~ ^[0-9.]+:[1-9][0-9]{0,4}$ ]]; then
        log "HAPROXY_BACKEND must be IPv4:PORT, got '$backend'"; exit 64
    fi
    for value in "$maxconn" "$threads"; do
        if [[ ! "$value" =~ ^[1-9][0-9]{0,5}$ ]]; then
            log "HAPROXY_MAXCONN and HAPROXY_THREADS must be positive integers"; exit 64
        fi
    done
    if [[ -z "${HAPROXY_CERT:-}" || -z "${HAPROXY_KEY:-}" || ! -r "${HAPROXY_CERT:-}" || ! -r "${HAPROXY_KEY:-}" ]]; then
        log "HAPROXY_CERT and HAPROXY_KEY must name readable PEM files"; exit 64
    fi
}

pgid() { daemon_pid "$pid_file"; }

# HAProxy reads the certificate and its key from one file; it holds a private key, so 0600.
write_config() {
    (umask 077; cat "$HAPROXY_CERT" "$HAPROXY_KEY" > "$run_dir/bundle.pem")
    # mode tcp: HAProxy does not parse HTTP, so the RFC 6455 upgrade and every WebSocket frame
    # pass untouched and Kamailio answers the handshake itself. Timeouts: a phone's flow idles
    # between keep-alives (RFC 5626: every 30-120 s), so client and server timeouts are an hour,
    # like Kamailio's tcp_connection_lifetime.
    cat > "$cfg_file" <<CFG
global
    maxconn $maxconn
    nbthread $threads
    ssl-default-bind-options ssl-min-ver TLSv1.2
    tune.ssl.default-dh-param 2048

defaults
    mode tcp
    timeout connect 5s
    timeout client 1h
    timeout server 1h
    timeout client-fin 5s
    timeout server-fin 5s

frontend wss
    bind 127.0.0.1:$front_port ssl crt $run_dir/bundle.pem alpn http/1.1
    maxconn $maxconn
    default_backend kamailio_ws

backend kamailio_ws
    server kamailio $backend maxconn $maxconn
CFG
}

tcp_up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
    check_settings
    if pgid >/dev/null; then
        log "already running (pid $(cat "$pid_file"))"
        return 0
    fi
    mkdir -p "$run_dir"
    if tcp_up "$front_port"; then
        log "port $front_port on 127.0.0.1 is already in use"
        return 2
    fi
    write_config
    if ! "$haproxy_bin" -c -q -f "$cfg_file" >"$run_dir/check.log" 2>&1; then
        log "haproxy rejected its configuration:"; cat "$run_dir/check.log" >&2
        return 1
    fi
    : > "$log_file"
    # -db: stay in the foreground (spawn_daemon gives it its own session and process group).
    spawn_daemon "$log_file" "$pid_file" "${HAPROXY_OWNER_PID:-}" "$run_dir" -- \
        "$haproxy_bin" -db -f "$cfg_file"
    local deadline=$((SECONDS + 30))
    while ((SECONDS < deadline)); do
        if ! pgid >/dev/null; then
            log "haproxy exited during start; last log lines:"
            tail -n 20 "$log_file" >&2
            return 1
        fi
        if tcp_up "$front_port"; then
            log "ready: wss 127.0.0.1:$front_port → ws $backend ($threads threads, run dir $run_dir)"
            return 0
        fi
        sleep 0.1
    done
    log "haproxy did not come up within 30 s"
    stop
    return 1
}

stop() {
    # SIGUSR1: HAProxy's soft stop (finishes its sessions), 2 s, then the group is killed.
    stop_daemon "$pid_file" USR1 40
    log "stopped"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status)
        if pid=$(pgid); then echo "running pid $pid run dir $run_dir"; else echo "stopped"; exit 3; fi ;;
    env)
        echo "HAPROXY_FRONT_PORT=$front_port"; echo "HAPROXY_BACKEND=$backend"
        echo "HAPROXY_MAXCONN=$maxconn"; echo "HAPROXY_THREADS=$threads"; echo "HAPROXY_RUN_DIR=$run_dir" ;;
    *) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64 ;;
esac
