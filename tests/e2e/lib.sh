# Sourced by every e2e case script (cases.sh, hardening.sh, nsys_cases.sh, backend_sessions.sh),
# called as SCRIPT BIN_DIR SRC_DIR CASE: the tools, a scratch folder removed on exit, and the
# two checks every case uses.
set -euo pipefail
BIN=$1 SRC=$2 CASE=$3
LOUPE=$BIN/loupe
WORK=$(mktemp -d "${TMPDIR:-/tmp}/loupe-e2e-$CASE.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MODELS=$SRC/examples/models

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_exit CODE PATTERN CMD...: runs CMD, checks its exit code and that stderr matches PATTERN.
expect_exit() {
  local code=$1 pattern=$2; shift 2
  local rc=0
  "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
  [ "$rc" -eq "$code" ] || { cat "$WORK/err" >&2; fail "'$*' exited $rc, expected $code"; }
  grep -Eq -- "$pattern" "$WORK/err" || { cat "$WORK/err" >&2; fail "stderr of '$*' lacks /$pattern/"; }
}
