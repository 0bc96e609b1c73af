// RUN: remat-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(func.func(remat-gpu-managed-memory))" | FileCheck %s

// Host allocations become managed memory (gpu.alloc host_shared), frees
// become gpu.dealloc on a fresh stream plus a wait (the form gpu-to-llvm
// lowers); the kernel and the host's scalar store use the same buffer.
// CHECK-LABEL: func.func @alloc_dealloc
// CHECK-NOT: memref.alloc
// CHECK: %[[BUF:.*]] = gpu.alloc  host_shared () : memref<128xf32>
// CHECK: memref.store %{{.*}}, %[[BUF]][%{{.*}}] : memref<128xf32>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: gpu.terminator
// CHECK: %[[STREAM:.*]] = gpu.wait async
// CHECK: %[[FREED:.*]] = gpu.dealloc async [%[[STREAM]]] %[[BUF]] : memref<128xf32>
// CHECK: gpu.wait [%[[FREED]]]
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @alloc_dealloc(%v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %buf = memref.alloc() {alignment = 64 : i64} : memref<128xf32>
  memref.store %v, %buf[%c0] : memref<128xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    memref.store %v, %buf[%tx] : memref<128xf32>
    gpu.terminator
  }
  memref.dealloc %buf : memref<128xf32>
  return
}

// -----

// Dynamic sizes carry over; a returned buffer is not freed.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[BUF:.*]] = gpu.alloc  host_shared (%{{.*}}) : memref<?x4xf16>
// CHECK-NOT: gpu.dealloc
// CHECK: return %[[BUF]]
func.func @dynamic(%n: index) -> memref<?x4xf16> {
  %buf = memref.alloc(%n) : memref<?x4xf16>
  return %buf : memref<?x4xf16>
}

// -----

// A stack buffer is freed where its block ends.
// CHECK-LABEL: func.func @alloca
// CHECK: %[[BUF:.*]] = gpu.alloc  host_shared () : memref<i64>
// CHECK: memref.load %[[BUF]][]
// CHECK: %[[STREAM:.*]] = gpu.wait async
// CHECK: gpu.dealloc async [%[[STREAM]]] %[[BUF]]
// CHECK: return
func.func @alloca(%seed: i64) -> i64 {
  %slot = memref.alloca() : memref<i64>
  memref.store %seed, %slot[] : memref<i64>
  %v = memref.load %slot[] : memref<i64>
  return %v : i64
}

// -----

// A constant global is in host memory: it is copied into a managed buffer
// that the kernel reads, freed at the end of the function.
memref.global "private" constant @minus_inf : memref<f32> = dense<0xFF800000>
// CHECK-LABEL: func.func @global
// CHECK: %[[HOST:.*]] = memref.get_global @minus_inf : memref<f32>
// CHECK: %[[BUF:.*]] = gpu.alloc  host_shared () : memref<f32>
// CHECK: memref.copy %[[HOST]], %[[BUF]]
// CHECK: gpu.launch
// CHECK: memref.load %[[BUF]][]
// CHECK: gpu.dealloc async [%{{.*}}] %[[BUF]]
// CHECK: return
func.func @global(%out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %g = memref.get_global @minus_inf : memref<f32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %v = memref.load %g[] : memref<f32>
    memref.store %v, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

// Kernels keep their own (private) allocations.
// CHECK-LABEL: func.func @in_kernel
// CHECK: gpu.launch
// CHECK: memref.alloca() : memref<4xf32>
func.func @in_kernel(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %tmp = memref.alloca() : memref<4xf32>
    memref.copy %tmp, %out : memref<4xf32> to memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// gpu.alloc needs an identity layout.
func.func @strided() {
  // expected-error @+1 {{'memref.alloc' op allocates 'memref<4x4xf32, strided<[8, 1]>>' with a non-identity layout, which cannot live in managed memory}}
  %buf = memref.alloc() : memref<4x4xf32, strided<[8, 1]>>
  return
}
