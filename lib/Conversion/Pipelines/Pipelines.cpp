//===- Pipelines.cpp - remat-lower-to-{cpu,nvvm,rocdl}
//----------------------===//
//
// Part of remat. The one place where the lowering pipelines are composed.
// Each remat-lower-to-* pass builds its pipeline and runs it on the module
// as a dynamic pipeline, so the pass has ODS options and documentation and
// the same builder serves the runner (lib/Runner).
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/TargetParser.h"

namespace remat {
#define GEN_PASS_DEF_REMATLOWERTOCPUPASS
#define GEN_PASS_DEF_REMATLOWERTONVVMPASS
#define GEN_PASS_DEF_REMATLOWERTOROCDLPASS
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace remat {
namespace {

/// remat ops to linalg, then one-shot bufferization across function
/// boundaries with identity layouts (so callers pass plain row-major
/// buffers). Upstream elementwise ops on tensors (`arith.mulf`, `math.cos`,
/// which the opaque-op error advises, and the `arith.subf` a derivation in
/// an upstream graph writes) become linalg.generic first: one-shot
/// bufferization does not bufferize them (before 2026-12-07 remat-run
/// failed with "op was not bufferized").
///
/// `loopAllocations`: a loop may yield a new buffer each iteration (an
/// scf.for carrying a tensor its body recomputes, as remat ops do; the
/// host's buffer-deallocation pipeline frees each). Without it one-shot
/// bufferization refuses such loops ("Yield operand #0 is not equivalent to
/// the corresponding iter bbArg"): the GPU pipelines, whose loop mapping
/// then failed to verify, keep that refusal.
void addLinalgAndBufferization(OpPassManager &pm, bool loopAllocations) {
  pm.addPass(createRematLowerToLinalgPass());
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.allowReturnAllocsFromLoops = loopAllocations;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // The graph's attributes describe the tensor signature bufferization has
  // just changed (and convert-func-to-llvm changes again): before
  // 2026-12-07 every forward example and every partitioned tiny example
  // failed the dialect's verifier after func-to-llvm.
  pm.addPass(createRematDropGraphAttributesPass());
}

/// Host lowering of what is left after the loops: control flow, memref
/// descriptors, math and the final conversions to the LLVM dialect. With
/// `genericAllocFunctions`, heap buffers go through the
/// `_mlir_memref_to_llvm_*` functions that the host program defines.
void addHostToLLVM(OpPassManager &pm, bool genericAllocFunctions) {
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true; // bf16 <-> f32 as integer ops, no libcalls
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass()); // erf and what LLVM lacks
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = genericAllocFunctions;
  // The alignment goes to the allocation function instead of being padded
  // into the size (malloc of size + alignment), so the size a counting
  // hook sees is the buffer's, rounded up to a multiple of the alignment.
  memrefToLLVM.useAlignedAlloc = genericAllocFunctions;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// Tensor results as caller-allocated out-parameters (the GPU runner's
/// calling convention); result buffers are written in place, not copied.
void addResultsToOutParams(OpPassManager &pm) {
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
}

/// Bufferized linalg to gpu.launch: loops mapped to blocks/threads, then
/// affine index arithmetic lowered (convert-parallel-loops-to-gpu leaves
/// affine.apply, which the GPU lowerings cannot translate otherwise). With
/// `deallocate`, the ownership-based deallocation pipeline frees
/// intermediates first, while the ops are linalg ops whose memory effects
/// it knows (it cannot see through gpu.launch); the clones it makes of
/// returned buffers that a function does not own become copies, and every
/// copy a linalg op, hence a kernel.
void addLoopsToGPU(OpPassManager &pm, int64_t threadsPerBlock,
                   bool deallocate) {
  if (deallocate) {
    bufferization::buildBufferDeallocationPipeline(pm);
    pm.addPass(createConvertBufferizationToMemRefPass());
  }
  pm.addNestedPass<func::FuncOp>(createRematMemrefCopyToLinalgPass());
  RematMapLoopsToGPUPassOptions map;
  map.threadsPerBlock = threadsPerBlock;
  pm.addNestedPass<func::FuncOp>(createRematMapLoopsToGPUPass(map));
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
}

/// LLVM's NVPTX subtarget description (known chips and features), or null
/// where LLVM was built without the NVPTX back end.
std::unique_ptr<llvm::MCSubtargetInfo> nvptxSubtargetInfo() {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargetMCs();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      target->createMCSubtargetInfo(triple, "", ""));
}

/// The oldest PTX ISA version (major * 10 + minor) that supports `chip`, as
/// LLVM 22's NVPTX back end requires it (the "Supported Targets" column of
/// the PTX ISA release history); LLVM stops the process with a fatal error
/// when the features ask for an older one. 0 for a chip not listed here.
unsigned minimumPTXVersion(llvm::StringRef chip) {
  return llvm::StringSwitch<unsigned>(chip)
      .Cases({"sm_20", "sm_21", "sm_30", "sm_35"}, 32)
      .Cases({"sm_32", "sm_50"}, 40)
      .Cases({"sm_37", "sm_52"}, 41)
      .Case("sm_53", 42)
      .Cases({"sm_60", "sm_61", "sm_62"}, 50)
      .Case("sm_70", 60)
      .Case("sm_72", 61)
      .Case("sm_75", 63)
      .Case("sm_80", 70)
      .Case("sm_86", 71)
      .Case("sm_87", 74)
      .Cases({"sm_89", "sm_90"}, 78)
      .Case("sm_90a", 80)
      .Cases({"sm_100", "sm_100a", "sm_101", "sm_101a"}, 86)
      .Cases({"sm_120", "sm_120a"}, 87)
      .Cases({"sm_100f", "sm_101f", "sm_103", "sm_103f", "sm_103a", "sm_120f",
              "sm_121", "sm_121f", "sm_121a"},
             88)
      .Cases({"sm_88", "sm_110", "sm_110f", "sm_110a"}, 90)
      .Default(0);
}

} // namespace

std::string gpuLoweringOptionsError(const GPULoweringOptions &options,
                                    bool nvvm) {
  const std::string chip = "chip=" + options.chip + ": ";
  if (nvvm) {
    // sm_<digits>, optionally with the architecture-specific a or family
    // f suffix (sm_90a, sm_100f), and one LLVM's NVPTX back end knows (it
    // only warns on an unknown one and emits PTX ptxas rejects).
    if (!llvm::Regex("^sm_[0-9]+[af]?$").match(options.chip))
      return chip + "expected an NVIDIA architecture such as sm_80 or sm_90a";
    if (std::unique_ptr<llvm::MCSubtargetInfo> nvptx = nvptxSubtargetInfo();
        nvptx && !nvptx->isCPUStringValid(options.chip))
      return chip + "not an NVIDIA architecture LLVM knows (e.g. sm_80, "
                    "sm_90a, sm_100)";
  } else if (llvm::AMDGPU::parseArchAMDGCN(options.chip) ==
             llvm::AMDGPU::GK_NONE) {
    return chip + "not an AMDGPU architecture LLVM knows (e.g. gfx90a, "
                  "gfx942)";
  }
  if (options.format != "isa" && options.format != "bin" &&
      !(nvvm && options.format == "fatbin"))
    return "format=" + options.format + ": expected " +
           (nvvm ? "isa, bin or fatbin" : "isa or bin");
  if (nvvm && !options.features.empty()) {
    const std::string features = "features=" + options.features + ": ";
    llvm::SmallVector<llvm::StringRef> entries;
    llvm::StringRef(options.features).split(entries, ',');
    std::unique_ptr<llvm::MCSubtargetInfo> nvptx = nvptxSubtargetInfo();
    unsigned ptx = 0;
    for (llvm::StringRef entry : entries) {
      if (!llvm::Regex("^[+-][a-z0-9_.-]+$").match(entry))
        return features +
               "expected comma-separated +name or -name entries, e.g. +ptx86";
      llvm::StringRef name = entry.drop_front();
      if (nvptx && llvm::none_of(nvptx->getAllProcessorFeatures(),
                                 [&](const llvm::SubtargetFeatureKV &known) {
                                   return name == known.Key;
                                 }))
        return features + "'" + name.str() +
               "' is not a feature LLVM's NVPTX back end knows (e.g. ptx86)";
      // LLVM takes the highest +ptxNN given.
      unsigned version = 0;
      if (entry.starts_with("+ptx") &&
          !name.drop_front(3).getAsInteger(10, version))
        ptx = std::max(ptx, version);
    }
    unsigned needed = minimumPTXVersion(options.chip);
    if (ptx != 0 && ptx < needed)
      return features + "PTX " + std::to_string(ptx / 10) + "." +
             std::to_string(ptx % 10) + " is older than " + options.chip +
             " needs (" + std::to_string(needed / 10) + "." +
             std::to_string(needed % 10) + "): give +ptx" +
             std::to_string(needed) +
             " or later, or leave the PTX version out for the chip's "
             "minimum";
  }
  if (!options.toolkit.empty() && !llvm::sys::fs::is_directory(options.toolkit))
    return "toolkit=" + options.toolkit + ": no such folder";
  if (options.threadsPerBlock < 1 || options.threadsPerBlock > 1024)
    return "threads-per-block=" + std::to_string(options.threadsPerBlock) +
           ": expected 1 to 1024 (the most threads a block holds)";
  return "";
}

void buildLowerToCPUPipeline(OpPassManager &pm, bool resultsToOutParams,
                             bool genericAllocFunctions) {
  addLinalgAndBufferization(pm, /*loopAllocations=*/true);
  if (resultsToOutParams)
    addResultsToOutParams(pm);
  pm.addNestedPass<func::FuncOp>(createRematMemrefCopyToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  // Returned buffers a function does not own (an argument, a view of one)
  // come back from the deallocation pipeline as bufferization.clone.
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addNestedPass<func::FuncOp>(createRematFreeOwnedArgumentsPass());
  pm.addNestedPass<func::FuncOp>(createRematDeallocAtLastUsePass());
  addHostToLLVM(pm, genericAllocFunctions);
}

void buildLowerToNVVMPipeline(OpPassManager &pm,
                              const GPULoweringOptions &options) {
  addLinalgAndBufferization(pm, /*loopAllocations=*/false);
  if (options.resultsToOutParams)
    addResultsToOutParams(pm);
  addLoopsToGPU(pm, options.threadsPerBlock, /*deallocate=*/true);
  pm.addNestedPass<func::FuncOp>(createRematGPUManagedMemoryPass());

  // Upstream's gpu-lower-to-nvvm-pipeline (MLIR 22), pass for pass, composed
  // here so that the toolkit path reaches gpu-module-to-binary (the upstream
  // pipeline has no option for it: libdevice and ptxas would come from the
  // environment only).
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.chip;
  attach.features = options.features;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertIndexToLLVMPassOptions index;
  index.indexBitwidth = 64;
  pm.addPass(createConvertIndexToLLVMPass(index));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  ConvertGpuOpsToNVVMOpsOptions kernels;
  kernels.indexBitwidth = 64;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(kernels));
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void buildLowerToROCDLPipeline(OpPassManager &pm,
                               const GPULoweringOptions &options) {
  addLinalgAndBufferization(pm, /*loopAllocations=*/false);
  // Not runnable here (no HIP runtime to call), so intermediates are not
  // freed: the sequence stays the one that was checked to compile.
  addLoopsToGPU(pm, options.threadsPerBlock, /*deallocate=*/false);
  pm.addPass(createGpuKernelOutliningPass());
  // The ROCm device libraries (__ocml_*) are not installed here: kernels get
  // polynomial approximations instead of library calls.
  pm.addNestedPass<gpu::GPUModuleOp>(createRematApproximateMathPass());
  pm.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = options.chip;
  rocdl.runtime = gpu::amd::Runtime::HIP;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToROCDLOps(rocdl));
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  GpuROCDLAttachTargetOptions attach;
  attach.chip = options.chip;
  pm.addPass(createGpuROCDLAttachTarget(attach));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

namespace {

/// Runs `build`'s pipeline on the module; declares its dialects so that
/// loading them does not happen while passes run.
template <typename Derived, typename Base> struct PipelinePass : Base {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    OpPassManager pm(ModuleOp::getOperationName());
    static_cast<const Derived *>(this)->build(pm);
    pm.getDependentDialects(registry);
    // gpu-module-to-binary translates kernels to LLVM IR in this context.
    registerAllToLLVMIRTranslations(registry);
  }
  void runOnOperation() override {
    if (std::string error = static_cast<const Derived *>(this)->optionsError();
        !error.empty()) {
      this->getOperation().emitError()
          << this->getArgument() << ": bad option " << error;
      return this->signalPassFailure();
    }
    OpPassManager pm(ModuleOp::getOperationName());
    static_cast<const Derived *>(this)->build(pm);
    if (failed(this->runPipeline(pm, this->getOperation())))
      this->signalPassFailure();
  }
};

struct RematLowerToCPUPass final
    : PipelinePass<RematLowerToCPUPass,
                   impl::RematLowerToCPUPassBase<RematLowerToCPUPass>> {
  using PipelinePass::PipelinePass;
  std::string optionsError() const { return ""; }
  void build(OpPassManager &pm) const {
    buildLowerToCPUPipeline(pm, resultsToOutParams, genericAllocFunctions);
  }
};

struct RematLowerToNVVMPass final
    : PipelinePass<RematLowerToNVVMPass,
                   impl::RematLowerToNVVMPassBase<RematLowerToNVVMPass>> {
  using PipelinePass::PipelinePass;
  GPULoweringOptions options() const {
    GPULoweringOptions options;
    options.chip = chip;
    options.features = features;
    options.format = format;
    options.toolkit = toolkit;
    options.threadsPerBlock = threadsPerBlock;
    options.resultsToOutParams = resultsToOutParams;
    return options;
  }
  std::string optionsError() const {
    return gpuLoweringOptionsError(options(), /*nvvm=*/true);
  }
  void build(OpPassManager &pm) const {
    buildLowerToNVVMPipeline(pm, options());
  }
};

struct RematLowerToROCDLPass final
    : PipelinePass<RematLowerToROCDLPass,
                   impl::RematLowerToROCDLPassBase<RematLowerToROCDLPass>> {
  using PipelinePass::PipelinePass;
  GPULoweringOptions options() const {
    GPULoweringOptions options;
    options.chip = chip;
    options.format = format;
    options.toolkit = toolkit;
    options.threadsPerBlock = threadsPerBlock;
    return options;
  }
  std::string optionsError() const {
    return gpuLoweringOptionsError(options(), /*nvvm=*/false);
  }
  void build(OpPassManager &pm) const {
    buildLowerToROCDLPipeline(pm, options());
  }
};

} // namespace
} // namespace remat
