// RUN: remat-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The attributes imported graphs carry: an explicit phase (which makes the
// function a valid joint graph without a tangent argument) and a measured
// time.

// CHECK-LABEL: func.func @explicit_phases
// CHECK: remat.fixed_time_us = 2.5{{.*}}remat.phase = "forward"
// CHECK: remat.phase = "backward"
func.func @explicit_phases(%x: tensor<4xi8> {remat.role = "input"})
    -> (tensor<4xi8> {remat.role = "grad"}) attributes {remat.graph = "joint"} {
  %a = remat.opaque "a"(%x) {remat.phase = "forward", remat.fixed_time_us = 2.5 : f64} : (tensor<4xi8>) -> tensor<4xi8>
  %b = remat.opaque "b"(%a) {remat.phase = "backward", remat.fixed_time_us = 1.0 : f64} : (tensor<4xi8>) -> tensor<4xi8>
  return %b : tensor<4xi8>
}

// -----

func.func @bad_phase(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.phase' must be "forward" or "backward"}}
  %a = remat.opaque "a"(%x) {remat.phase = "sideways"} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @bad_time(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.fixed_time_us' must be a finite non-negative float}}
  %a = remat.opaque "a"(%x) {remat.fixed_time_us = -1.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @time_not_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.fixed_time_us' must be a finite non-negative float}}
  %a = remat.opaque "a"(%x) {remat.fixed_time_us = 3 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// Without explicit phases a joint function still needs a tangent.
// expected-error @+1 {{a remat.graph = "joint" function needs at least one argument with {remat.role = "tangent"} (the cotangent of its output), or ops with an explicit}}
func.func @no_tangent_no_phase(%x: tensor<4xf32> {remat.role = "input"})
    -> (tensor<4xf32> {remat.role = "output"}) attributes {remat.graph = "joint"} {
  %a = remat.opaque "a"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
