// The folder stack is the architecture (ARCHITECTURE.md, docs/architecture.md): a folder
// includes only from the folders beneath it. These tests read every source file's
// #include lines, so a violation fails the suite, naming the file, the line and the rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The source root: tests/data's grandparent.
fs::path source_root() { return fs::weakly_canonical(fs::path(STRATA_TEST_DATA) / ".." / ".."); }

struct Include {
  std::string file;  // relative to the source root
  int line = 0;
  std::string target;  // what is included, as written between the quotes
};

// Every quoted #include of the .h/.cc/.cu/.cuh files under `folder` (recursively).
std::vector<Include> includes_under(const std::string& folder) {
  static const std::regex include_line(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<Include> found;
  const fs::path root = source_root();
  for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cc" && ext != ".cu" && ext != ".cuh") continue;
    std::ifstream in(entry.path());
    std::string text;
    int number = 0;
    while (std::getline(in, text)) {
      ++number;
      std::smatch m;
      if (std::regex_search(text, m, include_line)) {
        found.push_back({fs::relative(entry.path(), root).string(), number, m[1].str()});
      }
    }
  }
  return found;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Fails for every include under `folder` whose target starts with one of `forbidden`.
void expect_no_includes(const std::string& folder, const std::vector<std::string>& forbidden,
                        const std::string& rule) {
  const std::vector<Include> includes = includes_under(folder);
  ASSERT_FALSE(includes.empty()) << "found no source under " << source_root() / folder;
  for (const Include& inc : includes) {
    for (const std::string& prefix : forbidden) {
      EXPECT_FALSE(starts_with(inc.target, prefix))
          << inc.file << ":" << inc.line << " includes \"" << inc.target << "\": " << rule;
    }
  }
}

}  // namespace

TEST(Layering, CoreIncludesNothingAboveIt) {
  expect_no_includes("core",
                     {"layers/", "models/", "io/", "data/", "distribution/", "losses/", "optimizers/", "serving/",
                      "tools/", "examples/", "bench/", "strata.h"},
                     "core is the bottom of the stack: tensors, graph, ops, devices");
}

TEST(Layering, OpDeclarationsIncludeNoDeviceCode) {
  expect_no_includes("core/ops", {"core/cuda/", "core/cpu/"},
                     "core/ops declares ops (shape, gradient, parameters); each device registers its kernels "
                     "from its own folder (core/cpu/kernels/, core/cuda/)");
}

TEST(Layering, TheCpuDeviceIncludesNothingOfCuda) {
  expect_no_includes("core/cpu", {"core/cuda/"}, "the CPU's kernels build and run without CUDA");
}

TEST(Layering, LayersIncludeNoModelsFilesOrData) {
  expect_no_includes("layers", {"models/", "io/", "data/", "distribution/", "serving/", "tools/", "examples/"},
                     "layers sit on core (and losses/optimizers' level), beneath models and files");
}
