#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test (lit,
# unit tests, docs check, GPU tests where a GPU is present) through ctest, and
# ends with a line `ctest: N passed, N failed, N skipped`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "${FMHA_BUILD_DIR:-$root/build}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
ctest --output-on-failure 2>&1 | tee "$log" || status=$?
total=$(sed -n 's/.* tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
failed=$(sed -n 's/.* \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -1)
skipped=$(grep -c '(Skipped)$' "$log" || true)
if [ -z "$total" ]; then
  echo "ctest printed no summary"
  exit 1
fi
echo "ctest: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
exit "$status"
