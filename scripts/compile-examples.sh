#!/usr/bin/env bash
# The main job: installs what is missing, builds fmha, and compiles the
# example kernels to PTX and cubin for sm_90a and sm_100a, printing where they
# went and their register and shared-memory use.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

bin=${FMHA_BUILD_DIR:-$root/build}/bin
out=${FMHA_OUT_DIR:-$root/out}
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
[ -x "$ptxas" ] || ptxas=$(command -v ptxas || true)

# The ws-level pipeline: protocol check, channels to rings, phase check,
# shared memory, warp ranges, roles, CTA pairs, control flow, NVVM (the
# fmha pipelines run convert-scf-to-cf in each gpu.module only; these
# modules hold nothing else).
ws_pipeline=(--ws-verify-protocol --ws-insert-mbarriers --ws-verify-phases
             --ws-allocate-smem --ws-allocate-registers
             --ws-lower-roles --ws-lower-cta-pairs
             --convert-scf-to-cf --convert-ws-to-nvvm --convert-nvvm-to-llvm
             --reconcile-unrealized-casts)

rows=()
# Compiles $1 (LLVM/NVVM-level IR of one target) to PTX and a cubin named
# $3.$2.* in $4, and records a row of the summary table.
finish() {
  local llvm=$1 target=$2 name=$3 dir=$4
  local smem
  smem=$(grep -o 'ws.smem_bytes = [0-9]*' "$llvm" | head -1 | grep -o '[0-9]*$' || echo 0)
  "$bin/fmha-opt" "$llvm" --fmha-module-to-binary=format=isa |
    "$bin/fmha-translate" --fmha-extract-object -o "$dir/$name.$target.ptx"
  if [ -n "$ptxas" ]; then
    info=$("$ptxas" -arch="$target" -v "$dir/$name.$target.ptx" \
             -o "$dir/$name.$target.cubin" 2>&1)
    regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' <<<"$info" | head -1)
    static=$(sed -n 's/.*registers.* \([0-9]*\) bytes smem.*/\1/p' <<<"$info" | head -1)
    rows+=("$name|$target|$dir/$name.$target.ptx|$dir/$name.$target.cubin|${regs:-?}|${static:-0}|$smem")
  else
    rows+=("$name|$target|$dir/$name.$target.ptx|(no ptxas)|?|?|$smem")
  fi
}

for example in "$root"/examples/*.mlir; do
  name=$(basename "$example" .mlir)
  if grep -q 'fmha\.\(gemm\|attention\)' "$example"; then
    # Kernel ops: the whole pipeline (for the target the op names), plus
    # the launch manifest.
    target=sm_90a
    if grep -q 'target sm_100a' "$example"; then
      target=sm_100a
    fi
    dir="$out/$target"
    mkdir -p "$dir"
    echo "fmha: compiling $name for $target (--fmha-pipeline)"
    "$bin/fmha-opt" "$example" --fmha-pipeline=binary=none \
      -o "$dir/$name.llvm.mlir"
    entry=$(grep -o 'llvm.func @[A-Za-z0-9_]*' "$dir/$name.llvm.mlir" | head -1 | cut -d@ -f2)
    "$bin/fmha-translate" --fmha-manifest "$dir/$name.llvm.mlir" \
      -o "$dir/$entry.json"
    finish "$dir/$name.llvm.mlir" "$target" "$entry" "$dir"
    rows[-1]="${rows[-1]}|$dir/$entry.json"
    continue
  fi
  # ws-level examples: the ws lowering chain, for both targets.
  for target in sm_90a sm_100a; do
    dir="$out/$target"
    mkdir -p "$dir"
    echo "fmha: compiling $name for $target"
    "$bin/fmha-opt" "$example" \
      --nvvm-attach-target="chip=$target features=+ptx86" "${ws_pipeline[@]}" \
      -o "$dir/$name.llvm.mlir"
    finish "$dir/$name.llvm.mlir" "$target" "$name" "$dir"
  done
done

echo
printf '%-20s %-8s %-5s %-12s %-13s %s\n' kernel target regs "static smem" "dynamic smem" "PTX / cubin"
for row in "${rows[@]}"; do
  IFS='|' read -r name target ptx cubin regs static dyn manifest <<<"$row"
  printf '%-20s %-8s %-5s %-12s %-13s %s\n' "$name" "$target" "$regs" \
    "$static B" "$dyn B" "${ptx#"$root"/}"
  printf '%-63s %s\n' "" "${cubin#"$root"/}"
  [ -z "$manifest" ] || printf '%-63s %s\n' "" "${manifest#"$root"/}"
done
