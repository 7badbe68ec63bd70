#!/usr/bin/env bash
# Compiles every kernel the GPU tests can select (test/GPU/prepare_cache.py)
# with this tree's build and compares their PTX, by kernel name, with the
# PTX files in BASE (a folder of <kernel>.sm_90a.ptx files, for instance one
# made by `scripts/ptx-diff.sh --save BASE` before a refactor). Prints the
# kernels whose PTX differs; exits 1 if any does.
#
#   scripts/ptx-diff.sh --save BASE   # before the change
#   scripts/ptx-diff.sh BASE          # after it
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
save=0
if [ "${1:-}" = --save ]; then save=1; shift; fi
base=${1:?usage: ptx-diff.sh [--save] BASE}
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export FMHA_BUILD_DIR=${FMHA_BUILD_DIR:-$root/build}
python3 "$root/test/GPU/prepare_cache.py" "$cache" >/dev/null
if [ $save = 1 ]; then
  mkdir -p "$base"
  find "$cache" -name '*.ptx' -exec cp {} "$base/" \;
  echo "saved $(ls "$base" | wc -l) PTX files to $base"
  exit 0
fi
same=0 differ=0 missing=0
while IFS= read -r ptx; do
  name=$(basename "$ptx")
  if [ ! -f "$base/$name" ]; then
    echo "new: $name"; missing=$((missing + 1))
  elif cmp -s "$ptx" "$base/$name"; then
    same=$((same + 1))
  else
    echo "differs: $name"; differ=$((differ + 1))
  fi
done < <(find "$cache" -name '*.ptx' | sort)
echo "$same identical, $differ differ, $missing not in $base"
[ $differ = 0 ] && [ $missing = 0 ]
