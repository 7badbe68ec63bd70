#!/usr/bin/env bash
# GPU test: compiles examples/ws-row-sum.mlir for sm_90a and runs it with
# ws_row_sum.py. Exits 77 (skipped) where there is no GPU, PyTorch or ptxas.
# usage: run-ws-row-sum.sh BUILD_BIN_DIR PTXAS
set -euo pipefail
bin=$1 ptxas=$2
here=$(cd "$(dirname "$0")" && pwd)
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
  2>/dev/null || { echo "skipped: no GPU or no PyTorch"; exit 77; }
[ -x "$ptxas" ] || { echo "skipped: no ptxas"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/fmha-opt" "$here/../../examples/ws-row-sum.mlir" \
  --nvvm-attach-target="chip=sm_90a features=+ptx86" \
  --ws-insert-mbarriers --ws-allocate-smem --ws-allocate-registers \
  --ws-lower-roles --ws-lower-cta-pairs \
  --convert-scf-to-cf --convert-ws-to-nvvm --convert-nvvm-to-llvm --reconcile-unrealized-casts \
  --gpu-module-to-binary=format=isa |
  "$bin/fmha-translate" --fmha-extract-object -o "$tmp/k.ptx"
"$ptxas" -arch=sm_90a "$tmp/k.ptx" -o "$tmp/k.cubin"
python3 "$here/ws_row_sum.py" "$tmp/k.cubin"
