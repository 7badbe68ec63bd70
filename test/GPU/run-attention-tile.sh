#!/usr/bin/env bash
# GPU test: compiles the attention kernel of
# test/Target/sm90/register-ops.mlir (register-tensor ops: row reductions,
# broadcasts, iota masks, P @ V with P in registers) for sm_90a and checks it
# with attention_tile.py. Exits 77 (skipped) where there is no GPU, PyTorch
# or ptxas.
# usage: run-attention-tile.sh BUILD_BIN_DIR PTXAS
set -euo pipefail
bin=$1 ptxas=$2
here=$(cd "$(dirname "$0")" && pwd)
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
  2>/dev/null || { echo "skipped: no GPU or no PyTorch"; exit 77; }
[ -x "$ptxas" ] || { echo "skipped: no ptxas"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/fmha-opt" "$here/../Target/sm90/register-ops.mlir" \
  --ws-insert-mbarriers --ws-allocate-smem --ws-allocate-registers \
  -o "$tmp/k.ws.mlir"
# The launch needs the kernel's dynamic shared memory and thread count.
smem=$(grep -o 'ws.smem_bytes = [0-9]*' "$tmp/k.ws.mlir" | grep -o '[0-9]*$')
threads=$(grep -o 'ws.num_threads = [0-9]*' "$tmp/k.ws.mlir" | grep -o '[0-9]*$')
"$bin/fmha-opt" "$tmp/k.ws.mlir" \
  --ws-lower-roles --ws-lower-cta-pairs \
  --convert-scf-to-cf --convert-ws-to-nvvm --convert-nvvm-to-llvm --reconcile-unrealized-casts \
  --gpu-module-to-binary=format=isa |
  "$bin/fmha-translate" --fmha-extract-object -o "$tmp/k.ptx"
"$ptxas" -arch=sm_90a "$tmp/k.ptx" -o "$tmp/k.cubin"
python3 "$here/attention_tile.py" "$tmp/k.cubin" "$smem" "$threads"
