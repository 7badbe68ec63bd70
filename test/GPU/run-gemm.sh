#!/usr/bin/env bash
# GPU test: compiles examples/gemm.mlir with --fmha-sm90-pipeline, writes its
# manifest, and checks it with gemm.py through the Python runtime. Exits 77
# (skipped) where there is no GPU, PyTorch or ptxas.
# usage: run-gemm.sh BUILD_BIN_DIR PTXAS
set -euo pipefail
bin=$1 ptxas=$2
here=$(cd "$(dirname "$0")" && pwd)
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
  2>/dev/null || { echo "skipped: no GPU or no PyTorch"; exit 77; }
[ -x "$ptxas" ] || { echo "skipped: no ptxas"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/fmha-opt" "$here/../../examples/gemm.mlir" \
  --fmha-sm90-pipeline=binary=none -o "$tmp/gemm.llvm.mlir"
"$bin/fmha-translate" --fmha-manifest "$tmp/gemm.llvm.mlir" -o "$tmp/gemm.json"
"$bin/fmha-opt" "$tmp/gemm.llvm.mlir" --gpu-module-to-binary=format=isa |
  "$bin/fmha-translate" --fmha-extract-object -o "$tmp/k.ptx"
"$ptxas" -arch=sm_90a "$tmp/k.ptx" -o "$tmp/gemm_bf16.sm_90a.cubin"
PYTHONPATH="$here/../../python${PYTHONPATH:+:$PYTHONPATH}" \
  python3 "$here/gemm.py" "$tmp/gemm.json"
