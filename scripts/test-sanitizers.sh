#!/usr/bin/env bash
# Builds remat with AddressSanitizer + UndefinedBehaviorSanitizer (g++,
# -DREMAT_SANITIZE=address,undefined; LLVM/MLIR themselves stay
# uninstrumented) in build-asan/ and runs the test suite there:
#
#   scripts/test-sanitizers.sh            every ctest test but install-consumer
#   scripts/test-sanitizers.sh --subset   the core GoogleTests, the fuzz
#                                         regressions and the lit tests of the
#                                         planning passes, errors and stress
#
# install-consumer is left out: it re-installs the package and builds a
# consumer project, which tests packaging, not memory safety. Timings on the
# 2-core machine: docs/Reliability.md.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${REMAT_ASAN_BUILD_DIR:-$root/build-asan}
subset=0
case "${1:-}" in
  "") ;;
  --subset) subset=1 ;;
  *) echo "usage: $0 [--subset]" >&2; exit 2 ;;
esac

if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DREMAT_SANITIZE=address,undefined -DREMAT_BUILD_BENCHMARKS=OFF
fi

# Any report fails the test that hit it (the build uses
# -fno-sanitize-recover=all); leaks count as failures too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if [[ $subset -eq 0 ]]; then
  ninja -C "$build"
  ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -E '^install-consumer$'
  exit
fi

ninja -C "$build" RematCoreTests remat-planner-fuzz-replay \
  remat-mlir-fuzz-replay remat-opt
"$build/bin/RematCoreTests"
ctest --test-dir "$build" --output-on-failure -R '^fuzz-regressions-'
/usr/lib/llvm-22/bin/lit -sv "$build/test" \
  --filter '^REMAT :: (Transforms|Errors|Stress)/'
