// Sets the CPU worker pool's thread count for a scope and restores the process's count
// after, for tests that compare results or behaviour across thread counts.
#pragma once

#include "core/cpu/parallel.h"

namespace strata::testing {

struct ThreadCount {
  explicit ThreadCount(int n) : saved(cpu::num_threads()) { cpu::set_num_threads(n); }
  ~ThreadCount() { cpu::set_num_threads(saved); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;
  int saved;
};

}  // namespace strata::testing
