// Communicator: the process group a data-parallel job trains over — this process's
// index among `size` processes, and the collectives fit needs: the gradient all-reduce
// the train step's graph nodes start and wait for (core/collective.h), and blocking sums,
// broadcasts and gathers for metrics, starting weights and predict's results.
//
// Every collective either completes or throws strata::Error within the communicator's
// time limit (DataParallelOptions::timeout): a peer that died or hangs never leaves the
// others waiting forever. After a failure every later collective throws at once, and the
// process ends the job instead of waiting for peers at exit (distribution/mpi_world.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/collective.h"
#include "core/device.h"

namespace strata::distribution {

// What the gradient all-reduces of the train steps cost since the last reset: how many,
// how many bytes each process contributed, how long they were in flight (from the start
// node to completion) and how long the step's thread was blocked waiting for them. In
// flight minus blocked is the communication hidden behind the backward pass.
struct GradientTraffic {
  std::int64_t reductions = 0;
  std::int64_t bytes = 0;
  double in_flight_seconds = 0;
  double blocked_seconds = 0;
};

class Communicator : public Collective {
 public:
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // How many of the processes share this machine (this one included), and this one's
  // index among them.
  virtual int local_size() const = 0;
  virtual int local_rank() const = 0;
  // Sums `count` doubles over every process, in place.
  virtual void all_reduce_sum(double* data, std::int64_t count) = 0;
  // Copies `bytes` bytes at `data` from process `root` to every other process.
  virtual void broadcast(void* data, std::int64_t bytes, int root) = 0;
  // Concatenates every process's `bytes` bytes in process order into `out` (resized);
  // processes may give different sizes.
  virtual void all_gather(const void* data, std::int64_t bytes, std::vector<char>& out) = 0;
  virtual void barrier() = 0;
  // What this communicator runs over, for messages: "MPI (Open MPI 4.1.4), 2 processes".
  virtual std::string describe() const = 0;
  virtual GradientTraffic gradient_traffic() const = 0;
  virtual void reset_gradient_traffic() = 0;
  // The longest any later collective may wait for the other processes.
  virtual void set_timeout(std::chrono::milliseconds timeout) = 0;
  // Agrees with every other process how the train step's gradients are summed, this
  // process's model living on `device`: through NCCL when every process trains on a GPU
  // of its own (distribution/gpu_all_reduce_choice.h), else in host memory. A collective
  // call: every process makes it when it compiles a model for training, before any
  // gradient all-reduce (Collective::reduces_cuda_memory answers from it).
  virtual void choose_gradient_transport(const Device& device) = 0;
};

// The communicator of a job of one process: every collective is the identity.
class LocalCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_size() const override { return 1; }
  int local_rank() const override { return 0; }
  void start_all_reduce(float*, std::int64_t) override {}
  void wait_all_reduce(float*) override {}
  void all_reduce_sum(double*, std::int64_t) override {}
  void broadcast(void*, std::int64_t, int) override {}
  void all_gather(const void* data, std::int64_t bytes, std::vector<char>& out) override;
  void barrier() override {}
  std::string describe() const override { return "one process (no MPI)"; }
  GradientTraffic gradient_traffic() const override { return {}; }
  void reset_gradient_traffic() override {}
  void set_timeout(std::chrono::milliseconds) override {}
  void choose_gradient_transport(const Device&) override {}
};

}  // namespace strata::distribution
