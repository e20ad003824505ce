// MpiCommunicator: the Communicator of a job started by `mpirun`, over MPI_COMM_WORLD
// (Open MPI). Built only when CMake finds MPI (STRATA_WITH_MPI).
//
// One communication thread makes every MPI call (MPI_THREAD_SERIALIZED): it runs the
// collectives in the order they were asked for, each as a nonblocking MPI call that it
// polls to completion, so the train step's thread keeps computing while a gradient
// bucket travels, and a collective that does not complete within `timeout` fails with a
// message instead of hanging. After a failure the process aborts the job when the
// communicator is destroyed (MPI_Abort), since MPI_Finalize would wait for dead peers.
//
// Gradients on GPUs: when a model is compiled for training, the processes agree how to
// sum them (choose_gradient_transport, distribution/gpu_all_reduce_choice.h): through
// NCCL when every process trains on a GPU of its own and the build has NCCL
// (distribution/nccl_all_reducer.h, joined with the unique id process 0 broadcasts), else
// in host memory over MPI.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "distribution/communicator.h"

namespace strata::distribution {

class NcclAllReducer;  // distribution/nccl_all_reducer.h

class MpiCommunicator final : public Communicator {
 public:
  // Initializes MPI unless the program already did (then the program finalizes it).
  explicit MpiCommunicator(std::chrono::milliseconds timeout);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_size() const override { return local_size_; }
  int local_rank() const override { return local_rank_; }
  void start_all_reduce(float* data, std::int64_t count) override;
  void wait_all_reduce(float* data) override;
  bool reduces_cuda_memory(int device) override;
  void start_cuda_all_reduce(float* data, std::int64_t count, void* stream) override;
  void wait_cuda_all_reduce(float* data, void* stream) override;
  void all_reduce_sum(double* data, std::int64_t count) override;
  void broadcast(void* data, std::int64_t bytes, int root) override;
  void all_gather(const void* data, std::int64_t bytes, std::vector<char>& out) override;
  void barrier() override;
  std::string describe() const override;
  GradientTraffic gradient_traffic() const override;
  void reset_gradient_traffic() override;

  void set_timeout(std::chrono::milliseconds timeout) override;
  void choose_gradient_transport(const Device& device) override;

 private:
  struct Job;
  std::shared_ptr<Job> submit(std::string what, std::function<int(void* request)> start);
  void wait(Job& job);
  void run();
  void record_failure(const std::string& error);
  std::chrono::milliseconds timeout() const;

  int rank_ = 0, size_ = 1, local_size_ = 1, local_rank_ = 0;
  bool owns_mpi_ = false;
  std::string library_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::map<const float*, std::shared_ptr<Job>> started_reduces_;
  std::chrono::milliseconds timeout_;
  std::string failure_;  // set once a collective failed: every later one fails with it
  bool stopping_ = false;
  GradientTraffic traffic_;

  // GPU all-reduces, used by the train step's thread only: the GPU agreed on (-1: none,
  // or the model trains on the CPU), and NCCL's reducer when the processes chose it (a
  // shared_ptr, whose deleter is bound where it is made: a build without NCCL has none).
  int gpu_device_ = -1;
  std::shared_ptr<NcclAllReducer> nccl_;
  std::vector<char> nccl_members_;  // the gathered GPU descriptions nccl_ was made for
  std::thread thread_;
};

}  // namespace strata::distribution
