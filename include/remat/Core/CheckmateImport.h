//===- CheckmateImport.h - Read Checkmate benchmark graphs ------*- C++ -*-===//
//
// Part of remat. The rematerialization literature (Checkmate, Moccasin,
// FastSA) publishes its benchmark graphs as networkx node-link JSON. This
// reads both schemas in use into a Graph, so the planner can be compared
// with published results on the same graphs:
//
//   model graphs   nodes {"id", "name", "backward", "cost_cpu", "cost_ram"},
//                  links {"source", "target"}
//   random graphs  nodes {"name" (an int id), "out_cost", "param_cost",
//                  "duration"}, links {"0": source, "1": target}
//
// Each node becomes one op with fixedTimeUs = its compute cost and one i8
// result of `cost_ram`/`out_cost` elements (bytes); a link makes the source's
// result an operand of the target. `backward` sets the op's explicit phase.
// Nodes that no link reads are marked as results (gradients when backward).
// A non-zero `param_cost` becomes a parameter input the node reads (not part
// of the activation peak). Ops are added in a topological order that follows
// node ids where the ids allow it.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CORE_CHECKMATEIMPORT_H
#define REMAT_CORE_CHECKMATEIMPORT_H

#include "remat/Core/Graph.h"

#include <string_view>

namespace remat {

/// Parses one graph in either schema above. Errors name the offending node
/// or link (or the line and column of malformed JSON).
absl::StatusOr<Graph> importCheckmateJson(std::string_view json);

} // namespace remat

#endif // REMAT_CORE_CHECKMATEIMPORT_H
