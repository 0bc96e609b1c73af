// format=bin links HSACO with <toolkit>/llvm/bin/ld.lld (ROCm's layout):
// a folder whose `llvm` entry is the LLVM install with lld stands in for
// ROCm.
// REQUIRES: ld.lld
// RUN: rm -rf %t && mkdir -p %t && ln -s %llvm_root %t/llvm
// RUN: remat-opt %s --remat-lower-to-rocdl="format=bin toolkit=%t" | FileCheck %s

// CHECK: gpu.binary @scale_kernel [#gpu.object<#rocdl.target<chip = "gfx942">, bin = "\7FELF
func.func @scale(%x: tensor<256xf32>) -> tensor<256xf32> {
  %y = remat.mul_scalar %x, 2.0 : tensor<256xf32>
  return %y : tensor<256xf32>
}
