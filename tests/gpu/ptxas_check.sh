#!/usr/bin/env bash
# Compiles MLIR kernels to PTX with loupe-opt --loupe-gpu-kernels for sm_80 and sm_90 and
# assembles every kernel with the CUDA toolkit's ptxas. Exit 77 (ctest: skipped) without ptxas.
# usage: ptxas_check.sh BIN_DIR INPUT.mlir
set -euo pipefail
BIN=$1 INPUT=$2
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
[ -x "$PTXAS" ] || { echo "SKIP: no ptxas at $PTXAS (CUDA toolkit not installed)"; exit 77; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/loupe-ptxas.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for chip in sm_80 sm_90; do
  "$BIN/loupe-opt" --loupe-gpu-kernels=chip=$chip "$INPUT" -o "$WORK/$chip.mlir"
  for ptx in $(python3 "$(dirname "$0")/extract_ptx.py" "$WORK/$chip.mlir" "$WORK/$chip-"); do
    grep -q "^.target $chip" "$ptx" || { echo "FAIL: $ptx is not for $chip"; exit 1; }
    "$PTXAS" -arch=$chip "$ptx" -o "$ptx.cubin"
    echo "ok $chip $(basename "$ptx"): $(grep -c '^.visible .entry' "$ptx") kernel(s) assembled"
  done
done
