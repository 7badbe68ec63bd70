#!/usr/bin/env bash
# Configures (once) and builds fmha into ./build with ninja.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FMHA_BUILD_DIR:-$root/build}
jobs=${FMHA_JOBS:-$(nproc)}

if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  linker=()
  command -v ld.lld >/dev/null && linker=(-DLLVM_USE_LINKER=lld)
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
    "${launcher[@]}" "${linker[@]}"
fi
cmake --build "$build" -j "$jobs"
