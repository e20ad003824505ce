// NcclAllReducer: sums float buffers in GPU memory over the processes of a data-parallel
// job through NCCL, for the train step's gradient all-reduce when it runs on a GPU
// (core/cuda/collective_kernels.h). Defined only in a build with STRATA_WITH_NCCL; this
// header is plain C++. The MPI communicator makes one when a model is compiled for
// training and every process trains on a GPU of its own
// (distribution/gpu_all_reduce_choice.h), with the unique id process 0 made and
// broadcast over MPI.
//
// A sum runs on the reducer's own stream, after the work the compute stream had enqueued
// when it started (an event), so the backward pass goes on meanwhile. Waiting polls the
// sum's completion and NCCL's asynchronous error against the job's time limit; a sum that
// fails or outlives the limit aborts the NCCL communicator and throws, so a dead peer
// never leaves a process waiting forever. After that every call throws.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct ncclComm;  // ncclComm_t is ncclComm* (nccl.h)

namespace strata::cuda {
class Event;
class Stream;
}  // namespace strata::cuda

namespace strata::distribution {

class NcclAllReducer {
 public:
  // NCCL's ncclUniqueId: what every member needs to find the others.
  using UniqueId = std::array<char, 128>;
  // A new id, made by one process (process 0) and given to every member.
  static UniqueId new_unique_id();
  // The GPU as "host/PCI bus id", for choose_gpu_all_reduce.
  static std::string describe_gpu(int device);
  // NCCL's version, as "NCCL 2.28.9".
  static std::string version();

  // Joins the NCCL communicator `id` names as member `rank` of `size`, on CUDA device
  // `device`. Every member calls it at the same time; throws strata::Error when NCCL
  // fails or the others have not joined within `timeout`.
  NcclAllReducer(const UniqueId& id, int rank, int size, int device, std::chrono::milliseconds timeout);
  // Leaves NCCL: politely when no sum is in flight (ncclCommFinalize, waiting for the
  // peers at most 10 s), else, or when that fails, by aborting the communicator. A call
  // that fails on the way is said on stderr (a destructor cannot throw).
  ~NcclAllReducer();
  NcclAllReducer(const NcclAllReducer&) = delete;
  NcclAllReducer& operator=(const NcclAllReducer&) = delete;

  int device() const { return device_; }
  // Starts summing `count` floats at `data` (memory of device()) over every member, in
  // place, once the work enqueued on `stream` (a cudaStream_t) so far has run. Returns
  // once NCCL has enqueued it; throws strata::Error when NCCL fails or has not enqueued
  // it within `timeout`.
  void start(float* data, std::int64_t count, void* stream, std::chrono::milliseconds timeout);
  // What a completed sum cost: the bytes this process gave, the seconds from start() to
  // when wait() saw it complete, and the seconds wait() blocked.
  struct Completed {
    std::int64_t bytes = 0;
    double in_flight_seconds = 0;
    double blocked_seconds = 0;
  };
  // Returns once the sum started on `data` has completed (and orders `stream`'s later
  // work after it). Throws strata::Error when the sum failed or did not complete within
  // `timeout` of this call.
  Completed wait(float* data, void* stream, std::chrono::milliseconds timeout);

 private:
  struct InFlight;
  // Polls NCCL until the communicator's last call has been enqueued (a nonblocking
  // communicator returns ncclInProgress first); aborts it and throws on error or at `deadline`.
  void settle(const char* what, std::chrono::steady_clock::time_point deadline);
  [[noreturn]] void fail(const std::string& message);

  int device_;
  int rank_, size_;
  ncclComm* comm_ = nullptr;
  std::unique_ptr<cuda::Stream> stream_;  // non-blocking: the sums run beside the compute stream
  std::map<const float*, std::unique_ptr<InFlight>> in_flight_;
  std::vector<std::unique_ptr<cuda::Event>> spare_events_;
  std::string failure_;  // set once a call failed: the communicator is aborted
};

}  // namespace strata::distribution
