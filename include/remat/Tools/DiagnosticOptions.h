//===- DiagnosticOptions.h - How remat's tools print errors -----*- C++ -*-===//
//
// Part of remat. A diagnostic of remat's tools is a location and a message
// (plus notes that add information); it is not followed by a dump of the
// function it is attached to, which for a real model is thousands of lines.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TOOLS_DIAGNOSTICOPTIONS_H
#define REMAT_TOOLS_DIAGNOSTICOPTIONS_H

namespace llvm::cl {
class OptionCategory;
} // namespace llvm::cl

namespace remat {

/// Registers MLIR's context options (`-mlir-print-op-on-diagnostic`, ...)
/// and makes `-mlir-print-op-on-diagnostic` default to false: MLIR's default
/// (true) appends the whole op a diagnostic is attached to, e.g. the
/// function whose plan failed. Passing the flag explicitly restores MLIR's
/// behaviour. Call it before the command line is parsed; every MLIRContext
/// made after the parse takes the setting. With `category`, the flag is
/// listed under it in `--help` (for tools that hide unrelated options).
void registerDiagnosticOptions(llvm::cl::OptionCategory *category = nullptr);

} // namespace remat

#endif // REMAT_TOOLS_DIAGNOSTICOPTIONS_H
