#!/usr/bin/env bash
# GPU check (issue 6), for a machine with an NVIDIA GPU; no test depends on
# it. Builds remat-opt and remat-run, then for the two bundled small layers
# (Llama-2, bf16; GPT with dropout, f16) and every planning strategy:
# plans + partitions the joint graph, runs the planned forward and backward
# on the GPU (remat-run --device=cuda: remat-lower-to-nvvm, cubins loaded
# through the CUDA driver API by lib/Runner/CudaRuntime.cpp) and compares
# every output and gradient with the joint graph run by the CPU runner.
# Also checks, once per layer, that on the GPU itself the partitioned
# functions give the joint graph's results bit for bit.
#
#   scripts/gpu-check.sh                  # build into build-gpu/, run checks
#   REMAT_BUILD_DIR=out scripts/gpu-check.sh
#   GPU_CHECK_ATOL=0.05 GPU_CHECK_RTOL=0.05 GPU_CHECK_FORMAT=isa scripts/gpu-check.sh
#   REMAT_CUDA_DRIVER=/path/libcuda.so.1 scripts/gpu-check.sh   # another driver
#
# Prints PASS or FAIL per check and the largest errors; exits 1 if any
# check failed, 2 if the machine lacks what the checks need.
#
# Tolerance: the GPU and CPU compute the same f32 formulas in the same
# order, but the GPU contracts a*b+c into FMAs (one rounding instead of
# two) and takes exp/erf/tanh/... from libdevice instead of libm (a few f32
# ulps). Results are stored in bf16 (8 significant bits) or f16 (11), so a
# tiny f32 difference occasionally flips a rounding; such flips propagate.
# The default accepts |gpu - cpu| <= 0.05 + 0.05 * |cpu| per element, a few
# bf16 ulps at the gradients' magnitudes, and the errors are printed so
# that the margin can be judged. Bitwise equality is not expected between
# devices (it is between the joint and partitioned graphs on one device).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${REMAT_BUILD_DIR:-$root/build-gpu}
llvm_prefix=/usr/lib/llvm-22
atol=${GPU_CHECK_ATOL:-0.05}
rtol=${GPU_CHECK_RTOL:-0.05}
format=${GPU_CHECK_FORMAT:-auto}
strategies=(save-all recompute-all min-cut "budget memory-budget=0.5"
            "optimal memory-budget=0.5")

missing() {
  echo "gpu-check: cannot run: $*" >&2
  exit 2
}

# 1. The machine: a GPU, its driver, a toolchain to build remat.
if ! command -v nvidia-smi >/dev/null 2>&1; then
  missing "nvidia-smi not found: no NVIDIA driver installed (this script" \
          "is for a machine with an NVIDIA GPU)"
fi
if ! gpus=$(nvidia-smi --query-gpu=name,compute_cap,driver_version \
                       --format=csv,noheader 2>&1); then
  missing "nvidia-smi failed: $gpus"
fi
if [[ -n ${REMAT_CUDA_DRIVER:-} ]]; then
  # remat-run loads this driver library instead of libcuda.so.1.
  [[ -f $REMAT_CUDA_DRIVER ]] ||
    missing "REMAT_CUDA_DRIVER=$REMAT_CUDA_DRIVER does not exist"
elif ! { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } |
       grep -q 'libcuda\.so\.1'; then
  missing "libcuda.so.1 (the CUDA driver library) is not in the loader's" \
          "cache (ldconfig -p); remat-run loads it with dlopen"
fi
echo "gpu-check: GPU: $(head -1 <<<"$gpus")"
cuda_root=${CUDA_ROOT:-${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}}
if [[ ! -f $cuda_root/nvvm/libdevice/libdevice.10.bc ]]; then
  missing "no CUDA toolkit at $cuda_root (libdevice, which the kernels'" \
          "math functions come from, and ptxas); set CUDA_ROOT"
fi
export CUDA_ROOT=$cuda_root
if [[ $format == auto && -x $cuda_root/bin/ptxas ]]; then
  # A cubin from a toolkit newer than the driver may not load; PTX is
  # compiled by the driver itself.
  toolkit_version=$("$cuda_root/bin/ptxas" --version |
                    sed -n 's/.*release \([0-9]*\)\..*/\1/p')
  driver_cuda=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9]*\)\..*/\1/p')
  if [[ -n $toolkit_version && -n $driver_cuda &&
        $driver_cuda -lt $toolkit_version ]]; then
    echo "gpu-check: driver supports CUDA $driver_cuda, toolkit is" \
         "$toolkit_version: kernels as PTX (--gpu-format=isa)"
    format=isa
  fi
fi

# 2. Build remat-opt and remat-run (LLVM/MLIR 22 from Debian).
if [[ ! -f $llvm_prefix/lib/cmake/mlir/MLIRConfig.cmake ]]; then
  echo "gpu-check: LLVM/MLIR 22 missing: running scripts/setup.sh" \
       "(installs Debian packages, needs the network)"
  REMAT_BUILD_DIR=$build "$root/scripts/setup.sh" ||
    missing "scripts/setup.sh failed"
fi
start=$(date +%s)
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm_prefix/bin/lit" \
    -DREMAT_BUILD_BENCHMARKS=OFF >/dev/null || missing "cmake failed"
fi
ninja -C "$build" remat-opt remat-run >/dev/null ||
  missing "building remat-opt and remat-run failed (ninja -C $build)"
echo "gpu-check: built in $(($(date +%s) - start)) s"
opt=$build/bin/remat-opt
run=$build/bin/remat-run

# 3. The checks: planned in order, run in parallel (each remat-run compiles
# its kernels with ptxas, one process per check), reported in order.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
names=()
logs=()
pids=()
check() { # name, log, command...
  local name=$1 log=$2
  shift 2
  names+=("$name")
  logs+=("$log")
  "$@" >"$log" 2>&1 &
  pids+=($!)
}

# Plans first, one at a time (the optimal strategy's MILP has a time limit
# and should not compete with the runs for the cores).
for layer in llama2_decoder_layer gpt_layer_dropout; do
  for strategy in "${strategies[@]}"; do
    name=${strategy%% *}
    "$opt" "$root/examples/small/$layer.mlir" \
      "--remat-plan=strategy=$strategy" --remat-partition \
      -o "$work/$layer.$name.mlir" >"$work/$layer.$name.plan.log" 2>&1 ||
      rm -f "$work/$layer.$name.mlir"
  done
done

for layer in llama2_decoder_layer gpt_layer_dropout; do
  input=$root/examples/small/$layer.mlir
  for strategy in "${strategies[@]}"; do
    name=${strategy%% *}
    plan=$work/$layer.$name.mlir
    if [[ ! -f $plan ]]; then
      check "$layer $name: plan + partition" "$work/$layer.$name.plan.failed" \
        sh -c 'cat "$1"; exit 1' sh "$work/$layer.$name.plan.log"
      continue
    fi
    # Planned forward + backward on the GPU vs the joint graph on the CPU.
    check "$layer $name: GPU forward+backward vs CPU joint (atol $atol, rtol $rtol)" \
      "$work/$layer.$name.log" \
      "$run" "$input" --function="$layer" --device=cuda --compare-devices \
      --gpu-format="$format" --check-partition="$plan" \
      --atol="$atol" --rtol="$rtol"
    if [[ $name == recompute-all ]]; then
      # On one device, recomputation re-executes the same kernels.
      check "$layer $name: GPU forward+backward vs GPU joint (bitwise)" \
        "$work/$layer.$name.bitwise.log" \
        "$run" "$input" --function="$layer" --device=cuda \
        --gpu-format="$format" --check-partition="$plan"
    fi
  done
done

failures=0
for i in "${!names[@]}"; do
  wait "${pids[$i]}"
  status=$?
  if [[ $status -eq 0 ]]; then
    echo "PASS ${names[$i]}"
  else
    failures=$((failures + 1))
    echo "FAIL ${names[$i]} (exit $status)"
  fi
  grep -E '^(device|compare|remat-run)|error:' "${logs[$i]}" | sed 's/^/    /'
done

echo "gpu-check: $((${#names[@]} - failures)) of ${#names[@]} checks passed;" \
     "$(($(date +%s) - start)) s including the build"
[[ $failures -eq 0 ]]
