// Data-parallel training's cut of a batch, as the batch sources take it
// (data/batch_source.h, BatchSource::shard_with) and the compiled model makes it
// (CompiledModel::sharder): apart from the sources, so that a step's caller can name a
// shard without the Dataset API.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/tensor.h"

namespace strata {

// Where a process's batch sits in the step's global batch under data-parallel training
// (offset 0 and global 0: the batch is the whole batch).
struct BatchShard {
  std::int64_t offset = 0;
  std::int64_t global = 0;
};

// Cuts a global batch (x, y and w, which may be undefined) to this process's rows, or
// leaves a batch the process fed itself, and says where the rows sit.
using Sharder = std::function<BatchShard(std::vector<Tensor>& x, std::vector<Tensor>& y, Tensor& w)>;

}  // namespace strata
