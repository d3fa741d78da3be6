#!/bin/bash
# The workbench in a real window under Xvfb: one screenshot per panel of the CNN example
# session, each checked not to be blank (check_png.py).
#
#   screenshots.sh LOUPE SOURCE_DIR OUT_DIR setup        # profile DBs: two runs of the CNN (the
#                                                         # second with a kernel fallback), and its
#                                                         # variants fused and unfused
#   screenshots.sh LOUPE SOURCE_DIR OUT_DIR PANEL...      # screenshot(s) + check
#
# PANEL: pipeline ir diff graph dispatches run profile compare log, ptx (the IR panel on the
# cuda target's PTX snapshot), dispatches-cuda (the Dispatches panel for the cuda target:
# GPU schedules), and gpu (the Profile panel on an imported GPU run, no model open, the GPU
# picked). OUT_DIR/PANEL.png are the images (the
# user guide's docs/images/ are copies of these; gpu.png is gui-gpu-timeline.png).
set -euo pipefail
LOUPE=$1 SRC=$2 OUT=$3
shift 3
mkdir -p "$OUT"
SESSION=$SRC/examples/sessions/cnn.json
XVFB=(xvfb-run -a -s "-screen 0 1920x1080x24")
export XDG_CONFIG_HOME=$OUT/config XDG_DATA_HOME=$OUT/data

if ! command -v xvfb-run >/dev/null; then
  echo "xvfb-run not found: skipping"; exit 77
fi

# session_copy SRC OUT EDIT: session SRC written to OUT with its paths made absolute, after the
# Python statement EDIT changed it (the session is `s`).
session_copy() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, os, sys
src, out, edit = sys.argv[1:4]
s = json.load(open(src))
base = os.path.dirname(os.path.abspath(src))
s["model"] = os.path.normpath(os.path.join(base, s["model"]))
for k in ("inputs", "check"):
    if k in s.get("run", {}):
        s["run"][k] = os.path.normpath(os.path.join(base, s["run"][k]))
exec(edit)
json.dump(s, open(out, "w"), indent=2)
PY
}

if [ "${1:-}" = setup ]; then
  rm -f "$OUT/p.db" "$OUT/p.db-wal" "$OUT/p.db-shm"
  # Two runs with different settings: the session's test data, then random inputs with fc's
  # oneDNN batch GEMM failing (fault injection), so the run records a fallback to OpenBLAS.
  "$LOUPE" replay "$SESSION" --db "$OUT/p.db" > "$OUT/replay.md"
  LOUPE_RAL_FAIL_KERNEL=ral_batch_gemm_onednn "$LOUPE" run "$SRC/examples/models/cnn.onnx" \
    --reps 30 --warmup 3 --seed 1 --db "$OUT/p.db" --json > "$OUT/run.json"
  # The Compare panel shows two variants of a session, fusion on and off (cnn_backends.json
  # comparing `library` with `fusion_off`): replayed into their own DB.
  session_copy "$SRC/examples/sessions/cnn_backends.json" "$OUT/cnn_fusion.json" \
    's["name"] = "cnn_fusion"; s["compare"] = ["library", "fusion_off"]'
  rm -f "$OUT/variants.db" "$OUT/variants.db-wal" "$OUT/variants.db-shm"
  "$LOUPE" replay "$OUT/cnn_fusion.json" --db "$OUT/variants.db" > "$OUT/variants.md"
  # The GPU screenshot needs no GPU: a synthetic Nsight Systems export imported beside the CPU
  # runs, so the device picker lists both.
  rm -f "$OUT/gpu.db" "$OUT/gpu.db-wal" "$OUT/gpu.db-shm" "$OUT/decoder.sqlite"
  python3 "$SRC/tests/gui/gpu_export.py" "$SRC/tests/unit/profiler/fixtures/nsys_export.sql" \
    "$OUT/decoder.sqlite"
  "$LOUPE" replay "$SESSION" --db "$OUT/gpu.db" > /dev/null
  "$LOUPE" db import-nsys "$OUT/decoder.sqlite" --db "$OUT/gpu.db"
  echo "profile DBs: $OUT/p.db $OUT/variants.db $OUT/gpu.db"
  exit 0
fi

for panel in "$@"; do
  extra=()
  db=$OUT/p.db
  open=(--session "$SESSION")
  show=$panel
  size=1600x1000
  case $panel in
    # Wider: the kernel table's twelve columns fit beside the runs list.
    gpu) open=(); db=$OUT/gpu.db; show=profile; size=1920x1080; extra=(--device cuda) ;;
    log)
      # A model that does not verify: the diagnostic in the log links to its source line.
      cat > "$OUT/broken.mlir" <<'MLIR'
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.mul %0, %a {shift = 0 : i8} : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %1 : tensor<4xf32>
}
MLIR
      open=("$OUT/broken.mlir") ;;
    pipeline) extra=(--pass convert-linalg-to-loops) ;;
    ir) extra=(--pass tosa-to-linalg --search linalg.conv_2d) ;;
    ptx)
      # The cuda target (compiles without a GPU): the PTX snapshot of the transformer's kernels,
      # at its first warp-shuffle row reduction.
      session_copy "$SRC/examples/sessions/transformer_block.json" "$OUT/transformer_cuda.json" \
        's["pipeline"]["target"] = "cuda"; s["pipeline"]["gpu_arch"] = "sm_90"; s["pipeline"]["phase_to"] = "ral"'
      open=(--session "$OUT/transformer_cuda.json"); show=ir; extra=(--pass ptx --search shfl.sync) ;;
    dispatches-cuda)
      # The transformer for the cuda target: each code-generated kernel's GPU schedule.
      session_copy "$SRC/examples/sessions/transformer_block.json" "$OUT/transformer_cuda.json" \
        's["pipeline"]["target"] = "cuda"; s["pipeline"]["gpu_arch"] = "sm_90"; s["pipeline"]["phase_to"] = "ral"'
      open=(--session "$OUT/transformer_cuda.json"); show=dispatches ;;
    diff) extra=(--pass tosa-to-linalg) ;;
    run) cp "$OUT/p.db" "$OUT/run.db"; db=$OUT/run.db; extra=(--run) ;;
    compare) open=(--session "$OUT/cnn_fusion.json"); db=$OUT/variants.db ;;
    graph)
      # The transformer block: branches, fused clusters, matmuls on oneDNN.
      open=(--session "$SRC/examples/sessions/transformer_block.json"); extra=(--search head0_scores) ;;
    dispatches)
      # cnn_backends.json with conv1 forced to codegen (what the override drop-down saves).
      session_copy "$SRC/examples/sessions/cnn_backends.json" "$OUT/cnn_override.json" \
        's["pipeline"]["overrides"] = {"conv1": "codegen"}'
      open=(--session "$OUT/cnn_override.json"); extra=(--search conv1) ;;
  esac
  "${XVFB[@]}" "$LOUPE" gui "${open[@]}" --db "$db" --screenshot "$OUT/$panel.png" \
    --frames 5 --panel "$show" --size "$size" "${extra[@]}"
  python3 "$SRC/tests/gui/check_png.py" "$OUT/$panel.png" --size "$size"
done
