//===- BenchGraphs.h - Graphs the benchmarks plan ---------------*- C++ -*-===//
//
// Part of remat. Generators for joint (forward + backward) graphs at the
// sizes the planner must handle in practice:
//
//  - Llama-style decoder stacks written op by op the way AOTAutograd traces
//    them (views around every matmul, RMSNorm decomposed into convert, pow,
//    mean, rsqrt and muls, rotary embeddings with rotate_half, grouped-query
//    attention with repeat_kv, SwiGLU, residuals, embedding and loss), with
//    the full backward produced by a small reverse-mode pass over the
//    forward tape. A 32-layer stack has about as many ops as the ~6,200-node
//    AOTAutograd joint graph of a 32-layer Llama.
//  - Random layered DAGs: a forward part in layers with skip connections,
//    tangents for the values nothing reads, and a backward that mirrors the
//    forward (one op per forward op, reading its users' gradients and the
//    forward values its derivative needs).
//
// The smaller reference graphs (one Llama layer, one Megatron GPT layer) come
// from unittests/Core/TestGraphs.h, which this library shares with the tests.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_BENCHMARKS_BENCHGRAPHS_H
#define REMAT_BENCHMARKS_BENCHGRAPHS_H

#include "remat/Core/Graph.h"

#include <cstdint>

namespace remat::bench {

/// Dimensions of a Llama-style decoder stack.
struct LlamaStackShape {
  int layers = 32;
  int64_t batch = 1;
  int64_t sequence = 4096;
  int64_t hidden = 4096;
  int64_t intermediate = 11008;
  int64_t heads = 32;
  int64_t kvHeads = 32;
  int64_t vocabulary = 32000;
};

/// Llama-2-7B dimensions (hidden 4096, FF 11008, 32 heads, 32 KV heads,
/// sequence 4096) with `layers` layers.
LlamaStackShape llama2_7b(int layers);
/// Llama-2-70B dimensions (hidden 8192, FF 28672, 64 heads, 8 KV heads,
/// sequence 4096) with `layers` layers.
LlamaStackShape llama2_70b(int layers);

/// The joint graph of a Llama-style causal LM: token embedding, `layers`
/// decoder layers, final norm, LM head, cross-entropy loss (one scalar output
/// with its tangent), and the backward of all of it. bf16 activations, f32
/// norm statistics; the fused attention is tagged no_auto_recompute as in
/// Thunder. Parameter gradients are the graph's gradient outputs.
Graph buildLlamaStack(const LlamaStackShape &shape);

struct RandomDagOptions {
  /// Total ops, forward and backward together (about half each).
  int64_t numOps = 10000;
  /// Ops per forward layer.
  int layerWidth = 64;
  uint64_t seed = 1;
};

/// A random layered joint graph of about `numOps` ops. Deterministic in the
/// options.
Graph buildRandomLayeredDag(const RandomDagOptions &options);

} // namespace remat::bench

#endif // REMAT_BENCHMARKS_BENCHGRAPHS_H
