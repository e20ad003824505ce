// Dataset sources backed by files (declared in data/dataset.h): .npy / .npz (io/npy.h),
// CSV and IDX, read by io/'s parsers.
#include "core/error.h"
#include "data/dataset.h"
#include "io/csv.h"
#include "io/idx.h"
#include "io/npy.h"

namespace strata {

namespace {

// A Dataset's NumPy arrays: integers as int64 (io/npy.h reads the narrow ones as int32).
Tensor as_element(const Tensor& t) {
  if (t.dtype() != DType::int32) return t;
  Tensor out(t.shape(), DType::int64);
  const std::int32_t* src = t.data<std::int32_t>();
  std::int64_t* dst = out.data<std::int64_t>();
  for (std::int64_t i = 0; i < t.size(); ++i) dst[i] = src[i];
  return out;
}

}  // namespace

Dataset Dataset::from_npy(const std::string& x_path, const std::string& y_path) {
  Tensor x = as_element(io::load_npy(x_path));
  if (y_path.empty()) return from_tensors(std::vector<Tensor>{x});
  return from_tensors(x, as_element(io::load_npy(y_path)));
}

Dataset Dataset::from_npz(const std::string& path, const std::string& x_key, const std::string& y_key) {
  const auto members = io::load_npz(path);
  auto get = [&](const std::string& key) {
    for (const auto& [name, t] : members) {
      if (name == key) return as_element(t);
    }
    std::string known;
    for (const auto& [name, t] : members) known += (known.empty() ? "'" : ", '") + name + "'";
    throw ValueError("'" + path + "' has no array '" + key + "'; it holds " + known);
  };
  Tensor x = get(x_key);
  if (y_key.empty()) return from_tensors(std::vector<Tensor>{x});
  return from_tensors(x, get(y_key));
}

Dataset Dataset::from_csv(const std::string& path, const CsvDatasetOptions& options) {
  io::CsvTable table = io::read_csv(path, {.header = options.header, .delimiter = options.delimiter});
  std::vector<std::string> features = options.columns;
  if (features.empty()) {
    for (const auto& c : table.columns) {
      if (c != options.label_column) features.push_back(c);
    }
  }
  Tensor x = table.select(features);
  if (options.label_column.empty()) return from_tensors(std::vector<Tensor>{x});
  Tensor y = table.select({options.label_column});
  return from_tensors(x, y.reshaped(Shape{table.rows}));
}

Dataset Dataset::from_idx(const std::string& images_path, const std::string& labels_path) {
  return from_tensors(io::read_idx_images(images_path), io::read_idx_labels(labels_path));
}

}  // namespace strata
