#!/usr/bin/env bash
# Installs fmha into the build tree (no root needed), builds
# examples/embedding against the installed CMake package, and runs both of
# its programs: the C++ one (fmha::buildPipeline on a GEMM and on an
# attention op with its log-sum-exp) and the C one (fmha-c/FMHA.h).
# usage: run-embedding-install.sh BUILD_DIR SOURCE_DIR CMAKE GENERATOR
#          MAKE_PROGRAM C_COMPILER CXX_COMPILER [COMPILER_LAUNCHER]
set -euo pipefail
build=$1 src=$2 cmake=$3 generator=$4 make_program=$5 cc=$6 cxx=$7
launcher=${8:-}
work=$build/test/embedding
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

echo "== cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log"
for f in bin/fmha-opt bin/fmha-translate \
         lib/libFMHARegistration.a lib/libFMHACAPI.a \
         lib/cmake/fmha/FMHAConfig.cmake lib/cmake/fmha/FMHAConfigVersion.cmake \
         lib/cmake/fmha/FMHATargets.cmake \
         include/fmha/InitAllDialects.h include/fmha/Pipelines/Pipelines.h \
         include/fmha/Dialect/FMHA/IR/FMHAOps.h.inc include/fmha-c/FMHA.h \
         share/doc/fmha/README.md share/doc/fmha/Passes/FMHAPasses.md; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
if find "$prefix" -name 'obj.*' -o -name CMakeFiles | grep .; then
  echo "build-tree files were installed"; exit 1
fi
"$prefix/bin/fmha-opt" --version | grep -q "fmha version"

echo "== configure and build examples/embedding"
args=(-G "$generator" -DCMAKE_MAKE_PROGRAM="$make_program"
      -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx"
      -DCMAKE_BUILD_TYPE=Release -DFMHA_DIR="$prefix/lib/cmake/fmha")
if [ -n "$launcher" ]; then
  args+=(-DCMAKE_C_COMPILER_LAUNCHER="$launcher"
         -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher")
fi
command -v ld.lld >/dev/null && args+=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld)
"$cmake" -S "$src/examples/embedding" -B "$work/build" "${args[@]}" \
  >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
"$cmake" --build "$work/build" 2>&1 | tee "$work/build.log"
if grep -q "warning:" "$work/build.log"; then
  echo "the example compiled with warnings"; exit 1
fi

echo "== fmha-embed (C++)"
"$work/build/fmha-embed" "$src/examples/gemm.mlir" | tee "$work/cpp.out"
grep -q "^gemm: PTX of [0-9]* bytes, first line: .version " "$work/cpp.out"
grep -q "^gemm: kernel gemm_bf16, [1-9][0-9]* wgmma.mma_async" "$work/cpp.out"
grep -q "^attention: kernel attn, [1-9][0-9]* wgmma.mma_async, [1-9][0-9]* TMA copies, [1-9][0-9]* global stores (lse)" \
  "$work/cpp.out"

echo "== fmha-embed-c (C)"
"$work/build/fmha-embed-c" | tee "$work/c.out"
grep -q "^c: dialects fmha tile ws$" "$work/c.out"
grep -q "^c: PTX of [0-9]* bytes, first line: .version " "$work/c.out"
grep -q "^c: kernel gemm_bf16, [1-9][0-9]* wgmma.mma_async" "$work/c.out"
grep -q "^c: binary=none: [1-9]" "$work/c.out"
grep -q "^c: attention: the sm90 pipeline left 0 fmha.attention op(s) and 1 gpu.binary" \
  "$work/c.out"
grep -q "^c: an invalid op fails: <source>:.*error: " "$work/c.out"
echo "embedding-install: ok"
