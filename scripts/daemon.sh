# Sourced by scripts/kamailio.sh and scripts/rtpengine.sh: start a test daemon on loopback the
# same way for both.
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
