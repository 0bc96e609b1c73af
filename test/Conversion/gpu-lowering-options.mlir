// Bad options of the GPU lowerings are errors before anything runs. Before
// 2026-12-07 an empty NVVM chip crashed upstream's target verifier, an
// unknown gfx chip aborted in LLVM's instruction selection, a bad NVVM
// format or a missing toolkit printed errors and still exited 0, and a
// threads-per-block past 2^32 truncated at launch. Before 2026-12-07 the
// default features (+ptx80) stopped LLVM with a fatal error on sm_100 and
// newer chips, an unknown sm_ chip or feature was a warning and PTX that
// ptxas rejects, and a PTX version older than the chip needs a fatal error.

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
// RUN: not remat-opt %s --remat-lower-to-nvvm=chip=sm_999 2>&1 | FileCheck %s --check-prefix=NVVM-UNKNOWN
// RUN: not remat-opt %s --remat-lower-to-nvvm="chip=sm_90 features=+ptx80,+ptx99" 2>&1 | FileCheck %s --check-prefix=FEATURE-UNKNOWN
// RUN: not remat-opt %s --remat-lower-to-nvvm="chip=sm_100 features=+ptx80" 2>&1 | FileCheck %s --check-prefix=PTX-OLD
// RUN: not remat-opt %s --remat-lower-to-nvvm="chip=sm_90a features=+ptx78" 2>&1 | FileCheck %s --check-prefix=PTX-OLD-A
// RUN: not remat-run %s --function=f --device=cuda --compile-only --gpu-chip=sm_120 --gpu-features=+ptx86 2>&1 | FileCheck %s --check-prefix=RUN-PTX-OLD

// Without features, each chip gets the oldest PTX version it supports.
// RUN: remat-opt %s --remat-lower-to-nvvm | FileCheck %s --check-prefix=SM90
// RUN: remat-opt %s --remat-lower-to-nvvm=chip=sm_100 | FileCheck %s --check-prefix=SM100
// RUN: remat-opt %s --remat-lower-to-nvvm=chip=sm_120a | FileCheck %s --check-prefix=SM120A

// NVVM-CHIP: error: remat-lower-to-nvvm: bad option chip={{[a-z0-9]*}}: expected an NVIDIA architecture such as sm_80 or sm_90a
// ROCDL-CHIP: error: remat-lower-to-rocdl: bad option chip=gfx9999: not an AMDGPU architecture LLVM knows (e.g. gfx90a, gfx942)
// NVVM-FORMAT: error: remat-lower-to-nvvm: bad option format=asm: expected isa, bin or fatbin
// ROCDL-FORMAT: error: remat-lower-to-rocdl: bad option format=fatbin: expected isa or bin
// FEATURES: error: remat-lower-to-nvvm: bad option features=ptx80: expected comma-separated +name or -name entries, e.g. +ptx86
// TOOLKIT: error: remat-lower-to-nvvm: bad option toolkit={{.*}}.missing: no such folder
// NVVM-UNKNOWN: error: remat-lower-to-nvvm: bad option chip=sm_999: not an NVIDIA architecture LLVM knows (e.g. sm_80, sm_90a, sm_100)
// FEATURE-UNKNOWN: error: remat-lower-to-nvvm: bad option features=+ptx80,+ptx99: 'ptx99' is not a feature LLVM's NVPTX back end knows (e.g. ptx86)
// PTX-OLD: error: remat-lower-to-nvvm: bad option features=+ptx80: PTX 8.0 is older than sm_100 needs (8.6): give +ptx86 or later, or leave the PTX version out for the chip's minimum
// PTX-OLD-A: bad option features=+ptx78: PTX 7.8 is older than sm_90a needs (8.0): give +ptx80 or later
// RUN-PTX-OLD: features=+ptx86: PTX 8.6 is older than sm_120 needs (8.7)
// SM90: #nvvm.target<chip = "sm_90">{{.*}}.version 7.8{{.*}}.target sm_90
// SM100: #nvvm.target<chip = "sm_100">{{.*}}.version 8.6{{.*}}.target sm_100
// SM120A: #nvvm.target<chip = "sm_120a">{{.*}}.version 8.7{{.*}}.target sm_120a
// THREADS: bad option threads-per-block={{[0-9]+}}: expected 1 to 1024 (the most threads a block holds)

func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = remat.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
