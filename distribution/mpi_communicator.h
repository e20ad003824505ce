// MpiCommunicator: the Communicator of a job started by `mpirun`, over MPI_COMM_WORLD
// (Open MPI). Built only when CMake finds MPI (STRATA_WITH_MPI).
//
// One communication thread makes every MPI call (MPI_THREAD_SERIALIZED): it runs the
// collectives in the order they were asked for, each as a nonblocking MPI call that it
// polls to completion, so the train step's thread keeps computing while a gradient
// bucket travels, and a collective that does not complete within `timeout` fails with a
// message instead of hanging. After a failure the process aborts the job when the
// communicator is destroyed (MPI_Abort), since MPI_Finalize would wait for dead peers.
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
  void start_all_reduce(float* data, std::int64_t count) override;
  void wait_all_reduce(float* data) override;
  void all_reduce_sum(double* data, std::int64_t count) override;
  void broadcast(void* data, std::int64_t bytes, int root) override;
  void all_gather(const void* data, std::int64_t bytes, std::vector<char>& out) override;
  void barrier() override;
  std::string describe() const override;
  GradientTraffic gradient_traffic() const override;
  void reset_gradient_traffic() override;

  void set_timeout(std::chrono::milliseconds timeout) override;

 private:
  struct Job;
  std::shared_ptr<Job> submit(std::string what, std::function<int(void* request)> start);
  void wait(Job& job);
  void run();

  int rank_ = 0, size_ = 1, local_size_ = 1;
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
  std::thread thread_;
};

}  // namespace strata::distribution
