#include "io/datasets.h"

#include <array>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "io/idx.h"

namespace strata::datasets::fashion_mnist {

namespace {

constexpr std::array<const char*, 4> kFiles = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                               "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};

// The file's path in `dir`, compressed or not; empty when neither exists.
std::string file_in(const std::filesystem::path& dir, const std::string& name) {
  std::error_code ec;
  for (const std::string& candidate : {name + ".gz", name}) {
    const auto p = dir / candidate;
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

bool holds_all_files(const std::filesystem::path& dir) {
  for (const char* name : kFiles) {
    if (file_in(dir, name).empty()) return false;
  }
  return true;
}

}  // namespace

std::string find_data_dir(const std::string& data_dir) {
  std::string base = data_dir;
  std::string source = "the data_dir argument";
  if (base.empty()) {
    if (const char* env = std::getenv("STRATA_DATA_DIR"); env && *env) {
      base = env;
      source = "$STRATA_DATA_DIR";
    } else {
      base = kDefaultDir;
      source = "the default directory";
    }
  }
  const std::filesystem::path dir(base);
  for (const auto& candidate : {dir, dir / "fashion-mnist"}) {
    if (holds_all_files(candidate)) return candidate.string();
  }
  throw IOError("Fashion-MNIST not found in '" + base + "' (" + source +
                "): expected train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
                "t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz (or uncompressed) there "
                "or in its fashion-mnist/ subdirectory. Install Debian's package with "
                "`sudo apt-get install dataset-fashion-mnist` (files go to " +
                std::string(kDefaultDir) + "), or set STRATA_DATA_DIR to a directory holding them");
}

TrainTestData load_data(const std::string& data_dir) {
  const std::filesystem::path dir(find_data_dir(data_dir));
  TrainTestData data;
  data.x_train = io::read_idx_images(file_in(dir, kFiles[0]));
  data.y_train = io::read_idx_labels(file_in(dir, kFiles[1]));
  data.x_test = io::read_idx_images(file_in(dir, kFiles[2]));
  data.y_test = io::read_idx_labels(file_in(dir, kFiles[3]));
  if (data.x_train.shape()[0] != data.y_train.shape()[0] ||
      data.x_test.shape()[0] != data.y_test.shape()[0]) {
    throw IOError("Fashion-MNIST in '" + dir.string() +
                  "' is inconsistent: " + std::to_string(data.x_train.shape()[0]) +
                  " train images but " + std::to_string(data.y_train.shape()[0]) + " labels, " +
                  std::to_string(data.x_test.shape()[0]) + " test images but " +
                  std::to_string(data.y_test.shape()[0]) + " labels");
  }
  return data;
}

}  // namespace strata::datasets::fashion_mnist
