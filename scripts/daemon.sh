# Sourced by scripts/kamailio.sh, scripts/rtpengine.sh and scripts/haproxy.sh: start and stop a
# test daemon on loopback the same way for each.
#
#   spawn_daemon LOG_FILE PID_FILE OWNER_PID RUN_DIR -- COMMAND [ARG...]
#
# - A Swift test runner starts us with signals blocked (its threads block them); the daemon would
#   inherit the mask and never see SIGTERM. perl-base (essential) clears the mask and resets
#   dispositions before exec.
# - setsid: the daemon leads its own process group, so `stop` can kill the group.
# - stdin from /dev/null, stdout+stderr appended to LOG_FILE; the pid goes to PID_FILE.
# - OWNER_PID (may be empty): a watchdog kills the group and removes RUN_DIR once that process
#   (a test) is gone without stopping us — a crash or timeout kill leaves nothing behind. The
#   watchdog ends when the daemon ends.
spawn_daemon() {
    local log_file=$1 pid_file=$2 owner_pid=$3 run_dir=$4
    shift 5  # the four values and "--"
    perl -MPOSIX -e 'sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die;
        $SIG{$_} = "DEFAULT" for qw(PIPE TERM INT HUP ALRM CHLD USR1 USR2);
        exec @ARGV or die "exec: $!"' -- \
        setsid "$@" </dev/null >>"$log_file" 2>&1 &
    echo $! > "$pid_file"
    if [[ -n "$owner_pid" ]]; then
        setsid bash -c 'while kill -0 "$1" 2>/dev/null; do
                sleep 1
                if ! kill -0 "$2" 2>/dev/null; then kill -KILL -- "-$1" 2>/dev/null; rm -rf "$3"; exit 0; fi
            done' watchdog "$(cat "$pid_file")" "$owner_pid" "$run_dir" </dev/null >/dev/null 2>&1 &
    fi
}

#   daemon_pid PID_FILE
#
# The daemon's pid (it leads its process group) on stdout while it runs; status 1 when the pid
# file is missing or the process is gone.
daemon_pid() {
    [[ -f "$1" ]] || return 1
    local pid
    pid=$(cat "$1")
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
    echo "$pid"
}

#   stop_daemon PID_FILE SIGNAL TRIES
#
# The stop every script does the same way: SIGCONT to the group (a frozen daemon must see the
# signal), SIGNAL to the main process only (it stops its children), up to TRIES × 50 ms for it to
# go, then SIGKILL to the whole group and up to 10 s until the main process and every child of
# the group are gone; the pid file is removed. Status 0 also when nothing was running.
stop_daemon() {
    local pid_file=$1 signal=$2 tries=$3 pid i
    pid=$(daemon_pid "$pid_file") || { rm -f "$pid_file"; return 0; }
    kill -CONT -- "-$pid" 2>/dev/null || true
    kill "-$signal" "$pid" 2>/dev/null || true
    for ((i = 0; i < tries; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.05; done
    while pgrep -g "$pid" >/dev/null 2>&1 && ((SECONDS < deadline)); do sleep 0.05; done
    rm -f "$pid_file"
}
