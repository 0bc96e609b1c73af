//===- RunnerMain.h - the remat-run command line ----------------*- C++ -*-===//
//
// Part of remat. tools/remat-run/remat-run.cpp only calls this.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_RUNNERMAIN_H
#define REMAT_RUNNER_RUNNERMAIN_H

namespace remat {

/// Parses the command line, runs (and compares) functions of an .mlir file
/// on the host, prints results; returns the process exit code.
int runnerMain(int argc, char **argv);

} // namespace remat

#endif // REMAT_RUNNER_RUNNERMAIN_H
