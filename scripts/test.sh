#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test (lit,
# unit tests, docs check) through ctest, and ends with ctest's summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "${FMHA_BUILD_DIR:-$root/build}"
ctest --output-on-failure
