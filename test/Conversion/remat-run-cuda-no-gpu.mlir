// Where the NVIDIA driver or a GPU is missing (these CI machines),
// remat-run --device=cuda stops before compiling, with exit code 2 and the
// reason: the dlopen error for libcuda.so.1, or the driver's own.
// UNSUPPORTED: cuda-gpu
// RUN: not remat-run %S/remat-run-cuda.mlir --function=softmax_dropout --device=cuda 2>&1 | FileCheck %s
// RUN: remat-run %S/remat-run-cuda.mlir --function=softmax_dropout --device=cuda 2>/dev/null; test $? -eq 2
// CHECK: remat-run: error: --device=cuda {{needs the NVIDIA driver \(libcuda.so.1\): .*|found no usable GPU: .*}}
