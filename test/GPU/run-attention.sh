#!/usr/bin/env bash
# GPU test: compiles examples/attention.mlir, two kernels that also return
# the log-sum-exp (head dim 128 causal, head dim 64 not) and head dim 256 with
# the default configuration (causal and not) with --fmha-sm90-pipeline, writes
# their manifests, and checks each with attention.py through the Python
# runtime (o, and lse where the manifest has it). Exits 77 (skipped) where
# there is no GPU, PyTorch or ptxas.
# usage: run-attention.sh BUILD_BIN_DIR PTXAS
set -euo pipefail
bin=$1 ptxas=$2
here=$(cd "$(dirname "$0")" && pwd)
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
  2>/dev/null || { echo "skipped: no GPU or no PyTorch"; exit 77; }
[ -x "$ptxas" ] || { echo "skipped: no ptxas"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/attn_lse.mlir" <<'MLIR'
fmha.attention @attn_lse_d128 (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
                               tensor<?x?x?x128xbf16>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>)
    causal tile [64, 64] stages 3 consumers 2 target sm_90a
MLIR
cat > "$tmp/attn_lse_d64.mlir" <<'MLIR'
fmha.attention @attn_lse_d64 (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
                              tensor<?x?x?x64xbf16>)
    -> (tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>) target sm_90a
MLIR
# Head dim 256 with the defaults (two 64-row consumer tiles, 2 stages; O is
# staged in the Q buffers), causal and not.
for causal in "" causal; do
  cat > "$tmp/attn_d256${causal:+_$causal}.mlir" <<MLIR
fmha.attention @attn_d256${causal:+_$causal} (tensor<?x?x?x256xbf16>,
    tensor<?x?x?x256xbf16>, tensor<?x?x?x256xbf16>)
    -> tensor<?x?x?x256xbf16> $causal target sm_90a
MLIR
done
# compile SOURCE NAME: NAME.json and its cubin in $tmp.
compile() {
  "$bin/fmha-opt" "$1" --fmha-sm90-pipeline=binary=none -o "$tmp/$2.llvm.mlir"
  "$bin/fmha-translate" --fmha-manifest "$tmp/$2.llvm.mlir" -o "$tmp/$2.json"
  "$bin/fmha-opt" "$tmp/$2.llvm.mlir" --gpu-module-to-binary=format=isa |
    "$bin/fmha-translate" --fmha-extract-object -o "$tmp/$2.ptx"
  local entry
  entry=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cubin"])' \
    "$tmp/$2.json")
  "$ptxas" -arch=sm_90a "$tmp/$2.ptx" -o "$tmp/$entry"
}
compile "$here/../../examples/attention.mlir" attn
compile "$tmp/attn_lse.mlir" attn_lse
compile "$tmp/attn_lse_d64.mlir" attn_lse_d64
compile "$tmp/attn_d256.mlir" attn_d256
compile "$tmp/attn_d256_causal.mlir" attn_d256_causal
export PYTHONPATH="$here/../../python${PYTHONPATH:+:$PYTHONPATH}"
status=0
python3 "$here/attention.py" "$tmp/attn.json" --causal || status=1
python3 "$here/attention.py" "$tmp/attn_lse.json" --causal || status=1
python3 "$here/attention.py" "$tmp/attn_lse.json" --causal 2,4,4,129,128 \
  1,2,1,1001,77 || status=1
python3 "$here/attention.py" "$tmp/attn_lse_d64.json" || status=1
python3 "$here/attention.py" "$tmp/attn_d256.json" || status=1
python3 "$here/attention.py" "$tmp/attn_d256_causal.json" --causal || status=1
exit $status
