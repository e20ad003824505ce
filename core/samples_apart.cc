#include "core/samples_apart.h"

#include <cstdint>
#include <cstring>

#include "core/cpu/parallel.h"

namespace strata {

namespace {

std::int64_t batch_of(const std::vector<Tensor>& feeds) {
  if (feeds.empty()) return -1;
  std::int64_t batch = -1;
  for (const Tensor& f : feeds) {
    // Host tensors only: a sample is cut from the feed's bytes here (run() copies a device
    // tensor in itself).
    if (f.rank() < 1 || f.dtype() == DType::string || f.device().type != DeviceType::cpu) return -1;
    if (batch >= 0 && f.shape()[0] != batch) return -1;
    batch = f.shape()[0];
  }
  return batch;
}

// Each fetch of every sample one row of the same shape and a numeric dtype.
bool stackable(const std::vector<std::vector<Tensor>>& per_sample) {
  const std::vector<Tensor>& first = per_sample.front();
  for (const auto& sample : per_sample) {
    if (sample.size() != first.size()) return false;
    for (std::size_t k = 0; k < sample.size(); ++k) {
      const Tensor& t = sample[k];
      if (t.rank() < 1 || t.shape()[0] != 1 || t.dtype() == DType::string || t.dtype() != first[k].dtype() ||
          t.shape() != first[k].shape())
        return false;
    }
  }
  return true;
}

}  // namespace

bool can_run_samples_apart(const Program& program, const std::vector<Tensor>& feeds) {
  if (program.device().type != DeviceType::cpu || program.writes_variables()) return false;
  const int threads = cpu::num_threads();
  const std::int64_t batch = batch_of(feeds);
  return threads >= 2 && batch >= threads;
}

std::vector<Tensor> run_samples_apart(const Program& program, const std::vector<Tensor>& feeds) {
  if (!can_run_samples_apart(program, feeds)) return program.run(feeds);
  const std::int64_t batch = feeds.front().shape()[0];
  const int threads = cpu::num_threads();
  std::vector<std::vector<Tensor>> per_sample(static_cast<std::size_t>(batch));
  const auto run_sample = [&](std::int64_t s) {
    std::vector<Tensor> one;
    one.reserve(feeds.size());
    for (const Tensor& f : feeds) one.push_back(f.slice_rows(s, s + 1));
    per_sample[static_cast<std::size_t>(s)] = program.run(one);
  };
  // Thread t takes samples t, t + threads, ...: where the samples do not divide evenly, up
  // to threads / 2 left over run after on every thread (one sample on one thread each would
  // leave the others idle), more take one more turn in the tasks.
  const std::int64_t left_over = batch % threads;
  const std::int64_t in_tasks = 2 * left_over > threads ? batch : batch - left_over;
  // Inside a task the pool runs each kernel's own split on the task's thread (thread_pool.h).
  auto task = [&](int t) {
    for (std::int64_t s = t; s < in_tasks; s += threads) run_sample(s);
  };
  cpu::pool().run(threads, task);
  for (std::int64_t s = in_tasks; s < batch; ++s) run_sample(s);
  if (!stackable(per_sample)) return program.run(feeds);

  std::vector<Tensor> out;
  for (std::size_t k = 0; k < per_sample.front().size(); ++k) {
    const Tensor& row = per_sample.front()[k];
    Tensor stacked(row.shape().with_dim(0, batch), row.dtype());
    auto* to = static_cast<char*>(stacked.raw_data());
    for (std::int64_t s = 0; s < batch; ++s) {
      const Tensor& t = per_sample[static_cast<std::size_t>(s)][k];
      std::memcpy(to + static_cast<std::size_t>(s) * t.nbytes(), t.raw_data(), t.nbytes());
    }
    out.push_back(std::move(stacked));
  }
  return out;
}

}  // namespace strata
