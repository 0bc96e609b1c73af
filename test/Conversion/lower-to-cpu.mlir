// remat-lower-to-cpu leaves only the LLVM dialect: math without an LLVM
// intrinsic (erf) calls libm, bf16 conversions are integer arithmetic, and
// with results-to-out-params the caller passes the result buffer.
// RUN: remat-opt %s --remat-lower-to-cpu | FileCheck %s
// RUN: remat-opt %s --remat-lower-to-cpu=results-to-out-params=true | FileCheck %s --check-prefix=OUT
// With generic-alloc-functions, heap buffers come from functions that the
// host program defines (remat-run --measure-memory counts bytes in them);
// the alignment is their argument, not padding added to the size.
// RUN: remat-opt %s --remat-lower-to-cpu=generic-alloc-functions=true | FileCheck %s --check-prefix=GENERIC

// CHECK-NOT: remat.
// CHECK-NOT: linalg.
// CHECK-NOT: memref.
// CHECK-LABEL: llvm.func @gelu(
// CHECK-SAME: -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK: llvm.call @malloc
// CHECK: llvm.call @erff
// CHECK-NOT: llvm.fpext
// CHECK: llvm.return

// GENERIC: llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
// GENERIC-NOT: @malloc
// GENERIC-LABEL: llvm.func @gelu(
// GENERIC: llvm.call @_mlir_memref_to_llvm_aligned_alloc({{%[0-9]+}}, {{%[0-9]+}}) : (i64, i64) -> !llvm.ptr
// GENERIC-NOT: @malloc

// OUT-LABEL: llvm.func @gelu(
// OUT-SAME: {{%[a-z0-9]+}}: !llvm.ptr, {{%[a-z0-9]+}}: !llvm.ptr, {{%[a-z0-9]+}}: i64, {{%[a-z0-9]+}}: i64, {{%[a-z0-9]+}}: i64,
// OUT-SAME: {{%[a-z0-9]+}}: !llvm.ptr, {{%[a-z0-9]+}}: !llvm.ptr, {{%[a-z0-9]+}}: i64, {{%[a-z0-9]+}}: i64, {{%[a-z0-9]+}}: i64) {
// OUT-NOT: -> !llvm.struct
// OUT: llvm.call @erff
// OUT: llvm.return{{$}}
func.func @gelu(%x: tensor<16xbf16>) -> tensor<16xbf16> {
  %y = remat.gelu %x : tensor<16xbf16>
  return %y : tensor<16xbf16>
}
