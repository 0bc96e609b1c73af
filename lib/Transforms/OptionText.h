//===- OptionText.h - Checks on a pass's textual options --------*- C++ -*-===//
//
// Part of remat. Private to lib/Transforms: MLIR's option parser keeps the
// last of an option given twice and cannot tell an option given from its
// default, so remat-plan, remat-report and remat-pipeline read the option
// text themselves first.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_TRANSFORMS_OPTIONTEXT_H
#define REMAT_LIB_TRANSFORMS_OPTIONTEXT_H

#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

namespace remat {

/// The option names in `options`, the text of a pass's options as MLIR
/// reads it (`a=1 b='x y' c={d e} f`): names separated by spaces, each with
/// an optional value that may be quoted or in braces.
llvm::SmallVector<llvm::StringRef> optionNames(llvm::StringRef options);

/// Fails through `errorHandler` when `options` names an option that is not
/// in `known` (the pass's options as MLIR prints them, `{a=1 b=x}`: MLIR's
/// own error names neither the pass nor the option a stray word of
/// `memory-budget=8 GiB` belongs to), an option twice (MLIR keeps the last
/// silently), or two options of a pair in `exclusive` (target= with
/// target-file=: the file would win silently).
mlir::LogicalResult checkOptionText(
    llvm::StringRef pass, llvm::StringRef options, llvm::StringRef known,
    llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>> exclusive,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler);

/// checkOptionText for `pass`, named by its argument, with the options it
/// has read from its own textual pipeline form.
mlir::LogicalResult checkPassOptionText(
    mlir::Pass &pass, llvm::StringRef options,
    llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>> exclusive,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler);

} // namespace remat

#endif // REMAT_LIB_TRANSFORMS_OPTIONTEXT_H
