// Bad options of the GPU lowerings are errors before anything runs. Before
// 2026-12-07 an empty NVVM chip crashed upstream's target verifier, an
// unknown gfx chip aborted in LLVM's instruction selection, a bad NVVM
// format or a missing toolkit printed errors and still exited 0, and a
// threads-per-block past 2^32 truncated at launch.

// RUN: not remat-opt %s --remat-lower-to-nvvm=chip= 2>&1 | FileCheck %s --check-prefix=NVVM-CHIP
// RUN: not remat-opt %s --remat-lower-to-nvvm=chip=gfx942 2>&1 | FileCheck %s --check-prefix=NVVM-CHIP
// RUN: not remat-opt %s --remat-lower-to-rocdl=chip=gfx9999 2>&1 | FileCheck %s --check-prefix=ROCDL-CHIP
// RUN: not remat-opt %s --remat-lower-to-nvvm=format=asm 2>&1 | FileCheck %s --check-prefix=NVVM-FORMAT
// RUN: not remat-opt %s --remat-lower-to-rocdl=format=fatbin 2>&1 | FileCheck %s --check-prefix=ROCDL-FORMAT
// RUN: not remat-opt %s --remat-lower-to-nvvm=features=ptx80 2>&1 | FileCheck %s --check-prefix=FEATURES
// RUN: not remat-opt %s --remat-lower-to-nvvm=toolkit=%t.missing 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not remat-opt %s --remat-lower-to-nvvm=threads-per-block=4294967297 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not remat-opt %s --remat-lower-to-rocdl=threads-per-block=0 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: remat-opt %s --remat-lower-to-nvvm="chip=sm_90a features=+ptx80,+sm_90a threads-per-block=1024" -o /dev/null

// NVVM-CHIP: error: remat-lower-to-nvvm: bad option chip={{[a-z0-9]*}}: expected an NVIDIA architecture such as sm_80 or sm_90a
// ROCDL-CHIP: error: remat-lower-to-rocdl: bad option chip=gfx9999: not an AMDGPU architecture LLVM knows (e.g. gfx90a, gfx942)
// NVVM-FORMAT: error: remat-lower-to-nvvm: bad option format=asm: expected isa, bin or fatbin
// ROCDL-FORMAT: error: remat-lower-to-rocdl: bad option format=fatbin: expected isa or bin
// FEATURES: error: remat-lower-to-nvvm: bad option features=ptx80: expected comma-separated +name or -name entries, e.g. +ptx80
// TOOLKIT: error: remat-lower-to-nvvm: bad option toolkit={{.*}}.missing: no such folder
// THREADS: bad option threads-per-block={{[0-9]+}}: expected 1 to 1024 (the most threads a block holds)

func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = remat.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
