#!/usr/bin/env bash
# run.sh FUZZER CORPUS SECONDS: libFuzzer for SECONDS over the seed corpus CORPUS (new inputs go
# to a scratch folder; the committed corpus is never modified). A crash, leak, UBSan report or
# slow input fails the run and leaves the input in $LOUPE_FUZZ_OUT (default: the scratch
# folder, printed). $LOUPE_FUZZ_SEED fixes libFuzzer's seed (0, the default: a random one);
# ctest's smoke runs use seed 1, so they replay the same mutations every time. Exit 77 (ctest:
# skipped) when the fuzz build lacks FUZZER.
set -uo pipefail
bin=$1 corpus=$2 seconds=$3
[ -x "$bin" ] || { echo "SKIP: $bin is not built (./x test and ./x fuzz build it)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/loupe-fuzz.XXXXXX")
out=${LOUPE_FUZZ_OUT:-$work}
mkdir -p "$work/new" "$out"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
"$bin" -max_total_time="$seconds" -seed="${LOUPE_FUZZ_SEED:-0}" -error_exitcode=1 -timeout=30 -rss_limit_mb=4096 -malloc_limit_mb=4096 \
  -print_final_stats=1 -artifact_prefix="$out/" "$work/new" "$corpus" 2>&1 | tail -n 40
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] && [ "$out" = "$work" ] && rm -rf "$work"
[ "$rc" -eq 0 ] || echo "fuzz: $(basename "$bin") failed (exit $rc); inputs in $out"
exit "$rc"
