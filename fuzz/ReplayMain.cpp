//===- ReplayMain.cpp - Run a fuzz target on saved inputs -----------------===//
//
// Part of remat. A `main` for the fuzz targets built with the normal compiler
// and without libFuzzer: it feeds every file named on the command line (or
// found directly inside a named directory) to LLVMFuzzerTestOneInput. ctest
// runs it on test/fuzz-regressions/, so an input that once crashed a fuzzer
// stays fixed in every build, sanitized or not.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
    return 2;
  }
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path path(argv[i]);
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      for (const auto &entry : std::filesystem::directory_iterator(path))
        // Skip README.md and dot files such as .gitkeep.
        if (entry.is_regular_file() && entry.path().filename() != "README.md" &&
            entry.path().filename().string()[0] != '.')
          inputs.push_back(entry.path());
    } else if (std::filesystem::is_regular_file(path, error)) {
      inputs.push_back(path);
    } else {
      std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 2;
    }
  }
  // Directory order is unspecified; replay in a stable order.
  std::sort(inputs.begin(), inputs.end());
  for (const std::filesystem::path &input : inputs) {
    std::ifstream stream(input, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(stream)),
                            std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", input.c_str(),
                 bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  std::printf("replayed %zu inputs\n", inputs.size());
  return 0;
}
