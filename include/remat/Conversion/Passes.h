//===- Passes.h - remat lowering passes -------------------------*- C++ -*-===//
//
// Part of remat. Declarations generated from Passes.td, the pattern entry
// point of remat-lower-to-linalg, and the pipeline builders that
// remat-lower-to-{cpu,nvvm,rocdl} and the runner share
// (lib/Conversion/Pipelines/Pipelines.cpp composes them, in one place).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CONVERSION_PASSES_H
#define REMAT_CONVERSION_PASSES_H

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace remat {

#define GEN_PASS_DECL
#include "remat/Conversion/Passes.h.inc"

/// The conversion patterns of remat-lower-to-linalg: one pattern per typed
/// remat op.
void populateRematToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// The bytes of a statically shaped tensor type; nullopt when they overflow
/// 64 bits, or when the shape is dynamic or the element has no fixed size.
std::optional<uint64_t> staticTensorBytes(mlir::RankedTensorType type);

/// remat-lower-to-linalg, bufferization and the host lowering to the LLVM
/// dialect. With `resultsToOutParams`, tensor results become trailing
/// memref out-parameters (the GPU runner's calling convention; the CPU
/// runner takes returned results). With
/// `genericAllocFunctions`, heap buffers are allocated and freed through
/// `_mlir_memref_to_llvm_{alloc,aligned_alloc,free}`, which the host program
/// must define (the runner's memory measurement counts bytes in them).
void buildLowerToCPUPipeline(mlir::OpPassManager &pm, bool resultsToOutParams,
                             bool genericAllocFunctions = false);

/// Options shared by the GPU pipelines.
struct GPULoweringOptions {
  std::string chip;
  std::string features; // NVVM only
  std::string format;   // isa, bin (fatbin: NVVM only)
  /// NVVM: the CUDA toolkit (libdevice, ptxas; empty: $CUDA_ROOT, ...).
  /// ROCDL: a folder holding llvm/bin/ld.lld.
  std::string toolkit;
  int64_t threadsPerBlock = 128;
  /// NVVM only: tensor results become trailing out-parameters.
  bool resultsToOutParams = false;
};

/// What is wrong with `options` for the NVVM (`nvvm`) or ROCDL lowering, or
/// an empty string: a chip LLVM does not know (upstream crashes on an empty
/// NVVM chip and aborts on an unknown AMDGPU one), a format other than
/// isa/bin (NVVM: fatbin too), features that are not +/- names or that
/// LLVM's NVPTX back end does not know, a PTX version older than the chip
/// needs (LLVM stops the process with a fatal error there), a toolkit
/// folder that does not exist, or threads per block outside 1-1024 (the
/// most a CUDA or HIP block holds). The passes and remat-run check this
/// before building the pipeline.
std::string gpuLoweringOptionsError(const GPULoweringOptions &options,
                                    bool nvvm);

/// remat-lower-to-linalg, bufferization, buffer deallocation, loops mapped
/// to blocks and threads, host buffers in managed memory, kernel outlining
/// and upstream's NVVM pass sequence; emits gpu.binary. The host code runs
/// with the mgpu* CUDA runtime functions (lib/Runner/CudaRuntime.cpp).
void buildLowerToNVVMPipeline(mlir::OpPassManager &pm,
                              const GPULoweringOptions &options);

/// The same loop mapping, then the ROCDL lowering for `options.chip`.
void buildLowerToROCDLPipeline(mlir::OpPassManager &pm,
                               const GPULoweringOptions &options);

#define GEN_PASS_REGISTRATION
#include "remat/Conversion/Passes.h.inc"

} // namespace remat

#endif // REMAT_CONVERSION_PASSES_H
