// The folders' layering (docs/architecture.md, "Layers of the code"), as far as includes
// show it: models/ and data/ include nothing from io/ (models reach files through
// models/model_files.h), data/ nothing from models/, and the folders below data/ nothing
// from data/, models/ or io/; distribution/ includes only core/; core/ nothing above it;
// core/ops (the op declarations) nothing of a device's folder, and the CPU's kernels
// nothing of CUDA. The tests read every #include, so a violation fails the suite.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace layering_test {

namespace fs = std::filesystem;

namespace {

// STRATA_TEST_DATA is <source root>/tests/data.
fs::path source_root() { return fs::path(STRATA_TEST_DATA).parent_path().parent_path(); }

// "file:line: #include ..." for every include in `folder` (recursively) of a header
// under one of `forbidden` ("io/", ...).
std::vector<std::string> forbidden_includes(const std::string& folder, const std::vector<std::string>& forbidden) {
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(source_root() / folder)) {
    const auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc" && ext != ".cu" && ext != ".cuh")) continue;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (line.rfind("#include \"", 0) != 0) continue;
      for (const auto& prefix : forbidden) {
        if (line.compare(10, prefix.size(), prefix) == 0) {
          found.push_back(fs::relative(entry.path(), source_root()).string() + ":" + std::to_string(n) + ": " + line);
        }
      }
    }
  }
  return found;
}

}  // namespace

TEST(Layering, SourceTreeIsFound) { EXPECT_TRUE(fs::exists(source_root() / "models" / "model_files.h")); }

TEST(Layering, ModelsIncludeNothingFromIo) {
  EXPECT_EQ(forbidden_includes("models", {"io/"}), std::vector<std::string>{});
}

TEST(Layering, DataIncludesNothingFromModelsOrIo) {
  EXPECT_EQ(forbidden_includes("data", {"models/", "io/"}), std::vector<std::string>{});
}

TEST(Layering, FoldersBelowDataIncludeNothingAboveThem) {
  for (const char* folder : {"core", "layers", "losses", "optimizers"}) {
    SCOPED_TRACE(folder);
    EXPECT_EQ(forbidden_includes(folder, {"data/", "models/", "io/"}), std::vector<std::string>{});
  }
}

// distribution/ sits on core/ alone: the engine reaches it only through core/collective.h,
// and core/ never names it.
TEST(Layering, DistributionIncludesOnlyCore) {
  EXPECT_EQ(forbidden_includes("distribution", {"layers/", "losses/", "optimizers/", "data/", "models/", "io/"}),
            std::vector<std::string>{});
  EXPECT_EQ(forbidden_includes("core", {"distribution/"}), std::vector<std::string>{});
}

// core/ is the bottom of the stack: nothing above it, and no program or tool.
TEST(Layering, CoreIncludesNothingAboveIt) {
  EXPECT_EQ(forbidden_includes("core", {"layers/", "losses/", "optimizers/", "data/", "models/", "io/", "serving/",
                                        "tools/", "examples/", "bench/", "strata.h"}),
            std::vector<std::string>{});
}

// An op is declared once in core/ops (shape, gradient, the parameters its kernels read);
// each device registers its kernels from its own folder (core/cpu/kernels/, core/cuda/).
TEST(Layering, OpDeclarationsIncludeNoDeviceCode) {
  EXPECT_EQ(forbidden_includes("core/ops", {"core/cuda/", "core/cpu/"}), std::vector<std::string>{});
}

// The CPU's kernels build and run without CUDA.
TEST(Layering, TheCpuDeviceIncludesNothingOfCuda) {
  EXPECT_EQ(forbidden_includes("core/cpu", {"core/cuda/"}), std::vector<std::string>{});
}

// Layers sit beneath models and files: io/ builds layers from configs, never the reverse.
TEST(Layering, LayersIncludeNoModelsFilesOrServing) {
  EXPECT_EQ(forbidden_includes("layers", {"models/", "io/", "data/", "distribution/", "serving/", "tools/",
                                          "examples/"}),
            std::vector<std::string>{});
}

// The programs share their flags parser through its own small target (tools/cli/flags.h,
// strata_flags), not by reaching into the examples: tools and benchmarks include nothing
// from examples/.
TEST(Layering, ToolsAndBenchmarksIncludeNothingFromExamples) {
  for (const char* folder : {"tools", "bench", "serving"}) {
    SCOPED_TRACE(folder);
    EXPECT_EQ(forbidden_includes(folder, {"examples/"}), std::vector<std::string>{});
  }
}

// Tensors, allocators, the device list and the execution state reach a device through the
// backend its folder registers (core/device_backend.h, core/device_run.h), never through
// its headers: no engine file includes core/cuda/ or names the CUDA namespace.
TEST(Layering, TheEngineReachesDevicesThroughTheirBackends) {
  std::vector<std::string> naming_cuda;
  for (const auto& entry : fs::directory_iterator(source_root() / "core")) {
    const auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
    std::ifstream in(entry.path());
    std::string line;
    bool names_cuda = false;
    while (std::getline(in, line)) {
      const std::string code = line.substr(0, line.find("//"));  // comments may name anything
      names_cuda = names_cuda || line.rfind("#include \"core/cuda/", 0) == 0 ||
                   code.find("cuda::") != std::string::npos || code.find("namespace cuda") != std::string::npos;
    }
    if (names_cuda) naming_cuda.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(naming_cuda, std::vector<std::string>{});
}

}  // namespace layering_test
