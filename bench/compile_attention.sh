#!/usr/bin/env bash
# Compiles the kernels bench/attention.py times: attn_d<D>[_causal] for head
# dims 64, 128 and 256, bf16, dynamic batch/heads/lengths, each with the
# compiler's default tile and stages, into OUT_DIR as <name>.json manifests
# and sm_90a cubins (ptxas's spill report printed per kernel). Run it where
# fmha is built, copy OUT_DIR to the GPU machine, then
# `python3 bench/attention.py OUT_DIR`. FMHA_PIPELINE_OPTS adds options
# to the pipeline (e.g. `replica-roles=false`, to compare builds).
# usage: bench/compile_attention.sh BUILD_BIN_DIR OUT_DIR [PTXAS]
set -euo pipefail
bin=$1 out=$2 ptxas=${3:-ptxas}
mkdir -p "$out"
for d in 64 128 256; do
  for mask in "" causal; do
    name=attn_d$d${mask:+_$mask}
    echo "compiling $name"
    cat > "$out/$name.mlir" <<MLIR
fmha.attention @$name (tensor<?x?x?x${d}xbf16>, tensor<?x?x?x${d}xbf16>,
                       tensor<?x?x?x${d}xbf16>)
    -> tensor<?x?x?x${d}xbf16> $mask target sm_90a
MLIR
    "$bin/fmha-opt" "$out/$name.mlir" \
      --fmha-sm90-pipeline="binary=none ${FMHA_PIPELINE_OPTS:-}" \
      -o "$out/$name.llvm.mlir"
    "$bin/fmha-translate" --fmha-manifest "$out/$name.llvm.mlir" \
      -o "$out/$name.json"
    "$bin/fmha-opt" "$out/$name.llvm.mlir" --gpu-module-to-binary=format=isa |
      "$bin/fmha-translate" --fmha-extract-object -o "$out/$name.ptx"
    "$ptxas" -arch=sm_90a -v "$out/$name.ptx" \
      -o "$out/$name.sm_90a.cubin" 2>&1 | grep spill || true
    rm -f "$out/$name.llvm.mlir"
  done
done
