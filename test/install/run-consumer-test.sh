#!/usr/bin/env bash
# Installs remat from BUILD_DIR into a fresh prefix, then configures, builds
# and runs test/install (a project outside remat's build that only calls
# find_package(MLIRRemat)) and test/install/core (the MLIR-free core alone,
# with MLIR hidden), and checks what they and the installed remat-opt
# print. Registered with ctest as `install-consumer`.
#
#   test/install/run-consumer-test.sh BUILD_DIR
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR (a configured remat build tree)" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "$1" && pwd)
work=$build/test/install-consumer
prefix=$work/prefix
consumer=$work/build

rm -rf "$work"
mkdir -p "$work"

# ctest does not build; bring the tree up to date first (a no-op when it
# already is) so the package holds the current libraries and headers.
if ! cmake --build "$build" >"$work/remat-build.log" 2>&1; then
  cat "$work/remat-build.log" >&2
  echo "install-consumer: building $build failed" >&2
  exit 1
fi
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

# Only the prefix is given: MLIR must be found through the package's own
# dependency on the MLIR it was built against.
cmake -G Ninja -S "$here" -B "$consumer" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")" \
  >"$work/configure.log"
if ! cmake --build "$consumer" >"$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  echo "install-consumer: building the consumer against the package failed" >&2
  exit 1
fi

# The MLIR-free core alone, with MLIR and LLVM hidden from find_package: the
# package must not look for them when only `Core` is asked for.
core_consumer=$work/core-build
cmake -G Ninja -S "$here/core" -B "$core_consumer" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_DISABLE_FIND_PACKAGE_MLIR=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON \
  -DCMAKE_CXX_COMPILER="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")" \
  >"$work/core-configure.log" 2>&1 || {
  cat "$work/core-configure.log" >&2
  echo "install-consumer: configuring the core-only consumer failed" >&2
  exit 1
}
if ! cmake --build "$core_consumer" >"$work/core-build.log" 2>&1; then
  cat "$work/core-build.log" >&2
  echo "install-consumer: building the core-only consumer against the package failed" >&2
  exit 1
fi
# A component the package lacks: the search fails and names the real ones.
if cmake -G Ninja -S "$here/core" -B "$work/bogus-build" \
    -DCMAKE_PREFIX_PATH="$prefix" "-DREMAT_CONSUMER_COMPONENTS=Core;Bogus" \
    >"$work/bogus-configure.log" 2>&1; then
  echo "install-consumer: find_package(MLIRRemat COMPONENTS Bogus) succeeded" >&2
  exit 1
fi

output=$("$consumer/remat-consumer")
output+=$'\n'$("$consumer/remat-consumer-report-diff")
output+=$'\n'$("$consumer/remat-consumer-tool-support")
output+=$'\n'$("$core_consumer/remat-core-consumer")
output+=$'\n'$(grep -o "MLIRRemat has no component 'Bogus'; its components are Core" \
  "$work/bogus-configure.log" | head -n1)
# The installed tools start from the prefix (they find libMLIR.so through
# their RUNPATH, not through the build tree).
output+=$'\n'$("$prefix/bin/remat-opt" --version | grep -m1 -o "LLVM version [0-9]*")
echo "$output"

expected=(
  "verified: module"
  "remat.matmul query_proj flops=524288 bytes_read=24576 bytes_written=4096 class=matmul no_auto_recompute=yes"
  "arith.addf bias flops=2048 bytes_read=8192 bytes_written=4096 class=pointwise no_auto_recompute=no"
  "planned ops: 2"
  "rejected: contradictory tags: 'remat.never_recompute' forbids recomputation but 'remat.must_recompute' requires it; remove one of them"
  "report-diff: parsePercent(2.5%) = 2.500000e+00"
  "tool-support: diagnostic options registered"
  "core: x input"
  "core: y recompute"
  "core: z not-needed"
  "core: refused: op 0 'exp' (remat.exp) reads value 4 'dx', produced by op 2 'exp_bwd' (remat.mul), which comes later; ops must be in a topological order (operands defined before use)"
  "MLIRRemat has no component 'Bogus'; its components are Core"
  "LLVM version 22"
)
status=0
for line in "${expected[@]}"; do
  if ! grep -qxF -- "$line" <<<"$output"; then
    echo "install-consumer: missing output line: $line" >&2
    status=1
  fi
done
if ((status == 0)); then
  echo "install-consumer: PASS"
fi
exit $status
