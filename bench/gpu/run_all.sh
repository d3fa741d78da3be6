#!/usr/bin/env bash
# Runs the bundle of prepare.sh on this machine and summarises it: every example artifact for
# cuda (numerics checked against the expected outputs, like the cpu artifacts), the benchmark
# models (GPU time from CUPTI, bandwidth as a share of the GPU's HBM peak, GEMM cuBLAS vs
# codegen) and the same patterns in PyTorch eager in the same run. Rows go to
# OUT/profiles.db (the profile DB, comparable with CPU runs) and OUT/summary.md.
# usage: run_all.sh BUNDLE_DIR [OUT_DIR (default $OUT, else BUNDLE_DIR/out)] [REPS (100)]
set -uo pipefail
BUNDLE=$(cd "$1" && pwd)
RESULTS=${2:-${OUT:-$BUNDLE/out}}
REPS=${3:-100}
mkdir -p "$RESULTS"
RUN=$BUNDLE/bin/loupe-run
"$RUN" --info >"$RESULTS/info.txt" 2>&1 || true
nvidia-smi >"$RESULTS/nvidia-smi.txt" 2>&1 || true
status=0
run() { # NAME ARGS...: one loupe-run, its JSON and stderr kept
  local name=$1; shift
  "$RUN" "$BUNDLE/artifacts/$name.so" --db "$RESULTS/profiles.db" --json "$@" \
    >"$RESULTS/$name.json" 2>"$RESULTS/$name.err"
  local rc=$?
  echo "$name: exit $rc $(grep -h 'kernel timings' "$RESULTS/$name.err")"
  [ $rc -eq 0 ] || { status=1; tail -3 "$RESULTS/$name.err"; }
}
for example in mlp cnn transformer_block; do
  data=$BUNDLE/data/$example/test_data_set_0
  for variant in cuda cuda-codegen cpu-codegen; do
    run "$example.$variant" --inputs "$data" --check "$data" --reps "$REPS" --warmup 10
  done
done
for bench in ew_chain softmax layernorm gemm gemm-codegen; do
  name=${bench/gemm-codegen/gemm.cuda-codegen}
  [[ $name == *.* ]] || name=$bench.cuda
  run "$name" --seed 1 --reps "$REPS" --warmup 10
done
python3 "$BUNDLE/torch_eager.py" "$BUNDLE/bench.json" "$REPS" >"$RESULTS/torch.json" 2>"$RESULTS/torch.err" ||
  { echo "torch_eager.py failed: $(tail -1 "$RESULTS/torch.err")"; status=1; }
python3 "$BUNDLE/summarize.py" "$BUNDLE/bench.json" "$RESULTS" | tee "$RESULTS/summary.md"
exit $status
