// remat-run --device=cuda without a usable NVIDIA driver: a clean error
// (exit 2) that names the library and says why it did not load. The
// driver library is overridden with one that cannot exist, so this holds
// on machines with a GPU as well.
// RUN: env REMAT_CUDA_DRIVER=%t.missing/libcuda.so.1 not remat-run %s --function=softmax_dropout --device=cuda 2>&1 | FileCheck %s --check-prefix=NODRIVER
// NODRIVER: remat-run: error: --device=cuda needs the NVIDIA driver ({{.*}}.missing/libcuda.so.1): {{.*}}libcuda.so.1: cannot open shared object file
// RUN: env REMAT_CUDA_DRIVER=%t.missing/libcuda.so.1 remat-run %s --function=softmax_dropout --device=cuda --compare-devices 2>/dev/null; test $? -eq 2

// Without a driver the host module still compiles and links: every mgpu*
// function its code calls (module loads in global constructors, launches,
// streams, managed allocations and frees) resolves to lib/Runner's runtime.
// RUN: env REMAT_CUDA_DRIVER=%t.missing/libcuda.so.1 remat-run %s --function=softmax_dropout --device=cuda --compile-only --gpu-format=isa | FileCheck %s --check-prefix=LINK
// LINK: compiled '{{.*}}remat-run-cuda.mlir': cuda: 1 callable functions, {{[1-9][0-9]*}} kernels (sm_90 PTX), host code calls {{[0-9]+}} runtime functions, all resolved

// Usage errors.
// RUN: not remat-run %s --function=softmax_dropout --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: remat-run: error: --device must be cpu or cuda, got 'tpu'
// RUN: not remat-run %s --function=softmax_dropout --compare-devices 2>&1 | FileCheck %s --check-prefix=CPUONLY
// CPUONLY: remat-run: error: --compare-devices compares --device=cuda with the CPU; add --device=cuda
// RUN: not remat-run %s --function=softmax_dropout --device=cuda --gpu-format=sass --compile-only 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: remat-run: error: --gpu-format must be auto, bin or isa, got 'sass'

// The CPU is unchanged by the option.
// RUN: remat-run %s --function=softmax_dropout --device=cpu --compile-only | FileCheck %s --check-prefix=CPU
// CPU: compiled '{{.*}}remat-run-cuda.mlir': cpu: 1 callable functions

// Dropout reads its seed and offset on the host (scalar loads between
// kernels): like every other buffer they are in managed memory.
func.func @softmax_dropout(%x: tensor<4x32xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<4x32xf32>, tensor<4x32xi1>) {
  %s = remat.softmax %x dim = 1 : tensor<4x32xf32>
  %y, %mask = remat.dropout %s, %seed, %offset p = 0.25 : (tensor<4x32xf32>, tensor<i64>, tensor<i64>) -> (tensor<4x32xf32>, tensor<4x32xi1>)
  return %y, %mask : tensor<4x32xf32>, tensor<4x32xi1>
}
