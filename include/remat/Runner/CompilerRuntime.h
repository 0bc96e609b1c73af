//===- CompilerRuntime.h - libcalls of LLVM code generation -*- C++ -*-===//
//
// Part of remat. LLVM's x86 code generator legalizes some bf16 operations
// (a select or a vector of bf16 values) by calling `__truncsfbf2`, a
// compiler-rt / libgcc function, unless the host CPU converts to bf16
// natively (AVX512-BF16). Debian 12's libgcc (GCC 12) does not define it, so
// a JIT'd module that needs it fails to link on most CPUs. The runner binds
// these definitions into every module it JIT-compiles.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_COMPILERRUNTIME_H
#define REMAT_RUNNER_COMPILERRUNTIME_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace remat {
namespace compiler_rt {

/// The bf16 bit pattern nearest to `value` (ties to even); a NaN stays a NaN
/// of the same sign, made quiet; infinities and overflow give infinities.
uint16_t truncateToBF16(float value);
/// The same from a double, rounded once (not through float).
uint16_t truncateToBF16(double value);

/// A function the generated code may call, by its C name.
struct Symbol {
  const char *name;
  void *address;
};

/// `__truncsfbf2` and `__truncdfbf2`, with the calling convention LLVM
/// uses for them (the bf16 result in the low 16 bits of the first
/// floating-point return register).
llvm::ArrayRef<Symbol> getSymbols();

} // namespace compiler_rt
} // namespace remat

#endif // REMAT_RUNNER_COMPILERRUNTIME_H
