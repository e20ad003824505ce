// BatchSource: the batches fit / evaluate / predict consume, from arrays or a Dataset,
// as a stream of passes: the one adapter every loop reads its data through. A pass is one
// epoch_order of the arrays (shuffled per pass) or one iteration of the Dataset;
// start(pass, skip) positions the stream, skipping batches already consumed (a resumed
// fit). Under data-parallel training the distribution's sharding plugs in here
// (shard_with): each batch is cut to this process's rows as it is taken, and the source
// says where those rows sit in the step's global batch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/tensor.h"
#include "data/batch_shard.h"
#include "data/dataset.h"

namespace strata {

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  virtual void start(std::uint64_t pass, std::int64_t skip) = 0;
  // The next batch of the pass into x, y (and w when the source has weights: else w is
  // left undefined), cut by the sharder when one is set; false at the end of the pass.
  bool next(std::vector<Tensor>& x, std::vector<Tensor>& y, Tensor& w) {
    if (!read(x, y, w)) return false;
    shard_ = sharder_ ? sharder_(x, y, w) : BatchShard{};
    return true;
  }
  // Where the last batch next() gave sits in the step's global batch.
  const BatchShard& shard() const { return shard_; }
  // Data-parallel training's cut, applied to every batch from now on (empty: none).
  void shard_with(Sharder sharder) { sharder_ = std::move(sharder); }
  // Batches in a pass; DatasetImpl::kUnknown / kInfinite when not known.
  virtual std::int64_t batches_per_pass() const = 0;

 protected:
  // The next whole batch of the pass, as next() says; false at its end.
  virtual bool read(std::vector<Tensor>& x, std::vector<Tensor>& y, Tensor& w) = 0;

 private:
  Sharder sharder_;
  BatchShard shard_;
};

class ArraySource : public BatchSource {
 public:
  // `y` and `w` may be empty / undefined.
  ArraySource(std::vector<Tensor> x, std::vector<Tensor> y, Tensor w, std::int64_t batch_size, bool shuffle,
              std::uint64_t seed);
  void start(std::uint64_t pass, std::int64_t skip) override;
  std::int64_t batches_per_pass() const override { return (n_ + batch_size_ - 1) / batch_size_; }
  void set_seed(std::uint64_t seed) { seed_ = seed; }

 protected:
  bool read(std::vector<Tensor>& x, std::vector<Tensor>& y, Tensor& w) override;

 private:
  std::vector<Tensor> x_, y_;
  std::vector<Tensor> w_;  // the sample weights, if any, as a one-array list for gather_batch
  std::int64_t n_, batch_size_;
  bool shuffle_;
  std::uint64_t seed_;
  std::vector<std::int64_t> order_;
  std::int64_t batch_ = 0;
  std::vector<Tensor> wb_;
};

// Batches of a batched Dataset: its first x_count components are x, then the targets
// (passed through `conform`, the compiled model's target conversion), and, as Keras's
// (x, y, sample_weight) tuples, one more component is the batch's per-sample weights.
class DatasetSource : public BatchSource {
 public:
  // `outputs`: the model's output count (0: every component after x is a target).
  DatasetSource(Dataset dataset, std::function<std::vector<Tensor>(const std::vector<Tensor>&)> conform,
                std::size_t outputs = 0);
  void start(std::uint64_t pass, std::int64_t skip) override;
  std::int64_t batches_per_pass() const override { return dataset_.cardinality(); }

 protected:
  bool read(std::vector<Tensor>& x, std::vector<Tensor>& y, Tensor& w) override;

 private:
  Dataset dataset_;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> conform_;
  std::size_t outputs_;
  std::unique_ptr<DatasetIterator> it_;
};

}  // namespace strata
