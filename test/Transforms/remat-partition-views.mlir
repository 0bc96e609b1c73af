// A saved view crosses the forward -> backward interface as the storage it
// views, and backward re-creates the view before its first read: a function
// result of a view type is a copy once bufferized (a broadcast has no
// identity-layout memref at all), while the planner counts a saved view as
// its base's storage. Here save-all saves three views: a broadcast of a
// constant (the constant is passed), a reshape of the input (nothing is
// passed: backward receives the arguments) and a reshape of a computed value
// (that value is passed). optimal records a schedule, which is emitted event
// by event with the same rule.
// RUN: remat-opt %s -remat-plan=strategy=save-all -remat-partition | FileCheck %s --check-prefixes=CHECK,CHECK-BWD
// RUN: remat-opt %s "-remat-plan=strategy=optimal memory-budget=0.0" | FileCheck %s --check-prefix=SCHEDULE
// RUN: remat-opt %s "-remat-plan=strategy=optimal memory-budget=0.0" -remat-partition | FileCheck %s --check-prefixes=CHECK,CHECK-BWD
// RUN: remat-opt %s -remat-plan=strategy=save-all -remat-partition=pass-view-storage=false | FileCheck %s --check-prefix=VIEWS
// The report names the storage each saved view shares, and an argument
// kept only through a saved view is read by backward.
// RUN: remat-opt %s -remat-plan=strategy=save-all -remat-report=output=- -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: remat-opt %s -remat-plan=strategy=save-all -remat-report=format=text -o /dev/null | FileCheck %s --check-prefix=TEXT
// RUN: remat-opt %s -remat-plan=strategy=save-all -remat-partition -o %t.save-all.mlir
// RUN: remat-run %s --function=views --check-partition=%t.save-all.mlir | FileCheck %s --check-prefix=EXEC
// RUN: remat-opt %s "-remat-plan=strategy=optimal memory-budget=0.0" -remat-partition -o %t.optimal.mlir
// RUN: remat-run %s --function=views --check-partition=%t.optimal.mlir | FileCheck %s --check-prefix=EXEC
// RUN: remat-opt %s -remat-plan=strategy=save-all -remat-partition=pass-view-storage=false -o %t.views.mlir
// RUN: remat-run %s --function=views --check-partition=%t.views.mlir | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @views_forward(
// CHECK-SAME: -> (tensor<8xf32> {remat.role = "output"}, tensor<f32>, tensor<2x4xf32>, tensor<8xf32>)
// CHECK-SAME: remat.saved_values = ["two", "t", "t2"]
// CHECK: %[[TWO:.*]] = remat.constant
// CHECK: %[[T:.*]] = remat.tanh
// CHECK: %[[T2:.*]] = remat.mul {{.*}} {remat.name = "t2"}
// CHECK: return %{{.*}}, %[[TWO]], %[[T]], %[[T2]]

// CHECK-BWD-LABEL: func.func @views_backward(
// CHECK-BWD-SAME: %[[STWO:[^:]*]]: tensor<f32>, %[[ST:[^:]*]]: tensor<2x4xf32>, %[[ST2:[^:]*]]: tensor<8xf32>, %[[X:[^:]*]]: tensor<2x4xf32> {remat.role = "input"}, %[[DY:[^:]*]]: tensor<8xf32> {remat.role = "tangent"})
// CHECK-BWD-SAME: remat.saved_values = ["two", "t", "t2"]
// CHECK-BWD-NEXT: %[[B:.*]] = remat.broadcast %[[STWO]] {remat.name = "two_b"}
// CHECK-BWD-NEXT: %[[G:.*]] = remat.mul %[[DY]], %[[B]] {remat.name = "g"}
// CHECK-BWD-NEXT: %[[TF:.*]] = remat.reshape %[[ST]] {remat.name = "t_flat"}
// CHECK-BWD-NEXT: remat.mul %[[G]], %[[TF]] {remat.name = "gx"}
// CHECK-BWD-NEXT: %[[XF:.*]] = remat.reshape %[[X]] {remat.name = "x_flat"}
// CHECK-BWD-NEXT: remat.mul %[[G]], %[[XF]] {remat.name = "gt"}
// CHECK-BWD-NEXT: remat.sub %{{.*}}, %[[ST2]] {remat.name = "dt"}

// SCHEDULE: remat.schedule =

// VIEWS-LABEL: func.func @views_forward(
// VIEWS-SAME: remat.saved_values = ["two_b", "x_flat", "t_flat", "t2"]
// VIEWS-LABEL: func.func @views_backward(
// VIEWS-NOT: remat.broadcast
// VIEWS-NOT: remat.reshape {{.*}} {remat.name = "t_flat"}

// REPORT: "name": "%arg0",
// REPORT: "reason": "input: backward reads it through the saved view x_flat",
// REPORT-NEXT: "read_by": "backward",
// REPORT: "name": "two_b",
// REPORT: "decision": "save",
// REPORT-NEXT: "reason": "saved: save-all keeps every value backward reads",
// REPORT-NEXT: "storage": "two",
// REPORT: "name": "x_flat",
// REPORT: "storage": "%arg0",
// REPORT: "name": "t_flat",
// REPORT: "storage": "t",
// REPORT: "name": "t2",
// REPORT-NOT: "storage"
// REPORT: ]

// TEXT: %arg0   input {{.*}} input: backward reads it through the saved view x_flat
// TEXT: two_b   save {{.*}} (a view of two's storage: no bytes of its own)
// TEXT: x_flat  save {{.*}} (a view of %arg0's storage: no bytes of its own)
// TEXT: t_flat  save {{.*}} (a view of t's storage: no bytes of its own)
// TEXT: t2      save {{.*}} saved: save-all keeps every value backward reads{{$}}

// EXEC: compare output 0: bitwise-equal
// EXEC: compare gradient 1 (of argument 0): bitwise-equal
// EXEC: PASS: @views vs @views_forward + @views_backward

func.func @views(%x: tensor<2x4xf32> {remat.role = "input"},
                 %dy: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "output"},
        tensor<2x4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %c = remat.constant dense<2.0> : tensor<f32> {remat.name = "two"}
  %two = remat.broadcast %c {remat.name = "two_b"} : (tensor<f32>) -> tensor<8xf32>
  %xf = remat.reshape %x {remat.name = "x_flat"} : (tensor<2x4xf32>) -> tensor<8xf32>
  %t = remat.tanh %x {remat.name = "t"} : tensor<2x4xf32>
  %tf = remat.reshape %t {remat.name = "t_flat"} : (tensor<2x4xf32>) -> tensor<8xf32>
  %p = remat.mul %tf, %xf {remat.name = "p"} : tensor<8xf32>
  %y = remat.mul %p, %two {remat.name = "y"} : tensor<8xf32>
  %g = remat.mul %dy, %two {remat.name = "g"} : tensor<8xf32>
  %gx = remat.mul %g, %tf {remat.name = "gx"} : tensor<8xf32>
  %gt = remat.mul %g, %xf {remat.name = "gt"} : tensor<8xf32>
  %t2 = remat.mul %tf, %tf {remat.name = "t2"} : tensor<8xf32>
  %dt = remat.sub %gt, %t2 {remat.name = "dt"} : tensor<8xf32>
  %sum = remat.add %gx, %dt {remat.name = "sum"} : tensor<8xf32>
  %dx = remat.reshape %sum {remat.name = "dx"} : (tensor<8xf32>) -> tensor<2x4xf32>
  return %y, %dx : tensor<8xf32>, tensor<2x4xf32>
}
