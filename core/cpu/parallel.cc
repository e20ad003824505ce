#include "core/cpu/parallel.h"

#include <omp.h>

#include <Eigen/Core>
#include <atomic>

namespace strata::cpu {

namespace {

// OpenMP's own default: the machine's cores, or OMP_NUM_THREADS when set.
int initial_threads() {
  // Our kernels split their work over the pool; Eigen threading inside a task would
  // oversubscribe the cores.
  Eigen::setNbThreads(1);
  return std::max(1, omp_get_max_threads());
}

std::atomic<int> g_threads{initial_threads()};

}  // namespace

int num_threads() { return g_threads; }

void set_num_threads(int n) { g_threads = n > 0 ? n : 1; }

}  // namespace strata::cpu
