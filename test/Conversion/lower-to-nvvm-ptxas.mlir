// The PTX of remat-lower-to-nvvm assembles with ptxas for sm_90. The first
// function lowers to one kernel (gelu, whose erf comes from libdevice); its
// PTX is taken out of the gpu.binary and given to ptxas. With format=bin,
// gpu-module-to-binary itself runs ptxas on every kernel of the attention
// forward and backward and embeds the cubins (ELF objects).
// REQUIRES: ptxas

// RUN: remat-opt %s --remat-lower-to-nvvm | grep 'gpu.binary @gelu_kernel' | sed -e 's/.*assembly = "//' -e 's/">\]$//' -e 's/\\0A/\n/g' -e 's/\\09/\t/g' -e 's/\\22/"/g' > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: remat-opt %s --remat-lower-to-nvvm="format=bin" | FileCheck %s --check-prefix=CUBIN

// PTX: .target sm_90
// PTX: .visible .entry gelu_kernel(

// CUBIN-COUNT-14: gpu.binary @attention_kernel{{(_[0-9]+)?}} [#gpu.object<#nvvm.target<chip = "sm_90">, {{.*}}bin = "\7FELF
// CUBIN-NOT: gpu.binary

func.func @gelu(%x: tensor<1000xbf16>) -> tensor<1000xbf16> {
  %y = remat.gelu %x : tensor<1000xbf16>
  return %y : tensor<1000xbf16>
}

func.func @attention(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %go: tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>) {
  %o, %lse = remat.sdpa %q, %k, %v scale = 0.25 {causal} : (tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8xf32>)
  %gq, %gk, %gv = remat.sdpa_backward %go, %q, %k, %v, %o, %lse scale = 0.25 {causal} : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>)
  return %o, %gq, %gk, %gv : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
}
