#!/usr/bin/env bash
# Starts/stops the AstraSIP test Kamailio on 127.0.0.1 (see docs/kamailio.md).
#
#   scripts/kamailio.sh start|stop|status|restart|kill|freeze|thaw|env
#
#   start   generate (once per run dir) a throw-away CA + server certificate, start Kamailio
#           under setsid, wait until every listener answers; exit 0 when ready
#   stop    SIGTERM the Kamailio process group, wait for it to go
#   kill    SIGKILL the process group (a crash: the kernel closes the sockets)
#   freeze  SIGSTOP the process group (a silent peer: nothing answers, nothing closes)
#   thaw    SIGCONT
#   status  exit 0 when running
#   env     print the effective settings (KEY=VALUE)
#
# Environment (defaults in brackets):
#   KAMAILIO_SIP_PORT [5060] UDP+TCP    KAMAILIO_TLS_PORT [5061]
#   KAMAILIO_WS_PORT  [8080]            KAMAILIO_WSS_PORT [8089]
#   KAMAILIO_NATPING  [30] seconds between OPTIONS pings to registered contacts
#   KAMAILIO_TCP_MAX  [2048] TCP (and TLS) connections at most; open files = this + 2048
#   KAMAILIO_SHM_MB   [256] shared memory: each TLS connection holds ~150 KiB of it (64 MiB ran
#                     out at ~400 WSS connections; then Kamailio 5.6 closes new ones, and OpenSSL 3
#                     under low memory has crashed it)
#   KAMAILIO_TCP_CHILDREN [1] TCP/TLS/WS worker processes: with two, Kamailio 5.6.3 + OpenSSL 3
#                     corrupts its shared memory under TLS load (docs/decisions.md D48)
#   KAMAILIO_CERT_KEY [ecdsa] key type of the throw-away CA and server certificate: ecdsa
#                     (P-256) or rsa (RSA-2048, as many field PBX certificates are); a run dir
#                     whose certificates are of the other type gets new ones
#   KAMAILIO_CERT_DAYS [2] validity of the throw-away CA and server certificate in days (a
#                     monitor test checks the expiry it reports against the certificate's)
#   KAMAILIO_RUN_DIR  [${TMPDIR:-/tmp}/astra-kamailio-$KAMAILIO_SIP_PORT] certs, pid, log
#   KAMAILIO_BIN      [kamailio]
#   KAMAILIO_WAKE_GATEWAYS  IP:PORT[,IP:PORT...] of the astra-wakegw processes (UDP); when set,
#                       each new INVITE for a local user goes to one live gateway (dispatcher
#                       set 1, hash over the Call-ID, OPTIONS probes), failing over to the next
#                       on no answer or 5xx, REGISTERs are replicated to every live gateway, and
#                       X-Astra-Wake from their addresses is trusted (docs/wake-gateway.md).
#                       Unset: no gateway.
#   KAMAILIO_WAKE_GATEWAY  one IP:PORT: the same as KAMAILIO_WAKE_GATEWAYS with one gateway
#   KAMAILIO_WAKE_FR_MS [1500] how long a gateway may take to answer an INVITE (100 Trying)
#                       before the next one is tried
#   KAMAILIO_WAKE_HOLD_MS [10000] how long a gateway may hold an INVITE (its 100 Trying, no
#                       18x yet) before it is given up and the next gateway is tried: a gateway
#                       that died holding a call says nothing more. Keep it above the gateways'
#                       qualify timeout + ack window + register wait (8.5 s with their defaults)
#   KAMAILIO_WAKE_FR_INV_MS [120000] once the phone rings (an 18x through the gateway), how
#                       long the caller waits for the answer
#   KAMAILIO_WAKE_PING_S [1] seconds between OPTIONS probes of each gateway
#   KAMAILIO_WAKE_PROBE_MS [3000] how long an unanswered probe takes to mark its gateway down
#                       (tm's fr_timer: also every other non-INVITE transaction's, and an
#                       INVITE's wait for its first reply, while gateways are set)
#   KAMAILIO_RTPENGINE  IP:PORT of an rtpengine NG control port (UDP; scripts/rtpengine.sh starts
#                       one); when set, every call's media goes through it and WebRTC offers
#                       and answers are bridged to plain RTP and back (docs/kamailio.md). Unset:
#                       SDP passes untouched.
#   KAMAILIO_RTPENGINE_FLAGS  extra rtpengine flags for every offer/answer with a WebRTC side,
#                       e.g. "ICE-lite=forward" (with KAMAILIO_RTPENGINE only)
#   KAMAILIO_OWNER_PID  when set, Kamailio is killed (and its run dir removed) once that
#                       process is gone: tests pass their own pid so a crash leaves nothing
#   KAMAILIO_TLS_FRONT  [kamailio] who ends TLS on the WSS port: kamailio, or haproxy — then
#                       scripts/haproxy.sh terminates TLS on KAMAILIO_WSS_PORT and passes plain
#                       WS to Kamailio on KAMAILIO_WS_BACKEND_PORT, and Kamailio may run several
#                       TCP workers (KAMAILIO_TCP_CHILDREN defaults to 4 then): its workers
#                       never run OpenSSL for WSS phones (docs/kamailio.md "TLS in front of
#                       Kamailio"). SIP over TLS (KAMAILIO_TLS_PORT) stays Kamailio's.
#   KAMAILIO_WS_BACKEND_PORT [KAMAILIO_WSS_PORT + 10000] Kamailio's WS listener behind HAProxy
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sip_port=${KAMAILIO_SIP_PORT:-5060}
tls_port=${KAMAILIO_TLS_PORT:-5061}
ws_port=${KAMAILIO_WS_PORT:-8080}
wss_port=${KAMAILIO_WSS_PORT:-8089}
natping=${KAMAILIO_NATPING:-30}
tcp_max=${KAMAILIO_TCP_MAX:-2048}
shm_mb=${KAMAILIO_SHM_MB:-256}
tls_front=${KAMAILIO_TLS_FRONT:-kamailio}
if [[ "$tls_front" != kamailio && "$tls_front" != haproxy ]]; then
    echo "kamailio.sh: KAMAILIO_TLS_FRONT must be kamailio or haproxy, got '$tls_front'" >&2
    exit 64
fi
if [[ "$tls_front" == haproxy ]]; then
    tcp_children=${KAMAILIO_TCP_CHILDREN:-4}
else
    tcp_children=${KAMAILIO_TCP_CHILDREN:-1}
fi
ws_backend_port=${KAMAILIO_WS_BACKEND_PORT:-$((wss_port + 10000))}
cert_key=${KAMAILIO_CERT_KEY:-ecdsa}
cert_days=${KAMAILIO_CERT_DAYS:-2}
if [[ ! "$cert_days" =~ ^[1-9][0-9]{0,4}$ ]]; then
    echo "kamailio.sh: KAMAILIO_CERT_DAYS must be a positive number of days, got '$cert_days'" >&2
    exit 64
fi
if [[ "$cert_key" != ecdsa && "$cert_key" != rsa ]]; then
    echo "kamailio.sh: KAMAILIO_CERT_KEY must be ecdsa or rsa, got '$cert_key'" >&2
    exit 64
fi
for value in "$tcp_max" "$shm_mb" "$tcp_children"; do
    if [[ ! "$value" =~ ^[1-9][0-9]{0,5}$ ]]; then
        echo "kamailio.sh: KAMAILIO_TCP_MAX, KAMAILIO_SHM_MB and KAMAILIO_TCP_CHILDREN must be positive integers" >&2
        exit 64
    fi
done
run_dir=${KAMAILIO_RUN_DIR:-${TMPDIR:-/tmp}/astra-kamailio-$sip_port}
kamailio_bin=${KAMAILIO_BIN:-kamailio}
wake_gateway=${KAMAILIO_WAKE_GATEWAYS:-${KAMAILIO_WAKE_GATEWAY:-}}
wake_fr=${KAMAILIO_WAKE_FR_MS:-1500}
wake_hold=${KAMAILIO_WAKE_HOLD_MS:-10000}
wake_fr_inv=${KAMAILIO_WAKE_FR_INV_MS:-120000}
wake_ping=${KAMAILIO_WAKE_PING_S:-1}
wake_probe=${KAMAILIO_WAKE_PROBE_MS:-3000}
wake_args=()
wake_list="$run_dir/wakegw.list"
if [[ -n "$wake_gateway" ]]; then
    if [[ ! "$wake_gateway" =~ ^[0-9.]+:[0-9]+(,[0-9.]+:[0-9]+)*$ ]]; then
        echo "kamailio.sh: KAMAILIO_WAKE_GATEWAYS must be IPv4:PORT[,IPv4:PORT...], got '$wake_gateway'" >&2
        exit 64
    fi
    for value in "$wake_fr" "$wake_hold" "$wake_fr_inv" "$wake_ping" "$wake_probe"; do
        if [[ ! "$value" =~ ^[1-9][0-9]{0,6}$ ]]; then
            echo "kamailio.sh: KAMAILIO_WAKE_FR_MS, KAMAILIO_WAKE_HOLD_MS, KAMAILIO_WAKE_FR_INV_MS, KAMAILIO_WAKE_PING_S and KAMAILIO_WAKE_PROBE_MS must be positive integers" >&2
            exit 64
        fi
    done
    wake_args=(-A WITH_WAKEGW -A "WAKEGW_LIST=\"$wake_list\"" -A "WAKEGW_FR=$wake_fr" -A "WAKEGW_HOLD=$wake_hold"
        -A "WAKEGW_FR_INV=$wake_fr_inv" -A "WAKEGW_PING=$wake_ping" -A "WAKEGW_PROBE_FR=$wake_probe")
fi
rtpengine=${KAMAILIO_RTPENGINE:-}
rtpengine_args=()
if [[ -n "$rtpengine" ]]; then
    if [[ ! "$rtpengine" =~ ^[0-9.]+:[0-9]+$ ]]; then
        echo "kamailio.sh: KAMAILIO_RTPENGINE must be IPv4:PORT, got '$rtpengine'" >&2
        exit 64
    fi
    rtpengine_args=(-A WITH_RTPENGINE -A "RTPENGINE_SOCK=\"udp:$rtpengine\"")
    if [[ -n "${KAMAILIO_RTPENGINE_FLAGS:-}" ]]; then
        if [[ ! "$KAMAILIO_RTPENGINE_FLAGS" =~ ^[A-Za-z0-9=/\ -]+$ ]]; then
            echo "kamailio.sh: KAMAILIO_RTPENGINE_FLAGS has characters other than letters, digits, = / - and spaces" >&2
            exit 64
        fi
        rtpengine_args+=(-A "RTPE_WEBRTC_EXTRA=\"$KAMAILIO_RTPENGINE_FLAGS\"")
    fi
fi
cfg="$here/config/kamailio/kamailio.cfg"
# With HAProxy in front, Kamailio's own listener for WSS phones is plain WS on the backend port.
if [[ "$tls_front" == haproxy ]]; then
    wss_listen="tcp:127.0.0.1:$ws_backend_port"
    wss_own_port=$ws_backend_port
else
    wss_listen="tls:127.0.0.1:$wss_port"
    wss_own_port=$wss_port
fi
pid_file="$run_dir/kamailio.pid"
log_file="$run_dir/kamailio.log"

log() { echo "kamailio.sh: $*" >&2; }
source "$here/scripts/daemon.sh"

pgid() { daemon_pid "$pid_file"; }

# A new private key of the configured type on stdout.
new_key() {
    if [[ "$cert_key" == rsa ]]; then
        openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 2>/dev/null
    else
        openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null
    fi
}

make_certs() {
    if [[ -f "$run_dir/server.crt" && -f "$run_dir/ca.crt" ]] &&
        [[ "$(cat "$run_dir/cert-key" 2>/dev/null || echo ecdsa)" == "$cert_key" ]]; then
        return 0
    fi
    log "generating throw-away CA and server certificate ($cert_key) in $run_dir"
    (
        cd "$run_dir"
        umask 077
        new_key > ca.key
        openssl req -x509 -new -key ca.key -days "$cert_days" -subj "/CN=AstraSIP throw-away test CA" \
            -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
            -out ca.crt 2>/dev/null
        new_key > server.key
        openssl req -new -key server.key -subj "/CN=localhost" -out server.csr 2>/dev/null
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' > server.ext
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days "$cert_days" \
            -extfile server.ext -out server.crt 2>/dev/null
        rm -f server.csr server.ext ca.srl
        chmod 644 ca.crt server.crt
        echo "$cert_key" > cert-key
    )
}

write_tls_cfg() {
    cat > "$run_dir/tls.cfg" <<TLS
[server:default]
method = TLSv1.2+
verify_certificate = no
require_certificate = no
private_key = $run_dir/server.key
certificate = $run_dir/server.crt

[client:default]
method = TLSv1.2+
verify_certificate = no
require_certificate = no
TLS
}

tcp_up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

port_busy() {
    local p
    for p in "$sip_port" "$tls_port" "$ws_port" "$wss_port" "$wss_own_port"; do
        if tcp_up "$p"; then echo "$p"; return 0; fi
    done
    return 1
}

start() {
    if pgid >/dev/null; then
        log "already running (pid $(cat "$pid_file"))"
        return 0
    fi
    mkdir -p "$run_dir"
    if busy=$(port_busy); then
        log "port $busy on 127.0.0.1 is already in use"
        return 2
    fi
    make_certs
    write_tls_cfg
    write_wake_list
    : > "$log_file"
    # Signal mask cleared, own process group, owner watchdog: scripts/daemon.sh.
    spawn_daemon "$log_file" "$pid_file" "${KAMAILIO_OWNER_PID:-}" "$run_dir" -- \
        "$kamailio_bin" -f "$cfg" -DD -E -m "$shm_mb" -M 8 -Y "$run_dir" \
        -A "TCP_MAX_CONNECTIONS=$tcp_max" -A "OPEN_FILES_LIMIT=$((tcp_max + 2048))" \
        -A "TCP_CHILDREN=$tcp_children" \
        -l "udp:127.0.0.1:$sip_port" -l "tcp:127.0.0.1:$sip_port" -l "tls:127.0.0.1:$tls_port" \
        -l "tcp:127.0.0.1:$ws_port" -l "$wss_listen" \
        -A "TLS_CONFIG=\"$run_dir/tls.cfg\"" -A "NATPING_INTERVAL=$natping" ${wake_args[@]+"${wake_args[@]}"} \
        ${rtpengine_args[@]+"${rtpengine_args[@]}"}
    local deadline=$((SECONDS + 30))
    while ((SECONDS < deadline)); do
        if ! pgid >/dev/null; then
            log "kamailio exited during start; last log lines:"
            tail -n 20 "$log_file" >&2
            return 1
        fi
        if tcp_up "$sip_port" && tcp_up "$tls_port" && tcp_up "$ws_port" && tcp_up "$wss_own_port"; then
            if [[ "$tls_front" == haproxy ]] && ! start_front; then
                stop
                return 1
            fi
            log "ready: udp+tcp $sip_port, tls $tls_port, ws $ws_port, wss $wss_port${wake_gateway:+, wake gateways $wake_gateway}${rtpengine:+, rtpengine $rtpengine}$([[ "$tls_front" == haproxy ]] && echo ", TLS for wss by haproxy → ws $ws_backend_port, $tcp_children TCP workers") (run dir $run_dir)"
            return 0
        fi
        sleep 0.1
    done
    log "kamailio did not come up within 30 s"
    stop
    return 1
}

# The dispatcher list: set 1, one gateway per line (setid destination flags priority).
write_wake_list() {
    [[ -n "$wake_gateway" ]] || return 0
    local address
    : > "$wake_list"
    IFS=, read -ra addresses <<< "$wake_gateway"
    for address in "${addresses[@]}"; do echo "1 sip:$address 0 0" >> "$wake_list"; done
}

# HAProxy for the WSS port: same certificate, same owner, its run dir inside ours.
front_env() {
    HAPROXY_FRONT_PORT=$wss_port HAPROXY_BACKEND="127.0.0.1:$ws_backend_port" \
        HAPROXY_CERT="$run_dir/server.crt" HAPROXY_KEY="$run_dir/server.key" \
        HAPROXY_RUN_DIR="$run_dir/haproxy" HAPROXY_OWNER_PID="${KAMAILIO_OWNER_PID:-}" \
        HAPROXY_MAXCONN=$((tcp_max + 64)) "$here/scripts/haproxy.sh" "$@"
}
start_front() { front_env start; }
stop_front() { [[ "$tls_front" == haproxy ]] && front_env stop || true; }

signal_group() {
    local pid
    pid=$(pgid) || return 1
    kill "-$1" -- "-$pid" 2>/dev/null || kill "-$1" "$pid" 2>/dev/null || true
}

stop() {
    # SIGTERM to the main process only (it stops its children); SIGKILL the group if slow.
    stop_daemon "$pid_file" TERM 20
    log "stopped"
}

hard_kill() {
    pgid >/dev/null || return 0
    stop_daemon "$pid_file" KILL 0
    log "killed (SIGKILL)"
}

case "${1:-}" in
    start) start ;;
    # stop ends HAProxy too; kill, freeze and thaw act on Kamailio alone (a crashed or silent
    # PBX behind a front that stays up, as in a deployment).
    stop) stop; stop_front ;;
    restart) stop; start ;;
    kill) hard_kill ;;
    freeze) signal_group STOP && log "frozen (SIGSTOP)" ;;
    thaw) signal_group CONT && log "thawed (SIGCONT)" ;;
    status)
        if pid=$(pgid); then echo "running pid $pid run dir $run_dir"; else echo "stopped"; exit 3; fi ;;
    env)
        echo "KAMAILIO_SIP_PORT=$sip_port"; echo "KAMAILIO_TLS_PORT=$tls_port"
        echo "KAMAILIO_WS_PORT=$ws_port"; echo "KAMAILIO_WSS_PORT=$wss_port"
        echo "KAMAILIO_NATPING=$natping"; echo "KAMAILIO_RUN_DIR=$run_dir"
        echo "KAMAILIO_TCP_MAX=$tcp_max"; echo "KAMAILIO_SHM_MB=$shm_mb"; echo "KAMAILIO_TCP_CHILDREN=$tcp_children"
        echo "KAMAILIO_CERT_KEY=$cert_key"; echo "KAMAILIO_TLS_FRONT=$tls_front"
        echo "KAMAILIO_WS_BACKEND_PORT=$ws_backend_port"
        echo "KAMAILIO_CA_FILE=$run_dir/ca.crt"; echo "KAMAILIO_WAKE_GATEWAYS=$wake_gateway"
        echo "KAMAILIO_WAKE_FR_MS=$wake_fr"; echo "KAMAILIO_WAKE_HOLD_MS=$wake_hold"; echo "KAMAILIO_WAKE_FR_INV_MS=$wake_fr_inv"; echo "KAMAILIO_WAKE_PING_S=$wake_ping"; echo "KAMAILIO_WAKE_PROBE_MS=$wake_probe"
        echo "KAMAILIO_RTPENGINE=$rtpengine"; echo "KAMAILIO_RTPENGINE_FLAGS=${KAMAILIO_RTPENGINE_FLAGS:-}" ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 64 ;;
esac
