#!/usr/bin/env bash
# README command 2: set everything up, then run every test: the lit suite and
# GoogleTest cases through ctest on the normal build, then the same suite
# again on an AddressSanitizer + UndefinedBehaviorSanitizer build
# (scripts/test-sanitizers.sh, build-asan/). The sanitizer pass roughly
# doubles the time (about 10 minutes more on 2 idle cores, measured in
# docs/Reliability.md); REMAT_SKIP_SANITIZERS=1 skips it for a quick local run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
ctest --test-dir "${REMAT_BUILD_DIR:-$root/build}" --output-on-failure -j "$(nproc)"
if [[ ${REMAT_SKIP_SANITIZERS:-0} != 1 ]]; then
  echo "== the same suite under ASan + UBSan (scripts/test-sanitizers.sh) =="
  "$root/scripts/test-sanitizers.sh"
fi
