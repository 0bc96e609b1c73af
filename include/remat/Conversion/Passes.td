//===- Passes.td - remat lowering passes -------------------*- tablegen -*-===//
//
// Part of remat. The lowering of planned graphs: remat ops to linalg on
// tensors, and from there to the host (LLVM dialect) and to GPU binaries
// (NVVM, ROCDL). Pipelines are composed in lib/Conversion/Pipelines; this
// file declares the passes that name them.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CONVERSION_PASSES_TD
#define REMAT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def RematLowerToLinalgPass : Pass<"remat-lower-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower every typed remat op to linalg, tensor, arith and math "
                "on tensors";
  let description = [{
    Rewrites each remat op (all but `remat.opaque`, which has no semantics
    to lower and is reported as an error) into upstream ops on tensors:
    `linalg.generic` for elementwise ops, contractions, reductions,
    normalizations, attention, convolution and pooling; `tensor` ops for
    views (`collapse_shape`/`expand_shape`, `extract_slice`, `insert_slice`,
    `pad`); `arith`/`math` in the bodies.

    Floating-point work is done in f32: bf16/f16 operands are extended when
    read and results truncated once when written, and every reduction
    accumulates in f32 (as the statistics results already are). Dropout
    draws its keep-mask from a counter-based hash of (seed, offset + linear
    element index), so recomputing a dropout regenerates the same mask; see
    docs/Lowering.md for the generator.

    Remat attributes on functions and arguments (roles, tags, decisions)
    are left in place; they do not affect the lowering.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def RematLowerToCPUPass : Pass<"remat-lower-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Lower a remat module to the LLVM dialect for the host";
  let description = [{
    Runs `remat-lower-to-linalg` and then the host pipeline: one-shot
    bufferization across function boundaries (identity layouts), optionally
    tensor results turned into caller-allocated out-parameters (by default
    a function allocates its results and returns them, which is how
    `remat-run` calls it on the CPU), linalg to loops, ownership-based
    buffer deallocation, arguments marked `remat.owned` freed
    (`remat-free-owned-arguments`) and each free moved to the buffer's last
    use (`remat-dealloc-at-last-use`), SCF to CF, affine and memref lowering, bf16 expansion, math to
    LLVM intrinsics and libm, and the arith/cf/func conversions to LLVM.
    The result runs under `mlir-runner` (with `libmlir_c_runner_utils`) or
    MLIR's ExecutionEngine.

    With `generic-alloc-functions`, heap buffers are allocated with
    `_mlir_memref_to_llvm_aligned_alloc(alignment, size)` and freed with
    `_mlir_memref_to_llvm_free` (`finalize-memref-to-llvm`'s
    `use-generic-functions` and `use-aligned-alloc`) instead of `malloc` and
    `free`: the host program defines them (`remat-run --measure-memory`
    counts live bytes in them). The alignment is passed rather than padded
    into the size. Nothing else changes.
  }];
  let options = [
    Option<"resultsToOutParams", "results-to-out-params", "bool",
           /*default=*/"false",
           "Turn tensor results into trailing out-parameters that the caller "
           "allocates (remat-run on the CPU does not: results are returned)">,
    Option<"genericAllocFunctions", "generic-alloc-functions", "bool",
           /*default=*/"false",
           "Allocate and free heap buffers through "
           "_mlir_memref_to_llvm_aligned_alloc and _mlir_memref_to_llvm_free, "
           "which the host program defines (remat-run --measure-memory)">,
  ];
}

def RematLowerToNVVMPass : Pass<"remat-lower-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lower a remat module to NVIDIA GPU kernels (NVVM, PTX or "
                "cubin in gpu.binary) with host code in the LLVM dialect";
  let description = [{
    Runs `remat-lower-to-linalg`, bufferizes, turns linalg ops into
    `scf.parallel` loops, tiles their parallel dimensions so the innermost
    tile maps to threads and the rest to blocks, converts them to
    `gpu.launch`, outlines kernels and runs the passes of upstream's
    `gpu-lower-to-nvvm-pipeline` (NVVM target attached, `gpu.binary`
    emitted; `toolkit` is where libdevice and ptxas come from). Every linalg op becomes one kernel. The kernels are naive:
    one thread per output element, reductions as sequential loops in that
    thread; docs/Lowering.md says what is not yet fast.

    The host code is runnable: intermediates are freed by the
    ownership-based buffer deallocation pipeline, and
    `remat-gpu-managed-memory` puts every host buffer in managed memory
    (`gpu.alloc host_shared`), so kernels and the host's own scalar
    accesses (dropout seed and offset, rank-0 fills) use the same buffers.
    The host code calls the `mgpu*` runtime functions of MLIR's CUDA
    wrappers; `remat-run --device=cuda` provides them (lib/Runner).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU architecture (e.g. sm_80, sm_90)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "PTX features, e.g. +ptx86 (empty: the oldest PTX version the "
           "chip supports, as LLVM chooses it)">,
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "gpu.binary payload: isa (PTX text), bin (cubin, needs ptxas) or "
           "fatbin">,
    Option<"threadsPerBlock", "threads-per-block", "int64_t",
           /*default=*/"128",
           "Tile size of the innermost parallel dimension, mapped to threads">,
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit folder: libdevice from nvvm/libdevice, ptxas from "
           "bin (empty: $CUDA_ROOT, $CUDA_HOME or $CUDA_PATH)">,
    Option<"resultsToOutParams", "results-to-out-params", "bool",
           /*default=*/"false",
           "Turn tensor results into trailing out-parameters that the caller "
           "allocates (the calling convention of remat-run)">,
  ];
}

def RematLowerToROCDLPass : Pass<"remat-lower-to-rocdl", "::mlir::ModuleOp"> {
  let summary = "Lower a remat module to AMD GPU kernels (ROCDL, assembly or "
                "HSACO in gpu.binary) with host code in the LLVM dialect";
  let description = [{
    Same loop mapping as `remat-lower-to-nvvm`, then the ROCDL sequence
    (there is no upstream one-flag ROCDL pipeline): `lower-affine`, kernel
    outlining, `convert-gpu-to-rocdl{chipset=... runtime=HIP}` inside each
    `gpu.module`, `rocdl-attach-target`, `gpu-to-llvm` and
    `gpu-module-to-binary`. `format=bin` links HSACO with `ld.lld`, found as
    `<toolkit>/llvm/bin/ld.lld` (ROCm's layout): point `toolkit` at a
    folder whose `llvm` entry is an LLVM install with lld.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target AMDGPU architecture (e.g. gfx90a, gfx942)">,
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "gpu.binary payload: isa (assembly) or bin (HSACO, needs ld.lld "
           "under `toolkit`)">,
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"\"",
           "ROCm-layout folder holding llvm/bin/ld.lld (format=bin)">,
    Option<"threadsPerBlock", "threads-per-block", "int64_t",
           /*default=*/"128",
           "Tile size of the innermost parallel dimension, mapped to threads">,
  ];
}

def RematGPUManagedMemoryPass
    : Pass<"remat-gpu-managed-memory", "::mlir::func::FuncOp"> {
  let summary = "Allocate the host code's buffers in managed memory "
                "(gpu.alloc host_shared)";
  let description = [{
    For host code whose loops became `gpu.launch` kernels: a buffer from
    `memref.alloc` lives in host memory, where a kernel cannot read it, and
    one from the device allocator could not be read by the host code that
    remains (dropout's seed and offset, fills of rank-0 tensors). This pass
    rewrites every host-side (outside kernels)

    * `memref.alloc` into `gpu.alloc host_shared` (managed memory,
      `cuMemAllocManaged`), reachable from both sides;
    * `memref.alloca` the same way, freed at the end of its block;
    * `memref.dealloc` into `gpu.dealloc` on a fresh stream followed by a
      wait (the lowering of `gpu.dealloc` needs the asynchronous form);
    * `memref.get_global` (constants, host memory) into a managed buffer
      that the constant is copied into, freed at the end of its block.

    Kernel launches without async tokens are synchronous, so host accesses
    between them see the kernels' writes. Buffers must have identity
    layouts (what the remat pipelines' bufferization produces).
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def RematMemrefCopyToLinalgPass
    : Pass<"remat-memref-copy-to-linalg", "::mlir::func::FuncOp"> {
  let summary = "Rewrite memref.copy as linalg.copy";
  let description = [{
    Bufferization and `buffer-results-to-out-params` express copies as
    `memref.copy`, which the host lowering turns into a call to the
    `memrefCopy` runtime function when a side is strided, and which a GPU
    lowering would leave on the host. As `linalg.copy` the copy becomes
    loops like every other linalg op: inline code on the host, a kernel on
    a GPU, and no runtime library to load.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def RematDeallocAtLastUsePass
    : Pass<"remat-dealloc-at-last-use", "::mlir::func::FuncOp"> {
  let summary = "Move each memref.dealloc up to the last use of its buffer";
  let description = [{
    The ownership-based deallocation pipeline frees buffers at the end of
    the block that owns them: in the straight-line functions remat lowers,
    at function return, so every intermediate lives until the function
    ends and a program peaks far above what its schedule needs. This pass
    moves each `memref.dealloc` of the function's entry block to just
    after the last op of that block that uses the buffer or any value that
    may alias it (results of every op that takes an alias and yields a
    memref, transitively; uses inside nested regions count as uses by the
    enclosing op). A dealloc is left where it is when an alias leaves the
    block (a return, a branch, a use in another block of the function) or
    when it is not in the entry block. The program computes the same
    values; each buffer is freed once nothing reads it, as the schedule
    the planner simulated frees it.
  }];
}

def RematDropGraphAttributesPass
    : Pass<"remat-drop-graph-attributes", "::mlir::ModuleOp"> {
  let summary = "Drop the remat.* attributes the lowering has no use for";
  let description = [{
    Removes every `remat.*` attribute from every op, and every `remat.*`
    argument and result attribute of every function, except `remat.owned`
    (remat-free-owned-arguments reads it). Roles, gradient indices, graph
    forms, tags and plan records describe the training graph; once the
    lowering has changed a function's signature (bufferization, then
    `convert-func-to-llvm` expanding each memref into its descriptor) they
    describe it wrongly, and the dialect's verifier rejects them: a
    `remat.grad_of` index pointing at an `i64` size argument, a forward
    function whose `remat.role`s were dropped. The CPU, NVVM and ROCDL
    pipelines run it after bufferization.
  }];
}

def RematFreeOwnedArgumentsPass
    : Pass<"remat-free-owned-arguments", "::mlir::func::FuncOp"> {
  let summary = "Free the memref arguments a function owns (remat.owned)";
  let description = [{
    A memref argument with the unit attribute `remat.owned` is handed to the
    function by its caller, which does not free it afterwards (as PyTorch's
    compiled backward takes ownership of its saved tensors and drops each
    after its last read). This pass frees each such argument with a
    `memref.dealloc` just before the entry block's terminator and removes
    the attribute; `remat-dealloc-at-last-use`, run after it, moves the
    free up to the argument's last use. Run it after the ownership-based
    deallocation pipeline, which treats arguments as not owned: a returned
    value that may alias an argument is already a copy then, so no returned
    buffer is freed. The function must have a single block (remat's
    functions before `convert-scf-to-cf`); the attribute on a non-memref
    argument, or on a function with more blocks, is an error.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def RematMapLoopsToGPUPass
    : Pass<"remat-map-loops-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Turn bufferized linalg ops into scf.parallel loops mapped "
                "to GPU blocks and threads";
  let description = [{
    Each linalg op becomes an `scf.parallel` over its parallel dimensions
    (reductions stay sequential `scf.for` loops inside); a loop nest with no
    parallel dimension (a reduction to a scalar) is wrapped in a one-iteration
    `scf.parallel` so it still runs on the device. Every outermost
    `scf.parallel` is then collapsed to one dimension, tiled by
    `threads-per-block` (guarded, no min/max bounds) and mapped: tiles to
    `block_x`, elements of a tile to `thread_x`. `convert-parallel-loops-to-gpu`
    then produces one `gpu.launch` per loop nest.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t",
           /*default=*/"128", "Threads per block (tile size)">,
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
  ];
}

def RematApproximateMathPass : Pass<"remat-approximate-math"> {
  let summary = "Replace transcendental math ops by f32 polynomial "
                "approximations";
  let description = [{
    For GPU targets whose math library is not available: the ROCDL lowering
    turns `math.exp`, `math.erf`, ... into calls to the ROCm device
    library (`__ocml_*`), which is not installed on these machines, so
    `remat-lower-to-rocdl` runs this pass on its kernels first. `powf`
    is expanded into `exp`/`log`, then upstream's polynomial
    approximations (the ones `math-polynomial-approximation` tests) replace
    `exp`, `log`, `tanh`, `erf` and friends by f32 arithmetic, and
    `floor` (which those approximations use) becomes a truncation through
    i32. Results differ from libm by a few ulps.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
  ];
}

#endif // REMAT_CONVERSION_PASSES_TD
