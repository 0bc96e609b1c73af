// RUN: remat-opt %s --remat-approximate-math | FileCheck %s

// exp, erf and tanh become f32 arithmetic, powf is expanded first, and no
// floor is left (the approximations' rounding is a truncation through i32).
// CHECK-LABEL: func.func @transcendental
// CHECK-NOT: math.exp
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK-NOT: math.powf
// CHECK-NOT: math.floor
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: return
func.func @transcendental(%x: f32, %y: f32) -> (f32, f32, f32, f32, f32) {
  %0 = math.exp %x : f32
  %1 = math.erf %x : f32
  %2 = math.tanh %x : f32
  %3 = math.powf %x, %y : f32
  %4 = math.floor %x : f32
  return %0, %1, %2, %3, %4 : f32, f32, f32, f32, f32
}
