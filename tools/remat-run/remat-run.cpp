//===- remat-run.cpp - run remat functions on the host
//---------------------===//
//
// Part of remat. The logic lives in lib/Runner (RunnerMain.cpp).
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/RunnerMain.h"

int main(int argc, char **argv) { return remat::runnerMain(argc, argv); }
