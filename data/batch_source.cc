#include "data/batch_source.h"

#include "core/error.h"
#include "data/data_adapter.h"

namespace strata {

ArraySource::ArraySource(std::vector<Tensor> x, std::vector<Tensor> y, Tensor w, std::int64_t batch_size, bool shuffle,
                         std::uint64_t seed)
    : x_(std::move(x)), y_(std::move(y)), n_(x_.front().shape()[0]), batch_size_(batch_size), shuffle_(shuffle),
      seed_(seed) {
  if (w.defined()) w_.push_back(std::move(w));
}

void ArraySource::start(std::uint64_t pass, std::int64_t skip) {
  epoch_order_into(n_, shuffle_, seed_, static_cast<int>(pass), order_);
  batch_ = skip;
}

bool ArraySource::read(std::vector<Tensor>& x, std::vector<Tensor>& y, Tensor& w) {
  if (batch_ >= batches_per_pass()) return false;
  std::int64_t begin = batch_ * batch_size_, end = std::min(n_, begin + batch_size_);
  ++batch_;
  gather_batch(x_, order_, begin, end, x);
  if (!y_.empty()) gather_batch(y_, order_, begin, end, y);
  if (!w_.empty()) {
    gather_batch(w_, order_, begin, end, wb_);
    w = wb_[0];
  } else {
    w = Tensor();
  }
  return true;
}

DatasetSource::DatasetSource(Dataset dataset, std::function<std::vector<Tensor>(const std::vector<Tensor>&)> conform,
                             std::size_t outputs)
    : dataset_(std::move(dataset)), conform_(std::move(conform)), outputs_(outputs) {
  if (!dataset_.batched()) {
    throw ValueError("the Dataset given to fit / evaluate / predict must be batched: call .batch(batch_size) on it");
  }
}

void DatasetSource::start(std::uint64_t pass, std::int64_t skip) { it_ = resume(dataset_, {pass, skip}); }

bool DatasetSource::read(std::vector<Tensor>& x, std::vector<Tensor>& y, Tensor& w) {
  auto e = it_->next();
  if (!e) return false;
  const std::size_t nx = dataset_.x_count();
  x.assign(e->begin(), e->begin() + static_cast<std::ptrdiff_t>(nx));
  std::vector<Tensor> targets(e->begin() + static_cast<std::ptrdiff_t>(nx), e->end());
  w = Tensor();
  if (outputs_ > 0 && targets.size() == outputs_ + 1) {  // (x, y, sample_weight)
    const Tensor& sw = targets.back();
    Tensor f(Shape{sw.shape()[0]});
    if (sw.size() != sw.shape()[0]) {
      throw ShapeError("Dataset sample weights must be one per sample, got shape " + sw.shape().to_string());
    }
    for (std::int64_t i = 0; i < sw.size(); ++i) f.data<float>()[i] = sw.item(i);
    w = f;
    targets.pop_back();
  }
  y = targets.empty() || !conform_ ? targets : conform_(targets);
  return true;
}

}  // namespace strata
