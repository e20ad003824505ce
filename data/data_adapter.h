// Array data for fit / evaluate / predict: validation (sizes, emptiness, NaN), the
// validation split, shuffling, and batches gathered into reused buffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace strata {

// Throws ValueError when arrays are empty, disagree on the number of samples, or hold
// NaN/Inf; `what` names them in messages ("x", "y", "validation x").
std::int64_t check_arrays(const std::vector<Tensor>& arrays, const std::string& what);

// Keras's validation_split: the last floor-complement fraction, before any shuffling.
struct SplitArrays {
  std::vector<Tensor> x_train, y_train, x_val, y_val;
};
SplitArrays split_for_validation(const std::vector<Tensor>& x, const std::vector<Tensor>& y, double split);

// The sample order of an epoch: 0..n-1, or a permutation that depends only on
// (seed, epoch), so an interrupted run can reproduce it.
std::vector<std::int64_t> epoch_order(std::int64_t n, bool shuffle, std::uint64_t seed, int epoch);
// The same into `order`, reusing its capacity (a new pass of fit allocates nothing).
void epoch_order_into(std::int64_t n, bool shuffle, std::uint64_t seed, int epoch, std::vector<std::int64_t>& order);

// Gathers rows [begin, end) of `order` from every array into `batch` (buffers reused).
void gather_batch(const std::vector<Tensor>& arrays, const std::vector<std::int64_t>& order, std::int64_t begin,
                  std::int64_t end, std::vector<Tensor>& batch);

}  // namespace strata
