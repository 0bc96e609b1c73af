#!/usr/bin/env bash
# README command 2: set everything up, then run every test (lit suite and
# GoogleTest cases) through ctest, which prints its summary line.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
ctest --test-dir "${REMAT_BUILD_DIR:-$root/build}" --output-on-failure -j "$(nproc)"
