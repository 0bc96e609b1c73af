// On a machine with an NVIDIA GPU: the function runs as kernels and its
// results are compared with the CPU's. The dropout mask is integer
// arithmetic (bitwise equal); the softmax uses libdevice's expf on the GPU
// and libm's on the CPU, and FMA contraction, so it is compared within a
// few f32 ulps. Elsewhere lit reports this test unsupported
// (scripts/gpu-check.sh runs the bundled layers on a GPU).
// REQUIRES: cuda-gpu, ptxas
// RUN: remat-run %S/remat-run-cuda.mlir --function=softmax_dropout --device=cuda --compare-devices --atol=1e-6 --rtol=1e-5 | FileCheck %s
// CHECK: device: {{.*}}(sm_{{[0-9]+}}
// CHECK: compare result 0: {{.*}}(0 of 128 elements outside tolerance)
// CHECK: compare result 1: bitwise-equal
// CHECK: PASS: @softmax_dropout on cuda vs cpu
