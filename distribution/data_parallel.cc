#include "distribution/data_parallel.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "core/cpu/parallel.h"
#include "core/error.h"
#ifdef STRATA_WITH_MPI
#include "distribution/mpi_communicator.h"
#endif

namespace strata::distribution {

namespace {

struct World {
  std::mutex mutex;
  std::unique_ptr<Communicator> communicator;  // made by the first DataParallel
  std::optional<DataParallel> current;          // set_distribution's
};

World& world() {
  static World w;
  return w;
}

Communicator& join(const DataParallelOptions& options) {
  World& w = world();
  std::lock_guard lock(w.mutex);
  if (!w.communicator) {
#ifdef STRATA_WITH_MPI
    w.communicator = std::make_unique<MpiCommunicator>(options.timeout);
#else
    w.communicator = std::make_unique<LocalCommunicator>();
#endif
  }
  w.communicator->set_timeout(options.timeout);
  return *w.communicator;
}

}  // namespace

DataParallel::DataParallel(DataParallelOptions options) : options_(options), communicator_(nullptr) {
  if (options_.bucket_bytes <= 0) {
    throw ValueError("DataParallel: bucket_bytes must be positive, got " + std::to_string(options_.bucket_bytes));
  }
  if (options_.timeout <= std::chrono::milliseconds(0)) throw ValueError("DataParallel: timeout must be positive");
  communicator_ = &join(options_);
  // Processes sharing a machine share its cores: each computes on its share, so that
  // N processes do not run N full-size worker pools against each other.
  if (const int local = communicator_->local_size(); local > 1) {
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    cpu::set_num_threads(std::max(1, cores / local));
  }
}

Device DataParallel::default_device() const {
  if (const char* told = std::getenv("STRATA_DEFAULT_DEVICE"); told && *told) return strata::default_device();
  return spread_over_gpus(available_devices(), communicator_->local_rank());
}

Device spread_over_gpus(const std::vector<Device>& available, int local_rank) {
  std::vector<Device> gpus;
  for (const Device& d : available) {
    if (d.type == DeviceType::cuda) gpus.push_back(d);
  }
  if (gpus.empty()) return {DeviceType::cpu, 0, "cpu"};
  return gpus[static_cast<std::size_t>(local_rank) % gpus.size()];
}

void set_distribution(std::optional<DataParallel> distribution) {
  World& w = world();
  std::lock_guard lock(w.mutex);
  w.current = std::move(distribution);
}

std::optional<DataParallel> distribution() {
  World& w = world();
  std::lock_guard lock(w.mutex);
  return w.current;
}

int process_index() {
  World& w = world();
  std::lock_guard lock(w.mutex);
  return w.communicator ? w.communicator->rank() : 0;
}

int num_processes() {
  World& w = world();
  std::lock_guard lock(w.mutex);
  return w.communicator ? w.communicator->size() : 1;
}

bool built_with_mpi() {
#ifdef STRATA_WITH_MPI
  return true;
#else
  return false;
#endif
}

bool built_with_nccl() {
#ifdef STRATA_WITH_NCCL
  return true;
#else
  return false;
#endif
}

}  // namespace strata::distribution
