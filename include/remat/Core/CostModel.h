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
  double vectorFlopsF32 = 0, vectorFlops16 = 0;
  double memoryBandwidthBytesPerSecond = 0;
  double launchOverheadUs = 0;
};

/// Presets: "h100", "h200", "a100", "mi300x", "cpu".
absl::StatusOr<TargetSpec> getTargetPreset(std::string_view name);
/// Every preset name, comma-separated, for error messages.
std::string_view allTargetNames();
/// Reads a small JSON object `{"base": "h100", "memory_bandwidth": 3.0e12,
/// ...}` whose fields override a preset (see docs/Planner.md).
absl::StatusOr<TargetSpec> parseTargetJson(std::string_view json);

class CostModel {
public:
  explicit CostModel(TargetSpec target) : target_(std::move(target)) {}
  const TargetSpec &target() const { return target_; }
  /// Predicted time of one evaluation of `op`, in microseconds.
  double predictTimeUs(const Graph &graph, OpId op) const;

private:
  TargetSpec target_;
};

} // namespace remat

#endif // REMAT_CORE_COSTMODEL_H
