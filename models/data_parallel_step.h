// What a data-parallel train or test step does across processes outside its graph, for
// compile's steps (models/compiled_model.h) and a CustomModel's own
// (models/custom_steps.h). The gradient all-reduce is in the step's graph
// (distribution/gradient_buckets.h); these cut each batch to the process's rows and start
// every process from process 0's variables.
#pragma once

#include <vector>

#include "core/tensor.h"
#include "core/variable.h"
#include "data/batch_shard.h"
#include "distribution/communicator.h"
#include "layers/layer.h"

namespace strata {

// With `auto_shard` (Keras's auto_shard_dataset), cuts a global batch (x, y and w, which
// may be undefined) to this process's contiguous share, the shares' sizes differing by at
// most one row; without it each process fed its own batch, whose place in the global
// batch comes from every process's row count. Either way says where the rows sit.
BatchShard shard_batch(distribution::Communicator& communicator, bool auto_shard, std::vector<Tensor>& x,
                       std::vector<Tensor>& y, Tensor& w);

// A step's metric statistic (a total, a count, confusion cells) travels as doubles in the
// sum over processes: its elements appended to `out`, then written back from `from` in
// its own dtype, returning where the next statistic's values start.
void append_statistic(const Tensor& statistic, std::vector<double>& out);
const double* assign_statistic(Tensor& statistic, const double* from);

// Refuses (NotImplementedError naming the layer) a model that cannot train under a
// DataParallel of `processes` processes: one of its layers, nested ones included, keeps
// state Keras shares between replicas (LayerImpl::data_parallel_refusal).
void refuse_layers_without_data_parallelism(const LayerImpl& model, int processes);

// Process 0's values of `variables` into every process's (a variable on a GPU travels
// through host memory).
void broadcast_variables(distribution::Communicator& communicator, const std::vector<Variable>& variables);

}  // namespace strata
