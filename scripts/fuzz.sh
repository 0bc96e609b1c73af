#!/usr/bin/env bash
# Builds the libFuzzer targets with clang 22 (ASan + UBSan + coverage on
# remat's code) in build-fuzz/ and runs each for a bounded time:
#
#   scripts/fuzz.sh [SECONDS_PER_FUZZER]    (default 600)
#
# The two fuzzers run one after the other; REMAT_FUZZ_PARALLEL=1 runs them
# at the same time (one core each, output interleaved; each ends with its
# own final stats), which halves the wall time on a machine with two free
# cores.
# remat-planner-fuzzer decodes bytes into joint graphs and planning options
# and checks the plan invariants; remat-mlir-fuzzer runs .mlir text through
# parse -> verify -> remat-plan -> remat-partition -> verify. Corpora live in
# build-fuzz/corpus/ (the MLIR one is seeded from test/ and examples/). A
# crash leaves its input in build-fuzz/findings/; once fixed, copy it to
# test/fuzz-regressions/{planner,mlir}/ so ctest replays it in every build.
# See docs/Reliability.md.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-600}
build=${REMAT_FUZZ_BUILD_DIR:-$root/build-fuzz}
llvm=/usr/lib/llvm-22
jobs=${REMAT_FUZZ_JOBS:-$(nproc)}

if [[ ! -x $llvm/bin/clang++ ]]; then
  echo "fuzz.sh: $llvm/bin/clang++ not found; install clang-22 (scripts/setup.sh lists it)" >&2
  exit 1
fi
# libFuzzer and the sanitizers' runtimes and headers (<sanitizer/...>) are
# not part of clang-22: without this package the first compile fails.
source "$root/scripts/ensure-packages.sh"
ensure_packages fuzz.sh libclang-rt-22-dev

# Werror stays off here: clang 22 warns about MLIR's generated code (unused
# parameters) that g++, the compiler the project gates on, accepts.
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=$llvm/bin/clang -DCMAKE_CXX_COMPILER=$llvm/bin/clang++ \
    -DMLIR_DIR=$llvm/lib/cmake/mlir -DLLVM_EXTERNAL_LIT=$llvm/bin/lit \
    -DREMAT_ENABLE_FUZZERS=ON -DREMAT_WERROR=OFF -DREMAT_BUILD_BENCHMARKS=OFF
fi
ninja -C "$build" -j "$jobs" remat-planner-fuzzer remat-mlir-fuzzer

# Seeds: the regression inputs, plus for the MLIR fuzzer every .mlir test and
# example under 16 KiB (bigger files slow each run without adding syntax).
mkdir -p "$build/corpus/planner" "$build/corpus/mlir" "$build/findings"
cp -n "$root"/test/fuzz-regressions/planner/* "$build/corpus/planner/" 2>/dev/null || true
cp -n "$root"/test/fuzz-regressions/mlir/* "$build/corpus/mlir/" 2>/dev/null || true
find "$root/test" "$root/examples" -name '*.mlir' -size -16k -print0 |
  while IFS= read -r -d '' file; do
    cp -n "$file" "$build/corpus/mlir/$(echo "$file" | md5sum | cut -c1-16).mlir"
  done

# Findings are judged by this run's: a file left in findings/ by an earlier
# run (already triaged, or the known upstream crash) is listed, not failed.
marker="$build/findings/.run-start"
touch "$marker"
status=0
fuzz() {
  local name=$1 corpus=$2
  shift 2
  echo "== $name for ${seconds}s"
  cd "$build/findings" &&
    UBSAN_OPTIONS=print_stacktrace=1 ASAN_OPTIONS=detect_leaks=0 \
      "$build/bin/$name" "$corpus" -max_total_time="$seconds" \
      -print_final_stats=1 -timeout=30 -rss_limit_mb=4096 "$@"
}
background=
run() {
  if [[ ${REMAT_FUZZ_PARALLEL:-0} == 1 ]]; then
    (fuzz "$@") &
    background+=" $!"
  else
    (fuzz "$@") || status=1
  fi
}
run remat-planner-fuzzer "$build/corpus/planner" -max_len=4096
# MLIR dictionary entries help the mutator keep inputs parseable. The MLIR
# fuzzer keeps going after a crash (-fork=1 -ignore_crashes=1): Debian's
# MLIR 22 itself crashes on some malformed input (linalg.transpose with a
# non-integer permutation entry, docs/Reliability.md), which would otherwise
# end every run within minutes. Each crash input still lands in findings/.
run remat-mlir-fuzzer "$build/corpus/mlir" -max_len=16384 \
  -dict="$root/fuzz/mlir.dict" -fork=1 -ignore_crashes=1
for pid in $background; do
  wait "$pid" || status=1
done
findings() { # $1: -newer or ! -newer
  find "$build/findings" -maxdepth 1 -type f "$@" "$marker" \
    \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \) | sort
}
mapfile -t earlier < <(findings ! -newer)
mapfile -t found < <(findings -newer)
if [[ ${#earlier[@]} -gt 0 ]]; then
  echo "fuzz.sh: ${#earlier[@]} finding(s) from earlier runs still in $build/findings (not this run's; delete them once triaged):"
  printf '  %s\n' "${earlier[@]}"
fi
if [[ $status -ne 0 || ${#found[@]} -gt 0 ]]; then
  echo "fuzz.sh: failures to triage (replay one with bin/<fuzzer> FILE):" >&2
  printf '  %s\n' "${found[@]}" >&2
  exit 1
fi
echo "fuzz.sh: no findings in this run"
