// remat.prefer_recompute, end to end: it lifts the automatic ban on a
// matmul, so min-cut recomputes it and the partitioned backward replays it;
// a checkpoint policy that saves the value wins over the tag, without an
// error, and the reason says so. Unit tests: unittests/Core/PreferTagsTest.cpp.
// RUN: remat-opt %s -remat-plan | FileCheck %s --check-prefix=MINCUT
// RUN: remat-opt %s -remat-plan=policy=save_only_these_names:h | FileCheck %s --check-prefix=POLICY
// RUN: remat-opt %s -remat-plan -remat-partition | FileCheck %s --check-prefix=PARTITION

// MINCUT: remat.decision = ["recompute"], remat.name = "h", remat.prefer_recompute, remat.reason = ["recomputed from %arg0: tagged prefer_recompute"]
// POLICY: remat.decision = ["save"], remat.name = "h", remat.prefer_recompute, remat.reason = ["saved: checkpoint policy save_only_these_names:h saves it (which wins over its prefer_recompute tag)"]

// PARTITION-LABEL: func.func @matmul_square_forward
// PARTITION-SAME: remat.saved_values = []
// PARTITION-LABEL: func.func @matmul_square_backward
// PARTITION: remat.matmul
// PARTITION: remat.matmul

func.func @matmul_square(%x: tensor<4x8xf32> {remat.role = "input"},
                         %w: tensor<8x8xf32> {remat.role = "param"},
                         %dy: tensor<4x8xf32> {remat.role = "tangent"})
    -> (tensor<4x8xf32> {remat.role = "output"},
        tensor<8x8xf32> {remat.role = "grad", remat.grad_of = 1})
    attributes {remat.graph = "joint"} {
  %h = remat.matmul %x, %w {remat.name = "h", remat.prefer_recompute} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %y = remat.mul %h, %h {remat.name = "y"} : tensor<4x8xf32>
  // Backward: dh = 2 h dy, dw = x^T dh.
  %t = remat.mul %dy, %h : tensor<4x8xf32>
  %dh = remat.add %t, %t : tensor<4x8xf32>
  %dw = remat.matmul %x, %dh {transpose_a} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %y, %dw : tensor<4x8xf32>, tensor<8x8xf32>
}
