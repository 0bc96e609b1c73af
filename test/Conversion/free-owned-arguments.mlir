// RUN: remat-opt %s -remat-free-owned-arguments -split-input-file -verify-diagnostics | FileCheck %s
// RUN: remat-opt %s -remat-free-owned-arguments -remat-dealloc-at-last-use -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=MOVED

// An argument marked remat.owned is freed before the return and loses the
// attribute; an unmarked one is not freed. remat-dealloc-at-last-use then
// moves the free to just after the argument's last read.
// CHECK-LABEL: func.func @owned(
// CHECK-SAME:  %[[S:arg[0-9]+]]: memref<4xf32>, %[[X:arg[0-9]+]]: memref<4xf32>,
// CHECK-NOT:   remat.owned
// CHECK:       linalg.copy ins(%[[X]]
// CHECK-NEXT:  memref.dealloc %[[S]] : memref<4xf32>
// CHECK-NEXT:  return
// CHECK-NOT:   memref.dealloc %[[X]]
// MOVED-LABEL: func.func @owned(
// MOVED:       linalg.copy ins(%{{.*}} : memref<4xf32>) outs(%[[OUT:.*]] : memref<4xf32>)
// MOVED-NEXT:  memref.dealloc %arg0
// MOVED-NEXT:  linalg.copy
// MOVED-NEXT:  return
func.func @owned(%s: memref<4xf32> {remat.owned}, %x: memref<4xf32>,
                 %out: memref<4xf32>, %out2: memref<4xf32>) {
  linalg.copy ins(%s : memref<4xf32>) outs(%out : memref<4xf32>)
  linalg.copy ins(%x : memref<4xf32>) outs(%out2 : memref<4xf32>)
  return
}

// -----

// An owned argument nothing reads is freed first thing (after
// remat-dealloc-at-last-use).
// MOVED-LABEL: func.func @unread(
// MOVED-NEXT:  memref.dealloc %arg0
// MOVED-NEXT:  linalg.copy
func.func @unread(%s: memref<4xf32> {remat.owned}, %x: memref<4xf32>,
                  %out: memref<4xf32>) {
  linalg.copy ins(%x : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

// expected-error @+1 {{'func.func' op argument 0 is marked remat.owned but has type 'tensor<4xf32>', not a ranked memref (run this pass after bufferization)}}
func.func @tensor(%s: tensor<4xf32> {remat.owned}) -> tensor<4xf32> {
  return %s : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op has remat.owned arguments but more than one block}}
func.func @blocks(%s: memref<4xf32> {remat.owned}) {
  cf.br ^next
^next:
  return
}

// -----

// expected-error @+1 {{argument #0: 'remat.owned' is a unit attribute, e.g. {remat.owned}}}
func.func @not_unit(%s: memref<4xf32> {remat.owned = 1 : i64}) {
  return
}
