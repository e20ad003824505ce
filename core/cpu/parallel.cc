#include "core/cpu/parallel.h"

#include <Eigen/Core>
#include <atomic>

namespace strata::cpu {

namespace {
// OpenMP's own default: the machine's cores, or OMP_NUM_THREADS when set.
std::atomic<int> g_threads{std::max(1, omp_get_max_threads())};
}  // namespace

int num_threads() { return g_threads; }

void set_num_threads(int n) {
  g_threads = n > 0 ? n : 1;
  Eigen::setNbThreads(g_threads);
  omp_set_num_threads(g_threads);
}

}  // namespace strata::cpu
