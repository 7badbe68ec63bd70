#!/usr/bin/env bash
# GPU test: compiles the deliberately broken kernel of
# test/Target/sm90/ws-hang-detection.mlir with hang detection
# (ws-insert-hang-reports{wait-timeout=200000}; verify-phases=false, since the
# rings' model check rejects it on purpose) and checks with ws_hang.py that it
# traps with a hang report instead of hanging. Exits 77 (skipped) where there
# is no sm_90 GPU or no ptxas.
# usage: run-ws-hang.sh BUILD_BIN_DIR PTXAS
set -euo pipefail
bin=$1 ptxas=$2
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$ptxas" ] || { echo "skipped: no ptxas"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/fmha-opt" "$here/../Target/sm90/ws-hang-detection.mlir" \
  --ws-allocate-smem --ws-allocate-registers \
  --ws-insert-hang-reports=wait-timeout=200000 \
  --ws-lower-roles=verify-phases=false --ws-lower-cta-pairs \
  --convert-scf-to-cf --convert-ws-to-nvvm \
  --convert-nvvm-to-llvm \
  --reconcile-unrealized-casts --gpu-module-to-binary=format=isa |
  "$bin/fmha-translate" --fmha-extract-object -o "$tmp/k.ptx"
"$ptxas" -arch=sm_90a "$tmp/k.ptx" -o "$tmp/k.cubin"
python3 "$here/ws_hang.py" "$tmp/k.cubin"
