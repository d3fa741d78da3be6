#!/usr/bin/env bash
# Runs the bundle of prepare.sh on this machine and summarises it:
#  - the RAL's GPU unit tests (cuBLAS, cuDNN, allocation and stream ordering);
#  - every model artifact (examples, mobilenet_v3_small) under each variant, numerics checked
#    against the expected outputs;
#  - the benchmark patterns (GPU time from CUPTI, bandwidth against the HBM peak and the
#    measured copy bandwidth, GEMM cuBLAS vs codegen) and the same patterns in PyTorch eager
#    and torch.compile in the same run;
#  - the GPU models and patterns again while lib/cupti_holder.so holds CUPTI, so their dispatches
#    are timed by the CUDA-events fallback (compared with CUPTI's times in the summary).
# Writes OUT/summary.md, OUT/profiles.db (the profile DB, comparable with CPU runs) and
# OUT/logs.tar.gz (every run's JSON and stderr, the runtime's --info, nvidia-smi, torch's JSON).
# usage: run_all.sh BUNDLE_DIR [OUT_DIR (default $OUT, else BUNDLE_DIR/out)] [REPS (100)]
set -uo pipefail
BUNDLE=$(cd "$1" && pwd)
RESULTS=${2:-${OUT:-$BUNDLE/out}}
REPS=${3:-100}
LOGS=$RESULTS/logs
mkdir -p "$LOGS"
RUN=$BUNDLE/bin/loupe-run

# The CUDA libraries: the toolkit's first, else the ones PyTorch's wheels bring.
if [ -z "${LOUPE_CUDA_LIB_DIRS:-}" ]; then
  LOUPE_CUDA_LIB_DIRS=$(for lib in libcublas.so.13 libcublasLt.so.13 libcudnn.so.9 libcupti.so.13; do
      find /usr/local/cuda/ /usr/local/cuda*/ /opt /usr/lib -name "$lib" 2>/dev/null | head -1
    done | xargs -r -n1 dirname | awk '!seen[$0]++' | paste -sd:)
  export LOUPE_CUDA_LIB_DIRS
fi
{ echo "LOUPE_CUDA_LIB_DIRS=$LOUPE_CUDA_LIB_DIRS"; "$RUN" "$BUNDLE/artifacts/mlp.cuda.so" --info; } \
  >"$LOGS/info.txt" 2>&1
nvidia-smi >"$LOGS/nvidia-smi.txt" 2>&1
head -30 "$LOGS/info.txt"

status=0
LD_LIBRARY_PATH=$BUNDLE/lib "$BUNDLE/bin/ral_cuda_test" --gtest_filter='RalGpu.*' >"$LOGS/ral_cuda_test.txt" 2>&1 ||
  status=1
echo "ral_cuda_test RalGpu.*: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test' "$LOGS/ral_cuda_test.txt" | tr '\n' ' ')"
RUN_ENV=() # extra environment of loupe-run (the events pass preloads the holder)
run() { # NAME SUFFIX ARGS...: one loupe-run of artifacts/NAME.so, its JSON and stderr kept
  local name=$1 suffix=$2; shift 2
  local log=$LOGS/$name$suffix
  env "${RUN_ENV[@]}" timeout 120 "$RUN" "$BUNDLE/artifacts/$name.so" --db "$RESULTS/profiles.db" --json "$@" \
    >"$log.json" 2>"$log.err"
  local rc=$?
  echo "$name$suffix: exit $rc $(grep -h 'kernel timings' "$log.err")"
  [ $rc -eq 0 ] || { status=1; tail -5 "$log.err"; }
}
args_for() { # NAME: a model's data and check, or random inputs for a pattern
  local data=$BUNDLE/data/${1%%.*}/test_data_set_0
  if [ -d "$data" ]; then echo "--inputs $data --check $data"; else echo "--seed 1"; fi
}
for so in "$BUNDLE"/artifacts/*.so; do
  name=$(basename "$so" .so)
  run "$name" "" $(args_for "$name") --reps "$REPS" --warmup 10
done

# CUDA-events fallback: a second subscriber holds CUPTI.
RUN_ENV=(LD_PRELOAD="$BUNDLE/lib/cupti_holder.so" LD_LIBRARY_PATH="$LOUPE_CUDA_LIB_DIRS")
for so in "$BUNDLE"/artifacts/*.cuda.so; do
  name=$(basename "$so" .so)
  run "$name" .events $(args_for "$name") --reps "$REPS" --warmup 10
done
RUN_ENV=()

# Nsight Compute's duration of each pattern's kernels, to set beside CUPTI's (ncu is a CUPTI
# subscriber itself, so these runs take the events fallback too; they are not stored).
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for bench in ew_chain softmax layernorm gemm; do
  [ -n "$NCU" ] || { echo "ncu not found: no Nsight Compute comparison"; break; }
  timeout 180 "$NCU" --csv --log-file "$LOGS/$bench.ncu.csv" --metrics gpu__time_duration.sum \
    --clock-control none --cache-control none \
    "$RUN" "$BUNDLE/artifacts/$bench.cuda.so" --seed 1 --reps 10 --warmup 2 \
    >/dev/null 2>"$LOGS/$bench.ncu.err"
  echo "$bench under ncu: exit $? ($(grep -c gpu__time_duration "$LOGS/$bench.ncu.csv" 2>/dev/null) kernel rows)"
done

PYTHONUNBUFFERED=1 timeout 300 python3 "$BUNDLE/torch_eager.py" "$BUNDLE/bench.json" "$REPS" \
  >"$LOGS/torch.json" 2>"$LOGS/torch.err" ||
  { echo "torch_eager.py failed: $(tail -3 "$LOGS/torch.err")"; status=1; }
python3 "$BUNDLE/summarize.py" "$BUNDLE/bench.json" "$RESULTS" | tee "$RESULTS/summary.md"
tar czf "$RESULTS/logs.tar.gz" -C "$RESULTS" logs && rm -rf "$LOGS"
exit $status
