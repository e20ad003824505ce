// The gradient all-reduce of a data-parallel train step, as graph nodes: the gradients
// are grouped into buckets of about `bucket_bytes`, last variables first (the backward
// pass produces the last layers' gradients first), and each bucket becomes one
// all_reduce_start / all_reduce_wait pair (core/ops/collective_ops.h). The Program
// starts a bucket as soon as its gradients exist and waits for it just before the first
// update that reads it, so buckets travel while the backward pass computes the rest.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace strata::distribution {

// One reduced gradient per entry of `gradients` (an invalid entry, a variable the loss
// does not depend on, stays invalid). `batch` is any fed input whose first dimension is
// this process's sample count.
std::vector<Output> all_reduce_gradients(Output batch, const std::vector<Output>& gradients,
                                         std::int64_t bucket_bytes);

// How many buckets all_reduce_gradients makes of these gradients (for reports and tests).
std::size_t count_buckets(const std::vector<Output>& gradients, std::int64_t bucket_bytes);

}  // namespace strata::distribution
