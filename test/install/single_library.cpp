//===- single_library.cpp - consumers that link one remat library ---------===//
//
// Part of remat. Each installed library must carry everything its headers
// need (remat's, MLIR's and LLVM's include directories and definitions) when
// it is the only one linked; built twice by test/install/CMakeLists.txt:
// against MLIRRemat::RematReportDiff (CI scripts that compare reports
// without the compiler) and against MLIRRemat::MLIRRematToolSupport.
//
//===----------------------------------------------------------------------===//

#ifdef REMAT_CONSUMER_REPORT_DIFF
#include "remat/Tools/ReportDiff.h"
#else
#include "remat/Tools/DiagnosticOptions.h"
#endif

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

int main() {
#ifdef REMAT_CONSUMER_REPORT_DIFF
  llvm::Expected<double> percent = remat::parsePercent("2.5%");
  if (!percent) {
    llvm::errs() << llvm::toString(percent.takeError()) << "\n";
    return 1;
  }
  llvm::outs() << "report-diff: parsePercent(2.5%) = " << *percent << "\n";
#else
  remat::registerDiagnosticOptions();
  llvm::outs() << "tool-support: diagnostic options registered\n";
#endif
  return 0;
}
