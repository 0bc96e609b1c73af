//===- OptionText.cpp - Checks on a pass's textual options ----------------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "OptionText.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace remat {

llvm::SmallVector<llvm::StringRef> optionNames(llvm::StringRef options) {
  llvm::SmallVector<llvm::StringRef> names;
  size_t i = 0;
  const size_t n = options.size();
  auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
  while (i < n) {
    while (i < n && isSpace(options[i]))
      ++i;
    size_t start = i;
    while (i < n && options[i] != '=' && !isSpace(options[i]))
      ++i;
    if (i > start)
      names.push_back(options.slice(start, i));
    if (i >= n || options[i] != '=')
      continue;
    ++i;
    // The value: up to the next space outside quotes and braces.
    int depth = 0;
    while (i < n && (depth > 0 || !isSpace(options[i]))) {
      char c = options[i];
      if ((c == '\'' || c == '"') && depth == 0) {
        size_t close = options.find(c, i + 1);
        i = close == llvm::StringRef::npos ? n : close + 1;
        continue;
      }
      if (c == '{')
        ++depth;
      else if (c == '}' && depth > 0)
        --depth;
      ++i;
    }
  }
  return names;
}

mlir::LogicalResult checkOptionText(
    llvm::StringRef pass, llvm::StringRef options, llvm::StringRef known,
    llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>> exclusive,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
  llvm::SmallVector<llvm::StringRef> names = optionNames(options);
  known = known.trim();
  known.consume_front("{");
  known.consume_back("}");
  llvm::SmallVector<llvm::StringRef> knownNames = optionNames(known);
  for (llvm::StringRef name : names) {
    if (knownNames.empty() || llvm::is_contained(knownNames, name))
      continue;
    // A word without '=' after a complete option is most likely the rest of
    // the previous option's value. `name` points into `options`.
    const size_t end = name.end() - options.begin();
    const bool bare = !options.substr(end).starts_with("=");
    return errorHandler(
        pass + ": no option '" + name + "'" +
        (bare ? "; if it belongs to the value before it, quote that value "
                "(memory-budget='8 GiB')"
              : "") +
        "; the options are " + llvm::join(knownNames, ", "));
  }
  for (auto [index, name] : llvm::enumerate(names))
    if (llvm::is_contained(llvm::ArrayRef<llvm::StringRef>(names).take_front(index), name))
      return errorHandler(pass + ": option " + name +
                          " is given twice; give it once");
  for (auto [first, second] : exclusive)
    if (llvm::is_contained(names, first) && llvm::is_contained(names, second))
      return errorHandler(pass + ": options " + first + "= and " + second +
                          "= are exclusive; give one (" + second +
                          "= would replace " + first + "=)");
  return mlir::success();
}

mlir::LogicalResult checkPassOptionText(
    mlir::Pass &pass, llvm::StringRef options,
    llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>> exclusive,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  pass.printAsTextualPipeline(os);
  // "remat-plan{a=1 b=x}": the braces hold the options.
  llvm::StringRef known =
      llvm::StringRef(printed).drop_until([](char c) { return c == '{'; });
  return checkOptionText(pass.getArgument(), options, known, exclusive,
                         errorHandler);
}

} // namespace remat
