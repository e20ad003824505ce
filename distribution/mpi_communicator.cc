#include "distribution/mpi_communicator.h"

#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstring>

#include "core/error.h"
#include "distribution/gpu_all_reduce_choice.h"
#ifdef STRATA_WITH_NCCL
#include "distribution/nccl_all_reducer.h"
#endif

namespace strata::distribution {

struct MpiCommunicator::Job {
  std::string what;
  std::function<int(void* request)> start;  // issues the nonblocking call into *request
  bool done = false;
  std::string error;
  std::chrono::steady_clock::time_point submitted, completed;
  std::int64_t bytes = 0;  // a gradient all-reduce's contribution (read by its waiter only)
};

namespace {

std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

int checked_count(std::int64_t count, const char* what) {
  if (count < 0 || count > INT_MAX) {
    throw ValueError(std::string("distribution: ") + what + " of " + std::to_string(count) +
                     " elements is more than one MPI call takes");
  }
  return static_cast<int>(count);
}

}  // namespace

MpiCommunicator::MpiCommunicator(std::chrono::milliseconds timeout) : timeout_(timeout) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
      throw Error("distribution: MPI_Init_thread failed");
    }
    owns_mpi_ = true;
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      throw Error("distribution: this MPI library does not support MPI_THREAD_SERIALIZED (one communication thread)");
    }
  }
  // Errors come back as codes and become exceptions with the MPI library's message.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local = MPI_COMM_NULL;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
    MPI_Comm_size(local, &local_size_);
    MPI_Comm_rank(local, &local_rank_);
    MPI_Comm_free(&local);
  }
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  library_ = std::string(version, static_cast<std::size_t>(length));
  if (auto comma = library_.find(','); comma != std::string::npos) library_.resize(comma);
  thread_ = std::thread([this] { run(); });
}

MpiCommunicator::~MpiCommunicator() {
  nccl_.reset();  // leaves NCCL while MPI, and the peers, are still there
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
  if (!failure_.empty()) {
    // Peers may be dead: MPI_Finalize would wait for them. End the whole job instead.
    std::fprintf(stderr, "strata: process %d of %d ends the job: %s\n", rank_, size_, failure_.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (owns_mpi_) MPI_Finalize();
}

std::string MpiCommunicator::describe() const {
  std::string text = "MPI (" + library_ + "), " + std::to_string(size_) + " process" + (size_ == 1 ? "" : "es");
#ifdef STRATA_WITH_NCCL
  if (nccl_) text += ", gradients on GPUs over " + NcclAllReducer::version();
#endif
  return text;
}

void MpiCommunicator::record_failure(const std::string& error) {
  std::lock_guard lock(mutex_);
  if (failure_.empty()) failure_ = error;
}

void MpiCommunicator::set_timeout(std::chrono::milliseconds timeout) {
  std::lock_guard lock(mutex_);
  timeout_ = timeout;
}

std::shared_ptr<MpiCommunicator::Job> MpiCommunicator::submit(std::string what, std::function<int(void*)> start) {
  auto job = std::make_shared<Job>();
  job->what = std::move(what);
  job->start = std::move(start);
  job->submitted = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(job);
  }
  changed_.notify_all();
  return job;
}

void MpiCommunicator::wait(Job& job) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return job.done; });
  if (!job.error.empty()) throw Error(job.error);
}

// The communication thread: one collective at a time, in submission order (every
// process submits the same collectives in the same order), each polled with a deadline.
void MpiCommunicator::run() {
  for (;;) {
    std::shared_ptr<Job> job;
    std::chrono::milliseconds timeout;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      job = queue_.front();
      queue_.pop_front();
      timeout = timeout_;
      if (!failure_.empty()) {
        job->error = failure_;
        job->done = true;
        changed_.notify_all();
        continue;
      }
    }
    std::string error;
    MPI_Request request = MPI_REQUEST_NULL;
    int rc = job->start(&request);
    if (rc != MPI_SUCCESS) {
      error = "distribution: " + job->what + " failed on process " + std::to_string(rank_) + ": " + mpi_error(rc);
    } else {
      const auto begin = std::chrono::steady_clock::now();
      auto pause = std::chrono::microseconds(0);
      for (int flag = 0;;) {
        rc = MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
          error = "distribution: " + job->what + " failed on process " + std::to_string(rank_) + ": " + mpi_error(rc);
          break;
        }
        if (flag) break;
        const auto waited = std::chrono::steady_clock::now() - begin;
        if (waited > timeout) {
          error = "distribution: " + job->what + " did not complete within " +
                  std::to_string(std::chrono::duration<double>(timeout).count()) + " s on process " +
                  std::to_string(rank_) + " of " + std::to_string(size_) +
                  ": a peer process has died or stopped responding (DataParallelOptions::timeout)";
          break;
        }
        // Poll often while a transfer is young (MPI progresses only inside its calls),
        // then back off so a long wait leaves the cores to the computation.
        if (waited < std::chrono::microseconds(200)) {
          std::this_thread::yield();
        } else {
          pause = std::min(std::chrono::microseconds(1000), std::max(pause * 2, std::chrono::microseconds(20)));
          std::this_thread::sleep_for(pause);
        }
      }
    }
    const auto completed = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    if (!error.empty() && failure_.empty()) failure_ = error;
    job->completed = completed;
    job->error = error;
    job->done = true;
    changed_.notify_all();
  }
}

void MpiCommunicator::start_all_reduce(float* data, std::int64_t count) {
  const int n = checked_count(count, "a gradient all-reduce");
  auto job = submit("the gradient all-reduce of " + std::to_string(n) + " floats", [data, n](void* request) {
    return MPI_Iallreduce(MPI_IN_PLACE, data, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                          static_cast<MPI_Request*>(request));
  });
  job->bytes = count * static_cast<std::int64_t>(sizeof(float));
  std::lock_guard lock(mutex_);
  started_reduces_[data] = std::move(job);
}

void MpiCommunicator::wait_all_reduce(float* data) {
  std::shared_ptr<Job> job;
  {
    std::lock_guard lock(mutex_);
    auto it = started_reduces_.find(data);
    if (it == started_reduces_.end()) throw Error("distribution: waited for an all-reduce that was never started");
    job = std::move(it->second);
    started_reduces_.erase(it);
  }
  const auto begin = std::chrono::steady_clock::now();
  wait(*job);
  const auto end = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  traffic_.blocked_seconds += std::chrono::duration<double>(end - begin).count();
  traffic_.in_flight_seconds += std::chrono::duration<double>(job->completed - job->submitted).count();
  ++traffic_.reductions;
  traffic_.bytes += job->bytes;
}

GradientTraffic MpiCommunicator::gradient_traffic() const {
  std::lock_guard lock(mutex_);
  return traffic_;
}

void MpiCommunicator::reset_gradient_traffic() {
  std::lock_guard lock(mutex_);
  traffic_ = {};
}

void MpiCommunicator::all_reduce_sum(double* data, std::int64_t count) {
  const int n = checked_count(count, "an all-reduce");
  auto job = submit("a metrics all-reduce", [data, n](void* request) {
    return MPI_Iallreduce(MPI_IN_PLACE, data, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                          static_cast<MPI_Request*>(request));
  });
  wait(*job);
}

void MpiCommunicator::broadcast(void* data, std::int64_t bytes, int root) {
  const int n = checked_count(bytes, "a broadcast");
  auto job = submit("a broadcast from process " + std::to_string(root), [data, n, root](void* request) {
    return MPI_Ibcast(data, n, MPI_BYTE, root, MPI_COMM_WORLD, static_cast<MPI_Request*>(request));
  });
  wait(*job);
}

void MpiCommunicator::all_gather(const void* data, std::int64_t bytes, std::vector<char>& out) {
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(size_));
  std::int64_t mine = bytes;
  auto counted = submit("an all-gather of sizes", [&mine, &sizes](void* request) {
    return MPI_Iallgather(&mine, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, MPI_COMM_WORLD,
                          static_cast<MPI_Request*>(request));
  });
  wait(*counted);
  std::vector<int> counts, offsets;
  std::int64_t total = 0;
  for (std::int64_t s : sizes) {
    counts.push_back(checked_count(s, "an all-gather"));
    offsets.push_back(checked_count(total, "an all-gather"));
    total += s;
  }
  out.resize(static_cast<std::size_t>(total));
  const int n = checked_count(bytes, "an all-gather");
  auto gathered = submit("an all-gather", [&, n](void* request) {
    return MPI_Iallgatherv(data, n, MPI_BYTE, out.data(), counts.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD,
                           static_cast<MPI_Request*>(request));
  });
  wait(*gathered);
}

void MpiCommunicator::barrier() {
  auto job = submit("a barrier", [](void* request) {
    return MPI_Ibarrier(MPI_COMM_WORLD, static_cast<MPI_Request*>(request));
  });
  wait(*job);
}

std::chrono::milliseconds MpiCommunicator::timeout() const {
  std::lock_guard lock(mutex_);
  return timeout_;
}

bool MpiCommunicator::reduces_cuda_memory(int device) {
  if (device != gpu_device_) {
    throw Error("distribution: the processes agreed on how to sum gradients for " +
                (gpu_device_ < 0 ? std::string("a model on the CPU") : "cuda:" + std::to_string(gpu_device_)) +
                ", not for cuda:" + std::to_string(device) +
                " (compile the model under the DataParallel on every process)");
  }
  return nccl_ != nullptr;
}

// Every process comes here when it compiles a model for training, in the same order:
// the gather (and the broadcasts of NCCL's id) meet.
void MpiCommunicator::choose_gradient_transport(const Device& device) {
  std::string mine;  // empty: this process cannot sum its gradients through NCCL
#ifdef STRATA_WITH_NCCL
  if (device.type == DeviceType::cuda) {
    try {
      mine = NcclAllReducer::describe_gpu(device.index);
    } catch (const Error&) {  // still gathered with the others, who would wait for it otherwise
    }
  }
#endif
  const std::vector<char> record = encode_gpu_description(mine);
  std::vector<char> gathered;
  all_gather(record.data(), static_cast<std::int64_t>(record.size()), gathered);
  const GpuAllReduceChoice choice = choose_gpu_all_reduce(decode_gpu_descriptions(gathered));
  const int gpu = device.type == DeviceType::cuda ? device.index : -1;
  if (!choice.nccl) {
    nccl_.reset();
    gpu_device_ = gpu;
    if (gpu >= 0 && rank_ == 0) {
      std::fprintf(stderr, "strata: gradients on GPUs are summed through host memory over MPI: %s\n",
                   choice.reason.c_str());
    }
    return;
  }
#ifdef STRATA_WITH_NCCL
  // Compiled again on the same GPUs (the same gathered list, so every process decides
  // alike): each keeps its reducer.
  if (nccl_ && gathered == nccl_members_) return;
  nccl_.reset();
  gpu_device_ = -1;
  NcclAllReducer::UniqueId id{};
  std::string failed;  // process 0's failure to make the id, shared so that no process waits for NCCL in vain
  if (rank_ == 0) {
    try {
      id = NcclAllReducer::new_unique_id();
    } catch (const Error& e) {
      failed = e.what();
    }
  }
  char made = failed.empty() ? 1 : 0;
  broadcast(&made, 1, 0);
  if (!made) {
    const std::string error = rank_ == 0 ? failed : "distribution: process 0 could not make NCCL's unique id";
    record_failure(error);
    throw Error(error);
  }
  broadcast(id.data(), static_cast<std::int64_t>(id.size()), 0);
  try {
    nccl_ = std::make_shared<NcclAllReducer>(id, rank_, size_, gpu, timeout());
  } catch (const Error& e) {
    record_failure(e.what());
    throw;
  }
  nccl_members_ = gathered;
  gpu_device_ = gpu;
#else
  throw Error("distribution: the processes chose NCCL, which this build lacks");  // unreachable: it described no GPU
#endif
}

void MpiCommunicator::start_cuda_all_reduce(float* data, std::int64_t count, void* stream) {
#ifdef STRATA_WITH_NCCL
  if (!nccl_) return Collective::start_cuda_all_reduce(data, count, stream);
  {
    std::lock_guard lock(mutex_);
    if (!failure_.empty()) throw Error(failure_);
  }
  try {
    nccl_->start(data, count, stream, timeout());
  } catch (const Error& e) {
    record_failure(e.what());
    throw;
  }
#else
  Collective::start_cuda_all_reduce(data, count, stream);
#endif
}

void MpiCommunicator::wait_cuda_all_reduce(float* data, void* stream) {
#ifdef STRATA_WITH_NCCL
  if (!nccl_) return Collective::wait_cuda_all_reduce(data, stream);
  {
    std::lock_guard lock(mutex_);
    if (!failure_.empty()) throw Error(failure_);
  }
  NcclAllReducer::Completed sum;
  try {
    sum = nccl_->wait(data, stream, timeout());
  } catch (const Error& e) {
    record_failure(e.what());
    throw;
  }
  std::lock_guard lock(mutex_);
  traffic_.blocked_seconds += sum.blocked_seconds;
  traffic_.in_flight_seconds += sum.in_flight_seconds;
  ++traffic_.reductions;
  traffic_.bytes += sum.bytes;
#else
  Collective::wait_cuda_all_reduce(data, stream);
#endif
}

}  // namespace strata::distribution
