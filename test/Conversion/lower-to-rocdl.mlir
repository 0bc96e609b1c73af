// remat-lower-to-rocdl: one kernel per linalg op, each in a gpu.binary of
// AMDGPU assembly for gfx942, launched from host code in the LLVM dialect.
// layernorm + gelu lower to six linalg ops (the mean sum, its division, the
// centered square sum, rstd, the normalization, gelu). erf
// becomes a polynomial: no __ocml_* library call is left.
// RUN: remat-opt %s --remat-lower-to-rocdl | FileCheck %s
// RUN: remat-opt %s --remat-lower-to-rocdl="chip=gfx90a" | FileCheck %s --check-prefix=GFX90A

// CHECK-NOT: remat.
// CHECK-NOT: linalg.
// CHECK-LABEL: llvm.func @layernorm(
// CHECK-COUNT-6: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK-COUNT-6: gpu.binary @layernorm_kernel{{(_[0-9])?}} [#gpu.object<#rocdl.target<chip = "gfx942">, {{.*}}.amdgcn_target \22amdgcn-amd-amdhsa--gfx942
// CHECK-NOT: gpu.binary
// CHECK-NOT: __ocml

// GFX90A: gpu.binary @layernorm_kernel [#gpu.object<#rocdl.target<chip = "gfx90a">, {{.*}}.amdgcn_target \22amdgcn-amd-amdhsa--gfx90a
func.func @layernorm(%x: tensor<8x64xf16>, %w: tensor<64xf16>, %b: tensor<64xf16>) -> tensor<8x64xf16> {
  %y, %mean, %rstd = remat.layernorm %x, %w, %b eps = 1.0e-05 : (tensor<8x64xf16>, tensor<64xf16>, tensor<64xf16>) -> (tensor<8x64xf16>, tensor<8xf32>, tensor<8xf32>)
  %g = remat.gelu %y : tensor<8x64xf16>
  return %g : tensor<8x64xf16>
}
