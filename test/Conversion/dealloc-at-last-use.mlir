// RUN: remat-opt %s -remat-dealloc-at-last-use -split-input-file | FileCheck %s

// Each free moves to just after the last op that reads its buffer; the
// buffer's view (expand_shape) counts as a read of it.
// CHECK-LABEL: func.func @chain
// CHECK:      %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:      linalg.fill {{.*}} outs(%[[A]]
// CHECK:      %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK:      %[[V:.*]] = memref.expand_shape %[[A]]
// CHECK-NEXT: linalg.copy ins(%[[V]] : memref<2x2xf32>) outs(%{{.*}} : memref<2x2xf32>)
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK:      linalg.copy ins(%[[B]] : memref<4xf32>) outs(%{{.*}} : memref<4xf32>)
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: return
func.func @chain(%out: memref<2x2xf32>, %out2: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  %b = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<4xf32>)
  %view = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  linalg.copy ins(%view : memref<2x2xf32>) outs(%out : memref<2x2xf32>)
  linalg.copy ins(%b : memref<4xf32>) outs(%out2 : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// A use inside a loop counts as a use by the loop.
// CHECK-LABEL: func.func @loop
// CHECK:      scf.for
// CHECK:      }
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: linalg.fill
func.func @loop(%out: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    memref.store %x, %out[%i] : memref<4xf32>
  }
  linalg.fill ins(%zero : f32) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// A buffer whose alias is returned keeps its free where it was.
// CHECK-LABEL: func.func @escapes
// CHECK:      memref.dealloc %{{.*}} : memref<4xf32>
// CHECK-NEXT: return
func.func @escapes(%arg: memref<4xf32>) -> memref<4xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  %cast = memref.cast %a : memref<4xf32> to memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  %c = memref.cast %cast : memref<?xf32> to memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%arg : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  return %c : memref<4xf32>
}
