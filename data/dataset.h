// Dataset: an input pipeline in the spirit of tf.data, for fit / evaluate / predict.
//
//   auto train = Dataset::from_csv("train.csv", {.label_column = "label"})
//                    .shuffle(1024, /*seed=*/7).batch(32).prefetch(2);
//   model.fit(train, {.epochs = 5});
//
// A dataset yields elements: a list of tensors, the model's inputs first (x_count of
// them) then its targets. Sources give one element per row; batch(n) stacks n elements
// into one (the first axis is the batch). Everything is deterministic: iteration k of a
// dataset (fit's epoch k, or the k-th pass of repeat) always yields the same elements in
// the same order, shuffling included (the shuffle draws from Philox(seed, k)).
//
// Iteration state is (iteration, elements consumed): an iterator restored from a
// checkpoint replays iteration k from its start and skips what was consumed, so it
// yields exactly what the uninterrupted run would have (the replay costs one pass over
// the skipped elements; no shuffle buffer is stored).
//
// data/ sits between optimizers/ and models/: the pipeline needs only core/ (adapt, in
// data/adapt.h, also knows layers/). The sources that read files (from_npy, from_npz,
// from_csv, from_idx) are declared here, where users find them, and defined in
// io/dataset_files.cc beside the parsers they use; data/ includes no io/ header.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace strata {

using Element = std::vector<Tensor>;

class DatasetIterator {
 public:
  virtual ~DatasetIterator() = default;
  // The next element, or nullopt at the end of the iteration.
  virtual std::optional<Element> next() = 0;
};

class DatasetImpl {
 public:
  virtual ~DatasetImpl() = default;
  virtual std::unique_ptr<DatasetIterator> iterate(std::uint64_t iteration) const = 0;
  // Elements per iteration; kUnknown when it can't be told without iterating, kInfinite
  // for repeat().
  static constexpr std::int64_t kUnknown = -1, kInfinite = -2;
  virtual std::int64_t cardinality() const = 0;
  std::size_t x_count = 1;  // leading components that are model inputs
  bool batched = false;
};

struct CsvDatasetOptions {
  bool header = true;                 // the first line names the columns
  std::vector<std::string> columns;   // feature columns to keep (empty: all but the label)
  std::string label_column;           // empty: no targets
  char delimiter = ',';
};

class Dataset {
 public:
  Dataset() = default;
  explicit Dataset(std::shared_ptr<const DatasetImpl> impl) : impl_(std::move(impl)) {}

  // --- sources (one element per row of axis 0) -------------------------------------------
  // Keras's from_tensor_slices: x arrays then y arrays, all with the same first dimension.
  static Dataset from_tensors(std::vector<Tensor> x, std::vector<Tensor> y = {});
  static Dataset from_tensors(const Tensor& x, const Tensor& y);
  // File sources (defined in io/dataset_files.cc).
  // NumPy files, read by io/npy.h (little-endian, C order): floats as float32, integers
  // and bool as int64. y_path empty: inputs only.
  static Dataset from_npy(const std::string& x_path, const std::string& y_path = "");
  // A .npz archive (np.savez or np.savez_compressed) and the keys of x and y in it.
  static Dataset from_npz(const std::string& path, const std::string& x_key = "x", const std::string& y_key = "y");
  // A CSV file of numbers: features (float32, one vector per row) and an optional label
  // column (float32, shape ()). Throws IOError with the line and column of a ragged row
  // or a cell that is not a number.
  static Dataset from_csv(const std::string& path, const CsvDatasetOptions& options = {});
  // IDX images and labels (MNIST layout): x float32 raw values, y int64.
  static Dataset from_idx(const std::string& images_path, const std::string& labels_path);

  // --- transformations ---------------------------------------------------------------------
  Dataset map(std::function<Element(Element)> fn) const;
  // tf.data's shard: keeps the elements whose position p in each iteration has
  // p % num_shards == index, so num_shards workers taking indices 0..num_shards-1 see
  // every element exactly once. Shard before shuffle and batch, as tf.data advises (each
  // worker then shuffles and batches its own part); on a batched dataset it keeps every
  // num_shards-th batch. ValueError unless num_shards >= 1 and 0 <= index < num_shards.
  Dataset shard(std::int64_t num_shards, std::int64_t index) const;
  // tf.data's buffer shuffle, reshuffled every iteration (deterministic per seed and
  // iteration). buffer_size >= the dataset size gives a uniform permutation.
  Dataset shuffle(std::int64_t buffer_size, std::uint64_t seed) const;
  Dataset batch(std::int64_t batch_size, bool drop_remainder = false) const;
  // count < 0: forever. Pass r of iteration k is iteration k·1000003 + r of the input.
  Dataset repeat(std::int64_t count = -1) const;
  // Keeps the first complete iteration's elements in memory and serves later
  // iterations from there (like tf.data, a shuffle before cache() is frozen).
  Dataset cache() const;
  // Produces up to buffer_size elements ahead on a background thread.
  Dataset prefetch(std::int64_t buffer_size = 1) const;

  // --- iteration -----------------------------------------------------------------------------
  std::unique_ptr<DatasetIterator> iterate(std::uint64_t iteration = 0) const;
  std::int64_t cardinality() const { return impl().cardinality(); }
  std::size_t x_count() const { return impl().x_count; }
  bool batched() const { return impl().batched; }
  bool defined() const { return impl_ != nullptr; }
  const DatasetImpl& impl() const;

 private:
  std::shared_ptr<const DatasetImpl> impl_;
};

// Where an iteration over a dataset stands: enough to resume it exactly.
struct DatasetPosition {
  std::uint64_t iteration = 0;  // which iteration (fit: the pass index)
  std::int64_t consumed = 0;    // elements (batches, for a batched dataset) taken from it
};

// An iterator at `position` (replays and skips, see above).
std::unique_ptr<DatasetIterator> resume(const Dataset& dataset, const DatasetPosition& position);

}  // namespace strata
