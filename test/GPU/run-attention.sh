#!/usr/bin/env bash
# GPU test: compiles examples/attention.mlir (head dim 128, causal) and head
# dim 256 kernels (causal and not, the default configuration) with
# --fmha-sm90-pipeline, writes their manifests, and checks them with
# attention.py through the Python runtime. Exits 77 (skipped) where there is
# no GPU, PyTorch or ptxas.
# usage: run-attention.sh BUILD_BIN_DIR PTXAS
set -euo pipefail
bin=$1 ptxas=$2
here=$(cd "$(dirname "$0")" && pwd)
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
  2>/dev/null || { echo "skipped: no GPU or no PyTorch"; exit 77; }
[ -x "$ptxas" ] || { echo "skipped: no ptxas"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Compiles the fmha.attention op in file $1 into $tmp/$2.json and its cubin.
compile() {
  local src=$1 name=$2 entry
  "$bin/fmha-opt" "$src" --fmha-sm90-pipeline=binary=none \
    -o "$tmp/$name.llvm.mlir"
  "$bin/fmha-translate" --fmha-manifest "$tmp/$name.llvm.mlir" \
    -o "$tmp/$name.json"
  "$bin/fmha-opt" "$tmp/$name.llvm.mlir" --gpu-module-to-binary=format=isa |
    "$bin/fmha-translate" --fmha-extract-object -o "$tmp/$name.ptx"
  entry=$(grep -o 'llvm.func @[A-Za-z0-9_]*' "$tmp/$name.llvm.mlir" | head -1 |
            cut -d@ -f2)
  "$ptxas" -arch=sm_90a "$tmp/$name.ptx" -o "$tmp/$entry.sm_90a.cubin"
}

# Head dim 256 with the defaults (two 64-row consumer tiles, 2 stages; O is
# staged in the Q buffers), causal and not.
for causal in "" causal; do
  name=attn_d256${causal:+_$causal}
  cat >"$tmp/$name.mlir" <<EOF
fmha.attention @$name (tensor<?x?x?x256xbf16>, tensor<?x?x?x256xbf16>,
                       tensor<?x?x?x256xbf16>)
    -> tensor<?x?x?x256xbf16> $causal target sm_90a
EOF
  compile "$tmp/$name.mlir" "$name"
done
compile "$here/../../examples/attention.mlir" attn_d128_causal

export PYTHONPATH="$here/../../python${PYTHONPATH:+:$PYTHONPATH}"
status=0
python3 "$here/attention.py" "$tmp/attn_d128_causal.json" --causal || status=1
python3 "$here/attention.py" "$tmp/attn_d256.json" || status=1
python3 "$here/attention.py" "$tmp/attn_d256_causal.json" --causal || status=1
exit $status
