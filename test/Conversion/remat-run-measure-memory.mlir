// remat-run --measure-memory: the lowered code allocates through counting
// hooks; per call, remat-run prints the caller's argument buffers, the
// arguments handed to the function (owned), the returned buffers, the heap
// high-water mark of the function's buffers and its stack buffers. Figures
// are exact for this chain of four exps on 256 f32 (1 KiB each): %a, %b, %c
// are heap intermediates and %d the returned buffer, allocated when it is
// computed (the runner copies it out and frees it). Each intermediate is
// freed after its last read (remat-dealloc-at-last-use), so at most two are
// live at once: 2 KiB, where freeing at return (the ownership-based pipeline
// alone) held 4 KiB, and a result out-parameter added 1 KiB to every
// moment of the call.

// RUN: remat-run %s --function=chain --measure-memory | FileCheck %s --check-prefix=CHAIN
// CHAIN: @chain result 0 tensor<256xf32>:
// CHAIN-NEXT: @chain memory (bytes): arguments 1024 owned 0 results 1024 heap-high-water 2048 stack 0 peak 2048 | heap allocations 4 allocated 4096 live-at-return 0

// A one-op function allocates its result only. With --compare both calls
// are measured, each from zero.
// RUN: remat-run %s --function=chain --compare=one --input=0:0 --atol=1e30 --measure-memory | FileCheck %s --check-prefix=COMPARE
// COMPARE: @chain memory (bytes): arguments 1024 owned 0 results 1024 heap-high-water 2048
// COMPARE: @one memory (bytes): arguments 1024 owned 0 results 1024 heap-high-water 1024 stack 0 peak 1024 | heap allocations 1 allocated 1024 live-at-return 0

// Results are the same with and without the hooks.
// RUN: remat-run %s --function=chain --measure-memory --format=hex | grep "result 0" > %t.measured
// RUN: remat-run %s --function=chain --format=hex | grep "result 0" > %t.plain
// RUN: diff %t.measured %t.plain

// The GPU path has no counting hooks: a clear error before anything is
// compiled, with or without a driver.
// RUN: not remat-run %s --function=chain --measure-memory --device=cuda 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: not remat-run %s --function=chain --measure-memory --device=cuda --compile-only 2>&1 | FileCheck %s --check-prefix=CUDA
// Tolerances and optimization levels that no comparison or JIT could use
// are refused (they were accepted, and a NaN tolerance failed every check):
// RUN: not remat-run %s --function=chain --compare=one --atol=nan 2>&1 | FileCheck %s --check-prefix=TOL
// RUN: not remat-run %s --function=chain --compare=one --rtol=-1 2>&1 | FileCheck %s --check-prefix=TOL
// TOL: remat-run: error: --atol and --rtol must be non-negative numbers
// RUN: not remat-run %s --function=chain --opt-level=99 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: remat-run: error: --opt-level must be 0, 1, 2 or 3 (LLVM's levels), got 99
// CUDA: remat-run: error: --measure-memory works with --device=cpu only: it counts the heap allocations of remat-lower-to-cpu's host code (on cuda buffers are the CUDA runtime's managed memory, which it does not count)

func.func @chain(%x: tensor<256xf32>) -> tensor<256xf32> {
  %a = remat.exp %x : tensor<256xf32>
  %b = remat.exp %a : tensor<256xf32>
  %c = remat.exp %b : tensor<256xf32>
  %d = remat.exp %c : tensor<256xf32>
  return %d : tensor<256xf32>
}

func.func @one(%x: tensor<256xf32>) -> tensor<256xf32> {
  %a = remat.exp %x : tensor<256xf32>
  return %a : tensor<256xf32>
}
