#include "core/cpu/parallel.h"

#include <Eigen/Core>
#include <thread>

namespace strata::cpu {

namespace {
int g_threads = [] {
  int n = static_cast<int>(std::thread::hardware_concurrency());
  return n > 0 ? n : 1;
}();
}  // namespace

int num_threads() { return g_threads; }

void set_num_threads(int n) {
  g_threads = n > 0 ? n : 1;
  Eigen::setNbThreads(g_threads);
  omp_set_num_threads(g_threads);
}

}  // namespace strata::cpu
