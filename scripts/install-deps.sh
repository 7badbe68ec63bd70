#!/usr/bin/env bash
# Installs what fmha needs to build and test on Debian 12, if it is missing:
# LLVM/MLIR 22, lit/FileCheck, ninja, ccache, lld, GoogleTest. The CUDA
# toolkit (ptxas) is expected under /usr/local/cuda; without it the PTX is
# still produced, and the tests that run ptxas are skipped.
set -euo pipefail

pkgs=(cmake ninja-build ccache g++ python3 llvm-22-dev libmlir-22-dev
      mlir-22-tools llvm-22-tools libgtest-dev zlib1g-dev libzstd-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "fmha: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
