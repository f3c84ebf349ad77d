# tmux_lib.bash - helpers for the shell tests (tests/shell/*.sh): each test
# drives `mgpulab` in a detached tmux session on a private server and asserts
# on the captured screen text, polling with deadlines (no fixed sleeps).
# Sourced, not run: `source "$(dirname "$0")/tmux_lib.bash" "$1"`.

BIN=${1:?usage: bash TEST.sh /path/to/mgpulab}
SRC=${MGPU_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
export NO_COLOR=${NO_COLOR-1}
TMUX_SOCK="mgpu-shell-test-$$"
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/mgpu-shell-test.XXXXXX")
export XDG_STATE_HOME="$TMPD/state"
mkdir -p "$XDG_STATE_HOME"
unset TMUX

tm() { tmux -L "$TMUX_SOCK" "$@"; }

cleanup() {
    tm kill-server 2>/dev/null
    rm -rf "$TMPD"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    echo "--- screen ---" >&2
    screen >&2 2>/dev/null
    exit 1
}

ok() { echo "ok - $*"; }

# The labs the test runs against: the repository's labs when lab 0 exists,
# else the small test lab beside these scripts.
use_real_labs() {
    if compgen -G "$SRC/labs/00-*/lab.lua" >/dev/null; then
        export MGPULAB_LABS="$SRC/labs"
        return 0
    fi
    use_test_labs
    return 1
}
use_test_labs() { export MGPULAB_LABS="$SRC/tests/shell/labs"; }

# start_shell W H ARGS...: mgpulab in a fresh session; SHELL_PID is its pid.
start_shell() {
    local w=$1 h=$2
    shift 2
    # TMPDIR: the coordinator's socket directory of a shell a test kills
    # with SIGKILL (no handler runs) goes with the test's own folder
    local env_args="NO_COLOR=$NO_COLOR XDG_STATE_HOME=$XDG_STATE_HOME MGPULAB_LABS=${MGPULAB_LABS:-} TERM=tmux-256color TMPDIR=$TMPD"
    [ -n "${EDITOR:-}" ] && env_args="$env_args EDITOR='$EDITOR'"
    tm kill-session -t main 2>/dev/null
    tm new-session -d -s main -x "$w" -y "$h" "exec env $env_args $(printf '%q ' "$BIN" "$@")" || fail "tmux did not start"
    SHELL_PID=$(tm display-message -p -t main '#{pane_pid}')
}

screen() { tm capture-pane -p -t main 2>/dev/null; }
keys() { tm send-keys -t main "$@"; }

# The SECONDS of the waits below are hang guards, not expectations: a wait
# returns as soon as its event shows. They are stretched (x3, at least 30 s;
# x3 again in the ASan pass, MGPU_TEST_ASAN=1) so that a slow or loaded
# machine is not mistaken for a broken shell.
guard() {
    local s=$(( $1 * 3 ))
    [ "$s" -lt 30 ] && s=30
    [ "${MGPU_TEST_ASAN:-0}" = 1 ] && s=$(( s * 3 ))
    echo "$s"
}

# wait_for REGEX [SECONDS]: until the screen matches (grep -E).
wait_for() {
    local re=$1 limit; limit=$(guard "${2:-20}")
    local end=$((SECONDS + limit))
    while [ $SECONDS -lt $end ]; do
        screen | grep -Eq -- "$re" && return 0
        sleep 0.1
    done
    fail "screen never showed /$re/ within ${limit}s"
}

# wait_gone REGEX [SECONDS]: until the screen no longer matches.
wait_gone() {
    local re=$1 limit; limit=$(guard "${2:-20}")
    local end=$((SECONDS + limit))
    while [ $SECONDS -lt $end ]; do
        screen | grep -Eq -- "$re" || return 0
        sleep 0.1
    done
    fail "screen still shows /$re/ after ${limit}s"
}

# wait_exit PID [SECONDS]: until the process is gone.
wait_exit() {
    local pid=$1 limit; limit=$(guard "${2:-10}")
    local end=$((SECONDS + limit))
    while [ $SECONDS -lt $end ]; do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    fail "process $pid still runs after ${limit}s"
}
