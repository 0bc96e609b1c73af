// The whole remat-run --device=cuda path on a machine without a GPU, with
// a fake driver (Inputs/fake_cuda_driver.c): driver initialization, the
// kernels loaded by the host module's global constructors (cubins from
// ptxas, or PTX), every launch with its parameters, managed allocations
// and frees, results copied back. The fake driver checks what it is given
// (a cubin or PTX image, kernel names found in it, non-empty launch
// shapes, the primary context current) but runs no kernel, so results are
// zero; it reports at exit. Every buffer is freed, every stream destroyed.
// REQUIRES: host-cc
// RUN: rm -rf %t.driver && mkdir -p %t.driver
// RUN: %host_cc -shared -fPIC -o %t.driver/libcuda.so.1 %S/Inputs/fake_cuda_driver.c
// RUN: env REMAT_CUDA_DRIVER=%t.driver/libcuda.so.1 remat-run %S/remat-run-cuda.mlir --function=softmax_dropout --device=cuda --gpu-format=isa 2>&1 | FileCheck %s --check-prefix=PTX
// PTX: device: Fake GPU (sm_90, 1 GiB, driver 13.0)
// PTX: @softmax_dropout result 0 tensor<4x32xf32>: 0 0 0
// PTX: fake-cuda: 4 modules loaded (0 cubin, 4 PTX), 4 unloaded, 4 kernels found, 4 launches, 8 allocations, 8 frees, 0 live, streams balanced

// With ptxas, cubins.
// RUN: %if ptxas %{ env REMAT_CUDA_DRIVER=%t.driver/libcuda.so.1 remat-run %S/remat-run-cuda.mlir --function=softmax_dropout --device=cuda --gpu-format=bin 2>&1 | FileCheck %s --check-prefix=CUBIN %}
// CUBIN: fake-cuda: 4 modules loaded (4 cubin, 0 PTX), 4 unloaded, 4 kernels found, 4 launches, 8 allocations, 8 frees, 0 live, streams balanced

// A failing driver call is reported after the call returns (exit 2), with
// the driver's name and text for the error and the launch shape.
// RUN: env REMAT_CUDA_DRIVER=%t.driver/libcuda.so.1 FAKE_CUDA_FAIL=launch not remat-run %S/remat-run-cuda.mlir --function=softmax_dropout --device=cuda --gpu-format=isa 2>&1 | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: remat-run: error: CUDA runtime: cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719): unspecified launch failure
// LAUNCH-NEXT: grid 1x1x1, block 128x1x1

// The planned forward and backward of the GPT layer with dropout, against
// the joint graph on the CPU: the comparison itself fails (no kernel ran),
// but every step up to it runs and every buffer is freed.
// RUN: remat-opt %examples/small/gpt_layer_dropout.mlir --remat-plan --remat-partition -o %t.gpt.mlir
// RUN: env REMAT_CUDA_DRIVER=%t.driver/libcuda.so.1 not remat-run %examples/small/gpt_layer_dropout.mlir --function=gpt_layer_dropout --device=cuda --gpu-format=isa --compare-devices --check-partition=%t.gpt.mlir --atol=0.05 --rtol=0.05 2>&1 | FileCheck %s --check-prefix=GPT
// GPT: device: Fake GPU
// GPT: compare output 0: differs
// GPT: FAIL: @gpt_layer_dropout on cpu vs @gpt_layer_dropout_forward + @gpt_layer_dropout_backward on cuda
// GPT: fake-cuda: [[N:[0-9]+]] modules loaded (0 cubin, [[N]] PTX), [[N]] unloaded, [[N]] kernels found, [[N]] launches, [[A:[0-9]+]] allocations, [[A]] frees, 0 live, streams balanced
