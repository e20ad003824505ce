#include "data/data_adapter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "core/error.h"
#include "core/rng.h"

namespace strata {

namespace {

// Whether every value is finite. Branch-free within blocks so that it vectorizes: it
// runs on every batch given to fit, evaluate and predict, batch-1 calls included.
bool all_finite(const float* p, std::int64_t n) {
  constexpr std::uint32_t kExponent = 0x7f800000u;  // all ones: Inf or NaN
  constexpr std::int64_t kBlock = 1024;
  for (std::int64_t begin = 0; begin < n; begin += kBlock) {
    const std::int64_t end = std::min(n, begin + kBlock);
    std::uint32_t non_finite = 0;
    for (std::int64_t j = begin; j < end; ++j) {
      std::uint32_t bits;
      std::memcpy(&bits, p + j, sizeof bits);
      non_finite |= static_cast<std::uint32_t>((bits & kExponent) == kExponent);
    }
    if (non_finite) return false;
  }
  return true;
}

}  // namespace

std::int64_t check_arrays(const std::vector<Tensor>& arrays, const std::string& what) {
  if (arrays.empty()) throw ValueError(what + ": no arrays were given");
  std::int64_t n = -1;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const Tensor& t = arrays[i];
    // Built only for an error message: the checks themselves allocate nothing.
    auto name = [&] { return arrays.size() == 1 ? what : what + "[" + std::to_string(i) + "]"; };
    if (!t.defined() || t.rank() == 0) throw ValueError(name() + " must have a batch dimension");
    if (t.shape()[0] == 0) throw ValueError(name() + " is empty (0 samples)");
    if (n >= 0 && t.shape()[0] != n) {
      throw ValueError(what + " arrays disagree on the number of samples: " + std::to_string(n) + " and " +
                       std::to_string(t.shape()[0]));
    }
    n = t.shape()[0];
    if (t.dtype() == DType::float32 && !all_finite(t.data<float>(), t.size())) {
      const float* p = t.data<float>();
      const std::int64_t per_sample = t.size() / n;
      for (std::int64_t j = 0; j < t.size(); ++j) {
        if (!std::isfinite(p[j])) {
          throw ValueError(name() + " contains " + (std::isnan(p[j]) ? "NaN" : "Inf") + " at sample " +
                           std::to_string(j / per_sample) + " (flat index " + std::to_string(j) + ")");
        }
      }
    }
  }
  return n;
}

SplitArrays split_for_validation(const std::vector<Tensor>& x, const std::vector<Tensor>& y, double split) {
  if (split <= 0.0 || split >= 1.0) {
    throw ValueError("validation_split must be in (0, 1), got " + std::to_string(split));
  }
  std::int64_t n = x.front().shape()[0];
  auto split_at = static_cast<std::int64_t>(std::floor(static_cast<double>(n) * (1.0 - split)));
  if (split_at <= 0 || split_at >= n) {
    throw ValueError("validation_split=" + std::to_string(split) + " leaves no training or no validation samples out of " +
                     std::to_string(n));
  }
  SplitArrays s;
  for (const auto& t : x) {
    s.x_train.push_back(t.slice_rows(0, split_at));
    s.x_val.push_back(t.slice_rows(split_at, n));
  }
  for (const auto& t : y) {
    s.y_train.push_back(t.slice_rows(0, split_at));
    s.y_val.push_back(t.slice_rows(split_at, n));
  }
  return s;
}

std::vector<std::int64_t> epoch_order(std::int64_t n, bool shuffle, std::uint64_t seed, int epoch) {
  std::vector<std::int64_t> order;
  epoch_order_into(n, shuffle, seed, epoch, order);
  return order;
}

void epoch_order_into(std::int64_t n, bool shuffle, std::uint64_t seed, int epoch, std::vector<std::int64_t>& order) {
  order.resize(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  if (!shuffle) return;
  Philox rng(seed, static_cast<std::uint64_t>(epoch));
  for (std::int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
    auto bits = rng.bits(static_cast<std::uint64_t>(i));
    std::uint64_t r = (static_cast<std::uint64_t>(bits[0]) << 32) | bits[1];
    std::swap(order[i], order[r % static_cast<std::uint64_t>(i + 1)]);
  }
}

void gather_batch(const std::vector<Tensor>& arrays, const std::vector<std::int64_t>& order, std::int64_t begin,
                  std::int64_t end, std::vector<Tensor>& batch) {
  batch.resize(arrays.size());
  std::span<const std::int64_t> rows(order.data() + begin, static_cast<std::size_t>(end - begin));
  for (std::size_t i = 0; i < arrays.size(); ++i) arrays[i].gather_rows_into(rows, batch[i]);
}

}  // namespace strata
