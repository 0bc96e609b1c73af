// remat-lower-to-nvvm: every linalg op becomes one kernel in its own
// gpu.binary of PTX for sm_90, launched from host code in the LLVM dialect.
// softmax + relu lower to four linalg ops: the row max, the sum of
// exponentials (each accumulating in a register, no fill of an accumulator
// tensor first), the normalization and the relu map, hence four kernels.
// RUN: remat-opt %s --remat-lower-to-nvvm | FileCheck %s
// RUN: remat-opt %s --remat-lower-to-nvvm="chip=sm_80 features=+ptx75 threads-per-block=64" | FileCheck %s --check-prefix=SM80

// CHECK-NOT: remat.
// CHECK-NOT: linalg.
// CHECK-LABEL: llvm.func @softmax_relu(
// CHECK-COUNT-4: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK-COUNT-4: gpu.binary @softmax_relu_kernel{{(_[0-9])?}} [#gpu.object<#nvvm.target<chip = "sm_90">, {{.*}}assembly = "{{.*}}.target sm_90{{.*}}.visible .entry softmax_relu_kernel
// CHECK-NOT: gpu.binary

// Tiles of 64 threads: the kernels declare 64 threads per block.
// SM80: gpu.binary @softmax_relu_kernel [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx75">, {{.*}}.target sm_80{{.*}}.maxntid 64, 1, 1
func.func @softmax_relu(%x: tensor<4x100xbf16>) -> tensor<4x100xbf16> {
  %s = remat.softmax %x dim = 1 : tensor<4x100xbf16>
  %r = remat.relu %s : tensor<4x100xbf16>
  return %r : tensor<4x100xbf16>
}
