#include "models/data_parallel_step.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "core/error.h"

namespace strata {

BatchShard shard_batch(distribution::Communicator& communicator, bool auto_shard, std::vector<Tensor>& x,
                       std::vector<Tensor>& y, Tensor& w) {
  const std::int64_t rows = x.front().shape()[0];
  const auto rank = static_cast<std::int64_t>(communicator.rank());
  const auto size = static_cast<std::int64_t>(communicator.size());
  if (!auto_shard) {
    // Each process feeds its own batch: find where it sits from everyone's counts.
    std::vector<char> gathered;
    communicator.all_gather(&rows, sizeof rows, gathered);
    BatchShard shard;
    for (std::int64_t r = 0; r < size; ++r) {
      std::int64_t n = 0;
      std::memcpy(&n, gathered.data() + r * static_cast<std::int64_t>(sizeof n), sizeof n);
      if (r < rank) shard.offset += n;
      shard.global += n;
    }
    return shard;
  }
  const std::int64_t begin = rows * rank / size, end = rows * (rank + 1) / size;
  for (auto& t : x) t = t.slice_rows(begin, end);
  for (auto& t : y) t = t.slice_rows(begin, end);
  if (w.defined()) w = w.slice_rows(begin, end);
  return {begin, rows};
}

void append_statistic(const Tensor& statistic, std::vector<double>& out) {
  for (std::int64_t j = 0; j < statistic.size(); ++j) {
    switch (statistic.dtype()) {
      case DType::float32: out.push_back(statistic.data<float>()[j]); break;
      case DType::int32: out.push_back(statistic.data<std::int32_t>()[j]); break;
      case DType::int64: out.push_back(static_cast<double>(statistic.data<std::int64_t>()[j])); break;
      case DType::string: out.push_back(0.0); break;  // metrics compute numbers
    }
  }
}

const double* assign_statistic(Tensor& statistic, const double* from) {
  for (std::int64_t j = 0; j < statistic.size(); ++j, ++from) {
    switch (statistic.dtype()) {
      case DType::float32: statistic.data<float>()[j] = static_cast<float>(*from); break;
      case DType::int32: statistic.data<std::int32_t>()[j] = static_cast<std::int32_t>(*from); break;
      case DType::int64: statistic.data<std::int64_t>()[j] = static_cast<std::int64_t>(*from); break;
      case DType::string: break;
    }
  }
  return from;
}

void broadcast_variables(distribution::Communicator& communicator, const std::vector<Variable>& variables) {
  // Every process must hold the same variables, in the same order: a process whose step
  // was never built (its data had no batch) lacks the optimizer's slots, and the
  // broadcasts would pair one process's variable with another's. Checked by count and
  // bytes before any moves.
  std::int64_t mine[2] = {static_cast<std::int64_t>(variables.size()), 0};
  for (const Variable& v : variables) mine[1] += static_cast<std::int64_t>(v.value().nbytes());
  std::vector<char> gathered;
  communicator.all_gather(mine, sizeof mine, gathered);
  for (int r = 0; r < communicator.size(); ++r) {
    std::int64_t theirs[2];
    std::memcpy(theirs, gathered.data() + static_cast<std::size_t>(r) * sizeof theirs, sizeof theirs);
    if (theirs[0] != mine[0] || theirs[1] != mine[1]) {
      throw Error("data-parallel fit: process " + std::to_string(communicator.rank()) + " holds " +
                  std::to_string(mine[0]) + " variables (" + std::to_string(mine[1]) + " bytes), process " +
                  std::to_string(r) + " " + std::to_string(theirs[0]) + " (" + std::to_string(theirs[1]) +
                  " bytes): every process must build the same model and steps (does one process have no data?)");
    }
  }
  for (Variable v : variables) {
    // The collective moves host memory: a variable on a GPU goes through a copy.
    Tensor value = v.value().to(Device{});
    communicator.broadcast(value.raw_data(), static_cast<std::int64_t>(value.nbytes()), 0);
    if (!v.value().on_cpu()) v.assign(value);
  }
}

void refuse_layers_without_data_parallelism(const LayerImpl& model, int processes) {
  const std::string refusal = model.data_parallel_refusal();
  if (!refusal.empty()) {
    throw NotImplementedError(model.class_name() + " '" + model.name + "': " + refusal +
                              " under a DataParallel of " + std::to_string(processes) + " processes");
  }
  for (const Layer& sub : model.sublayers()) refuse_layers_without_data_parallelism(sub.impl(), processes);
}

}  // namespace strata
