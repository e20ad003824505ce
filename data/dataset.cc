#include "data/dataset.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "core/rng.h"

namespace strata {

namespace {

// One element per row of the components.
class TensorSource : public DatasetImpl {
 public:
  explicit TensorSource(std::vector<Tensor> components) : components_(std::move(components)) {
    if (components_.empty()) throw ValueError("Dataset::from_tensors: no arrays were given");
    n_ = -1;
    for (std::size_t i = 0; i < components_.size(); ++i) {
      const Tensor& t = components_[i];
      if (!t.defined() || t.rank() == 0) {
        throw ValueError("Dataset::from_tensors: array " + std::to_string(i) + " has no first dimension to slice");
      }
      if (n_ >= 0 && t.shape()[0] != n_) {
        throw ValueError("Dataset::from_tensors: arrays disagree on the number of rows: " + std::to_string(n_) +
                         " and " + std::to_string(t.shape()[0]) + " (array " + std::to_string(i) + ")");
      }
      n_ = t.shape()[0];
    }
  }
  std::int64_t cardinality() const override { return n_; }

  std::unique_ptr<DatasetIterator> iterate(std::uint64_t) const override {
    struct It : DatasetIterator {
      const TensorSource* self;
      std::int64_t i = 0;
      std::optional<Element> next() override {
        if (i >= self->n_) return std::nullopt;
        Element e;
        for (const auto& t : self->components_) {
          auto d = t.shape().dims();
          d.erase(d.begin());
          e.push_back(t.slice_rows(i, i + 1).reshaped(Shape(d)));
        }
        ++i;
        return e;
      }
    };
    auto it = std::make_unique<It>();
    it->self = this;
    return it;
  }

 private:
  std::vector<Tensor> components_;
  std::int64_t n_;
};

class Derived : public DatasetImpl {
 public:
  explicit Derived(std::shared_ptr<const DatasetImpl> input) : input_(std::move(input)) {
    x_count = input_->x_count;
    batched = input_->batched;
  }
  std::int64_t cardinality() const override { return input_->cardinality(); }

 protected:
  std::shared_ptr<const DatasetImpl> input_;
};

class MapDataset : public Derived {
 public:
  MapDataset(std::shared_ptr<const DatasetImpl> in, std::function<Element(Element)> fn)
      : Derived(std::move(in)), fn_(std::move(fn)) {}
  std::unique_ptr<DatasetIterator> iterate(std::uint64_t iteration) const override {
    struct It : DatasetIterator {
      std::unique_ptr<DatasetIterator> in;
      const std::function<Element(Element)>* fn;
      std::optional<Element> next() override {
        auto e = in->next();
        if (!e) return e;
        return (*fn)(std::move(*e));
      }
    };
    auto it = std::make_unique<It>();
    it->in = input_->iterate(iteration);
    it->fn = &fn_;
    return it;
  }

 private:
  std::function<Element(Element)> fn_;
};

class ShuffleDataset : public Derived {
 public:
  ShuffleDataset(std::shared_ptr<const DatasetImpl> in, std::int64_t buffer, std::uint64_t seed)
      : Derived(std::move(in)), buffer_(buffer), seed_(seed) {
    if (buffer <= 0) throw ValueError("Dataset::shuffle: buffer_size must be positive, got " + std::to_string(buffer));
  }
  std::unique_ptr<DatasetIterator> iterate(std::uint64_t iteration) const override {
    struct It : DatasetIterator {
      std::unique_ptr<DatasetIterator> in;
      std::vector<Element> buffer;
      std::int64_t capacity = 0;
      Philox rng{0, 0};
      std::uint64_t draws = 0;
      bool exhausted = false;
      void fill() {
        while (!exhausted && static_cast<std::int64_t>(buffer.size()) < capacity) {
          auto e = in->next();
          if (!e) {
            exhausted = true;
            break;
          }
          buffer.push_back(std::move(*e));
        }
      }
      std::optional<Element> next() override {
        fill();
        if (buffer.empty()) return std::nullopt;
        auto bits = rng.bits(draws++);
        std::uint64_t r = (static_cast<std::uint64_t>(bits[0]) << 32) | bits[1];
        std::size_t k = static_cast<std::size_t>(r % buffer.size());
        Element out = std::move(buffer[k]);
        buffer[k] = std::move(buffer.back());
        buffer.pop_back();
        return out;
      }
    };
    auto it = std::make_unique<It>();
    it->in = input_->iterate(iteration);
    it->capacity = buffer_;
    it->rng = Philox(mix_seed(seed_, iteration), stable_hash("Dataset.shuffle"));
    return it;
  }

 private:
  std::int64_t buffer_;
  std::uint64_t seed_;
};

// tf.data's shard: element p of each iteration is kept when p % num_shards == index.
class ShardDataset : public Derived {
 public:
  ShardDataset(std::shared_ptr<const DatasetImpl> in, std::int64_t num_shards, std::int64_t index)
      : Derived(std::move(in)), num_shards_(num_shards), index_(index) {
    if (num_shards < 1) {
      throw ValueError("Dataset::shard: num_shards must be at least 1, got " + std::to_string(num_shards));
    }
    if (index < 0 || index >= num_shards) {
      throw ValueError("Dataset::shard: index must be in [0, num_shards) = [0, " + std::to_string(num_shards) +
                       "), got " + std::to_string(index));
    }
  }
  // As tf.data: unknown and infinite stay so; else the positions p < n with
  // p % num_shards == index.
  std::int64_t cardinality() const override {
    std::int64_t n = input_->cardinality();
    if (n < 0) return n;
    return n / num_shards_ + (index_ < n % num_shards_ ? 1 : 0);
  }
  std::unique_ptr<DatasetIterator> iterate(std::uint64_t iteration) const override {
    struct It : DatasetIterator {
      std::unique_ptr<DatasetIterator> in;
      std::int64_t num_shards = 1, index = 0;
      std::int64_t position = 0;  // of the input's next element
      bool exhausted = false;
      std::optional<Element> next() override {
        while (!exhausted) {
          auto e = in->next();
          if (!e) break;
          if (position++ % num_shards == index) return e;
        }
        exhausted = true;
        return std::nullopt;
      }
    };
    auto it = std::make_unique<It>();
    it->in = input_->iterate(iteration);
    it->num_shards = num_shards_;
    it->index = index_;
    return it;
  }

 private:
  std::int64_t num_shards_, index_;
};

Tensor stack(const std::vector<Element>& elements, std::size_t component) {
  const Tensor& first = elements.front()[component];
  std::vector<std::int64_t> dims = first.shape().dims();
  dims.insert(dims.begin(), static_cast<std::int64_t>(elements.size()));
  Tensor out{Shape(dims), first.dtype()};
  char* dst = static_cast<char*>(out.raw_data());
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const Tensor& t = elements[i][component];
    if (t.shape() != first.shape() || t.dtype() != first.dtype()) {
      throw ShapeError("Dataset::batch: element " + std::to_string(i) + " component " + std::to_string(component) +
                       " has shape " + t.shape().to_string() + ", the batch's first has " + first.shape().to_string() +
                       " (elements of a batch must have equal shapes and dtypes)");
    }
    std::memcpy(dst + i * t.nbytes(), t.raw_data(), t.nbytes());
  }
  return out;
}

class BatchDataset : public Derived {
 public:
  BatchDataset(std::shared_ptr<const DatasetImpl> in, std::int64_t size, bool drop)
      : Derived(std::move(in)), size_(size), drop_(drop) {
    if (size <= 0) throw ValueError("Dataset::batch: batch_size must be positive, got " + std::to_string(size));
    if (batched) throw ValueError("Dataset::batch: the dataset is already batched");
    batched = true;
  }
  std::int64_t cardinality() const override {
    std::int64_t n = input_->cardinality();
    if (n < 0) return n;
    return drop_ ? n / size_ : (n + size_ - 1) / size_;
  }
  std::unique_ptr<DatasetIterator> iterate(std::uint64_t iteration) const override {
    struct It : DatasetIterator {
      std::unique_ptr<DatasetIterator> in;
      std::int64_t size = 0;
      bool drop = false;
      std::optional<Element> next() override {
        std::vector<Element> items;
        while (static_cast<std::int64_t>(items.size()) < size) {
          auto e = in->next();
          if (!e) break;
          items.push_back(std::move(*e));
        }
        if (items.empty() || (drop && static_cast<std::int64_t>(items.size()) < size)) return std::nullopt;
        Element out;
        for (std::size_t c = 0; c < items.front().size(); ++c) out.push_back(stack(items, c));
        return out;
      }
    };
    auto it = std::make_unique<It>();
    it->in = input_->iterate(iteration);
    it->size = size_;
    it->drop = drop_;
    return it;
  }

 private:
  std::int64_t size_;
  bool drop_;
};

class RepeatDataset : public Derived {
 public:
  RepeatDataset(std::shared_ptr<const DatasetImpl> in, std::int64_t count) : Derived(std::move(in)), count_(count) {}
  std::int64_t cardinality() const override {
    std::int64_t n = input_->cardinality();
    if (count_ < 0) return n == 0 ? 0 : kInfinite;
    return n < 0 ? n : n * count_;
  }
  std::unique_ptr<DatasetIterator> iterate(std::uint64_t iteration) const override {
    struct It : DatasetIterator {
      const RepeatDataset* self;
      std::uint64_t iteration = 0;
      std::int64_t pass = 0;
      bool pass_empty = true;
      std::unique_ptr<DatasetIterator> in;
      std::optional<Element> next() override {
        while (self->count_ < 0 || pass < self->count_) {
          if (!in) {
            in = self->input_->iterate(iteration * 1000003 + static_cast<std::uint64_t>(pass));
            pass_empty = true;
          }
          auto e = in->next();
          if (e) {
            pass_empty = false;
            return e;
          }
          if (pass_empty) return std::nullopt;  // an empty input would loop forever
          in.reset();
          ++pass;
        }
        return std::nullopt;
      }
    };
    auto it = std::make_unique<It>();
    it->self = this;
    it->iteration = iteration;
    return it;
  }

 private:
  std::int64_t count_;
};

class CacheDataset : public Derived {
 public:
  using Derived::Derived;
  std::unique_ptr<DatasetIterator> iterate(std::uint64_t iteration) const override {
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      if (state_->complete) {
        struct Cached : DatasetIterator {
          std::shared_ptr<const std::vector<Element>> items;
          std::size_t i = 0;
          std::optional<Element> next() override {
            if (i >= items->size()) return std::nullopt;
            return (*items)[i++];
          }
        };
        auto it = std::make_unique<Cached>();
        it->items = state_->items;
        return it;
      }
    }
    struct Filling : DatasetIterator {
      std::unique_ptr<DatasetIterator> in;
      std::shared_ptr<State> state;
      std::vector<Element> seen;
      bool done = false;
      std::optional<Element> next() override {
        if (done) return std::nullopt;
        auto e = in->next();
        if (e) {
          seen.push_back(*e);
          return e;
        }
        done = true;
        std::lock_guard<std::mutex> lock(state->mutex);
        if (!state->complete) {
          state->items = std::make_shared<const std::vector<Element>>(std::move(seen));
          state->complete = true;
        }
        return std::nullopt;
      }
    };
    auto it = std::make_unique<Filling>();
    it->in = input_->iterate(iteration);
    it->state = state_;
    return it;
  }

 private:
  struct State {
    std::mutex mutex;
    bool complete = false;
    std::shared_ptr<const std::vector<Element>> items;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

class PrefetchDataset : public Derived {
 public:
  PrefetchDataset(std::shared_ptr<const DatasetImpl> in, std::int64_t size) : Derived(std::move(in)), size_(size) {
    if (size <= 0) throw ValueError("Dataset::prefetch: buffer_size must be positive, got " + std::to_string(size));
  }
  std::unique_ptr<DatasetIterator> iterate(std::uint64_t iteration) const override {
    return std::make_unique<It>(input_->iterate(iteration), static_cast<std::size_t>(size_));
  }

 private:
  // A producer thread fills a bounded queue; an exception there is rethrown by next().
  class It : public DatasetIterator {
   public:
    It(std::unique_ptr<DatasetIterator> in, std::size_t capacity) : in_(std::move(in)), capacity_(capacity) {
      worker_ = std::thread([this] { produce(); });
    }
    ~It() override {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
      }
      cv_.notify_all();
      worker_.join();
    }
    std::optional<Element> next() override {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return !queue_.empty() || finished_; });
      if (!queue_.empty()) {
        Element e = std::move(queue_.front());
        queue_.pop_front();
        cv_.notify_all();
        return e;
      }
      if (error_) std::rethrow_exception(error_);
      return std::nullopt;
    }

   private:
    void produce() {
      try {
        while (true) {
          {
            std::unique_lock<std::mutex> lock(mutex_);
            cv_.wait(lock, [this] { return queue_.size() < capacity_ || stop_; });
            if (stop_) break;
          }
          auto e = in_->next();
          std::lock_guard<std::mutex> lock(mutex_);
          if (!e) break;
          queue_.push_back(std::move(*e));
          cv_.notify_all();
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        error_ = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex_);
      finished_ = true;
      cv_.notify_all();
    }

    std::unique_ptr<DatasetIterator> in_;
    std::size_t capacity_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<Element> queue_;
    bool stop_ = false, finished_ = false;
    std::exception_ptr error_;
    std::thread worker_;
  };
  std::int64_t size_;
};

}  // namespace

const DatasetImpl& Dataset::impl() const {
  if (!impl_) throw ValueError("use of an undefined Dataset (default-constructed handle)");
  return *impl_;
}

Dataset Dataset::from_tensors(std::vector<Tensor> x, std::vector<Tensor> y) {
  std::size_t x_count = x.size();
  if (x_count == 0) throw ValueError("Dataset::from_tensors: no x arrays were given");
  x.insert(x.end(), y.begin(), y.end());
  auto impl = std::make_shared<TensorSource>(std::move(x));
  impl->x_count = x_count;
  return Dataset(impl);
}

Dataset Dataset::from_tensors(const Tensor& x, const Tensor& y) {
  return from_tensors(std::vector<Tensor>{x}, y.defined() ? std::vector<Tensor>{y} : std::vector<Tensor>{});
}

Dataset Dataset::map(std::function<Element(Element)> fn) const {
  if (!fn) throw ValueError("Dataset::map: the function is empty");
  return Dataset(std::make_shared<MapDataset>(impl_, std::move(fn)));
}
Dataset Dataset::shard(std::int64_t num_shards, std::int64_t index) const {
  return Dataset(std::make_shared<ShardDataset>(impl_, num_shards, index));
}
Dataset Dataset::shuffle(std::int64_t buffer_size, std::uint64_t seed) const {
  return Dataset(std::make_shared<ShuffleDataset>(impl_, buffer_size, seed));
}
Dataset Dataset::batch(std::int64_t batch_size, bool drop_remainder) const {
  return Dataset(std::make_shared<BatchDataset>(impl_, batch_size, drop_remainder));
}
Dataset Dataset::repeat(std::int64_t count) const { return Dataset(std::make_shared<RepeatDataset>(impl_, count)); }
Dataset Dataset::cache() const { return Dataset(std::make_shared<CacheDataset>(impl_)); }
Dataset Dataset::prefetch(std::int64_t buffer_size) const {
  return Dataset(std::make_shared<PrefetchDataset>(impl_, buffer_size));
}

std::unique_ptr<DatasetIterator> Dataset::iterate(std::uint64_t iteration) const {
  // The iterator keeps the pipeline alive (stages refer to their inputs).
  struct Holder : DatasetIterator {
    std::shared_ptr<const DatasetImpl> keep;
    std::unique_ptr<DatasetIterator> it;
    std::optional<Element> next() override { return it->next(); }
  };
  auto h = std::make_unique<Holder>();
  h->keep = impl_;
  h->it = impl().iterate(iteration);
  return h;
}

std::unique_ptr<DatasetIterator> resume(const Dataset& dataset, const DatasetPosition& position) {
  auto it = dataset.iterate(position.iteration);
  for (std::int64_t i = 0; i < position.consumed; ++i) {
    if (!it->next()) {
      throw ValueError("Dataset: cannot resume at element " + std::to_string(position.consumed) + " of iteration " +
                       std::to_string(position.iteration) + ": the iteration has only " + std::to_string(i) +
                       " elements (is this the same dataset?)");
    }
  }
  return it;
}

}  // namespace strata
