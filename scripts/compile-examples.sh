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

# The ws-level pipeline: channels to rings, shared memory, warp ranges, NVVM.
ws_pipeline=(--ws-insert-mbarriers --ws-allocate-smem --ws-allocate-registers
             --convert-ws-to-nvvm --convert-nvvm-to-llvm
             --reconcile-unrealized-casts)

rows=()
for example in "$root"/examples/*.mlir; do
  name=$(basename "$example" .mlir)
  for target in sm_90a sm_100a; do
    dir="$out/$target"
    mkdir -p "$dir"
    echo "fmha: compiling $name for $target"
    "$bin/fmha-opt" "$example" \
      --nvvm-attach-target="chip=$target features=+ptx86" "${ws_pipeline[@]}" \
      -o "$dir/$name.llvm.mlir"
    smem=$(grep -o 'ws.smem_bytes = [0-9]*' "$dir/$name.llvm.mlir" | head -1 |
           grep -o '[0-9]*$' || echo 0)
    "$bin/fmha-opt" "$dir/$name.llvm.mlir" --gpu-module-to-binary=format=isa |
      "$bin/fmha-translate" --fmha-extract-object -o "$dir/$name.ptx"
    if [ -n "$ptxas" ]; then
      info=$("$ptxas" -arch="$target" -v "$dir/$name.ptx" \
               -o "$dir/$name.cubin" 2>&1)
      regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' <<<"$info" | head -1)
      static=$(sed -n 's/.*registers.* \([0-9]*\) bytes smem.*/\1/p' <<<"$info" | head -1)
      rows+=("$name|$target|$dir/$name.ptx|$dir/$name.cubin|${regs:-?}|${static:-0}|$smem")
    else
      rows+=("$name|$target|$dir/$name.ptx|(no ptxas)|?|?|$smem")
    fi
  done
done

echo
printf '%-12s %-8s %-5s %-12s %-13s %s\n' kernel target regs "static smem" "dynamic smem" "PTX / cubin"
for row in "${rows[@]}"; do
  IFS='|' read -r name target ptx cubin regs static dyn <<<"$row"
  printf '%-12s %-8s %-5s %-12s %-13s %s\n' "$name" "$target" "$regs" \
    "$static B" "$dyn B" "${ptx#"$root"/}"
  printf '%-55s %s\n' "" "${cubin#"$root"/}"
done
