//===- CostModel.h - Roofline cost model per target -------------*- C++ -*-===//
//
// Part of remat. Predicts an op's time as
//   max(flops / peak_flops(dtype, class), bytes / bandwidth) + launch overhead
// with presets per target (sources in docs/Planner.md) and a JSON override.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CORE_COSTMODEL_H
#define REMAT_CORE_COSTMODEL_H

#include "remat/Core/Graph.h"

#include <string>
#include <string_view>

namespace remat {

struct TargetSpec {
  std::string name;
  /// Dense (tensor-core where the target has them) peak FLOP/s per dtype,
  /// used for matmul/conv/attention.
  double matmulFlopsF64 = 0, matmulFlopsF32 = 0, matmulFlops16 = 0,
         matmulFlopsI8 = 0;
  /// Peak FLOP/s of vector (non-matrix) units, used for other classes.
  double vectorFlopsF64 = 0, vectorFlopsF32 = 0, vectorFlops16 = 0;
  double memoryBandwidthBytesPerSecond = 0;
  double launchOverheadUs = 0;
  /// What one microsecond of predicted recompute time is worth in saved
  /// bytes, for the strategies that weigh memory against time (min-cut).
  /// 0 weighs bytes alone.
  double exchangeRateBytesPerUs = 0;
  /// Whether code for this target fuses elementwise ops into the kernels
  /// that read them (Inductor, XLA, nvFuser; not eager execution): min-cut
  /// then charges a fused replay its arithmetic alone.
  bool fusesPointwise = true;
  /// The allocator's granularity: every buffer the runtime allocates takes
  /// a multiple of this many bytes, and the simulator counts a value's
  /// bytes rounded up to it. 1 (bytes as the tensor needs them) in every
  /// preset: the rounding belongs to the runtime's allocator, not to the
  /// hardware. remat's CPU lowering rounds to 64
  /// (examples/targets/remat-cpu-lowering.json), PyTorch's CUDA caching
  /// allocator to 512, XLA's BFC allocator to 256.
  int64_t allocationGranularityBytes = 1;
};

/// Presets: "h100", "h200", "a100", "mi300x", "cpu".
absl::StatusOr<TargetSpec> getTargetPreset(std::string_view name);
/// The exchange rate a target gets when it states none (docs/Planner.md,
/// "A cut that weighs time"): the bytes its memory moves in kExchangeUs.
double defaultExchangeRate(const TargetSpec &target);
/// Every preset name, comma-separated, for error messages.
std::string_view allTargetNames();
/// Reads a small JSON object `{"base": "h100", "memory_bandwidth": 3.0e12,
/// ...}` whose fields override a preset (see docs/Planner.md). Fields:
/// name, base, matmul_flops_f64, matmul_flops_f32, matmul_flops_16,
/// matmul_flops_i8, vector_flops_f64, vector_flops_f32, vector_flops_16,
/// memory_bandwidth (bytes/s), launch_overhead_us, exchange_rate (bytes per
/// us of recompute time), fuses (0 or 1), allocation_granularity (a
/// positive whole number of bytes). Without `base` every numeric field is
/// required, except exchange_rate (defaultExchangeRate of the fields given).
/// Errors give the line and column.
absl::StatusOr<TargetSpec> parseTargetJson(std::string_view json);
/// What parseTargetJson checks of each field (finite, non-negative or
/// positive; a whole allocation granularity of 1 B to 1 GiB), for a spec set
/// field by field through the API: planRematerialization refuses one that
/// fails.
absl::Status validateTarget(const TargetSpec &target);

class CostModel {
public:
  explicit CostModel(TargetSpec target) : target_(std::move(target)) {}
  const TargetSpec &target() const { return target_; }
  /// The bytes the target's runtime allocates for a tensor of `bytes`: rounded
  /// up to its allocation granularity (0 stays 0).
  int64_t allocatedBytes(int64_t bytes) const;
  /// Predicted time of one evaluation of `op`, in microseconds: its
  /// `fixedTimeUs` when set; 0 for views (no kernel); otherwise the roofline
  /// plus the launch overhead. When an op carries no byte counts, its traffic
  /// is taken as the bytes of its operands plus its results.
  double predictTimeUs(const Graph &graph, OpId op) const;
  /// Time of one elementwise kernel doing `flops` in `dtype` and moving
  /// `bytes`: what an algebraic derivation (`a = c - b`) costs.
  double predictPointwiseTimeUs(double flops, int64_t bytes, DType dtype) const;
  /// Peak FLOP/s that applies to an op of `computeClass` computing in `dtype`.
  double peakFlops(ComputeClass computeClass, DType dtype) const;

private:
  TargetSpec target_;
};

} // namespace remat

#endif // REMAT_CORE_COSTMODEL_H
