#include "distribution/nccl_all_reducer.h"

#include <cuda_runtime_api.h>
#include <nccl.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <iostream>
#include <thread>

#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"
#include "core/cuda/event.h"
#include "core/cuda/stream.h"
#include "core/error.h"

namespace strata::distribution {

static_assert(sizeof(ncclUniqueId) == sizeof(NcclAllReducer::UniqueId), "NCCL's unique id changed size");

struct NcclAllReducer::InFlight {
  std::unique_ptr<cuda::Event> ready;  // on the compute stream: the bucket is packed
  std::unique_ptr<cuda::Event> done;   // on the reducer's stream: the sum is in place
  std::chrono::steady_clock::time_point started;
  std::int64_t bytes = 0;
};

namespace {

std::string nccl_error(ncclResult_t result, ncclComm* comm) {
  std::string text = ncclGetErrorString(result);
  if (comm) {
    if (const char* last = ncclGetLastError(comm); last && *last) text += std::string(": ") + last;
  }
  return text;
}

// Short waits spin, long ones sleep: a sum of a few kilobytes completes in microseconds.
void pause(std::chrono::steady_clock::duration waited) {
  if (waited < std::chrono::microseconds(200)) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::microseconds(50));
}

}  // namespace

NcclAllReducer::UniqueId NcclAllReducer::new_unique_id() {
  ncclUniqueId id;
  if (ncclResult_t r = ncclGetUniqueId(&id); r != ncclSuccess) {
    throw Error("distribution: ncclGetUniqueId failed: " + nccl_error(r, nullptr));
  }
  UniqueId out;
  std::memcpy(out.data(), &id, sizeof id);
  return out;
}

std::string NcclAllReducer::describe_gpu(int device) {
  char bus[64] = {};
  cuda::check(cudaDeviceGetPCIBusId(bus, sizeof bus, device), "cudaDeviceGetPCIBusId");
  char host[HOST_NAME_MAX + 1] = {};
  gethostname(host, sizeof host - 1);
  return std::string(host) + "/" + bus;
}

std::string NcclAllReducer::version() {
  int code = 0;
  ncclGetVersion(&code);
  // NCCL 2.9 and later: major * 10000 + minor * 100 + patch.
  return "NCCL " + std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

NcclAllReducer::NcclAllReducer(const UniqueId& id, int rank, int size, int device, std::chrono::milliseconds timeout)
    : device_(device), rank_(rank), size_(size) {
  cuda::DeviceScope scope(device);
  stream_ = std::make_unique<cuda::Stream>(device, cuda::Stream::Kind::non_blocking);
  ncclUniqueId nccl_id;
  std::memcpy(&nccl_id, id.data(), sizeof nccl_id);
  // Nonblocking: joining (and every later call) returns at once, and settle() polls with
  // the job's time limit instead of waiting inside NCCL for peers that may be dead.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  const ncclResult_t r = ncclCommInitRankConfig(&comm, size, nccl_id, rank, &config);
  comm_ = comm;
  if (r != ncclSuccess && r != ncclInProgress) {
    fail("joining NCCL as process " + std::to_string(rank) + " of " + std::to_string(size) + " on cuda:" +
         std::to_string(device) + " failed: " + nccl_error(r, comm_));
  }
  settle("joining NCCL", std::chrono::steady_clock::now() + timeout);
}

NcclAllReducer::~NcclAllReducer() {
  if (!comm_) return;  // aborted after a failure
  // At process exit the CUDA runtime may be torn down before the process-wide communicator
  // that owns this: then the process is ending anyway, and NCCL must not touch CUDA.
  int current = 0;
  if (cudaGetDevice(&current) == cudaErrorCudartUnloading) return;
  cuda::DeviceScope scope(device_, std::nothrow);
  // A destructor cannot throw: what goes wrong while leaving is said on stderr, so that
  // a job that hangs or leaks at exit has a line to show for it.
  auto said = [this](const char* call, ncclResult_t r) {
    if (r != ncclSuccess) {
      std::cerr << "strata: process " << rank_ << " leaving NCCL: " << call << " failed: " << nccl_error(r, nullptr)
                << "\n";
    }
  };
  if (!in_flight_.empty()) {
    // A step that threw left sums unwaited for: a peer may never join them.
    said("ncclCommAbort", ncclCommAbort(comm_));
    return;
  }
  // Leaving politely needs the peers too: give them a while, then abort.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  ncclResult_t state = ncclCommFinalize(comm_);
  while (state == ncclInProgress && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (ncclCommGetAsyncError(comm_, &state) != ncclSuccess) break;
  }
  if (state == ncclSuccess) {
    said("ncclCommDestroy", ncclCommDestroy(comm_));
  } else {
    said(state == ncclInProgress ? "ncclCommFinalize (peers did not finish within 10 s)" : "ncclCommFinalize", state);
    said("ncclCommAbort", ncclCommAbort(comm_));
  }
}

void NcclAllReducer::fail(const std::string& message) {
  failure_ = "distribution: " + message;
  if (comm_) ncclCommAbort(comm_);
  comm_ = nullptr;
  throw Error(failure_);
}

void NcclAllReducer::settle(const char* what, std::chrono::steady_clock::time_point deadline) {
  const auto begin = std::chrono::steady_clock::now();
  for (;;) {
    ncclResult_t state = ncclSuccess;
    if (ncclResult_t r = ncclCommGetAsyncError(comm_, &state); r != ncclSuccess) state = r;
    if (state == ncclSuccess) return;
    if (state != ncclInProgress) {
      fail(std::string(what) + " failed on process " + std::to_string(rank_) + ": " + nccl_error(state, comm_));
    }
    const auto now = std::chrono::steady_clock::now();
    if (now > deadline) {
      fail(std::string(what) + " did not complete in time on process " + std::to_string(rank_) + " of " +
           std::to_string(size_) + ": a peer process has died or stopped responding (DataParallelOptions::timeout)");
    }
    pause(now - begin);
  }
}

void NcclAllReducer::start(float* data, std::int64_t count, void* stream, std::chrono::milliseconds timeout) {
  if (!failure_.empty()) throw Error(failure_);
  if (in_flight_.count(data)) throw Error("distribution: an all-reduce was started twice on one GPU buffer");
  cuda::DeviceScope scope(device_);
  auto take = [&] {
    if (spare_events_.empty()) return std::make_unique<cuda::Event>(device_);
    auto event = std::move(spare_events_.back());
    spare_events_.pop_back();
    return event;
  };
  auto sum = std::make_unique<InFlight>();
  sum->ready = take();
  sum->done = take();
  sum->started = std::chrono::steady_clock::now();
  sum->bytes = count * static_cast<std::int64_t>(sizeof(float));
  auto* compute = static_cast<CUstream_st*>(stream);
  sum->ready->record(compute);
  sum->ready->make_wait(stream_->get());
  const ncclResult_t r = ncclAllReduce(data, data, static_cast<std::size_t>(count), ncclFloat, ncclSum, comm_,
                                       stream_->get());
  if (r != ncclSuccess && r != ncclInProgress) {
    fail("the gradient all-reduce of " + std::to_string(count) + " floats failed on process " +
         std::to_string(rank_) + ": " + nccl_error(r, comm_));
  }
  if (r == ncclInProgress) settle("enqueuing the gradient all-reduce", std::chrono::steady_clock::now() + timeout);
  sum->done->record(stream_->get());
  in_flight_.emplace(data, std::move(sum));
}

NcclAllReducer::Completed NcclAllReducer::wait(float* data, void* stream, std::chrono::milliseconds timeout) {
  if (!failure_.empty()) throw Error(failure_);
  auto it = in_flight_.find(data);
  if (it == in_flight_.end()) throw Error("distribution: waited for a GPU all-reduce that was never started");
  std::unique_ptr<InFlight> sum = std::move(it->second);
  in_flight_.erase(it);
  cuda::DeviceScope scope(device_);
  const auto begin = std::chrono::steady_clock::now();
  for (;;) {
    bool done = false;
    try {
      done = sum->done->completed();
    } catch (const Error& e) {
      fail(std::string("the gradient all-reduce failed on process ") + std::to_string(rank_) + ": " + e.what());
    }
    if (done) break;
    ncclResult_t state = ncclSuccess;
    if (ncclResult_t r = ncclCommGetAsyncError(comm_, &state); r != ncclSuccess) state = r;
    if (state != ncclSuccess && state != ncclInProgress) {
      fail("the gradient all-reduce failed on process " + std::to_string(rank_) + ": " + nccl_error(state, comm_));
    }
    const auto waited = std::chrono::steady_clock::now() - begin;
    if (waited > timeout) {
      fail("the gradient all-reduce did not complete within " +
           std::to_string(std::chrono::duration<double>(timeout).count()) + " s on process " + std::to_string(rank_) +
           " of " + std::to_string(size_) +
           ": a peer process has died or stopped responding (DataParallelOptions::timeout)");
    }
    pause(waited);
  }
  const auto now = std::chrono::steady_clock::now();
  sum->done->make_wait(static_cast<CUstream_st*>(stream));
  spare_events_.push_back(std::move(sum->ready));
  spare_events_.push_back(std::move(sum->done));
  return {sum->bytes, std::chrono::duration<double>(now - sum->started).count(),
          std::chrono::duration<double>(now - begin).count()};
}

}  // namespace strata::distribution
