#!/usr/bin/env bash
# Builds fmha-fuzz with clang into build-fuzz/ (FMHA_FUZZ_BUILD_DIR) and runs
# it: `tools/fmha-fuzz/run.sh [SECONDS] [libFuzzer flags...]` (default 600 s).
# The corpus grows in build-fuzz/fuzz/corpus, seeded from the tests; crashing,
# hanging and out-of-memory inputs land in build-fuzz/fuzz/artifacts/. Fork
# mode keeps fuzzing past a crash. docs/Development.md, "Fuzzing".
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${FMHA_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-600}
shift || true

if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DFMHA_ENABLE_FUZZER=ON -DLLVM_ENABLE_ASSERTIONS=ON \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
    -DLLVM_USE_LINKER=lld "${launcher[@]}"
fi
cmake --build "$build" -j "${FMHA_JOBS:-$(nproc)}" --target fmha-fuzz fmha-opt

work=$build/fuzz
rm -rf "$work/seeds"
mkdir -p "$work/corpus" "$work/artifacts"
python3 "$root/tools/fmha-fuzz/fuzz.py" corpus "$work/seeds"
cd "$work"
exec "$build/bin/fmha-fuzz" -fork="${FMHA_FUZZ_FORKS:-1}" \
  -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -timeout=10 -rss_limit_mb=4096 -detect_leaks=0 \
  -dict="$root/tools/fmha-fuzz/mlir.dict" -artifact_prefix=artifacts/ \
  -max_total_time="$seconds" -print_final_stats=1 "$@" corpus seeds
