#!/usr/bin/env bash
# GPU test: the randomized stress test of fmha.attention and fmha.gemm
# (stress.py) for MINUTES minutes (default 1), with a fresh seed it prints.
# Exits 77 (skipped) without PyTorch, a compute capability 9.0 GPU, or the
# kernels (a compiler, or FMHA_CACHE_DIR holding what prepare_cache.py
# compiles).
# usage: run-stress.sh [MINUTES] [stress.py options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
minutes=${1:-1}
shift || true
export PYTHONPATH="$here/../../python${PYTHONPATH:+:$PYTHONPATH}"
exec python3 "$here/stress.py" --minutes "$minutes" "$@"
