#!/usr/bin/env bash
# Builds the self-contained GPU bundle that run_all.sh runs on a GPU machine (which has the
# NVIDIA driver, CUDA and PyTorch but none of Loupe's build dependencies):
#   bin/loupe-run, lib/libloupe_ral.so        the runtime (docs/ral.md, "loupe-run"), with the
#                                             C++ runtime libraries it was linked against
#   bin/ral_cuda_test                         the RAL's GPU unit tests (RalGpu.*)
#   lib/cupti_holder.so                       a second CUPTI subscriber (cupti_holder.c)
#   artifacts/<model>.<variant>.so            the models for cuda: `cuda` (cuBLAS/cuDNN +
#                                             codegen), `cuda-codegen`, `cuda-nofusion`; the
#                                             examples also `cpu-codegen`
#   data/<model>/test_data_set_0              inputs and expected outputs of the examples and
#                                             of a torchvision CNN (mobilenet_v3_small)
#   bench.json, run_all.sh, summarize.py, torch_eager.py
# usage: bench/gpu/prepare.sh BUILD_DIR BUNDLE_DIR [ARCH (default sm_90)]
set -euo pipefail
BUILD=$(cd "$1" && pwd) BUNDLE=$2 ARCH=${3:-sm_90}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
LOUPE=$BUILD/bin/loupe
CUDA=${CUDA_HOME:-/usr/local/cuda}
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE"/{bin,lib,artifacts,data,models}
# Without debug info (symbol tables kept, for backtraces): the bundle travels with the working tree (64 MiB in all).
strip --strip-debug -o "$BUNDLE/bin/loupe-run" "$BUILD/bin/loupe-run"
strip --strip-debug -o "$BUNDLE/lib/libloupe_ral.so" "$(readlink -f "$BUILD/lib/libloupe_ral.so")"
strip --strip-debug -o "$BUNDLE/bin/ral_cuda_test" "$BUILD/bin/ral_cuda_test" # RalGpu.* there
# The C++ runtime it was built with (GLIBCXX_3.4.30, GCC 12): the GPU machine's may be older.
# loupe-run's RUNPATH ($ORIGIN/../lib) finds these first; glibc itself (2.34 needed) is not copied.
for lib in libstdc++.so.6 libgcc_s.so.1; do
  cp -L "$(ldd "$BUILD/bin/loupe-run" | awk -v l="$lib" '$1 == l {print $3}')" "$BUNDLE/lib/"
done
gcc -shared -fPIC -O2 -I"$CUDA/include" "$SRC/bench/gpu/cupti_holder.c" \
  -L"$CUDA/lib64" -L"$CUDA/lib" -lcupti -o "$BUNDLE/lib/cupti_holder.so"
cp "$SRC"/bench/gpu/{run_all.sh,summarize.py,torch_eager.py} "$BUNDLE/"
/usr/bin/python3 "$SRC/bench/gpu/make_models.py" "$BUNDLE/models" >/dev/null
/usr/bin/python3 "$SRC/examples/zoo/export_zoo.py" "$BUNDLE/models" mobilenet_v3_small >/dev/null
cp "$BUNDLE/models/bench.json" "$BUNDLE/"

compile() { # MODEL NAME TARGET [FLAGS...]
  local model=$1 name=$2 target=$3; shift 3
  "$LOUPE" compile "$model" --target "$target" --gpu-arch "$ARCH" --cache off \
    -o "$BUNDLE/artifacts/$name.so" "$@" 2>"$BUNDLE/artifacts/$name.log" ||
    { cat "$BUNDLE/artifacts/$name.log" >&2; exit 1; }
}
compile_cuda() { # MODEL NAME: the three cuda variants
  compile "$1" "$2.cuda" cuda
  compile "$1" "$2.cuda-codegen" cuda --backends codegen
  compile "$1" "$2.cuda-nofusion" cuda --fusion off
}
for example in mlp cnn transformer_block conv_relu; do
  compile_cuda "$SRC/examples/models/$example.onnx" "$example"
  # codegen only: the GPU machine lacks the CPU kernel plugin's OpenBLAS and oneDNN
  compile "$SRC/examples/models/$example.onnx" "$example.cpu-codegen" cpu --backends codegen
  cp -r "$SRC/examples/models/$example" "$BUNDLE/data/"
done
compile_cuda "$BUNDLE/models/mobilenet_v3_small.onnx" mobilenet_v3_small
cp -r "$BUNDLE/models/mobilenet_v3_small" "$BUNDLE/data/"
for bench in ew_chain softmax layernorm gemm; do
  compile "$BUNDLE/models/$bench.onnx" "$bench.cuda" cuda
done
compile "$BUNDLE/models/gemm.onnx" "gemm.cuda-codegen" cuda --backends codegen
rm -rf "$BUNDLE/models" "$BUNDLE"/artifacts/*.log
du -sh "$BUNDLE"
