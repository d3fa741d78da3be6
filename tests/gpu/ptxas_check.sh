#!/usr/bin/env bash
# Compiles for the cuda target (sm_80 and sm_90) and assembles every kernel's PTX with the CUDA
# toolkit's ptxas. A lit input (bufferized memrefs) goes through loupe-opt --loupe-ral-cuda, a model through
# loupe compile --target cuda --emit ptx. Exit 77 (ctest: skipped) without ptxas.
# usage: ptxas_check.sh BIN_DIR INPUT...
set -euo pipefail
BIN=$1
shift
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
[ -x "$PTXAS" ] || { echo "SKIP: no ptxas at $PTXAS (CUDA toolkit not installed)"; exit 77; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/loupe-ptxas.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for input in "$@"; do
  name=$(basename "$input")
  for chip in sm_80 sm_90; do
    out="$WORK/$name-$chip.txt"
    if [[ $input == */tests/lit/* ]]; then
      "$BIN/loupe-opt" --loupe-ral-cuda=chip=$chip "$input" -o "$out"
    else
      "$BIN/loupe" compile "$input" --target cuda --gpu-arch $chip --emit ptx --cache off -o "$out"
    fi
    count=0
    for ptx in $(python3 "$(dirname "$0")/extract_ptx.py" "$out" "$WORK/$name-$chip-"); do
      grep -q "^.target $chip" "$ptx" || { echo "FAIL: $ptx is not for $chip"; exit 1; }
      "$PTXAS" -arch=$chip "$ptx" -o "$ptx.cubin"
      count=$((count + 1))
    done
    echo "ok $name $chip: $count kernel(s) assembled"
  done
done
