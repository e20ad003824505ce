#include "distribution/gradient_buckets.h"

#include "core/ops/collective_ops.h"

namespace strata::distribution {

namespace {

// Indices into `gradients`, bucket by bucket, last gradients first.
std::vector<std::vector<std::size_t>> buckets_of(const std::vector<Output>& gradients, std::int64_t bucket_bytes) {
  std::vector<std::vector<std::size_t>> buckets;
  std::int64_t bytes = 0;
  for (std::size_t k = gradients.size(); k-- > 0;) {
    if (!gradients[k].valid()) continue;
    const std::int64_t size = gradients[k].shape().num_elements() * static_cast<std::int64_t>(sizeof(float));
    if (buckets.empty() || (bytes > 0 && bytes + size > bucket_bytes)) {
      buckets.emplace_back();
      bytes = 0;
    }
    buckets.back().push_back(k);
    bytes += size;
  }
  return buckets;
}

}  // namespace

std::vector<Output> all_reduce_gradients(Output batch, const std::vector<Output>& gradients,
                                         std::int64_t bucket_bytes) {
  std::vector<Output> reduced(gradients.size());
  for (const auto& bucket : buckets_of(gradients, bucket_bytes)) {
    std::vector<Output> values;
    for (std::size_t k : bucket) values.push_back(gradients[k]);
    std::vector<Output> sums = ops::all_reduce_wait(ops::all_reduce_start(batch, values), values);
    for (std::size_t i = 0; i < bucket.size(); ++i) reduced[bucket[i]] = sums[i];
  }
  return reduced;
}

std::size_t count_buckets(const std::vector<Output>& gradients, std::int64_t bucket_bytes) {
  return buckets_of(gradients, bucket_bytes).size();
}

}  // namespace strata::distribution
