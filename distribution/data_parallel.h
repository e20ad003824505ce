// Data-parallel training over processes, as Keras 3's keras.distribution.DataParallel:
//
//   distribution::set_distribution(distribution::DataParallel());   // before compile
//   model.compile({...});
//   model.fit(x, y, {.batch_size = 256, ...});                      // run under mpirun -np N
//
// Every process holds the whole model. compile() (under a DataParallel of more than one
// process) adds the gradient all-reduce to the train step as graph nodes, in buckets of
// about `bucket_bytes` that start while the backward pass still runs (core/ops/collective_ops.h).
// fit starts every process from process 0's variables, gives each process its
// deterministic share of every global batch (`batch_size` stays global, as in Keras),
// numbers each sample's dropout mask in the global batch and sums losses and metric
// statistics over processes, so the weights are those of one process training on the
// same global batches, up to float rounding; evaluate is global too, and predict runs
// each process on its share and gathers the results. Only process 0 prints progress and
// writes checkpoints, backups, CSV and TensorBoard files. See docs/distributed.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/device.h"
#include "distribution/communicator.h"

namespace strata::distribution {

struct DataParallelOptions {
  // As Keras: split each global batch across processes. false: each process's data is
  // already its shard (e.g. Dataset::shard(num_processes(), process_index())) and the
  // global batch is what all processes feed together.
  bool auto_shard_dataset = true;
  // Gradients travel in buckets of about this many bytes, each started as soon as the
  // backward pass has produced its gradients.
  std::int64_t bucket_bytes = 1 << 20;
  // The longest any collective may wait for the other processes before this process
  // stops with an error (a peer died or hangs) instead of waiting forever.
  std::chrono::milliseconds timeout = std::chrono::seconds(120);
};

class DataParallel {
 public:
  // Joins the job's process group (MPI_COMM_WORLD when built with MPI: initialized on
  // first use, finalized at exit), or a group of one process without MPI. When several
  // processes share a machine, each sizes its worker pool to its share of the cores.
  explicit DataParallel(DataParallelOptions options = {});

  const DataParallelOptions& options() const { return options_; }
  int process_index() const { return communicator_->rank(); }
  int num_processes() const { return communicator_->size(); }
  Communicator& communicator() const { return *communicator_; }
  // The device compile places a model on under this strategy when none is named
  // (CompileOptions::device): the process's default (core/device.h: STRATA_DEFAULT_DEVICE,
  // else the first GPU, else the CPU), except that without STRATA_DEFAULT_DEVICE the
  // processes sharing a machine take its GPUs in turn, one process per GPU
  // (spread_over_gpus), as each process of a data-parallel job trains on one.
  Device default_device() const;

 private:
  DataParallelOptions options_;
  Communicator* communicator_;  // the process-wide group (world()), which outlives every handle
};

// Keras's keras.distribution.set_distribution / distribution(): the strategy compile()
// uses from now on (std::nullopt: none, one process trains alone).
void set_distribution(std::optional<DataParallel> distribution);
std::optional<DataParallel> distribution();

// This process's index in the job and the job's size: 0 and 1 until a DataParallel has
// joined the process group. Only process 0 writes files (the callbacks ask is_chief()).
int process_index();
int num_processes();
inline bool is_chief() { return process_index() == 0; }

// The GPU the process of index `local_rank` among those of one machine trains on: the
// (local_rank mod count)-th CUDA device of `available`, or the CPU when there is none.
Device spread_over_gpus(const std::vector<Device>& available, int local_rank);

// Whether this build can run a job of several processes (built with MPI).
bool built_with_mpi();
// Whether this build can sum gradients on GPUs through NCCL (else through host memory).
bool built_with_nccl();

}  // namespace strata::distribution
