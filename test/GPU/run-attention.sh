#!/usr/bin/env bash
# GPU test: compiles examples/attention.mlir with --fmha-sm90-pipeline, writes its
# manifest, and checks it with attention.py through the Python runtime. Exits 77
# (skipped) where there is no GPU, PyTorch or ptxas.
# usage: run-attention.sh BUILD_BIN_DIR PTXAS
set -euo pipefail
bin=$1 ptxas=$2
here=$(cd "$(dirname "$0")" && pwd)
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
  2>/dev/null || { echo "skipped: no GPU or no PyTorch"; exit 77; }
[ -x "$ptxas" ] || { echo "skipped: no ptxas"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/fmha-opt" "$here/../../examples/attention.mlir" \
  --fmha-sm90-pipeline=binary=none -o "$tmp/attn.llvm.mlir"
"$bin/fmha-translate" --fmha-manifest "$tmp/attn.llvm.mlir" -o "$tmp/attn.json"
"$bin/fmha-opt" "$tmp/attn.llvm.mlir" --gpu-module-to-binary=format=isa |
  "$bin/fmha-translate" --fmha-extract-object -o "$tmp/k.ptx"
"$ptxas" -arch=sm_90a "$tmp/k.ptx" -o "$tmp/attn_fwd_d128.sm_90a.cubin"
PYTHONPATH="$here/../../python${PYTHONPATH:+:$PYTHONPATH}" \
  python3 "$here/attention.py" "$tmp/attn.json" --causal
